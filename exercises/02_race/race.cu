/*
 * Exercise 02 - a race made visible. racy_kernel counts with a plain
 * histo[buffer[i]]++: a read, an add and a write, which other threads counting
 * the same byte value can slip between, so that increments are lost. This
 * program runs it first and counts what it lost, against the CPU; then it runs
 * your histo_kernel (in race_yours.cuh, the file you edit) on the same launch
 * and counts again. Make yours lose none.
 *
 *   make run ARGS='--data constant'         every byte in one bin: the most collisions
 *   make run ARGS='--blocks 1 --threads 1'  one thread: no race, nothing lost
 *   make check                              does your kernel lose nothing, on any input?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <inttypes.h>

/* The most bytes that one thread of histo_kernel counted, over all its runs.
 * The check reads it to see that the work was spread over the whole grid (a
 * thread's share of the grid-stride loop), so that the threads really raced. */
__device__ unsigned int most_counted;

/* The race itself, kept to be measured: every run starts with it. */
__global__ void racy_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        histo[buffer[i]]++;
        i += stride;
    }
}

/* Yours: histo_kernel, the same count, made to lose no increment. */
#include "race_yours.cuh"

/* Both kernels go through this one launch, so that yours runs on exactly the
 * grid on which the plain ++ was seen to lose increments. */
static void launch_histo(void *context, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    if (*(const bool *)context)
        racy_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    else
        histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* How many increments a kernel lost: the CPU's count minus the GPU's, in all
 * and, for yours, in the bin that lost the most. A race only loses increments,
 * so a negative count means something else is wrong: bytes counted twice. */
static void print_lost(const char *label, const struct input *in, const unsigned int histo[BINS],
                       bool show_worst)
{
    unsigned int expected[BINS];
    cpu_histogram(in->buffer, in->size, expected);
    int64_t lost = (int64_t)in->size - (int64_t)histogram_sum(histo);
    int bins_short = 0, worst = 0;
    for (int bin = 0; bin < BINS; bin++) {
        int64_t missing = (int64_t)expected[bin] - histo[bin];
        bins_short += missing != 0;
        if (missing > (int64_t)expected[worst] - histo[worst])
            worst = bin;
    }
    printf("%-11s %" PRId64 " of %zu increments (%.3f%%), in %d of %d bins\n", label, lost,
           in->size, in->size ? 100.0 * (double)lost / (double)in->size : 0.0, bins_short, BINS);
    if (show_worst && expected[worst] != histo[worst])
        printf("worst bin:  %d counted %u of %u\n", worst, histo[worst], expected[worst]);
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "02_race",
                                .program = "race",
                                .summary = "exercise: a race made visible, lost increments counted",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct gpu gpu = open_gpu(&stage);
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);

    /* First the plain ++, once, on the launch yours will get: what it loses. */
    bool racy = true;
    struct options once = opt;
    once.reps = 1;
    unsigned int racy_histo[BINS], racy_kernel_histo[BINS];
    time_gpu_histogram(&stage, &once, &in, launch, launch_histo, &racy, racy_histo,
                       racy_kernel_histo);

    racy = false;
    unsigned int most = 0;
    HANDLE_ERROR(cudaMemcpyToSymbol(most_counted, &most, sizeof most));
    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, &racy, histo, kernel_histo);
    HANDLE_ERROR(cudaMemcpyFromSymbol(&most, most_counted, sizeof most));

    struct result result = {.impl = "mine",
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    if (!opt.csv) { /* the CSV is one header and one row; these lines would break it */
        /* the last end-to-end runs: the one Histogram Sum shows, and the plain ++'s */
        print_lost("lost by ++:", &in, racy_histo, false);
        print_lost("lost:", &in, histo, true);
        size_t grid = (size_t)launch.blocks * launch.threads;
        printf("busiest:    %u bytes counted by one thread; a thread's share is at most %zu\n",
               most, (in.size + grid - 1) / grid);
    }
    free_input(&in);
    return status;
}
