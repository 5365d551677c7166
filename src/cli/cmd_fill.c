/* cmd_fill.c - `gpusched fill`: FGD's fill experiment (sim/fill.h). */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "core/policy/policy.h"
#include "core/place/place.h"
#include "sim/fill.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const fill_help =
    "usage: gpusched fill --cluster C.yaml --trace T.csv [--policy P.yaml]\n"
    "                     [--strategy NAME] [--inflate 1.3] [--seeds 42-51]\n"
    "                     [--ties random|file] [--typical original|inflated]\n"
    "                     [--frag-score quantum|sigmoid] [--step 5] [--json]\n"
    "\n"
    "FGD's experiment (USENIX ATC'23): sample jobs of the trace with replacement\n"
    "until their GPU request reaches INFLATE x the cluster's GPUs, shuffle, place\n"
    "them one by one with no departures and no queue (a job that fits nowhere\n"
    "fails), and report per whole arrived percent the median over the seeds of\n"
    "the unallocated GPU %, the fragmentation ratio and amount (FGD's measure\n"
    "against the workload's typical job shapes) and the schedulability S_k.\n"
    "\n"
    "  --cluster FILE   cluster YAML\n"
    "  --trace FILE     trace CSV (durations and submit times are ignored)\n"
    "  --policy FILE    policy YAML: placement.strategy and placement.frag\n"
    "  --strategy NAME  pack | spread | topo | frag | first_fit (engine), or a\n"
    "                   baseline of the FGD artifact: random | dotprod |\n"
    "                   clustering | packing | bestfit | fgd (overrides --policy)\n"
    "  --inflate X      target GPU request / capacity (default 1.3)\n"
    "  --seeds A-B      seeds, a range or a comma list (default 42-51)\n"
    "  --ties ORDER     which node wins equal scores: random (default; FGD's\n"
    "                   protocol: a random node order per seed, as the artifact's\n"
    "                   random node names) or file (the cluster file's order)\n"
    "  --typical SET    typical shapes from the original trace (default, as the\n"
    "                   artifact) or from the inflated job list\n"
    "  --frag-score S   frag's score shape: quantum (uniform steps) or sigmoid\n"
    "                   (FGD's integer score, for every pod, CPU-only ones too;\n"
    "                   overrides --policy)\n"
    "  --step N         text output: every N percent (default 5)\n"
    "  --json           print JSON: {policy, ties, typical, seeds, jobs, placed,\n"
    "                   failed, k,\n"
    "                   curve: [{arrived, unallocated, frag_ratio, frag_amount,\n"
    "                   schedulability}]}\n";

#define MAX_SEEDS 1000

struct fill_args {
    const char *cluster, *trace, *policy, *strategy, *seeds;
    int ties, typical, score_shape; /* -1 = default */
    double inflate;
    long long step;
    int json;
};

