/*
 * even_bins.h - even bins over any range [lo, hi) of 32-bit integer keys, by
 * multiplying, not dividing, per key. C, for the host and, under nvcc, the GPU
 * (stage 08's transforms and its test suite).
 *
 * A key k is in bin floor((k - lo) x bins / width), width = hi - lo, when
 * lo <= k < hi; else in none. With 1 <= bins <= width the ratio bins / width
 * is at most 1, and the bin is a multiply-high by a reciprocal of d = k - lo:
 *
 *   narrow   bin = high word of d x m, m = ceil(2^32 x bins / width), held as
 *            m_hi x 2^32 + m_lo: m_hi is 1 only when bins == width (m = 2^32,
 *            every value its own bin: bin = d), so the bin is
 *            __umulhi(d, m_lo) + d x m_hi, two 32-bit instructions;
 *   wide     bin = high word of d x m64 (64 x 64 bits), m64 = ceil(2^64 x bins / width).
 *
 * Why it is exact. Write m = 2^32 x bins / width + e, 0 <= e < 1 (narrow).
 * Then d x m / 2^32 = d x bins / width + d x e / 2^32. The first term's
 * fraction is a multiple of 1 / width, at most (width - 1) / width, so the
 * second never carries it past the next whole number while d x e / 2^32 <
 * 1 / width, which holds for every d < width when width^2 <= 2^32: every
 * range of 65536 values or fewer (all u8 and u16 keys) is narrow and exact.
 * For a wider range, d x m / 2^32 grows with d, so it is exact exactly when
 * it is right at each bin's first key and the key before it: even_bins_make
 * tests those 2 x bins keys, and takes the wide rule where one is wrong (the
 * same argument with 2^64 makes the wide rule exact for every 32-bit range).
 */
#ifndef EVEN_BINS_H
#define EVEN_BINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __CUDACC__
#define EVEN_BINS_FN __host__ __device__ static inline
#else
#define EVEN_BINS_FN static inline
#endif

#define NO_BIN 0xffffffffu /* a key outside [lo, hi) */

struct even_bins {
    uint32_t lo;
    uint64_t width;      /* hi - lo: 1 to 2^32 */
    uint32_t last;       /* width - 1: the largest d in the range */
    uint32_t bins;       /* 1 to width */
    bool wide;           /* the 32-bit reciprocal is wrong at some edge: the 64-bit one */
    uint32_t m_lo, m_hi; /* narrow */
    uint64_t m64;        /* wide */
};

/* The high 64 bits of a 64 x 64-bit product (what __umul64hi is on the GPU). */
EVEN_BINS_FN uint64_t even_bins_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    uint64_t middle = (lo_lo >> 32) + (uint32_t)hi_lo + (uint32_t)lo_hi;
    return hi_hi + (hi_lo >> 32) + (lo_hi >> 32) + (middle >> 32);
#endif
}

/* The bin of d = key - lo, d < width, by each rule: a GPU kernel is
 * compiled for one of them, and never asks which per key. */
EVEN_BINS_FN uint32_t even_bins_narrow(const struct even_bins *r, uint32_t d)
{
#ifdef __CUDA_ARCH__
    return __umulhi(d, r->m_lo) + d * r->m_hi;
#else
    return (uint32_t)(((uint64_t)d * r->m_lo) >> 32) + d * r->m_hi;
#endif
}

EVEN_BINS_FN uint32_t even_bins_wide(const struct even_bins *r, uint32_t d)
{
    return (uint32_t)even_bins_mulhi64(d, r->m64);
}

EVEN_BINS_FN uint32_t even_bins_of_offset(const struct even_bins *r, uint32_t d)
{
    return r->wide ? even_bins_wide(r, d) : even_bins_narrow(r, d);
}

/* The bin of a key, or NO_BIN when it is outside [lo, hi). */
EVEN_BINS_FN uint32_t even_bins_of(const struct even_bins *r, uint32_t key)
{
    uint32_t d = key - r->lo; /* a key below lo wraps past the last */
    return d <= r->last ? even_bins_of_offset(r, d) : NO_BIN;
}

