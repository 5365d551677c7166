/* cmd_gen.c - `gpusched gen`: seeded synthetic workload traces. */
#include "cli/cli.h"
#include "cli/cli_out.h"
#include "cli/cli_load.h"
#include "io/node_events_csv.h"
#include "io/trace_csv.h"
#include "sim/gen.h"

#include <stdlib.h>
#include <string.h>

static const char *const gen_help =
    "usage: gpusched gen --jobs N --seed S --cluster C.yaml [--load 0.8]\n"
    "                    [--teams 4] [--templates 48] [--mix 1:50,2:25,4:10,8:15]\n"
    "                    [--infer-share X] [--infer-median 60s] [--infer-gpu 1]\n"
    "                    [--infer-priority 10] [--ckpt-interval 30m] [--ckpt-cost 1m]\n"
    "                    [--ckpt-share 1] [--out T.csv]\n"
    "                    [--mtbf D --repair D --node-events-out E.csv]\n"
    "\n"
    "Write a synthetic trace (stdout by default): Poisson arrivals at a rate that\n"
    "offers `load` x the cluster's GPUs, GPU counts from the size mix, log-normal\n"
    "run times per job template (user + name), teams, and user time limits that\n"
    "over-declare the run time (median 3x).  Same seed, same trace.\n"
    "\n"
    "  --mix LIST     GPUS:WEIGHT[:MEDIAN] entries; MEDIAN is a duration (30m, 3h)\n"
    "                 defaults 1:50:30m,2:25:45m,4:10:1h,8:15:3h\n"
    "\n"
    "Mixed training + inference (docs/preemption.md):\n"
    "  --infer-share X      share X in [0, 1) of the jobs are inference (class infer):\n"
    "                       short (log-normal around --infer-median), one GPU or\n"
    "                       --infer-gpu F of one, priority --infer-priority\n"
    "  --ckpt-interval D    training jobs checkpoint every D of work (0 = never)\n"
    "  --ckpt-cost D        each checkpoint takes D (default 1m)\n"
    "  --ckpt-share X       share of training job kinds that checkpoint (default 1)\n"
    "\n"
    "Random node failures (docs/formats.md, node events):\n"
    "  --mtbf D             each node fails after an exponential up time of mean D\n"
    "  --gpu-mtbf D         each GPU fails on its own too (mean up time D; only\n"
    "                       that GPU goes down: a gpu column), with or without --mtbf\n"
    "  --repair D           and is back D later (default 1h)\n"
    "  --node-events-out F  write the failures there (time,node,state), up to the\n"
    "                       trace's last submission plus its longest job; for\n"
    "                       `sim --node-events F`.  Seeded like the trace.\n";

static int parse_mix(const char *text, struct gs_gen_opts *o)
{
    char buf[512];
    size_t len = strlen(text);
    if (len >= sizeof buf)
        return cli_failf("gen", -1, "--mix: too long");
    memcpy(buf, text, len + 1);
    o->nsizes = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (o->nsizes == GS_GEN_MAX_SIZES)
            return cli_failf("gen", -1, "--mix: at most %d sizes", GS_GEN_MAX_SIZES);
        char *w = strchr(tok, ':'), *m = w ? strchr(w + 1, ':') : NULL;
        if (!w)
            return cli_failf("gen", -1, "--mix: '%s' is not GPUS:WEIGHT[:MEDIAN]", tok);
        *w++ = '\0';
        if (m)
            *m++ = '\0';
        long long g;
        double wt;
        gs_time med = gs_time_from_sec(o->median_s[o->nsizes < 4 ? o->nsizes : 3]);
        if (cli_parse_long("gen", "--mix gpus", tok, 1, 4096, &g) < 0 ||
            cli_parse_double("gen", "--mix weight", w, 0, 1e9, &wt) < 0)
            return -1;
        if (m && (gs_parse_duration(m, &med) < 0 || med <= 0))
            return cli_failf("gen", -1, "--mix: '%s' is not a duration", m);
        o->sizes[o->nsizes] = (int)g;
        o->weights[o->nsizes] = wt;
        o->median_s[o->nsizes] = gs_time_to_sec(med);
        o->nsizes++;
    }
    return 0;
}

struct gen_args {
    const char *cluster, *out, *events_out;
    struct gs_gen_opts o;
    double mtbf_s, repair_s, gpu_mtbf_s;
    int have_jobs, have_seed;
};

static int parse_sec(const char *opt, const char *text, double *out)
{
    gs_time t;
    if (gs_parse_duration(text, &t) < 0)
        return cli_failf("gen", -1, "%s: '%s' is not a duration (30s, 30m, 4h)", opt, text);
    *out = gs_time_to_sec(t);
    return 0;
}

