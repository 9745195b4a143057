/*
 * warp_aggregation_yours.cuh - exercise 11, the part you write: histo_kernel,
 * which warp_aggregation.cu launches; it touches the histogram only through
 * add_to_bin, which counts its atomics for --count-atomics. The reference
 * solution.
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
        /* The lanes that run this step together: not always all 32 (the last
         * step, a partial warp), and a mask naming a lane that is not here
         * is undefined behaviour. */
        unsigned int here = __activemask();
        /* The lanes among them that hold the same bin as this one ... */
        unsigned int same = __match_any_sync(here, bin);
        /* ... elect the lowest of them (__ffs counts from 1), which adds them all. */
        unsigned int lane = threadIdx.x % WARP_SIZE;
        if (lane == (unsigned int)(__ffs(same) - 1))
            add_to_bin(histo, bin, __popc(same));
        i += stride;
    }
}
