/*
 * 07_many_bins - beyond the book: where the counters live as the bins grow.
 * 32-bit keys over their whole range go in even bins (bin = key x bins / 2^32);
 * each strategy is its own kernel, specialized so that nothing known at launch
 * is tested per key, and each is shown as a % of a kernel that only reads the
 * keys. A prototype (issue 23): it measures; the stage and its chapter come after.
 *
 *   ./hist_gpu_many_bins --bins 4096                       every strategy that holds 4096 bins
 *   ./hist_gpu_many_bins --bins 65536 --variant per-block-halves
 *   ./hist_gpu_many_bins --bins 1048576 --variant partition
 *   ./hist_gpu_many_bins --sweep --size 1G --reps 5        bins 2 to 2^20, one line each
 */
#include "book.h"
#include "harness_cuda.h"
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the keys */
#include "many_bins_kernels.cuh"

#include <cub/device/device_histogram.cuh>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS          (1u << 20)
#define MAX_BUCKET_BINS   65536u /* a bin within its bucket must fit a u16 */
#define PARTITION_THREADS 1024
#define COUNT_THREADS     1024

/* ----------------------------------------------------------------- the CPU -- */

static void cpu_many_bins(const unsigned *keys, size_t n, unsigned bins, unsigned *histo)
{
    memset(histo, 0, bins * sizeof *histo);
    for (size_t i = 0; i < n; i++)
        histo[((uint64_t)keys[i] * bins) >> 32]++;
}

/* ------------------------------------------------------------ the strategies -- */

enum kind {
    PER_BLOCK,
    PER_BLOCK_HALVES,
    PER_BLOCK_HALVES_AGGREGATED,
    GLOBAL_PLAIN,
    GLOBAL_AGGREGATED,
    PARTITION,
    PARTITION_ATOMICS,
    CUB
};

struct strategy {
    const char *name; /* first: variant_names_of_rows reads it */
    enum kind kind;
};

static const struct strategy strategies[] = {
    {"per-block", PER_BLOCK},                           /* (b) 32-bit counters in shared memory */
    {"per-block-halves", PER_BLOCK_HALVES},             /* (c) 16-bit halves, twice the bins */
    {"halves-aggregated", PER_BLOCK_HALVES_AGGREGATED}, /* (c) a warp's equal bins at once */
    {"global-plain", GLOBAL_PLAIN},                     /* (d0) one global atomic per key */
    {"global-aggregated", GLOBAL_AGGREGATED},           /* (d) one per distinct bin per warp */
    {"partition", PARTITION},                           /* (e) split by bucket, then count each */
    {"partition-atomics", PARTITION_ATOMICS},           /* (e) places by one atomic per key */
    {"cub", CUB}, /* (f) cub::DeviceHistogram::HistogramEven */
};
#define STRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

/* What a strategy needs for one number of bins: its grid, its shared memory,
 * its scratch space, all decided and allocated before anything is timed. */
struct plan {
    const struct strategy *s;
    unsigned bins;
    struct launch launch, count_launch; /* count_launch: partition's pass 2 */
    size_t shared_bytes, count_shared_bytes;
    unsigned words;                           /* per-block-halves: 32-bit words */
    unsigned bucket_bits, buckets, tile_keys; /* partition */
    uint16_t *indices;                        /* partition: the intermediate format */
    unsigned *starts, *totals;
    void *cub_scratch;
    size_t cub_bytes;
    char why_not[160];
};

struct device {
    const struct stage *stage;
    const struct options *opt;
    struct gpu gpu;
    size_t max_shared; /* dynamic shared memory one block may have (opt-in) */
    unsigned bucket_bins;
};

/* 1024 or 512 threads, whichever keeps more of them on an SM (512 on a tie),
 * and as many blocks as fit at once; --threads and --blocks override. */
static struct launch fill_gpu(const struct device *d, const void *kernel, size_t shared,
                              int only_threads)
{
    int best_threads = 512, best_per_sm = 0;
    for (int threads = 512; threads <= 1024; threads *= 2) {
        int per_sm;
        if (only_threads && threads != only_threads)
            continue;
        HANDLE_ERROR(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
        if (per_sm * threads > best_per_sm * best_threads || !best_per_sm)
            best_threads = threads, best_per_sm = per_sm;
    }
    if (best_per_sm == 0)
        return {0, 0};
    /* a kernel that needs its own block size (partition's tiles) keeps it */
    bool own = d->opt->threads && !only_threads;
    return choose_launch(d->stage, d->opt, &d->gpu, best_per_sm,
                         own ? d->opt->threads : best_threads);
}

static void launch_cub(struct plan *p, const unsigned *keys, size_t n, unsigned *histo)
{
    /* Levels as 64-bit integers: the upper level 2^32 is not a u32 */
    HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(p->cub_scratch, p->cub_bytes, keys, histo,
                                                     (int)p->bins + 1, 0LL, 1LL << 32, (int64_t)n));
}