/* An int option in [min, max]. */
static int parse_int(const char *opt, const char *text, long long min, long long max, int *out)
{
    long long v;
    if (cli_parse_long("gen", opt, text, min, max, &v) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* The mixed training + inference options. */
static int parse_mix_opt(int c, const char *val, struct gen_args *a)
{
    double d;
    switch (c) {
    case 'i': return cli_parse_double("gen", "--infer-share", val, 0, 0.99, &a->o.infer_share);
    case 'M': return parse_sec("--infer-median", val, &a->o.infer_median_s);
    case 'g':
        if (cli_parse_double("gen", "--infer-gpu", val, 0.001, 1, &d) < 0)
            return -1;
        a->o.infer_milli = (int)(d * 1000 + 0.5);
        return 0;
    case 'P': return parse_int("--infer-priority", val, 0, 1000000, &a->o.infer_priority);
    case 'I': return parse_sec("--ckpt-interval", val, &a->o.ckpt_interval_s);
    case 'C': return parse_sec("--ckpt-cost", val, &a->o.ckpt_cost_s);
    case 'S': return cli_parse_double("gen", "--ckpt-share", val, 0, 1, &a->o.ckpt_share);
    case 'F': return parse_sec("--mtbf", val, &a->mtbf_s);
    case 'G': return parse_sec("--gpu-mtbf", val, &a->gpu_mtbf_s);
    case 'R': return parse_sec("--repair", val, &a->repair_s);
    case 'E': a->events_out = val; return 0;
    }
    return -1;
}

static int gen_opt(int c, const char *val, void *arg)
{
    struct gen_args *a = arg;
    long long v;
    switch (c) {
    case 'c': a->cluster = val; return 0;
    case 'o': a->out = val; return 0;
    case 'n':
        a->have_jobs = 1;
        if (cli_parse_long("gen", "--jobs", val, 1, 100000000, &v) < 0)
            return -1;
        a->o.jobs = (size_t)v;
        return 0;
    case 's':
        a->have_seed = 1;
        if (cli_parse_long("gen", "--seed", val, 0, (long long)1 << 62, &v) < 0)
            return -1;
        a->o.seed = (uint64_t)v;
        return 0;
    case 'l': return cli_parse_double("gen", "--load", val, 0.001, 10, &a->o.load);
    case 't': return parse_int("--teams", val, 1, 1000, &a->o.teams);
    case 'T': return parse_int("--templates", val, 1, 1000000, &a->o.templates);
    case 'm': return parse_mix(val, &a->o);
    }
    return parse_mix_opt(c, val, a);
}

static int parse_args(int argc, char **argv, struct gen_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "out", required_argument, NULL, 'o' },
        { "jobs", required_argument, NULL, 'n' },    { "seed", required_argument, NULL, 's' },
        { "load", required_argument, NULL, 'l' },    { "teams", required_argument, NULL, 't' },
        { "templates", required_argument, NULL, 'T' }, { "mix", required_argument, NULL, 'm' },
        { "infer-share", required_argument, NULL, 'i' },
        { "infer-median", required_argument, NULL, 'M' },
        { "infer-gpu", required_argument, NULL, 'g' },
        { "infer-priority", required_argument, NULL, 'P' },
        { "ckpt-interval", required_argument, NULL, 'I' },
        { "ckpt-cost", required_argument, NULL, 'C' },
        { "ckpt-share", required_argument, NULL, 'S' },
        { "mtbf", required_argument, NULL, 'F' },
        { "gpu-mtbf", required_argument, NULL, 'G' },
        { "repair", required_argument, NULL, 'R' },
        { "node-events-out", required_argument, NULL, 'E' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "gen", gen_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, gen_opt, a);
    if (st >= 0)
        return st;
    if (!a->cluster || !a->have_jobs || !a->have_seed)
        return cli_failf("gen", 2, "--jobs, --seed and --cluster are required (see --help)");
    if ((a->mtbf_s > 0 || a->gpu_mtbf_s > 0) != (a->events_out != NULL))
        return cli_failf("gen", 2, "--mtbf (or --gpu-mtbf) and --node-events-out go together "
                                   "(see --help)");
    if (a->mtbf_s < 0 || a->gpu_mtbf_s < 0 ||
        (a->events_out && a->mtbf_s == 0 && a->gpu_mtbf_s == 0))
        return cli_failf("gen", 2, "--mtbf must be > 0");
    return -1;
}

/* The node-event file of --mtbf: failures up to the last submission plus
 * the longest job. */
static int write_failures(const struct gen_args *a, const struct gs_cluster *cl,
                          const struct gs_trace *tr)
{
    struct gs_gen_failure_opts fo = { a->o.seed, a->mtbf_s, a->repair_s, 0, a->gpu_mtbf_s };
    gs_time last = 0, longest = 0;
    for (size_t i = 0; i < gs_trace_count(tr); i++) {
        if (gs_trace_job(tr, i)->submit > last)
            last = gs_trace_job(tr, i)->submit;
        if (gs_trace_duration(tr, i) > longest)
            longest = gs_trace_duration(tr, i);
    }
    fo.horizon = gs_time_add(last, longest);
    struct gs_node_events ev = { 0 };
    struct gs_error err = { 0 };
    int status = 0;
    if (gs_gen_failures(cl, &fo, &ev, &err) < 0) {
        status = cli_fail("gen", &err);
    } else {
        FILE *f = cli_open_out("gen", a->events_out);
        if (!f)
            status = 1;
        else if (gs_node_events_write(f, cl, &ev, &err) < 0)
            status = cli_fail("gen", &err);
        if (f && cli_close("gen", f, a->events_out))
            status = 1;
    }
    gs_node_events_fini(&ev);
    return status;
}

int cmd_gen(int argc, char **argv)
{
    struct gen_args a = { 0 };
    gs_gen_defaults(&a.o);
    a.repair_s = 3600;
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_cluster *cl = cli_load_cluster("gen", a.cluster);
    if (!cl)
        return 1;
    struct gs_trace *tr = gs_trace_create();
    struct gs_error err = { 0 };
    int status = 0;
    if (!tr || gs_gen_workload(cl, &a.o, tr, &err) < 0) {
        if (!tr)
            gs_errorf(&err, GS_ENOMEM, "out of memory");
        status = cli_fail("gen", &err);
    } else {
        struct cli_out o;
        if (cli_out_open("gen", &o, a.out))
            status = 1;
        else if (gs_trace_write_csv(o.f, tr, &err) < 0)
            status = cli_fail("gen", &err);
        if (o.f && cli_out_finish("gen", &o, status == 0))
            status = 1;
    }
    if (status == 0 && a.events_out)
        status = write_failures(&a, cl, tr);
    gs_trace_destroy(tr);
    gs_cluster_destroy(cl);
    return status;
}
