/*
 * Exercise 08 - a histogram with many bins, and what happens when its private
 * copy no longer fits in shared memory. The values are 16-bit: each pair of
 * input bytes, little-endian (buffer[2k] + 256 * buffer[2k + 1]); an odd last
 * byte is a value on its own, as if a zero byte followed it.
 *   --bins 4096    the 12 low bits of each value: 16 KiB of bins per block, they fit
 *   --bins 65536   the whole value: 256 KiB of bins, more than a block may have.
 * The 4096 bins work; make the 65536 work too, a range of bins at a time in
 * shared memory, one launch per range, in many_bins_yours.cuh.
 *
 *   make run ARGS='--bins 65536 --size 16M'
 *   make check                       both counts of bins, every bin, every size?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the passes -- */

/* The kernel, yours: counts the values whose bin lies in the range
 * [first_bin, first_bin + range_bins) into a private copy of those bins in
 * shared memory, then adds the copy to the global histogram. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo,
                             unsigned int mask, unsigned int first_bin, unsigned int range_bins);

/* What the launches of one histogram were: launch_pass writes it down, and
 * the report prints it as its passes: line, which the check reads. */
struct pass_log {
    unsigned int launches;
    unsigned int most_bins; /* the largest range, in bins */
    unsigned int *counted;  /* for every bin, how many launches counted it */
};

/* One pass: the kernel over the whole input for the bins [first_bin, first_bin
 * + range_bins), with range_bins counters of shared memory per block. */
static void launch_pass(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                        unsigned int bins, unsigned int first_bin, unsigned int range_bins,
                        struct launch launch, struct pass_log *log)
{
    if (range_bins == 0 || first_bin >= bins || range_bins > bins - first_bin)
        fail("launch_pass: %u bins from bin %u are not a range of the %u bins", range_bins,
             first_bin, bins);
    log->launches++;
    log->most_bins = range_bins > log->most_bins ? range_bins : log->most_bins;
    for (unsigned int bin = first_bin; bin < first_bin + range_bins; bin++)
        log->counted[bin]++;
    histo_kernel<<<(unsigned)launch.blocks, launch.threads, range_bins * sizeof(unsigned int)>>>(
        dev_buffer, size, dev_histo, bins - 1, first_bin, range_bins);
    HANDLE_ERROR(cudaGetLastError());
}

/* Yours: histo_kernel, launch_histo (all the bins, by calls to launch_pass)
 * and describe_approach (the report's approach: line). */
#include "many_bins_yours.cuh"

/* ------------------------------------------------------------- reference -- */

/* The plain loop over the same values, into bins counters. */
static void cpu_many_bins(const unsigned char *buffer, size_t size, unsigned int bins,
                          unsigned int *histo)
{
    memset(histo, 0, bins * sizeof(unsigned int));
    for (size_t i = 0; i < size; i += 2) {
        unsigned int high = i + 1 < size ? buffer[i + 1] : 0;
        histo[(buffer[i] | high << 8) & (bins - 1)]++;
    }
}

/* ---------------------------------------------------------------- timing -- */

struct many_run {
    const struct input *in;
    unsigned int bins;
    struct launch launch;
    unsigned char *dev_buffer; /* the kernel-only runs' */
    unsigned int *dev_histo;
    cudaEvent_t start, stop;
    unsigned int *kernel_histo, *histo; /* the last kernel-only and end-to-end results */
    struct pass_log log;                /* the last call's launches */
};

/* Forgets the last call's launches: the log then holds one histogram's. */
static void clear_log(struct many_run *run)
{
    run->log.launches = 0;
    run->log.most_bins = 0;
    memset(run->log.counted, 0, run->bins * sizeof(unsigned int));
}

