/* mig.c - MIG profile tables (see mig.h for the source). */
#include "core/cluster/mig.h"
#include "core/base/error.h"

#include <stddef.h>
#include <string.h>

/* Global profile ids: every name any supported model offers. */
static const char *const profile_names[] = {
    "1g.5gb",  "1g.5gb+me",  "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb",
    "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb",
};

#define NPROFILES ((int)(sizeof profile_names / sizeof profile_names[0]))
#define GIB ((int64_t)1024)

enum {
    P_1G5, P_1G5ME, P_1G10, P_2G10, P_3G20, P_4G20, P_7G40,
    P_1G10ME, P_1G20, P_2G20, P_3G40, P_4G40, P_7G80,
};

/* starts: 0x7F = slices 0..6, 0x55 = 0,2,4,6, 0x15 = 0,2,4, 0x11 = 0,4, 0x01 = 0 */
static const struct gs_mig_geom a100_40[] = {
    { P_1G5, 1, 1, 5 * GIB, 0x7F, 7 },   { P_1G5ME, 1, 1, 5 * GIB, 0x7F, 1 },
    { P_1G10, 1, 2, 10 * GIB, 0x55, 4 }, { P_2G10, 2, 2, 10 * GIB, 0x15, 3 },
    { P_3G20, 3, 4, 20 * GIB, 0x11, 2 }, { P_4G20, 4, 4, 20 * GIB, 0x01, 1 },
    { P_7G40, 7, 8, 40 * GIB, 0x01, 1 },
};

/* A100-80GB and H100-80GB share the geometry with 10 GB memory slices. */
static const struct gs_mig_geom x_80[] = {
    { P_1G10, 1, 1, 10 * GIB, 0x7F, 7 },  { P_1G10ME, 1, 1, 10 * GIB, 0x7F, 1 },
    { P_1G20, 1, 2, 20 * GIB, 0x55, 4 },  { P_2G20, 2, 2, 20 * GIB, 0x15, 3 },
    { P_3G40, 3, 4, 40 * GIB, 0x11, 2 },  { P_4G40, 4, 4, 40 * GIB, 0x01, 1 },
    { P_7G80, 7, 8, 80 * GIB, 0x01, 1 },
};

static const struct {
    const char *name;
    const struct gs_mig_geom *g;
    int n;
} models[GS_MIG_MODELS] = {
    [GS_MIG_A100_40GB] = { "A100-40GB", a100_40, 7 },
    [GS_MIG_A100_80GB] = { "A100-80GB", x_80, 7 },
    [GS_MIG_H100_80GB] = { "H100-80GB", x_80, 7 },
};

static int lower(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

static int eq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int gs_mig_model_find(const char *name)
{
    static const struct {
        const char *alias;
        int model;
    } aliases[] = {
        { "A100-40GB", GS_MIG_A100_40GB }, { "A100-40G", GS_MIG_A100_40GB },
        { "A100", GS_MIG_A100_40GB },      { "A100-80GB", GS_MIG_A100_80GB },
        { "A100-80G", GS_MIG_A100_80GB },  { "H100-80GB", GS_MIG_H100_80GB },
        { "H100-80G", GS_MIG_H100_80GB },  { "H100", GS_MIG_H100_80GB },
    };
    if (!name)
        return GS_ENOENT;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (eq_nocase(name, aliases[i].alias))
            return aliases[i].model;
    return GS_ENOENT;
}

const char *gs_mig_model_name(int model)
{
    return model >= 0 && model < GS_MIG_MODELS ? models[model].name : "?";
}

int gs_mig_profile_find(const char *name)
{
    if (!name)
        return GS_ENOENT;
    for (int i = 0; i < NPROFILES; i++)
        if (eq_nocase(name, profile_names[i]))
            return i;
    return GS_ENOENT;
}

const char *gs_mig_profile_name(int profile)
{
    return profile >= 0 && profile < NPROFILES ? profile_names[profile] : "?";
}

int gs_mig_profile_count(void)
{
    return NPROFILES;
}

const struct gs_mig_geom *gs_mig_geom(int model, int profile)
{
    if (model < 0 || model >= GS_MIG_MODELS)
        return NULL;
    for (int i = 0; i < models[model].n; i++)
        if (models[model].g[i].profile == profile)
            return &models[model].g[i];
    return NULL;
}

int gs_mig_milli(const struct gs_mig_geom *g)
{
    return g->compute >= GS_MIG_COMPUTE ? 1000 : g->compute * 1000 / GS_MIG_COMPUTE;
}

/* Memory slices taken by the layout, as a bit mask. */
static unsigned mem_mask(int model, const struct gs_mig_layout *l)
{
    unsigned m = 0;
    for (int i = 0; i < l->n; i++) {
        const struct gs_mig_geom *g = gs_mig_geom(model, l->prof[i]);
        if (g)
            m |= ((1u << g->mem_slices) - 1) << l->start[i];
    }
    return m;
}

int gs_mig_layout_compute(int model, const struct gs_mig_layout *l, unsigned mask)
{
    int c = 0;
    for (int i = 0; i < l->n; i++) {
        const struct gs_mig_geom *g = gs_mig_geom(model, l->prof[i]);
        if (g && (mask >> i & 1))
            c += g->compute;
    }
    return c;
}

/* Whether an instance of g may start at `s` given taken memory slices. */
static int start_ok(const struct gs_mig_geom *g, int s, unsigned taken)
{
    if (s < 0 || s >= GS_MIG_MEM_SLICES || !(g->starts >> s & 1))
        return 0;
    unsigned need = ((1u << g->mem_slices) - 1) << s;
    return (need & taken) == 0 && (need >> GS_MIG_MEM_SLICES) == 0;
}

int gs_mig_layout_add(int model, struct gs_mig_layout *l, int profile, int start)
{
    const struct gs_mig_geom *g = gs_mig_geom(model, profile);
    if (!g || l->n >= GS_MIG_MAX_INSTANCES)
        return GS_EINVAL;
    int same = 0;
    for (int i = 0; i < l->n; i++)
        same += l->prof[i] == profile;
    if (same >= g->max ||
        gs_mig_layout_compute(model, l, 0x7Fu) + g->compute > GS_MIG_COMPUTE)
        return GS_EINVAL;
    unsigned taken = mem_mask(model, l);
    if (start < 0) {
        for (int s = 0; s < GS_MIG_MEM_SLICES && start < 0; s++)
            if (start_ok(g, s, taken))
                start = s;
        if (start < 0)
            return GS_EINVAL;
    } else if (!start_ok(g, start, taken)) {
        return GS_EINVAL;
    }
    l->prof[l->n] = (uint8_t)profile;
    l->start[l->n] = (uint8_t)start;
    l->n++;
    return 0;
}

void gs_mig_layout_homogeneous(int model, int profile, struct gs_mig_layout *out)
{
    memset(out, 0, sizeof *out);
    while (gs_mig_layout_add(model, out, profile, -1) == 0)
        ;
}
