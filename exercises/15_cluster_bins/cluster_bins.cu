/*
 * Exercise 15 - 65536 bins in the shared memory of a thread-block cluster.
 * The keys are 16-bit (byte pairs, as in exercise 08): 65536 bins of 32-bit
 * counts, 256 KiB, more shared memory than one block may have. A cluster of 4
 * blocks holds them together: block r keeps bins r x 16384 to (r+1) x 16384 - 1,
 * and every block counts each key into the slice of the block that owns it,
 * through distributed shared memory (sm_90 and later). Finish the kernel, in
 * cluster_bins_yours.cuh.
 *
 *   make run ARGS='--size 16M'                     every bin checked against the CPU
 *   make run ARGS='--size 1M --show-slices'        what each block's slice holds before the merge
 *   make check                                     right bins, and in the right slices?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <cooperative_groups.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define KEY_BINS 65536                /* one bin per 16-bit key */
#define CLUSTER  4                    /* blocks per cluster */
#define SLICE    (KEY_BINS / CLUSTER) /* bins per block: 16384, 64 KiB of shared memory */

/* Key k is bytes 2k and 2k + 1, little-endian; an odd last byte is a key on
 * its own, as if a zero byte followed it. */
__host__ __device__ static unsigned int key_at(const unsigned char *buffer, size_t size, size_t k)
{
    unsigned int high = 2 * k + 1 < size ? buffer[2 * k + 1] : 0;
    return buffer[2 * k] | high << 8;
}

/* ------------------------------------------------------------ the kernel -- */

#ifdef _CG_HAS_CLUSTER_GROUP /* compiled for sm_90 or later: the GPUs with clusters */
/* Yours: histo_kernel, each key counted in the slice of the block that owns its bin. */
#include "cluster_bins_yours.cuh"
#else /* GPUs before sm_90 have no clusters: main exits 77 there before any launch */
__global__ void histo_kernel(const unsigned char *, size_t, unsigned int *, unsigned int *)
{
    __trap();
}
#endif

/* A grid of whole clusters of CLUSTER blocks, each with SLICE bins of dynamic
 * shared memory; the cluster's size is a launch attribute. */
static void launch_histo(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                         unsigned int *dev_slices, struct launch launch)
{
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = CLUSTER;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)launch.blocks);
    config.blockDim = dim3(launch.threads);
    config.dynamicSmemBytes = SLICE * sizeof(unsigned int);
    config.attrs = &cluster;
    config.numAttrs = 1;
    HANDLE_ERROR(
        cudaLaunchKernelEx(&config, histo_kernel, dev_buffer, size, dev_histo, dev_slices));
    HANDLE_ERROR(cudaGetLastError());
}

/* ------------------------------------------------------ timing, as in 08 -- */

struct cluster_run {
    const struct input *in;
    struct launch launch;
    unsigned char *dev_buffer; /* the kernel-only runs' */
    unsigned int *dev_histo;
    cudaEvent_t start, stop;
    unsigned int *kernel_histo, *histo; /* the last kernel-only and end-to-end results */
};

