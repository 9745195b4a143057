/*
 * cluster_bins_yours.cuh - exercise 15, the part you write: histo_kernel, whose
 * 65536 bins are split over the shared memory of a cluster of CLUSTER blocks,
 * SLICE bins each. cluster_bins.cu includes it only when compiling for sm_90
 * or later, launches it in whole clusters and checks every bin. Finish the
 * kernel: look for TODO.
 */

/* slices is NULL, except in the run --show-slices asks for: there each block
 * copies its slice to slices[blockIdx.x * SLICE ...] before the merge. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo,
                             unsigned int *slices)
{
    extern __shared__ unsigned int slice[]; /* this block's SLICE bins */
    cg::cluster_group cluster = cg::this_cluster();
    for (unsigned int j = threadIdx.x; j < SLICE; j += blockDim.x)
        slice[j] = 0;
    /* TODO: every block of the cluster must have zeroed its slice before any
     * block counts into it; this barrier waits only for this block's threads. */
    __syncthreads();

    size_t keys = (size + 1) / 2;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < keys; k += stride) {
        unsigned int key = key_at(buffer, size, k);
        /* TODO: the key's bin lives in the slice of one block of this cluster:
         * count it there, not in this block's own slice. */
        atomicAdd(&slice[key % SLICE], 1);
    }
    /* TODO: every block must have counted before any slice is read, and no
     * block may exit while another may still add into its slice. */
    __syncthreads();

    if (slices)
        for (unsigned int j = threadIdx.x; j < SLICE; j += blockDim.x)
            slices[blockIdx.x * (size_t)SLICE + j] = slice[j];

    /* TODO: the histogram's bin of this slice's first counter. */
    unsigned int first = 0;
    for (unsigned int j = threadIdx.x; j < SLICE; j += blockDim.x)
        if (slice[j]) /* most bins are empty in one cluster's share of the keys */
            atomicAdd(&histo[first + j], slice[j]);
}