/* ceil(2^shift x bins / width) for shift 32 or 64, bins < width, in 64 bits:
 * long division, one bit at a time (the host does it once). */
static inline uint64_t even_bins_reciprocal(uint32_t bins, uint64_t width, int shift)
{
    /* bins x 2^shift / width: shift in the zero bits one by one; the
     * remainder stays below width <= 2^32, so nothing overflows */
    uint64_t quotient = 0, remainder = bins;
    for (int bit = 0; bit < shift; bit++) {
        remainder <<= 1;
        quotient <<= 1;
        if (remainder >= width) {
            remainder -= width;
            quotient |= 1;
        }
    }
    return quotient + (remainder != 0);
}

/* Whether the rule in r gives the true bin at every bin's first key and the
 * key before it, and at the last key: by monotony, at every key. */
static inline bool even_bins_edges_exact(const struct even_bins *r)
{
    for (uint64_t b = 1; b < r->bins; b++) {
        /* the first d with floor(d x bins / width) = b: ceil(b x width / bins) */
        uint64_t first = (b * r->width + r->bins - 1) / r->bins;
        if (even_bins_of_offset(r, (uint32_t)first) != b ||
            even_bins_of_offset(r, (uint32_t)(first - 1)) != b - 1)
            return false;
    }
    return even_bins_of_offset(r, (uint32_t)(r->width - 1)) == r->bins - 1;
}

/* Fills r for [lo, hi) in bins; returns 0, or 2 with a one-line reason in
 * why (hi <= lo, no bins, more bins than values). hi may be 2^32. */
static inline int even_bins_make(struct even_bins *r, uint64_t lo, uint64_t hi, uint64_t bins,
                                 char *why, size_t why_len)
{
    if (hi > ((uint64_t)1 << 32) || lo >= hi) {
        snprintf(why, why_len, "the range [%llu, %llu) holds no 32-bit key", (unsigned long long)lo,
                 (unsigned long long)hi);
        return 2;
    }
    if (bins < 1 || bins > hi - lo) {
        snprintf(why, why_len,
                 "%llu bins for the %llu values of [%llu, %llu): at most one bin per value",
                 (unsigned long long)bins, (unsigned long long)(hi - lo), (unsigned long long)lo,
                 (unsigned long long)hi);
        return 2;
    }
    *r = (struct even_bins){(uint32_t)lo,
                            hi - lo,
                            (uint32_t)(hi - lo - 1),
                            (uint32_t)bins,
                            false,
                            0,
                            1,
                            0}; /* bins == width: m = 2^32 */
    if (bins == r->width)
        return 0;
    r->m_lo = (uint32_t)even_bins_reciprocal(r->bins, r->width, 32), r->m_hi = 0;
    if (r->width <= 65536 || even_bins_edges_exact(r))
        return 0;
    r->wide = true;
    r->m64 = even_bins_reciprocal(r->bins, r->width, 64);
    return 0;
}

/* The same idea for a division by a constant: element e of a matrix of cols
 * columns, row by row, is in row e / cols. m = ceil(2^32 / cols), held as
 * m_hi x 2^32 + m_lo (m_hi is 1 only for one column), makes q = high word of
 * e x m at most one above e / cols for every 32-bit e: q - e / cols =
 * e x (m - 2^32 / cols) / 2^32, which is below 1. So one product says
 * whether to take one off. */
struct rows_rule {
    uint32_t cols, m_lo, m_hi;
};

EVEN_BINS_FN struct rows_rule rows_rule_for(uint32_t cols)
{
    uint64_t m = (((uint64_t)1 << 32) + cols - 1) / cols;
    struct rows_rule r = {cols, (uint32_t)m, (uint32_t)(m >> 32)};
    return r;
}

EVEN_BINS_FN uint32_t row_of(const struct rows_rule *r, uint32_t e)
{
#ifdef __CUDA_ARCH__
    uint32_t q = __umulhi(e, r->m_lo) + e * r->m_hi;
#else
    uint32_t q = (uint32_t)(((uint64_t)e * r->m_lo) >> 32) + e * r->m_hi;
#endif
    return (uint64_t)q * r->cols > e ? q - 1 : q;
}

#endif /* EVEN_BINS_H */
