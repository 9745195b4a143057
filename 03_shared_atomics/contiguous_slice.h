/*
 * contiguous_slice.h - which bytes one thread counts in the contiguous
 * variant of 03_shared_atomics. It has a header of its own so that the test
 * suite, C built for the CPU, checks the very arithmetic the kernel runs.
 */
#ifndef CONTIGUOUS_SLICE_H
#define CONTIGUOUS_SLICE_H

#include <stddef.h>

#ifdef __CUDACC__
#define HOST_AND_DEVICE __host__ __device__ /* nvcc builds it for the GPU and for the CPU */
#else
#define HOST_AND_DEVICE /* a C compiler (the test suite) builds the CPU's copy only */
#endif

/* The bytes first, first + 1, ..., end - 1 of the input: none when first == end. */
struct slice {
    size_t first, end;
};

/* Thread t of threads (at least one) takes the t-th run of ceil(size / threads)
 * bytes. Rounded up, not down with the last thread taking the rest (as 01_cpu
 * splits its input): no thread gets more than its share, rounded up, and the
 * last threads run out of input instead, so their slices are shorter, or empty.
 * size_t throughout: t * length goes past 2^31 on inputs past 2 GiB. */
HOST_AND_DEVICE static inline struct slice contiguous_slice(size_t size, size_t threads, size_t t)
{
    size_t length = size / threads + (size % threads != 0); /* size / threads, rounded up */
    size_t first = t * length, end = first + length;
    struct slice mine = {first < size ? first : size, end < size ? end : size};
    return mine;
}

#endif /* CONTIGUOUS_SLICE_H */
