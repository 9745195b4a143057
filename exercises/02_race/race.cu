/*
 * Exercise 02 - a race made visible. Every thread counts its bytes with a plain
 * histo[buffer[i]]++: a read, an add and a write, which other threads counting
 * the same byte value can slip between, so that increments are lost. This
 * program counts how many were lost, against the CPU. Make it lose none.
 *
 *   make run ARGS='--data constant'         every byte in one bin: the most collisions
 *   make run ARGS='--blocks 1 --threads 1'  one thread: no race, nothing lost
 *   make check                              does your kernel lose nothing, on any input?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <inttypes.h>

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        /* TODO: two threads that read the same bin at once both write back the
         * old count plus one, and one increment is lost. Make this read-add-write
         * one indivisible step (see the README's hints). */
        histo[buffer[i]]++;
        i += stride;
    }
}

static void launch_histo(void *, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* How many increments the GPU lost: the CPU's count minus the GPU's, in all and
 * in the bin that lost the most. A race only loses increments, so a negative
 * count means something else is wrong: bytes counted twice. */
static void print_lost(const struct input *in, const unsigned int histo[BINS])
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
    printf("lost:       %" PRId64 " of %zu increments (%.3f%%), in %d of %d bins\n", lost, in->size,
           in->size ? 100.0 * (double)lost / (double)in->size : 0.0, bins_short, BINS);
    if (expected[worst] != histo[worst])
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

    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, NULL, histo, kernel_histo);

    struct result result = {.impl = "mine",
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    if (!opt.csv)               /* the CSV is one header and one row; the count would break it */
        print_lost(&in, histo); /* the last end-to-end run: the one Histogram Sum shows */
    free_input(&in);
    return status;
}
