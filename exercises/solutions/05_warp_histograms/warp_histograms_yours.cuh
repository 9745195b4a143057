/*
 * warp_histograms_yours.cuh - exercise 05, the part you write: the two device
 * functions histo_kernel (in warp_histograms.cu) calls, the count into each
 * warp's own copy of the bins and the merge of the copies into the global
 * histogram. The reference solution.
 */

/* Each thread reads bytes i, i + stride, i + 2 stride, ... (keep this order:
 * --show-copies compares each copy with exactly what its warp's lanes read)
 * and counts each one into its warp's copy. */
__device__ void count_into_warp_copies(unsigned int *warp_bins, const unsigned char *buffer,
                                       size_t size)
{
    /* Only the 32 lanes of this warp share this copy. They still need atomics:
     * lanes that read the same byte value in the same step add to the same bin. */
    unsigned int *mine = warp_bins + (threadIdx.x / WARP_SIZE) * BINS;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&mine[buffer[i]], 1);
        i += stride;
    }
}

/* Adds every warp's copy into the global histogram: one thread per bin, one
 * global atomic per bin. */
__device__ void merge_warp_copies(const unsigned int *warp_bins, unsigned int *histo)
{
    int warps = blockDim.x / WARP_SIZE;
    __syncthreads(); /* every warp has counted before any copy is read */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        unsigned int sum = 0;
        for (int w = 0; w < warps; w++)
            sum += warp_bins[w * BINS + bin];
        if (sum) /* on skewed or constant data most bins are empty */
            atomicAdd(&histo[bin], sum);
    }
}