static int fill_opt(int c, const char *val, void *arg)
{
    struct fill_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 't': a->trace = val; break;
    case 'p': a->policy = val; break;
    case 's': a->strategy = val; break;
    case 'S': a->seeds = val; break;
    case 'i': return cli_parse_double("fill", "--inflate", val, 0.01, 100, &a->inflate);
    case 'n': return cli_parse_long("fill", "--step", val, 1, 100, &a->step);
    case 'j': a->json = 1; break;
    case 'T':
        if (strcmp(val, "random") != 0 && strcmp(val, "file") != 0)
            return cli_failf("fill", -1, "--ties: '%s' is not random or file", val);
        a->ties = strcmp(val, "random") != 0 ? GS_FILL_TIES_FILE : GS_FILL_TIES_RANDOM;
        break;
    case 'Y':
        if (strcmp(val, "original") != 0 && strcmp(val, "inflated") != 0)
            return cli_failf("fill", -1, "--typical: '%s' is not original or inflated", val);
        a->typical = strcmp(val, "original") != 0 ? GS_FILL_TYPICAL_INFLATED : GS_FILL_TYPICAL_ORIGINAL;
        break;
    case 'F':
        if (strcmp(val, "quantum") != 0 && strcmp(val, "sigmoid") != 0)
            return cli_failf("fill", -1, "--frag-score: '%s' is not quantum or sigmoid", val);
        a->score_shape = strcmp(val, "quantum") != 0 ? GS_FRAG_SCORE_SIGMOID : GS_FRAG_SCORE_QUANTUM;
        break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct fill_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "trace", required_argument, NULL, 't' },
        { "policy", required_argument, NULL, 'p' },  { "strategy", required_argument, NULL, 's' },
        { "inflate", required_argument, NULL, 'i' }, { "seeds", required_argument, NULL, 'S' },
        { "step", required_argument, NULL, 'n' },    { "json", no_argument, NULL, 'j' },
        { "ties", required_argument, NULL, 'T' },    { "typical", required_argument, NULL, 'Y' },
        { "frag-score", required_argument, NULL, 'F' },
        { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "fill", fill_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, fill_opt, a);
    if (st >= 0)
        return st;
    if (!a->cluster || !a->trace)
        return cli_failf("fill", 2, "--cluster and --trace are required (see --help)");
    return -1;
}

/* "42-51", "7" or "1,5,9" into seeds[]; returns the count or -1. */
static int parse_seeds(const char *text, uint64_t *seeds, int max)
{
    int n = 0;
    for (const char *p = text; *p;) {
        char *end;
        unsigned long long lo = strtoull(p, &end, 10), hi = lo;
        if (end == p)
            return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtoull(p, &end, 10);
            if (end == p || hi < lo)
                return -1;
        }
        for (unsigned long long s = lo; s <= hi; s++) {
            if (n >= max)
                return -1;
            seeds[n++] = s;
        }
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return n;
}

static json_t *curve_json(const struct gs_fill_result *r)
{
    json_t *arr = json_array();
    for (int i = 0; arr && i < r->npoints; i++) {
        const struct gs_fill_point *p = &r->points[i];
        json_array_append_new(arr, json_pack("{s:i, s:f, s:f, s:f, s:f}", "arrived", p->arrived,
                                             "unallocated", p->unallocated, "frag_ratio",
                                             p->frag_ratio, "frag_amount", p->frag_amount,
                                             "schedulability", p->schedulability));
    }
    return arr;
}

static int print_json(const struct gs_fill_opts *o, const uint64_t *seeds, int nseeds,
                       const struct gs_fill_result *r)
{
    json_t *s = json_array();
    for (int i = 0; s && i < nseeds; i++)
        json_array_append_new(s, json_integer((json_int_t)seeds[i]));
    return cli_print_json(json_pack("{s:s, s:s, s:s, s:f, s:o, s:I, s:I, s:I, s:i, s:i, s:o}", "policy",
                             gs_fill_policy_name(o->policy, o->strategy), "ties",
                             o->ties == GS_FILL_TIES_RANDOM ? "random" : "file", "typical",
                             o->typical == GS_FILL_TYPICAL_ORIGINAL ? "original" : "inflated",
                             "inflate", o->inflate,
                             "seeds", s, "jobs", (json_int_t)r->jobs, "placed",
                             (json_int_t)r->placed, "failed", (json_int_t)r->failed, "k", r->k,
                             "typical_shapes", r->shapes, "curve", curve_json(r)));
}

