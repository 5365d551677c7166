/* cli_capacity.c - capacity inferred from a log, as node events
 * (cli_capacity.h). */
#include "cli/cli_capacity.h"
#include "cli/cli.h"

#include <stdio.h>

int cli_cap_opt(struct cli_cap_args *a, int c, const char *val)
{
    switch (c) {
    case 'e': a->events_out = val; return 1;
    case 'W':
        return cli_parse_long("import", "--cap-window", val, 60, 1e8, &a->window) < 0 ? -1 : 1;
    case 'U':
        return cli_parse_long("import", "--cap-users", val, 1, 1000, &a->users) < 0 ? -1 : 1;
    case 'Q':
        return cli_parse_double("import", "--cap-quantile", val, 0, 1, &a->quantile) < 0 ? -1
                                                                                         : 1;
    default: return 0;
    }
}

int cli_cap_write(const struct cli_cap_args *a, const struct gs_cap_record *v, size_t n,
                  int node_gpus, int nodes, const char *prefix, char *const *names)
{
    struct gs_cap_params p;
    gs_cap_defaults(&p);
    p.node_gpus = node_gpus;
    p.max_nodes = nodes;
    if (a->window > 0)
        p.window = a->window;
    if (a->users > 0)
        p.min_users = (int)a->users;
    if (a->quantile >= 0)
        p.quantile = a->quantile;
    struct gs_cap_result c;
    struct gs_error err = { 0 };
    if (gs_cap_infer(v, n, &p, &c, &err) < 0)
        return cli_fail("import", &err);
    FILE *f = cli_open_out("import", a->events_out);
    int st = f ? 0 : 1;
    if (f) {
        int rc = names ? gs_cap_write_node_events_named(f, &c, names, nodes, 0, &err)
                       : gs_cap_write_node_events(f, &c, nodes, prefix, 0, &err);
        st = cli_close("import", f, a->events_out);
        if (rc < 0)
            st = cli_failf("import", 1, "%s: %s", a->events_out, err.msg);
    }
    if (st == 0)
        fprintf(stderr,
                "capacity: %d steps, %d-%d nodes outside %d outages (%.1f h); %d of %d "
                "%.0f h windows saturated; usage above it: %.1f GPU-h over %.1f h (at most %d "
                "GPUs)\n",
                c.nsteps, c.min_nodes, c.max_nodes, c.outages, (double)c.outage_s / 3600,
                c.saturated, c.windows, (double)p.window / 3600, c.over_gpu_s / 3600,
                (double)c.over_s / 3600, c.over_max);
    gs_cap_result_fini(&c);
    return st;
}
