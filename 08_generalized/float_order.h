/*
 * float_order.h - floats as unsigned integers in the same order, so that a
 * per-bin minimum or maximum of floats is one integer atomicMin or atomicMax
 * (stage 08's gh_parts). C, for the host and, under nvcc, the GPU.
 *
 * A non-negative float's bits already sort as unsigned integers; setting the
 * sign bit puts them all above the negatives. A negative float's bits sort
 * backwards (a larger magnitude is a larger integer), so all its bits are
 * flipped: that reverses them and clears the sign bit. So for floats a < b,
 * float_order(a) < float_order(b), from -infinity to +infinity, with -0 just
 * below +0. NaNs have no place in an order: a caller leaves them out.
 */
#ifndef FLOAT_ORDER_H
#define FLOAT_ORDER_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FLOAT_ORDER_FN __host__ __device__ static inline
#else
#define FLOAT_ORDER_FN static inline
#endif

FLOAT_ORDER_FN uint32_t float_order(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

/* The float that float_order maps to order, bit for bit. */
FLOAT_ORDER_FN float float_from_order(uint32_t order)
{
    uint32_t bits = order & 0x80000000u ? order & 0x7fffffffu : ~order;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The identities of a per-bin minimum and maximum: what a bin holds before
 * its first value, above and below every float's order. */
#define FLOAT_ORDER_MIN_START 0xffffffffu /* above +infinity's 0xff800000 */
#define FLOAT_ORDER_MAX_START 0x00000000u /* below -infinity's 0x007fffff */

#endif /* FLOAT_ORDER_H */