static double kernel_only_once(void *context)
{
    struct cluster_run *run = (struct cluster_run *)context;
    float ms;
    HANDLE_ERROR(cudaMemset(run->dev_histo, 0, KEY_BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventRecord(run->start, 0));
    launch_histo(run->dev_buffer, run->in->size, run->dev_histo, NULL, run->launch);
    HANDLE_ERROR(cudaEventRecord(run->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(run->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, run->start, run->stop));
    return ms;
}

/* What a user waits for: allocate, copy in, memset, kernel, copy out. */
static double end_to_end_once(void *context)
{
    struct cluster_run *run = (struct cluster_run *)context;
    size_t size = run->in->size, bytes = KEY_BINS * sizeof(unsigned int);
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    double start = now_ms();
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, bytes));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, bytes));
    launch_histo(dev_buffer, size, dev_histo, NULL, run->launch);
    HANDLE_ERROR(cudaMemcpy(run->histo, dev_histo, bytes, cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    return ms;
}

static struct gpu_times time_cluster_bins(struct cluster_run *run, int reps)
{
    size_t size = run->in->size, bytes = KEY_BINS * sizeof(unsigned int);
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

/* How many bins differ from expected; the first few go to stderr. */
static int count_wrong(const unsigned int *histo, const unsigned int *expected, const char *what)
{
    int wrong = 0;
    for (unsigned int bin = 0; bin < KEY_BINS; bin++)
        if (histo[bin] != expected[bin] && ++wrong <= 10)
            fprintf(stderr, "cluster_bins: %s: bin %u is %u, the CPU counts %u\n", what, bin,
                    histo[bin], expected[bin]);
    return wrong;
}

static int report(const struct stage *stage, const struct options *opt, const struct input *in,
                  const struct gpu *gpu, const struct cluster_run *run, struct gpu_times times,
                  bool print_bins)
{
    unsigned int *expected = (unsigned int *)calloc(KEY_BINS, sizeof(unsigned int));
    if (!expected)
        fail("out of host memory for %u bins", KEY_BINS);
    for (size_t k = 0; k < (in->size + 1) / 2; k++)
        expected[key_at(in->buffer, in->size, k)]++;
    bool verified = count_wrong(run->histo, expected, "end to end") == 0 &&
                    count_wrong(run->kernel_histo, expected, "kernel only") == 0;
    free(expected);
    if (opt->csv) {
        bool generated = opt->data != DATA_FILE && opt->data != DATA_IMAGE;
        struct csv_row row = {stage->dir,         "cluster",
                              gpu->name,          in->name,
                              in->size,           generated ? opt->seed : 0,
                              run->launch.blocks, run->launch.threads,
                              opt->reps,          times.kernel_ms,
                              times.total_ms,     verified};
        puts(CSV_HEADER);
        print_csv_row(stdout, &row);
    } else {
        uint64_t sum = 0;
        for (unsigned int bin = 0; bin < KEY_BINS; bin++)
            sum += run->histo[bin];
        struct cudaFuncAttributes attributes;
        HANDLE_ERROR(cudaFuncGetAttributes(&attributes, histo_kernel));
        printf("%s: %s\n", stage->dir, stage->summary);
        printf("device:     %s\n", gpu->name);
        printf("input:      %s, %zu bytes: %zu 16-bit keys\n", in->name, in->size,
               (in->size + 1) / 2);
        printf("launch:     %ld blocks x %d threads, in clusters of %d blocks\n",
               run->launch.blocks, run->launch.threads, CLUSTER);
        printf("cluster:    %d blocks x %d bytes of shared memory (%u bins each): %u bins\n",
               CLUSTER, attributes.maxDynamicSharedSizeBytes, (unsigned)SLICE, (unsigned)KEY_BINS);
        printf("Histogram Sum: %" PRIu64 "\n", sum); /* the number of keys */
        printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d runs after %d warm-up)\n",
               times.kernel_ms, gb_per_s(in->size, times.kernel_ms), opt->reps, WARMUP_RUNS);
        printf("end to end:  %10.3f ms %9.2f GB/s  (allocate, copy in, memset, kernel, copy out)\n",
               times.total_ms, gb_per_s(in->size, times.total_ms));
        printf("verified:   %s\n", verified ? "yes, every bin matches the CPU" : "NO");
    }
    if (print_bins)
        for (unsigned int bin = 0; bin < KEY_BINS; bin++)
            printf("%u: %u\n", bin, run->histo[bin]);
    return verified ? EXIT_OK : EXIT_FAILED;
}

/* --show-slices: one more run, with every block's slice copied out before the
 * merge. Prints, per block, its rank, its total and the first and last bin it
 * holds a count of; and whether the slices add up to that run's histogram. */