/* Fills p for p->s and bins, or says in p->why_not why it cannot hold them. */
static bool plan_strategy(const struct device *d, struct plan *p, size_t n)
{
    unsigned bins = p->bins;
    switch (p->s->kind) {
    case PER_BLOCK:
        p->shared_bytes = (size_t)bins * 4;
        if (p->shared_bytes > d->max_shared) {
            snprintf(p->why_not, sizeof p->why_not, "%u bins need %zu KiB; a block has %zu KiB",
                     bins, p->shared_bytes >> 10, d->max_shared >> 10);
            return false;
        }
        p->launch = fill_gpu(d, (const void *)per_block_kernel, p->shared_bytes, 0);
        return true;
    case PER_BLOCK_HALVES:
    case PER_BLOCK_HALVES_AGGREGATED:
        p->words = ((bins + 1) / 2 + 3) / 4 * 4; /* whole 16-byte quads */
        p->shared_bytes = (size_t)p->words * 4;
        if (p->shared_bytes > d->max_shared) {
            snprintf(p->why_not, sizeof p->why_not,
                     "%u bins in halves need %zu KiB; a block has %zu KiB", bins,
                     p->shared_bytes >> 10, d->max_shared >> 10);
            return false;
        }
        p->launch =
            fill_gpu(d,
                     p->s->kind == PER_BLOCK_HALVES ? (const void *)per_block_halves_kernel<false>
                                                    : (const void *)per_block_halves_kernel<true>,
                     p->shared_bytes, 0);
        return true;
    case GLOBAL_PLAIN:
        p->launch = fill_gpu(d, (const void *)global_plain_kernel, 0, 0);
        return true;
    case GLOBAL_AGGREGATED:
        p->launch = fill_gpu(d, (const void *)global_aggregated_kernel, 0, 0);
        return true;
    case PARTITION:
    case PARTITION_ATOMICS: {
        unsigned bucket_bins = d->bucket_bins < bins ? d->bucket_bins : 1;
        while (bucket_bins < bins && bucket_bins < d->bucket_bins)
            bucket_bins *= 2;
        p->bucket_bits = 0;
        while ((1u << p->bucket_bits) < bucket_bins)
            p->bucket_bits++;
        p->buckets = (bins + bucket_bins - 1) >> p->bucket_bits;
        p->tile_keys = 4 * TILE_VECTORS_PER_THREAD * PARTITION_THREADS;
        p->shared_bytes = (size_t)8 * p->buckets + 2 * (size_t)p->tile_keys;
        p->count_shared_bytes = (size_t)4 << p->bucket_bits;
        p->launch = fill_gpu(d,
                             p->s->kind == PARTITION ? (const void *)partition_kernel<true>
                                                     : (const void *)partition_kernel<false>,
                             p->shared_bytes, PARTITION_THREADS);
        p->count_launch =
            fill_gpu(d, (const void *)count_buckets_kernel, p->count_shared_bytes, COUNT_THREADS);
        if (!p->launch.blocks || !p->count_launch.blocks || p->count_shared_bytes > d->max_shared) {
            snprintf(p->why_not, sizeof p->why_not, "its blocks do not fit on this GPU");
            return false;
        }
        if (p->count_launch.blocks < (long)p->buckets)
            p->count_launch.blocks = p->buckets; /* every bucket needs a block */
        size_t tiles = (n / 4 * 4 + p->tile_keys - 1) / p->tile_keys;
        HANDLE_ERROR(cudaMalloc((void **)&p->indices, tiles * p->tile_keys * 2 + 16));
        HANDLE_ERROR(cudaMalloc((void **)&p->starts, (tiles + 1) * (p->buckets + 1) * 4));
        HANDLE_ERROR(cudaMalloc((void **)&p->totals, (size_t)p->buckets * 4));
        return true;
    }
    case CUB:
        p->cub_scratch = NULL;
        HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(NULL, p->cub_bytes, (const unsigned *)NULL,
                                                         (unsigned *)NULL, (int)bins + 1, 0LL,
                                                         1LL << 32, (int64_t)n));
        HANDLE_ERROR(cudaMalloc(&p->cub_scratch, p->cub_bytes ? p->cub_bytes : 1));
        return true;
    }
    return false;
}