static double kernel_only_once(void *context)
{
    struct many_run *run = (struct many_run *)context;
    float ms;
    HANDLE_ERROR(cudaMemset(run->dev_histo, 0, run->bins * sizeof(unsigned int)));
    clear_log(run);
    HANDLE_ERROR(cudaEventRecord(run->start, 0));
    launch_histo(run->dev_buffer, run->in->size, run->dev_histo, run->bins, run->launch, &run->log);
    HANDLE_ERROR(cudaEventRecord(run->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(run->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, run->start, run->stop));
    return ms;
}

/* What a user waits for, as the stages time it: allocate, copy in, memset, kernel, copy out. */
static double end_to_end_once(void *context)
{
    struct many_run *run = (struct many_run *)context;
    size_t size = run->in->size, bytes = run->bins * sizeof(unsigned int);
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    double start = now_ms();
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, bytes));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, bytes));
    clear_log(run);
    launch_histo(dev_buffer, size, dev_histo, run->bins, run->launch, &run->log);
    HANDLE_ERROR(cudaMemcpy(run->histo, dev_histo, bytes, cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    return ms;
}

static struct gpu_times time_many_bins(struct many_run *run, int reps)
{
    size_t size = run->in->size, bytes = run->bins * sizeof(unsigned int);
    struct gpu_times times;
    HANDLE_ERROR(cudaEventCreate(&run->start));
    HANDLE_ERROR(cudaEventCreate(&run->stop));
    HANDLE_ERROR(cudaMalloc((void **)&run->dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&run->dev_histo, bytes));
    HANDLE_ERROR(cudaMemcpy(run->dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    times.kernel_ms = median_ms(kernel_only_once, run, reps);
    HANDLE_ERROR(cudaMemcpy(run->kernel_histo, run->dev_histo, bytes, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(run->dev_buffer)); /* so end to end has the memory to itself */
    HANDLE_ERROR(cudaFree(run->dev_histo));
    HANDLE_ERROR(cudaEventDestroy(run->start));
    HANDLE_ERROR(cudaEventDestroy(run->stop));
    times.total_ms = median_ms(end_to_end_once, run, reps);
    return times;
}

/* ---------------------------------------------------------------- report -- */

/* How many of the bins differ from expected; the first few go to stderr. */
static int count_wrong(const unsigned int *histo, const unsigned int *expected, unsigned int bins,
                       const char *what)
{
    int wrong = 0;
    for (unsigned int bin = 0; bin < bins; bin++)
        if (histo[bin] != expected[bin] && ++wrong <= 10)
            fprintf(stderr, "many_bins: %s: bin %u is %u, the CPU counts %u\n", what, bin,
                    histo[bin], expected[bin]);
    return wrong;
}

static int report_many_bins(const struct stage *stage, const struct options *opt,
                            const struct input *in, const struct gpu *gpu,
                            const struct many_run *run, struct gpu_times times, bool print_bins)
{
    unsigned int *expected = (unsigned int *)malloc(run->bins * sizeof(unsigned int));
    if (!expected)
        fail("out of host memory for %u bins", run->bins);
    cpu_many_bins(in->buffer, in->size, run->bins, expected);
    bool verified = count_wrong(run->histo, expected, run->bins, "end to end") == 0 &&
                    count_wrong(run->kernel_histo, expected, run->bins, "kernel only") == 0;
    free(expected);
    char impl[16]; /* the CSV's impl column: "4096" or "65536" */
    snprintf(impl, sizeof impl, "%u", run->bins);
    if (opt->csv) {
        bool generated = opt->data != DATA_FILE && opt->data != DATA_IMAGE;
        struct csv_row row = {stage->dir,         impl,
                              gpu->name,          in->name,
                              in->size,           generated ? opt->seed : 0,
                              run->launch.blocks, run->launch.threads,
                              opt->reps,          times.kernel_ms,
                              times.total_ms,     verified};
        puts(CSV_HEADER);
        print_csv_row(stdout, &row);
    } else {
        uint64_t sum = 0;
        for (unsigned int bin = 0; bin < run->bins; bin++)
            sum += run->histo[bin];
        printf("%s: %s\n", stage->dir, stage->summary);
        printf("impl:       %s bins\n", impl);
        describe_approach(run->bins);
        unsigned int once = 0;
        for (unsigned int bin = 0; bin < run->bins; bin++)
            once += run->log.counted[bin] == 1;
        printf("passes:     %u launches of histo_kernel, at most %u bins (%u KiB of shared memory "
               "per block); bins counted once: %u of %u\n",
               run->log.launches, run->log.most_bins, run->log.most_bins * 4 / 1024, once,
               run->bins);
        printf("device:     %s\n", gpu->name);
        printf("input:      %s, %zu bytes: %zu 16-bit values\n", in->name, in->size,
               (in->size + 1) / 2);
        printf("launch:     %ld blocks x %d threads\n", run->launch.blocks, run->launch.threads);
        printf("Histogram Sum: %" PRIu64 "\n", sum); /* the number of values */
        printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d runs after %d warm-up)\n",
               times.kernel_ms, gb_per_s(in->size, times.kernel_ms), opt->reps, WARMUP_RUNS);
        printf("end to end:  %10.3f ms %9.2f GB/s  (allocate, copy in, memset, kernel, copy out)\n",
               times.total_ms, gb_per_s(in->size, times.total_ms));
        printf("verified:   %s\n", verified ? "yes, every bin matches the CPU" : "NO");
    }
    if (print_bins)
        for (unsigned int bin = 0; bin < run->bins; bin++)
            printf("%u: %u\n", bin, run->histo[bin]);
    return verified ? EXIT_OK : EXIT_FAILED;
}

/* Its bins vary, so it has its own --bins (and --print-bins, which prints them all). */
static const struct stage_option own_options[] = {
    {"--bins", "N", "4096 (default), the 12 low bits of a value, or 65536, all 16"},
    {"--print-bins", NULL, "print every bin, one '<bin>: <count>' line each"},
    {NULL, NULL, NULL}};
enum { OPT_BINS, OPT_PRINT_BINS };

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "08_many_bins",
                                .program = "many_bins",
                                .summary = "exercise: 4096 or 65536 bins of 16-bit values",
                                .gpu = true,
                                .help = "The input is read as 16-bit values (pairs of bytes).",
                                .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *bins_text = opt.stage_values[OPT_BINS] ? opt.stage_values[OPT_BINS] : "4096";
    if (strcmp(bins_text, "4096") != 0 && strcmp(bins_text, "65536") != 0) {
        char why[128];
        snprintf(why, sizeof why, "--bins: '%.40s' is not 4096 or 65536", bins_text);
        usage_error(&stage, why);
    }
    bool print_bins = opt.stage_values[OPT_PRINT_BINS] != NULL;
    if (print_bins && opt.csv)
        usage_error(&stage, "--print-bins and --csv cannot be combined: the CSV would break");
    struct gpu gpu = open_gpu(&stage);
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);

    unsigned int bins = (unsigned int)atoi(bins_text);
    unsigned int *results = (unsigned int *)malloc(3 * bins * sizeof(unsigned int));
    if (!results)
        fail("out of host memory for %u bins", bins);
    struct many_run run = {.in = &in, .bins = bins, .launch = launch};
    run.kernel_histo = results;
    run.histo = results + bins;
    run.log.counted = results + 2 * bins;
    struct gpu_times times = time_many_bins(&run, opt.reps);
    int status = report_many_bins(&stage, &opt, &in, &gpu, &run, times, print_bins);
    free(results);
    free_input(&in);
    return status;
}