static int show_slices(const struct input *in, struct launch launch)
{
    size_t slice_count = (size_t)launch.blocks * SLICE;
    unsigned int *slices = (unsigned int *)malloc(slice_count * sizeof(unsigned int));
    unsigned int *histo = (unsigned int *)calloc(2 * KEY_BINS, sizeof(unsigned int));
    unsigned int *added = histo + KEY_BINS; /* the slices, added up by rank */
    if (!slices || !histo)
        fail("out of host memory for %ld slices", launch.blocks);
    unsigned char *dev_buffer;
    unsigned int *dev_histo, *dev_slices;
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, KEY_BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, KEY_BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_slices, slice_count * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_slices, 0, slice_count * sizeof(unsigned int)));
    launch_histo(dev_buffer, in->size, dev_histo, dev_slices, launch);
    HANDLE_ERROR(
        cudaMemcpy(histo, dev_histo, KEY_BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(
        cudaMemcpy(slices, dev_slices, slice_count * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    for (long block = 0; block < launch.blocks; block++) {
        unsigned int rank = (unsigned int)(block % CLUSTER), first = rank * SLICE;
        const unsigned int *mine = slices + block * (size_t)SLICE;
        uint64_t total = 0;
        long low = -1, high = -1;
        for (unsigned int j = 0; j < SLICE; j++) {
            added[first + j] += mine[j];
            total += mine[j];
            if (mine[j]) {
                high = first + j;
                if (low < 0)
                    low = first + j;
            }
        }
        printf("slice: block %ld, rank %u: %" PRIu64 " keys", block, rank, total);
        if (total)
            printf(", bins %ld to %ld\n", low, high);
        else
            printf("\n");
    }
    bool same = memcmp(histo, added, KEY_BINS * sizeof(unsigned int)) == 0;
    printf("slices add up to the histogram: %s\n", same ? "yes" : "NO");
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaFree(dev_slices));
    free(slices);
    free(histo);
    return same ? EXIT_OK : EXIT_FAILED;
}

/* Its 65536 bins are not the shared 256, so it has its own --bins and --print-bins. */
static const struct stage_option own_options[] = {
    {"--show-slices", NULL,
     "run once more and print what each block's slice holds before the merge"},
    {"--bins", "N", "the number of bins: 65536 here, one per 16-bit key"},
    {"--print-bins", NULL, "print all 65536 bins, one '<bin>: <count>' line each"},
    {NULL, NULL, NULL}};
enum { OPT_SHOW_SLICES, OPT_BINS, OPT_PRINT_BINS };

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "15_cluster_bins",
        .program = "cluster_bins",
        .summary = "exercise: 65536 bins over a cluster's distributed shared memory",
        .gpu = true,
        .help = "The input is read as 16-bit keys (pairs of bytes), counted into 65536 bins. "
                "--blocks must be a multiple of 4 (whole clusters).",
        .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks % CLUSTER)
        usage_error(&stage, "--blocks must be a multiple of 4 (whole clusters of 4 blocks)");
    const char *bins = opt.stage_values[OPT_BINS];
    if (bins && strcmp(bins, "65536") != 0) {
        char why[128];
        snprintf(why, sizeof why,
                 "--bins: cluster_bins counts 65536 bins, one per 16-bit key, "
                 "not '%.20s'",
                 bins);
        usage_error(&stage, why);
    }
    bool print_bins = opt.stage_values[OPT_PRINT_BINS] != NULL;
    if (print_bins && opt.csv)
        usage_error(&stage, "--print-bins and --csv cannot be combined: the CSV would break");
    /* clusters: a 9.0 GPU, and code compiled for 9.0 (else exit 77, with why) */
    struct gpu gpu = open_gpu_needing(&stage, 90, "thread-block clusters");
    /* 64 KiB per block: past the 48 KiB a block gets without asking. */
    HANDLE_ERROR(cudaFuncSetAttribute(histo_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      SLICE * sizeof(unsigned int)));
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    launch.blocks = (launch.blocks + CLUSTER - 1) / CLUSTER * CLUSTER; /* whole clusters */
    struct input in = make_input(&stage, &opt);

    unsigned int *results = (unsigned int *)malloc(2 * KEY_BINS * sizeof(unsigned int));
    if (!results)
        fail("out of host memory for %u bins", KEY_BINS);
    struct cluster_run run = {.in = &in, .launch = launch};
    run.kernel_histo = results;
    run.histo = results + KEY_BINS;
    struct gpu_times times = time_cluster_bins(&run, opt.reps);
    int status = report(&stage, &opt, &in, &gpu, &run, times, print_bins);
    if (opt.stage_values[OPT_SHOW_SLICES] && show_slices(&in, launch) != EXIT_OK)
        status = EXIT_FAILED;
    free(results);
    free_input(&in);
    return status;
}
