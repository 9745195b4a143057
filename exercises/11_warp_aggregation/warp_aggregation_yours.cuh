/*
 * warp_aggregation_yours.cuh - exercise 11, the part you write: histo_kernel,
 * which warp_aggregation.cu launches; it touches the histogram only through
 * add_to_bin, which counts its atomics for --count-atomics. Finish the
 * kernel: look for TODO.
 */

/* Stage 02's kernel: one byte per thread per step, a grid apart. In the last
 * step the lanes past the end have left the loop, so a warp may count with
 * fewer than 32 lanes (and with any block size that is not whole warps). */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        unsigned int bin = buffer[i];
        /* TODO: find the lanes of this warp, here in this step, that hold the
         * same bin; one of them adds the group's count, the others add nothing. */
        add_to_bin(histo, bin, 1);
        i += stride;
    }
}
