/*
 * 03_shared_atomics - the book's fast GPU histogram: each block first counts
 * into its own 256 bins in shared memory, where atomics are cheap and only the
 * block's threads compete, then adds its bins to the global histogram with one
 * atomicAdd per bin. Unlike the book's kernel, any block size works, not only 256.
 *
 *   ./hist_gpu_shmem_atomics                    the book's launch: 2 blocks per SM, 256 threads
 *   ./hist_gpu_shmem_atomics --blocks-per-sm 16 many more blocks than the book chose
 */
#include "book.h"

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    /* The book zeroes and merges with temp[threadIdx.x], which leaves bins
     * untouched when a block has fewer than 256 threads and overruns temp when
     * it has more. Striding by blockDim.x covers the 256 bins for any size. */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads(); /* every bin is zero before any thread counts into it */

    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += stride;
    }
    __syncthreads(); /* every thread has counted before the bins are read */

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}

static void launch_histo(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                         struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "03_shared_atomics",
                                .program = "hist_gpu_shmem_atomics",
                                .summary = "a shared-memory histogram per block, merged with global atomics",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct gpu gpu = open_gpu(&stage);
    /* The book's launch: twice as many blocks as SMs, 256 threads each. */
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);

    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, histo, kernel_histo);

    struct result result = {.impl = "shared-atomics",
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    free_input(&in);
    return status;
}
