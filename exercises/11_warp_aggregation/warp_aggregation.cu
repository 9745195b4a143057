/*
 * Exercise 11 - warp-aggregated atomics. Stage 02 adds every byte to the
 * global histogram with an atomic of its own, so on constant data every lane
 * of a warp adds 1 to the same bin in the same step. Here the lanes of a warp
 * that hold the same byte elect one of them, which adds the group's count with
 * one atomic: up to 32 times fewer atomics. Finish the kernel, in
 * warp_aggregation_yours.cuh.
 *
 *   make run ARGS='--data constant --count-atomics'   how many atomics did the kernel issue?
 *   make run ARGS='--count-atomics'                   and on uniform bytes?
 *   make check                                        right bins, and few atomics?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <string.h>

#define WARP_SIZE 32

/* Where add_to_bin counts its calls: NULL, except in the one extra run that
 * --count-atomics asks for, so the timed runs count nothing. */
__device__ unsigned long long *atomics_issued;

/* The kernel's only way to touch the histogram: count more of bin, with one
 * atomic on global memory. */
__device__ void add_to_bin(unsigned int *histo, unsigned int bin, unsigned int count)
{
    atomicAdd(&histo[bin], count);
    if (atomics_issued)
        atomicAdd(atomics_issued, 1ULL);
}

/* Yours: histo_kernel, one atomic per group of lanes that hold the same byte. */
#include "warp_aggregation_yours.cuh"

static void launch_histo(void *, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* One more run, with add_to_bin counting its calls: the number of atomics
 * the kernel issued on this input and launch. */
static unsigned long long count_atomics(const struct input *in, struct launch launch)
{
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    unsigned long long *dev_count, count;
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_count, sizeof count));
    HANDLE_ERROR(cudaMemset(dev_count, 0, sizeof count));
    HANDLE_ERROR(cudaMemcpyToSymbol(atomics_issued, &dev_count, sizeof dev_count));
    launch_histo(NULL, dev_buffer, in->size, dev_histo, launch);
    HANDLE_ERROR(cudaMemcpy(&count, dev_count, sizeof count, cudaMemcpyDeviceToHost));
    unsigned long long *none = NULL;
    HANDLE_ERROR(cudaMemcpyToSymbol(atomics_issued, &none, sizeof none));
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaFree(dev_count));
    return count;
}

static const struct stage_option own_options[] = {
    {"--count-atomics", NULL, "run once more, counting add_to_bin's atomics, and print them"},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "11_warp_aggregation",
                                .program = "warp_aggregation",
                                .summary =
                                    "exercise: one atomic per group of equal bytes in a warp",
                                .gpu = true,
                                .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    bool counting = opt.stage_values[0] != NULL;
    struct gpu gpu = open_gpu(&stage);
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);

    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, NULL, histo, kernel_histo);

    struct result result = {.impl = "warp-aggregation",
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    if (counting)
        printf("atomics issued: %llu for %zu bytes\n", count_atomics(&in, launch), in.size);
    free_input(&in);
    return status;
}
