/* rng.h - explicit-state pseudo random numbers (splitmix64 seeding a
 * xoshiro256**).  No global state: callers own a struct gs_rng and pass it in,
 * so the same seed always gives the same sequence on every platform.
 */
#ifndef GS_CORE_RNG_H
#define GS_CORE_RNG_H

#include <stdint.h>

struct gs_rng {
    uint64_t s[4];
};

/* Advance a splitmix64 state and return the next output. */
static inline uint64_t gs_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Seed `r` from a 64-bit seed. */
static inline void gs_rng_seed(struct gs_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = gs_splitmix64(&x);
}

static inline uint64_t gs_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t gs_rng_next(struct gs_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = gs_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gs_rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double gs_rng_uniform(struct gs_rng *r)
{
    return (double)(gs_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n) for n > 0 (Lemire's nearly-divisionless method
 * would be faster; modulo bias is below 2^-40 for n < 2^24, fine here). */
static inline uint64_t gs_rng_below(struct gs_rng *r, uint64_t n)
{
    return n ? gs_rng_next(r) % n : 0;
}

#endif
