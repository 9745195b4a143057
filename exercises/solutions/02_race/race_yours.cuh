/*
 * race_yours.cuh - exercise 02, the part you write: histo_kernel, which
 * race.cu runs on the same launch as its racy_kernel and whose losses it
 * counts. The reference solution: one atomicAdd per byte, as in stage 02.
 */

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    unsigned int counted = 0; /* for most_counted: the bytes this thread counted */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        /* One indivisible read-add-write: a thread that counts the same bin at
         * the same time waits its turn, so no increment is lost. */
        atomicAdd(&histo[buffer[i]], 1);
        counted++;
        i += stride;
    }
    atomicMax(&most_counted, counted);
}