static void free_plan(struct plan *p)
{
    HANDLE_ERROR(cudaFree(p->indices));
    HANDLE_ERROR(cudaFree(p->starts));
    HANDLE_ERROR(cudaFree(p->totals));
    HANDLE_ERROR(cudaFree(p->cub_scratch));
}

/* The one place a strategy becomes a launch; histo is already zeroed. */
static void launch_plan(struct plan *p, const unsigned *keys, size_t n, unsigned *histo)
{
    unsigned blocks = (unsigned)p->launch.blocks, threads = (unsigned)p->launch.threads;
    unsigned bins = p->bins;
    switch (p->s->kind) {
    case PER_BLOCK:
        per_block_kernel<<<blocks, threads, p->shared_bytes>>>(keys, n, bins, histo);
        break;
    case PER_BLOCK_HALVES:
        per_block_halves_kernel<false>
            <<<blocks, threads, p->shared_bytes>>>(keys, n, bins, p->words, histo);
        break;
    case PER_BLOCK_HALVES_AGGREGATED:
        per_block_halves_kernel<true>
            <<<blocks, threads, p->shared_bytes>>>(keys, n, bins, p->words, histo);
        break;
    case GLOBAL_PLAIN:
        global_plain_kernel<<<blocks, threads>>>(keys, n, bins, histo);
        break;
    case GLOBAL_AGGREGATED:
        global_aggregated_kernel<<<blocks, threads>>>(keys, n, bins, histo);
        break;
    case PARTITION:
    case PARTITION_ATOMICS:
        /* Both passes are the kernel's time, and so is clearing the totals. */
        HANDLE_ERROR(cudaMemsetAsync(p->totals, 0, (size_t)p->buckets * 4));
        if (p->s->kind == PARTITION)
            partition_kernel<true><<<blocks, threads, p->shared_bytes>>>(
                keys, n, bins, p->bucket_bits, p->buckets, p->indices, p->starts, p->totals, histo);
        else
            partition_kernel<false><<<blocks, threads, p->shared_bytes>>>(
                keys, n, bins, p->bucket_bits, p->buckets, p->indices, p->starts, p->totals, histo);
        HANDLE_ERROR(cudaGetLastError());
        count_buckets_kernel<<<(unsigned)p->count_launch.blocks, (unsigned)p->count_launch.threads,
                               p->count_shared_bytes>>>(p->indices, n, bins, p->bucket_bits,
                                                        p->buckets, p->starts, p->totals,
                                                        p->tile_keys, histo);
        break;
    case CUB:
        launch_cub(p, keys, n, histo);
        break;
    }
    HANDLE_ERROR(cudaGetLastError());
}

/* ------------------------------------------------------------------ timing -- */

/* One kernel-only run: the keys already on the GPU, the bins cleared outside
 * the events. plan NULL: the read-bandwidth kernel. */
struct timed {
    struct plan *plan;
    const unsigned *keys;
    size_t n;
    unsigned *histo;
    struct launch read_launch;
    cudaEvent_t start, stop;
};

