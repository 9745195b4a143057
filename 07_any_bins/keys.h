/*
 * keys.h - what stage 07 counts: keys of four types, binned evenly over a
 * range, in one to four interleaved channels, each key with an optional
 * weight. The rule that turns a key into a bin is written once, here, and
 * compiled for both sides: the GPU's kernels and the CPU's reference use the
 * same arithmetic, so their bins agree exactly, at the edges too.
 *
 * The rule is CUB's (cub::DeviceHistogram::HistogramEven), so that CUB's
 * bins can be checked against the same reference:
 *   integer keys: bin = (key - lo) * bins / (hi - lo), in 64-bit integers;
 *   float keys:   bin = (int)((key - lo) * scale), scale = bins / (hi - lo) in float.
 * A key outside [lo, hi), or a NaN, is in no bin.
 */
#ifndef KEYS_H
#define KEYS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

enum key_type { KEY_U8, KEY_U16, KEY_U32, KEY_F32 };

struct binning {
    enum key_type type;
    unsigned int bins;     /* per channel */
    int channels;          /* 1 to 4, interleaved: key i is channel i % channels */
    uint64_t lo, width;    /* integer keys: [lo, lo + width), width at most 2^32 */
    int width_shift;       /* log2(width) when width is a power of two, else -1 */
    bool narrow;           /* width x bins <= 2^32: a key's bin in 32-bit arithmetic */
    float flo, fhi, scale; /* float keys: [flo, fhi), scale = bins / (fhi - flo) */
};

/* The bin of an integer key, or -1. A power-of-two width (the default range,
 * all of the key type's values) divides by a shift; any other width takes a
 * 64-bit division per key, which is far slower on a GPU. Both give the same bin. */
__host__ __device__ static inline int integer_bin(const struct binning &b, uint32_t key)
{
    uint32_t x = key - (uint32_t)b.lo; /* lo < 2^32 */
    if (key < b.lo || x >= b.width)
        return -1;
    /* The same bin in as few instructions as the width allows: with 8-bit
     * keys, turning keys into bins is much of the work. */
    if (b.width_shift == 32) /* every u32 value: the high word of x x bins */
        return (int)(((uint64_t)x * b.bins) >> 32);
    if (b.width_shift >= 0 && b.narrow) /* x x bins fits in 32 bits */
        return (int)((x * b.bins) >> b.width_shift);
    uint64_t scaled = (uint64_t)x * b.bins;
    return (int)(b.width_shift >= 0 ? scaled >> b.width_shift : scaled / b.width);
}

/* The bin of a float key, or -1 (NaN compares false both ways). The product
 * can round up to bins for a key just under hi: that key goes in the last bin. */
__host__ __device__ static inline int float_bin(const struct binning &b, float key)
{
    if (!(key >= b.flo && key < b.fhi))
        return -1;
    int bin = (int)((key - b.flo) * b.scale);
    return bin < (int)b.bins ? bin : (int)b.bins - 1;
}

__host__ __device__ static inline int key_bin(const struct binning &b, uint32_t key)
{
    return integer_bin(b, key);
}
__host__ __device__ static inline int key_bin(const struct binning &b, float key)
{
    return float_bin(b, key);
}

static inline int key_bytes(enum key_type type)
{
    return type == KEY_U8 ? 1 : type == KEY_U16 ? 2 : 4;
}

static inline const char *key_name(enum key_type type)
{
    static const char *const names[] = {"u8", "u16", "u32", "f32"};
    return names[type];
}

/* A weight for key i in [0, 1), from the seed: reproducible, no table. */
static inline float key_weight(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1; /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

#endif /* KEYS_H */