static void print_text(const struct gs_fill_opts *o, int nseeds, const struct gs_fill_result *r,
                       long long step)
{
    printf("fill: policy %s, inflate %.2f, %d seed(s), %lld jobs placed, %lld failed, "
           "%d typical shapes\n",
           gs_fill_policy_name(o->policy, o->strategy), o->inflate, nseeds,
           (long long)r->placed, (long long)r->failed, r->shapes);
    printf("median over seeds per arrived %% of GPU capacity:\n");
    printf("%8s %12s %11s %12s %8s\n", "arrived", "unallocated", "frag_ratio", "frag_amount",
           "S_k");
    for (int i = 0; i < r->npoints; i++) {
        const struct gs_fill_point *p = &r->points[i];
        if (p->arrived % step == 0 || i == r->npoints - 1)
            printf("%7d%% %11.2f%% %10.2f%% %11.2f%% %8.1f\n", p->arrived, p->unallocated,
                   p->frag_ratio, p->frag_amount, p->schedulability);
    }
}

static int setup_opts(const struct fill_args *a, struct gs_fill_opts *o)
{
    gs_fill_defaults(o);
    if (a->inflate > 0)
        o->inflate = a->inflate;
    if (a->policy) {
        struct gs_policy pol;
        if (cli_load_policy("fill", a->policy, &pol) < 0)
            return 1;
        o->strategy = pol.strategy;
        o->sched_weight = pol.frag_sched_weight;
        o->quantum = pol.frag_quantum;
        o->score_shape = pol.frag_score;
        gs_policy_fini(&pol);
    }
    if (a->ties >= 0)
        o->ties = a->ties;
    if (a->typical >= 0)
        o->typical = a->typical;
    if (a->score_shape >= 0)
        o->score_shape = a->score_shape;
    if (a->strategy && gs_fill_policy_find(a->strategy, &o->policy, &o->strategy) < 0)
        return cli_failf("fill", 2, "--strategy: unknown '%s' (see --help)", a->strategy);
    return 0;
}

static int run(const struct fill_args *a, const struct gs_cluster *cl, const struct gs_trace *tr,
               struct gs_fill_opts *o, const uint64_t *seeds, int nseeds)
{
    struct gs_fill_result *runs = calloc((size_t)nseeds, sizeof *runs), med;
    struct gs_error err = { 0 };
    int status = runs ? 0 : cli_failf("fill", 1, "out of memory");
    int done = 0;
    int progress = gs_cli_common()->progress || isatty(STDERR_FILENO);
    for (; status == 0 && done < nseeds; done++) {
        o->seed = seeds[done];
        if (gs_fill_run(cl, tr, o, &runs[done], &err) < 0)
            status = cli_fail("fill", &err);
        else if (progress)
            fprintf(stderr, "gpusched fill: seed %llu done (%d of %d)\n",
                    (unsigned long long)seeds[done], done + 1, nseeds);
    }
    if (status == 0 && gs_fill_median(runs, nseeds, &med) < 0)
        status = cli_failf("fill", 1, "out of memory");
    if (status == 0) {
        if (a->json)
            status = print_json(o, seeds, nseeds, &med);
        else
            print_text(o, nseeds, &med, a->step > 0 ? a->step : 5);
        gs_fill_result_fini(&med);
    }
    for (int i = 0; runs && i < done; i++)
        gs_fill_result_fini(&runs[i]);
    free(runs);
    return status;
}

int cmd_fill(int argc, char **argv)
{
    struct fill_args a = { 0 };
    a.ties = a.typical = a.score_shape = -1;
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    static uint64_t seeds[MAX_SEEDS];
    int nseeds = parse_seeds(a.seeds ? a.seeds : "42-51", seeds, MAX_SEEDS);
    if (nseeds <= 0)
        return cli_failf("fill", 2, "--seeds: '%s' is not a range A-B or a list A,B,C (at most "
                                    "%d)", a.seeds, MAX_SEEDS);
    struct gs_fill_opts o;
    if ((st = setup_opts(&a, &o)) != 0)
        return st;
    struct gs_cli_inputs in;
    gs_cli_inputs_init(&in, "fill");
    int status = 1;
    if (gs_cli_inputs_load(&in, a.cluster, a.trace, 0, NULL, 0) == 0)
        status = run(&a, in.cluster, in.trace, &o, seeds, nseeds);
    gs_cli_inputs_fini(&in);
    return status;
}
