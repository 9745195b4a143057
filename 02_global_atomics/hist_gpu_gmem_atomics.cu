/*
 * 02_global_atomics - the first GPU histogram: every thread reads bytes in a
 * grid-stride loop and counts each with one atomicAdd on a bin in global
 * memory. Correct, because the increments are atomic; slow, because all the
 * GPU's threads fight over 256 counters (try --data constant).
 *
 *   ./hist_gpu_gmem_atomics                  the book's launch: 2 blocks per SM, 256 threads
 *   ./hist_gpu_gmem_atomics --blocks-per-sm 8 --threads 512
 */
#include "book.h"

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    /* size_t, not the book's int: an int index overflows past 2 GiB. */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x; /* a grid of any size covers any input */
    while (i < size) {
        atomicAdd(&histo[buffer[i]], 1);
        i += stride;
    }
}

static void launch_histo(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                         struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "02_global_atomics",
                                .program = "hist_gpu_gmem_atomics",
                                .summary = "one global atomicAdd per byte",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct gpu gpu = open_gpu(&stage);
    /* The book's launch: twice as many blocks as SMs, 256 threads each. */
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);

    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, histo, kernel_histo);

    struct result result = {.impl = "global-atomics",
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
