/* mig.h - NVIDIA Multi-Instance GPU geometry: which GPU-instance profiles a
 * GPU model offers, how many compute and memory slices each takes, and at
 * which memory-slice positions it may start.
 *
 * Source: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles"
 * (docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html)
 * and the placements `nvidia-smi mig -lgipp` lists: an A100/H100 has 7
 * compute slices and 8 memory slices; a profile of m memory slices starts
 * at a multiple of m (1-slice profiles at 0..6, 2-slice at 0,2,4 (2g) or
 * 0,2,4,6 (1g.10gb/1g.20gb), 4-slice 3g at 0,4, 4g at 0, 7g at 0 taking
 * all 8).  Instances of one GPU may not overlap in memory slices and use at
 * most 7 compute slices.  docs/placement.md has the tables.
 *
 * Profiles are identified across models by name ("1g.10gb" means the same
 * request on an A100-40GB, where it takes two 5 GB memory slices, and on an
 * H100-80GB, where it takes one 10 GB slice), as Kubernetes' MIG resources
 * do.  Pure tables and arithmetic: no allocation.
 */
#ifndef GS_CORE_MIG_H
#define GS_CORE_MIG_H

#include <stdint.h>

#define GS_MIG_MAX_INSTANCES 7   /* instances one GPU holds at most */
#define GS_MIG_COMPUTE 7         /* compute slices per GPU */
#define GS_MIG_MEM_SLICES 8      /* memory slices per GPU */

enum gs_mig_model { GS_MIG_A100_40GB, GS_MIG_A100_80GB, GS_MIG_H100_80GB, GS_MIG_MODELS };

/* One profile on one model. */
struct gs_mig_geom {
    int profile;            /* global profile id */
    int compute;            /* compute slices (of 7) */
    int mem_slices;         /* memory slices (of 8) */
    int64_t mem_mib;        /* memory of the instance */
    uint8_t starts;         /* bit i: may start at memory slice i */
    int max;                /* instances per GPU at most */
};

/* A GPU's MIG layout: instances in creation order. */
struct gs_mig_layout {
    uint8_t n;
    uint8_t prof[GS_MIG_MAX_INSTANCES];   /* global profile ids */
    uint8_t start[GS_MIG_MAX_INSTANCES];  /* first memory slice */
};

/* Model by name: "A100-40GB", "A100-80GB", "H100-80GB"; also accepts
 * "A100-40G", "A100-80G", "H100-80G", "H100" (= H100-80GB) and "A100"
 * (= A100-40GB), case-insensitive.  Returns the model or GS_ENOENT. */
int gs_mig_model_find(const char *name);

/* Canonical model name ("A100-40GB"), or "?" */
const char *gs_mig_model_name(int model);

/* Global id of a profile name such as "3g.20gb", or GS_ENOENT. */
int gs_mig_profile_find(const char *name);

/* Name of a global profile id, or "?". */
const char *gs_mig_profile_name(int profile);

/* Number of global profile ids (ids are 0 .. count-1). */
int gs_mig_profile_count(void);

/* Geometry of `profile` on `model`, or NULL when the model lacks it. */
const struct gs_mig_geom *gs_mig_geom(int model, int profile);

/* Compute share of a profile in milli-GPU: floor(1000 * compute / 7),
 * 1000 for 7 slices, so shares of a valid layout never sum above 1000. */
int gs_mig_milli(const struct gs_mig_geom *g);

/* Append an instance of `profile` at memory slice `start` (-1 = the lowest
 * valid free start) to layout `l` of a `model` GPU.  Returns 0, or
 * GS_EINVAL (profile not on this model, bad or overlapping start, more than
 * 7 compute slices, or too many instances of the profile). */
int gs_mig_layout_add(int model, struct gs_mig_layout *l, int profile, int start);

/* The layout with as many instances of `profile` as fit, lowest starts
 * first (what `mig.reconfigure: when_idle` installs).  n = 0 when the model
 * lacks the profile. */
void gs_mig_layout_homogeneous(int model, int profile, struct gs_mig_layout *out);

/* Compute slices used by the instances of `l` selected by `mask` (bit i =
 * instance i). */
int gs_mig_layout_compute(int model, const struct gs_mig_layout *l, unsigned mask);

#endif
