/*
 * Exercise 07 - a weighted histogram: every byte adds a float weight to its
 * bin instead of 1, so the bins are sums, not counts. Chapter 03's kernel with
 * float bins: each block sums into its own bins in shared memory, then adds
 * them to the global bins with one atomicAdd per bin. Float sums round, so the
 * GPU's bins are checked against exact CPU sums within a proven tolerance.
 * The kernel, in weighted_yours.cuh, still counts and keeps its counts to
 * itself: the rest is yours.
 *
 *   make run                                 the book's 100 MiB of uniform bytes
 *   make run ARGS='--data constant --size 1M --print-bins'
 *   make check                               is every bin within tolerance of the CPU's?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The weight of the byte at position i: 1 + (i mod 256) / 256, from 1 to just
 * under 2. Nine significant bits, so every weight is exact in a float and only
 * the additions round; all positive, so no sum cancels and a relative error
 * means something. The same function serves the kernel and the CPU reference. */
__host__ __device__ static inline float weight(size_t i)
{
    return 1.0f + (float)(i % 256) / 256.0f;
}

/* Yours: weighted_kernel, the weights summed per block in shared memory, then merged. */
#include "weighted_yours.cuh"

static void launch_weighted(const unsigned char *dev_buffer, size_t size, float *dev_histo,
                            struct launch launch)
{
    weighted_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* ------------------------------------------------------ reference, tolerance -- */

/* The exact bins: every weight is exact and a double's 53 bits hold these sums
 * (under 2^33 of them) with room to spare. */
static void cpu_weighted(const unsigned char *buffer, size_t size, double histo[BINS])
{
    for (int bin = 0; bin < BINS; bin++)
        histo[bin] = 0.0;
    for (size_t i = 0; i < size; i++)
        histo[buffer[i]] += weight(i);
}

/* The most additions any weight goes through: a float sum of positive terms
 * in which each term goes through at most d additions is within 2 d 2^-24 of
 * the exact sum while d 2^-24 <= 1/2 (Higham, Accuracy and Stability of
 * Numerical Algorithms, 4.2). Here a weight is added in its block's shared bin,
 * which takes at most the block's share of the input (its grid-stride rounds
 * times its threads: constant data puts them all in one bin), and the block's
 * bin is then added to a global bin that takes one sum from every block. */
static double additions(size_t size, struct launch launch)
{
    double grid = (double)launch.blocks * launch.threads;
    return ceil((double)size / grid) * launch.threads + (double)launch.blocks;
}

/* ----------------------------------------------------------------- timing -- */

struct weighted_run {
    const struct input *in;
    struct launch launch;
    unsigned char *dev_buffer; /* the kernel-only runs' */
    float *dev_histo;
    cudaEvent_t start, stop;
    float kernel_histo[BINS], histo[BINS]; /* the last kernel-only and end-to-end results */
};

static double kernel_only_once(void *context)
{
    struct weighted_run *run = (struct weighted_run *)context;
    float ms;
    HANDLE_ERROR(cudaMemset(run->dev_histo, 0, BINS * sizeof(float))); /* zero bits: 0.0f */
    HANDLE_ERROR(cudaEventRecord(run->start, 0));
    launch_weighted(run->dev_buffer, run->in->size, run->dev_histo, run->launch);
    HANDLE_ERROR(cudaEventRecord(run->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(run->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, run->start, run->stop));
    HANDLE_ERROR(cudaMemcpy(run->kernel_histo, run->dev_histo, BINS * sizeof(float),
                            cudaMemcpyDeviceToHost));
    return ms;
}

/* What a user waits for, as the stages time it: allocate, copy in, memset, kernel, copy out. */
static double end_to_end_once(void *context)
{
    struct weighted_run *run = (struct weighted_run *)context;
    size_t size = run->in->size;
    unsigned char *dev_buffer;
    float *dev_histo;
    double start = now_ms();
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(float)));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(float)));
    launch_weighted(dev_buffer, size, dev_histo, run->launch);
    HANDLE_ERROR(cudaMemcpy(run->histo, dev_histo, BINS * sizeof(float), cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    return ms;
}

/* Kernel only, then end to end, each a median of reps after a warm-up. */
static struct gpu_times time_weighted(struct weighted_run *run, int reps)
{
    size_t size = run->in->size, free_bytes, total_bytes;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (size + (1 << 20) > free_bytes)
        fail("%zu bytes do not fit in GPU memory: %zu MiB free of %zu MiB", size, free_bytes >> 20,
             total_bytes >> 20);
    HANDLE_ERROR(cudaEventCreate(&run->start));
    HANDLE_ERROR(cudaEventCreate(&run->stop));
    HANDLE_ERROR(cudaMalloc((void **)&run->dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&run->dev_histo, BINS * sizeof(float)));
    HANDLE_ERROR(cudaMemcpy(run->dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    struct gpu_times times;
    times.kernel_ms = median_ms(kernel_only_once, run, reps);
    HANDLE_ERROR(cudaFree(run->dev_buffer)); /* so end to end has the memory to itself */
    HANDLE_ERROR(cudaFree(run->dev_histo));
    HANDLE_ERROR(cudaEventDestroy(run->start));
    HANDLE_ERROR(cudaEventDestroy(run->stop));
    times.total_ms = median_ms(end_to_end_once, run, reps);
    return times;
}

/* ----------------------------------------------------------------- report -- */

/* The largest relative error of any bin; an empty bin must be exactly 0. */
static double worst_error(const float histo[BINS], const double exact[BINS])
{
    double worst = 0.0;
    for (int bin = 0; bin < BINS; bin++) {
        double error =
            exact[bin] > 0 ? fabs(histo[bin] - exact[bin]) / exact[bin] : fabs((double)histo[bin]);
        worst = error > worst || isnan(error) ? error : worst;
    }
    return worst;
}

static int report_weighted(const struct stage *stage, const struct options *opt,
                           const struct input *in, const char *device,
                           const struct weighted_run *run, struct gpu_times times)
{
    double exact[BINS], gpu_total = 0.0, cpu_total = 0.0;
    cpu_weighted(in->buffer, in->size, exact);
    for (int bin = 0; bin < BINS; bin++) {
        gpu_total += run->histo[bin];
        cpu_total += exact[bin];
    }
    double tol = 2.0 * additions(in->size, run->launch) * 0x1p-24;
    double error = worst_error(run->histo, exact);
    double kernel_error = worst_error(run->kernel_histo, exact);
    bool verified = error <= tol && kernel_error <= tol; /* false for a NaN too */
    if (opt->csv) {
        bool generated = opt->data != DATA_FILE && opt->data != DATA_IMAGE;
        struct csv_row row = {.stage = stage->dir,
                              .impl = "mine",
                              .device = device,
                              .data = in->name,
                              .bytes = in->size,
                              .seed = generated ? opt->seed : 0,
                              .blocks = run->launch.blocks,
                              .threads = run->launch.threads,
                              .reps = opt->reps,
                              .kernel_ms = times.kernel_ms,
                              .total_ms = times.total_ms,
                              .verified = verified};
        puts(CSV_HEADER);
        print_csv_row(stdout, &row);
    } else {
        printf("%s: %s\n", stage->dir, stage->summary);
        printf("device:     %s\n", device);
        printf("input:      %s, %zu bytes, weights 1 + (position mod 256) / 256\n", in->name,
               in->size);
        printf("launch:     %ld blocks x %d threads\n", run->launch.blocks, run->launch.threads);
        printf("weight sum (GPU): %.9g\n", gpu_total);
        printf("weight sum (CPU): %.17g (in double)\n", cpu_total);
        printf("error:      %.3g relative, the worst bin's (kernel only: %.3g), tolerance %.3g\n",
               error, kernel_error, tol);
        printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d runs after %d warm-up)\n",
               times.kernel_ms, gb_per_s(in->size, times.kernel_ms), opt->reps, WARMUP_RUNS);
        printf("end to end:  %10.3f ms %9.2f GB/s  (allocate, copy in, memset, kernel, copy out)\n",
               times.total_ms, gb_per_s(in->size, times.total_ms));
        printf("verified:   %s\n", verified ? "yes, every bin within tolerance of the CPU" : "NO");
    }
    if (opt->print_bins) /* 9 significant digits tell any two floats apart */
        for (int bin = 0; bin < BINS; bin++)
            printf("%d: %.9g\n", bin, run->histo[bin]);
    if (!verified) {
        fprintf(stderr, "%s: verification FAILED: a bin is %.3g off the CPU's, tolerance %.3g\n",
                stage->program, fmax(error, kernel_error), tol);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "07_weighted",
                                .program = "weighted",
                                .summary = "exercise: a weighted histogram of float sums",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct gpu gpu = open_gpu(&stage);
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);
    /* Past 2^23 additions the float bound above says nothing: a bin can stop
     * growing (adding 1 to 2^25 in a float changes nothing). */
    if (additions(in.size, launch) * 0x1p-24 > 0.5)
        usage_error(&stage, "too few blocks for this input: a float bin would take more than "
                            "2^23 additions; give more --blocks");

    struct weighted_run run = {.in = &in, .launch = launch};
    struct gpu_times times = time_weighted(&run, opt.reps);
    int status = report_weighted(&stage, &opt, &in, gpu.name, &run, times);
    free_input(&in);
    return status;
}
