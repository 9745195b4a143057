/*
 * warp_histograms_yours.cuh - exercise 05, the part you write: the two device
 * functions histo_kernel (in warp_histograms.cu) calls, the count into each
 * warp's own copy of the bins and the merge of the copies into the global
 * histogram. Finish both: look for TODO. Where each warp's copy sits in
 * warp_bins is said in warp_histograms.cu, in the comment just above the line
 * that includes this file.
 */

/* Each thread reads bytes i, i + stride, i + 2 stride, ... (keep this order:
 * --show-copies compares each copy with exactly what its warp's lanes read)
 * and counts each one into its warp's copy. */
__device__ void count_into_warp_copies(unsigned int *warp_bins, const unsigned char *buffer,
                                       size_t size)
{
    /* TODO: point mine at this warp's own copy; for now every warp uses copy 0. */
    unsigned int *mine = warp_bins;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        /* TODO: lanes of this warp that read the same byte value add to the same
         * bin at the same moment: make this add lose nothing. */
        mine[buffer[i]]++;
        i += stride;
    }
}

/* Adds every warp's copy into the global histogram: one thread per bin, one
 * global atomic per bin. */
__device__ void merge_warp_copies(const unsigned int *warp_bins, unsigned int *histo)
{
    __syncthreads(); /* every warp has counted before any copy is read */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        /* TODO: add this bin of every warp's copy, not only copy 0's. */
        unsigned int sum = warp_bins[bin];
        if (sum) /* on skewed or constant data most bins are empty */
            atomicAdd(&histo[bin], sum);
    }
}
