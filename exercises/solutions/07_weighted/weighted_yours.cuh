/*
 * weighted_yours.cuh - exercise 07, the part you write: weighted_kernel, which
 * weighted.cu launches and checks against exact sums. The reference solution.
 */

__global__ void weighted_kernel(const unsigned char *buffer, size_t size, float *histo)
{
    __shared__ float temp[BINS];
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0.0f;
    __syncthreads(); /* every bin is zero before any thread adds to it */

    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], weight(i)); /* atomicAdd has a float version, in shared too */
        i += stride;
    }
    __syncthreads(); /* every thread has added before the merge reads the bins */

    /* A stride of blockDim.x, not 256: every bin is merged for any block size. */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}