static struct gpu_times kernel_only_run(void *context)
{
    struct timed *t = (struct timed *)context;
    size_t bytes = t->plan ? (size_t)t->plan->bins * 4 : 4;
    HANDLE_ERROR(cudaMemset(t->histo, 0, bytes));
    HANDLE_ERROR(cudaEventRecord(t->start, 0));
    if (t->plan)
        launch_plan(t->plan, t->keys, t->n, t->histo);
    else
        launch_read(NULL, (const unsigned char *)t->keys, t->n * 4, t->histo, t->read_launch);
    HANDLE_ERROR(cudaEventRecord(t->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(t->stop));
    float ms;
    HANDLE_ERROR(cudaEventElapsedTime(&ms, t->start, t->stop));
    return {ms, 0};
}

/* ----------------------------------------------------------------- options -- */

static const struct stage_option own_options[] = {
    {"--bins", "N", "even bins over every u32 key, 2 to 1048576 (default 65536)"},
    {"--sweep", NULL, "run bins 2, 8, 32, 256, 1024, 4096, 16384, 65536, 262144, 1048576"},
    {"--bucket-bins", "N",
     "partition: bins per bucket, a power of two up to 65536 (default: the largest one block "
     "holds in 32-bit counters)"},
    {NULL, NULL, NULL}};
enum { OPT_BINS, OPT_SWEEP, OPT_BUCKET_BINS };

static const unsigned sweep_bins[] = {2, 8, 32, 256, 1024, 4096, 16384, 65536, 262144, 1048576};

/* ----------------------------------------------------------------- main -- */

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "07_many_bins",
        .program = "hist_gpu_many_bins",
        .summary = "where the counters live as the bins grow (prototype)",
        .gpu = true,
        .variants = variant_names_of_rows(strategies, STRATEGIES, sizeof strategies[0], true),
        .help = "Keys are the input read as 32-bit unsigned words (--size a multiple of 4); "
                "bin = key x bins / 2^32. Times are kernel only (CUDA events, the keys "
                "already on the GPU); no end-to-end time is taken.",
        .options = own_options,
        .launch_default = "as many blocks as fit at once (the occupancy API) of 512 or 1024 "
                          "threads, whichever keeps more threads on an SM; partition: 1024"};
    struct options opt = options_or_exit(argc, argv, &stage);
    unsigned one_bins = (unsigned)stage_option_number(&stage, &opt, OPT_BINS, 2, MAX_BINS, 65536);
    bool sweep = opt.stage_values[OPT_SWEEP] != NULL;
    if (opt.size_given && opt.size % 4)
        usage_error(&stage, "--size must be a multiple of 4: the keys are 32-bit words");

    struct device d = {&stage, &opt, open_gpu(&stage), 0, 0};
    int optin;
    HANDLE_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d.gpu.id));
    d.max_shared = (size_t)optin;
    d.bucket_bins = 1;
    while (d.bucket_bins * 2 <= MAX_BUCKET_BINS && d.bucket_bins * 2 * 4 <= d.max_shared)
        d.bucket_bins *= 2;
    long long bucket_bins =
        stage_option_number(&stage, &opt, OPT_BUCKET_BINS, 2, MAX_BUCKET_BINS, d.bucket_bins);
    if ((bucket_bins & (bucket_bins - 1)) || (size_t)bucket_bins * 4 > d.max_shared)
        usage_error(&stage, "--bucket-bins must be a power of two that one block's shared "
                            "memory holds in 32-bit counters");
    d.bucket_bins = (unsigned)bucket_bins;
    /* Kernels past 48 KiB of dynamic shared memory must ask for it. */
    const void *big[] = {(const void *)per_block_kernel,
                         (const void *)per_block_halves_kernel<false>,
                         (const void *)per_block_halves_kernel<true>,
                         (const void *)partition_kernel<true>,
                         (const void *)partition_kernel<false>,
                         (const void *)count_buckets_kernel};
    for (int i = 0; i < (int)(sizeof big / sizeof big[0]);
         i++) { /* what static shared memory a kernel has is not the launch's */
        struct cudaFuncAttributes attr;
        HANDLE_ERROR(cudaFuncGetAttributes(&attr, big[i]));
        HANDLE_ERROR(cudaFuncSetAttribute(big[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          optin - (int)attr.sharedSizeBytes));
    }

    struct input in = make_input(&stage, &opt);
    if (in.size % 4)
        usage_error(&stage, "the input is not a whole number of 32-bit keys");
    size_t n = in.size / 4;
    const unsigned *host_keys = (const unsigned *)in.buffer;
    unsigned *keys, *histo;
    HANDLE_ERROR(cudaMalloc((void **)&keys, in.size ? in.size : 4));
    HANDLE_ERROR(cudaMalloc((void **)&histo, MAX_BINS * 4));
    HANDLE_ERROR(cudaMemcpy(keys, host_keys, in.size, cudaMemcpyHostToDevice));
    unsigned *cpu_histo = (unsigned *)malloc(MAX_BINS * 4),
             *gpu_histo = (unsigned *)malloc(MAX_BINS * 4);
    if (!cpu_histo || !gpu_histo)
        fail("out of host memory for the bins");
    unsigned read_xor = cpu_xor(in.buffer, in.size);

    struct timed t = {NULL, keys, n, histo, {read_blocks(&d.gpu, in.size, 256), 256}};
    HANDLE_ERROR(cudaEventCreate(&t.start));
    HANDLE_ERROR(cudaEventCreate(&t.stop));
    printf("%s: %s\n", stage.program, stage.summary);
    printf("device: %s, %d SMs, %zu KiB shared per block\n", d.gpu.name, d.gpu.sm_count,
           d.max_shared >> 10);
    printf("input: %s, %zu bytes (%zu keys), seed %llu, median of %d\n", in.name, in.size, n,
           (unsigned long long)opt.seed, opt.reps);
    printf("times: kernel only (events); no end-to-end time\n\n");
    if (opt.csv)
        printf("data,bins,strategy,blocks,threads,kernel_ms,gbps,pct_of_read,verified\n");
    else
        printf("%8s  %-18s %13s %10s %8s %7s  %s\n", "bins", "strategy", "launch", "kernel ms",
               "GB/s", "% read", "verified");

    int wrong = 0, runs = sweep ? (int)(sizeof sweep_bins / sizeof sweep_bins[0]) : 1;
    for (int r = 0; r < runs; r++) {
        unsigned bins = sweep ? sweep_bins[r] : one_bins;
        cpu_many_bins(host_keys, n, bins, cpu_histo);
        /* The floor again for every number of bins: the % compares neighbours in time. */
        t.plan = NULL;
        double floor_ms = median_gpu_times(kernel_only_run, &t, opt.reps).kernel_ms;
        HANDLE_ERROR(cudaMemcpy(gpu_histo, histo, 4, cudaMemcpyDeviceToHost));
        if (gpu_histo[0] != read_xor)
            fail("the read-bandwidth kernel did not read every key (its XOR is wrong)");
        const char *row = opt.csv ? "%s,%u,%s,%ld,%d,%.4f,%.1f,%.1f,%s\n"
                                  : "%.0s%8u  %-18s %6ld x %4d %10.4f %8.1f %7.1f  %s\n";
        printf(row, in.name, bins, "read-bandwidth", t.read_launch.blocks, t.read_launch.threads,
               floor_ms, gb_per_s(in.size, floor_ms), 100.0, "(xor)");
        for (int i = 0; i < STRATEGIES; i++) {
            const struct strategy *s = &strategies[i];
            if (!variant_wants(&stage, &opt, s->name))
                continue;
            /* one global atomic per key on few bins takes seconds, and the
             * targets compare it at 2^20 bins only */
            if (sweep && s->kind == GLOBAL_PLAIN && bins < 65536)
                continue;
            struct plan p = {};
            p.s = s, p.bins = bins;
            if (!plan_strategy(&d, &p, n)) {
                if (!sweep && strcmp(stage.variants[opt.variant], "all") != 0)
                    usage_error(&stage, p.why_not); /* asked for by name, for these bins */
                if (!opt.csv)
                    printf("%8u  %-18s skipped: %s\n", bins, s->name, p.why_not);
                free_plan(&p);
                continue;
            }
            t.plan = &p;
            double ms = median_gpu_times(kernel_only_run, &t, opt.reps).kernel_ms;
            HANDLE_ERROR(cudaMemcpy(gpu_histo, histo, (size_t)bins * 4, cudaMemcpyDeviceToHost));
            int bad = 0;
            for (unsigned b = 0; b < bins; b++)
                if (gpu_histo[b] != cpu_histo[b] && bad++ < 5)
                    fprintf(stderr, "%s: %s, %u bins: bin %u is %u, the CPU counts %u\n",
                            stage.program, s->name, bins, b, gpu_histo[b], cpu_histo[b]);
            wrong += bad;
            struct launch l = s->kind == CUB ? launch{0, 0} : p.launch;
            printf(row, in.name, bins, s->name, l.blocks, l.threads, ms, gb_per_s(in.size, ms),
                   100.0 * floor_ms / ms, bad ? "WRONG" : "yes");
            if ((s->kind == PARTITION || s->kind == PARTITION_ATOMICS) && !opt.csv)
                printf("%8s  %-18s %6ld x %4d  pass 2: %u buckets of %u bins\n", "", "",
                       p.count_launch.blocks, p.count_launch.threads, p.buckets,
                       1u << p.bucket_bits);
            free_plan(&p);
        }
        fflush(stdout);
    }
    HANDLE_ERROR(cudaEventDestroy(t.start));
    HANDLE_ERROR(cudaEventDestroy(t.stop));
    HANDLE_ERROR(cudaFree(keys));
    HANDLE_ERROR(cudaFree(histo));
    free(cpu_histo);
    free(gpu_histo);
    free_input(&in);
    if (wrong)
        fail("%d bins differ from the CPU's count", wrong);
    printf("\nverified: every row against the CPU\n");
    return EXIT_OK;
}
