/*
 * dot_product_yours.cuh - exercise 03, the part you write: dot_kernel, which
 * dot_product.cu launches with one float of shared memory per thread.
 * The reference solution: a tree of halvings in shared memory, then one
 * add_to_result per block.
 */

__global__ void dot_kernel(const float *a, const float *b, size_t n, float *result)
{
    extern __shared__ float cache[]; /* one float per thread: the launch sizes it */
    float sum = 0.0f;                /* this thread's share: every stride-th product */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < n) {
        sum += a[i] * b[i];
        i += stride;
    }
    cache[threadIdx.x] = sum;
    __syncthreads(); /* every thread's sum is in cache before any is added */

    /* Fold the upper half onto the lower until one sum is left. Rounding the
     * half up keeps the middle element of an odd count: any block size works. */
    for (unsigned active = blockDim.x; active > 1;) {
        unsigned half = (active + 1) / 2;
        if (threadIdx.x < active - half)
            cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads(); /* this level is complete before the next reads it */
        active = half;
    }
    /* One atomic per block, not per thread: blocks finish at different times,
     * so they still need one, but few of them wait on each other. */
    if (threadIdx.x == 0)
        add_to_result(result, cache[0]);
}
