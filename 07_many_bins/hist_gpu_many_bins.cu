/*
 * 07_many_bins - beyond the book: where the counters live as the bins grow.
 * Stage 05 read at the memory's speed with 256 bins, which fit in shared
 * memory many times over. Here 32-bit keys over their whole range go in
 * 2 to 1048576 even bins (bin = key x bins / 2^32), and the counters move
 * as the bins grow: a copy per warp, one per block (32-bit counters, then
 * 16-bit halves for twice the bins), one per cluster of blocks, none on chip
 * (global atomics), and past what one SM holds, partition then count, or
 * sort then count (CUB). Each is its own kernel (many_bins_kernels.cuh,
 * sort_then_count.cuh), each row a % of a kernel that only reads the keys
 * (chapter 07).
 *
 *   ./hist_gpu_many_bins --bins 4096                      every strategy that holds 4096 bins
 *   ./hist_gpu_many_bins --bins 1048576 --variant partition
 *   ./hist_gpu_many_bins --sweep --size 1G --reps 5 --csv bins 2 to 2^20, kernel only
 */
#include "book.h"
#include "harness_cuda.h"
#include "read_kernel.cuh"     /* the yardstick: a kernel that only reads the keys */
#include "sort_then_count.cuh" /* first: it includes CUB's headers before WARP is a macro */
#include "many_bins_kernels.cuh"

#include <cub/device/device_histogram.cuh>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS          (1u << 20)
#define MAX_BUCKET_BINS   65536u /* a bin within its bucket must fit a u16 */
#define PER_WARP_THREADS  256    /* 8 copies of the bins per block */
#define PARTITION_THREADS 1024

/* The CPU's count, by the rule every kernel follows. */
static void cpu_many_bins(const unsigned *keys, size_t n, unsigned bins, unsigned *histo)
{
    memset(histo, 0, bins * sizeof *histo);
    for (size_t i = 0; i < n; i++)
        histo[((uint64_t)keys[i] * bins) >> 32]++;
}

/* ------------------------------------------------------------ the strategies -- */

// clang-format off
enum kind { AUTO, PER_WARP, PER_BLOCK, HALVES, HALVES_AGGREGATED, CLUSTER, GLOBAL, GLOBAL_PLAIN,
            PARTITION, SORT, CUB };
// clang-format on

struct strategy {
    const char *name; /* first: variant_names_of_rows reads it */
    enum kind kind;
};

static const struct strategy strategies[] = {
    {"auto", AUTO},                           /* the fastest of per-warp to partition on the keys */
    {"per-warp", PER_WARP},                   /* (a) a copy per warp */
    {"per-block", PER_BLOCK},                 /* (b) one per block, 32-bit counters */
    {"per-block-halves", HALVES},             /* (b) one per block, 16-bit halves */
    {"halves-aggregated", HALVES_AGGREGATED}, /* (b) the same, a warp's equal bins at once */
    {"cluster", CLUSTER},                     /* (c) one per cluster of blocks */
    {"global", GLOBAL},                       /* (d) global atomics, a warp's equal bins at once */
    {"global-plain", GLOBAL_PLAIN},           /* (d) global atomics, one per key */
    {"partition", PARTITION},                 /* (e) split by bin range, then count each part */
    {"sort", SORT},                           /* (e) sort the bins, then count each run (CUB) */
    {"cub", CUB},                             /* (f) cub::DeviceHistogram::HistogramEven */
};
#define STRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

/* What a strategy needs for one number of bins, all decided and allocated
 * before anything is timed: its grid, shared memory and scratch space. */
struct plan {
    const struct strategy *s;
    unsigned bins;
    struct launch launch, count_launch; /* count_launch: partition's pass 2, sort's last kernel */
    size_t shared_bytes, count_shared_bytes;
    unsigned words;                           /* halves: 32-bit words of two counters */
    unsigned slice, over_slice;               /* cluster: bins per block, and 2^40 / slice */
    int cluster;                              /* cluster: blocks per cluster */
    unsigned bucket_bits, buckets, tile_keys; /* partition */
    uint16_t *indices;                        /* partition: the intermediate format */
    unsigned *starts, *totals;
    void *cub_scratch;
    size_t cub_bytes;
    struct sort_scratch sort;
    bool not_here;     /* why_not is about this GPU or build (exit 77), not the bins */
    char why_not[200]; /* set when the strategy cannot hold these bins */
};

/* What every plan reads. */
struct device {
    const struct stage *stage;
    const struct options *opt;
    struct gpu gpu;
    size_t max_shared;    /* dynamic shared memory a block may ask for */
    unsigned bucket_bins; /* partition: bins per bucket */
};

/* threads per block (or 512 and 1024, whichever keeps more threads on an SM,
 * 512 on a tie) and as many blocks as fit at once; --threads and --blocks
 * override. 0 blocks: not one block fits. */
static struct launch fill_gpu(const struct device *d, const void *kernel, size_t shared,
                              int threads)
{
    int best_threads = 0, best_per_sm = 0;
    int fixed = d->opt->threads ? d->opt->threads : threads;
    for (int t = fixed ? fixed : 512; t <= (fixed ? fixed : 1024); t *= 2) {
        int per_sm;
        HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, t, shared));
        if (per_sm * t > best_per_sm * best_threads)
            best_threads = t, best_per_sm = per_sm;
    }
    if (best_per_sm == 0)
        return {0, 0};
    return choose_launch(d->stage, d->opt, &d->gpu, best_per_sm, best_threads);
}

/* Why p cannot have its bins: what they need of shared memory, and what it has. */
static void refuse(struct plan *p, const char *what, size_t bytes, size_t has)
{
    snprintf(p->why_not, sizeof p->why_not,
             "%s: %u bins need %zu bytes of shared memory %s; a block has %zu", p->s->name, p->bins,
             bytes, what, has);
}

static void plan_cluster(const struct device *d, struct plan *p)
{
    /* Clusters need a 9.0 GPU, and code built for 9.0: what the driver loads
     * for this kernel (ptxVersion) may be older, in a build for older GPUs. */
    int cc;
    cudaFuncAttributes loaded;
    HANDLE_ERROR(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, d->gpu.id));
    HANDLE_ERROR(cudaFuncGetAttributes(&loaded, (const void *)histo_cluster));
    if (cc < 9 || loaded.ptxVersion < 90) {
        p->not_here = true;
        snprintf(p->why_not, sizeof p->why_not, "%s",
                 cc < 9 ? "cluster needs thread-block clusters (compute capability 9.0 or later)"
                        : "cluster needs code built for compute capability 9.0: make CUDA_ARCH=90");
        return;
    }
    /* The largest cluster this GPU runs: 8 blocks is portable, more (16 on the
     * H100) only when the kernel asks. The smallest that holds the bins is
     * used: the fewer blocks, the more keys are counted in their own SM. */
    const void *kernel = (const void *)histo_cluster;
    HANDLE_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int threads = d->opt->threads ? d->opt->threads : 1024, largest = 0;
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attribute = {cudaLaunchAttributeClusterDimension};
    config.gridDim = dim3(d->gpu.sm_count), config.blockDim = dim3(threads);
    config.dynamicSmemBytes = d->max_shared;
    HANDLE_ERROR(cudaOccupancyMaxPotentialClusterSize(&largest, kernel, &config));
    size_t per_block = d->max_shared / 4;
    p->cluster = (int)((p->bins + per_block - 1) / per_block);
    if (p->cluster > largest) {
        snprintf(p->why_not, sizeof p->why_not,
                 "cluster holds at most %zu bins here (%d blocks of %zu bytes)",
                 largest * per_block, largest, d->max_shared);
        return;
    }
    p->cluster = p->cluster < 2 ? 2 : p->cluster;
    p->slice = (p->bins + p->cluster - 1) / p->cluster;
    p->slice = p->slice < 512 ? 512 : p->slice; /* so that over_slice fits 32 bits */
    p->over_slice = (unsigned)(((1ull << 40) + p->slice - 1) / p->slice);
    p->shared_bytes = (size_t)p->slice * 4;
    attribute.val.clusterDim = {(unsigned)p->cluster, 1, 1};
    config.gridDim = dim3(p->cluster), config.dynamicSmemBytes = p->shared_bytes;
    config.attrs = &attribute, config.numAttrs = 1;
    int clusters = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    long blocks = d->opt->blocks ? d->opt->blocks : (long)clusters * p->cluster;
    if (blocks % p->cluster)
        usage_error(d->stage, "--blocks must be a whole number of clusters here");
    p->launch = choose_launch(d->stage, d->opt, &d->gpu, 1, threads);
    p->launch.blocks = blocks;
}

static void plan_partition(const struct device *d, struct plan *p, size_t n)
{
    unsigned bucket_bins = 1;
    while (bucket_bins < p->bins && bucket_bins < d->bucket_bins)
        bucket_bins *= 2;
    for (p->bucket_bits = 0; (1u << p->bucket_bits) < bucket_bins; p->bucket_bits++)
        ;
    p->buckets = (p->bins + bucket_bins - 1) >> p->bucket_bits;
    p->tile_keys =
        4 * TILE_VECTORS_PER_THREAD * (d->opt->threads ? d->opt->threads : PARTITION_THREADS);
    size_t tile_keys = p->tile_keys;
    p->shared_bytes = 8 * (size_t)p->buckets + 2 * tile_keys;
    p->count_shared_bytes = (size_t)4 << p->bucket_bits;
    if (p->shared_bytes > d->max_shared)
        return refuse(p, "for its buckets", p->shared_bytes, d->max_shared);
    p->launch = fill_gpu(d, (const void *)histo_partition, p->shared_bytes, PARTITION_THREADS);
    p->count_launch = fill_gpu(d, (const void *)histo_count_buckets, p->count_shared_bytes, 1024);
    if (p->count_launch.blocks < (long)p->buckets)
        p->count_launch.blocks = p->buckets; /* every bucket needs a block */
    size_t tiles = (n / 4 * 4 + tile_keys - 1) / tile_keys;
    HANDLE_ERROR(cudaMalloc((void **)&p->indices, tiles * tile_keys * 2 + 16));
    HANDLE_ERROR(cudaMalloc((void **)&p->starts, (tiles + 1) * (p->buckets + 1) * 4));
    HANDLE_ERROR(cudaMalloc((void **)&p->totals, (size_t)p->buckets * 4));
}

/* Refused where CUB cannot take the keys, or where their scratch does not fit
 * beside what later runs allocate: an end-to-end run's copy of the keys, two
 * histograms, and 32 MiB for the allocator's rounding. */
static void plan_sort(const struct device *d, struct plan *p, size_t n)
{
    size_t free_bytes, total_bytes;
    size_t bytes = n > INT_MAX ? 0 : size_sort_scratch(&p->sort, (int)n, p->bins);
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    p->not_here = n > INT_MAX || bytes + 4 * n + 8 * (size_t)p->bins + (32 << 20) > free_bytes;
    if (n > INT_MAX) /* CUDA 13.0's CUB takes the encode's num_items as an int */
        snprintf(p->why_not, sizeof p->why_not, "sort: CUB takes at most %d keys; these are %zu",
                 INT_MAX, n);
    else if (p->not_here)
        snprintf(p->why_not, sizeof p->why_not,
                 "sort: %zu keys need %zu bytes of scratch and a second copy of the keys; "
                 "%zu bytes are free",
                 n, bytes, free_bytes);
    if (p->not_here)
        return;
    allocate_sort_scratch(&p->sort, (int)n, p->bins);
    p->launch = fill_gpu(d, (const void *)bins_of_keys, 0, 0);
    long write_blocks = (long)((p->bins + p->launch.threads - 1) / p->launch.threads);
    p->count_launch = {p->launch.blocks < write_blocks ? p->launch.blocks : write_blocks,
                       p->launch.threads};
}

/* Fills p for p->s and p->bins, or says in p->why_not why it cannot. */
static void plan_strategy(const struct device *d, struct plan *p, size_t n)
{
    unsigned bins = p->bins;
    size_t has = d->max_shared;
    switch (p->s->kind) {
    case PER_WARP:
        p->shared_bytes =
            (size_t)bins * 4 * ((d->opt->threads ? d->opt->threads : PER_WARP_THREADS) / WARP);
        if (p->shared_bytes > has)
            return refuse(p, "(a copy per warp)", p->shared_bytes, has);
        p->launch = fill_gpu(d, (const void *)histo_per_warp, p->shared_bytes, PER_WARP_THREADS);
        return;
    case PER_BLOCK:
        p->shared_bytes = (size_t)bins * 4;
        if (p->shared_bytes > has)
            return refuse(p, "in 32-bit counters", p->shared_bytes, has);
        p->launch = fill_gpu(d, (const void *)histo_per_block, p->shared_bytes, 0);
        return;
    case HALVES:
    case HALVES_AGGREGATED:
        p->words = ((bins + 1) / 2 + 3) / 4 * 4; /* whole 16-byte quads */
        p->shared_bytes = (size_t)p->words * 4;
        if (p->shared_bytes > has)
            return refuse(p, "in 16-bit halves", p->shared_bytes, has);
        p->launch = fill_gpu(d,
                             p->s->kind == HALVES ? (const void *)histo_per_block_halves<false>
                                                  : (const void *)histo_per_block_halves<true>,
                             p->shared_bytes, 0);
        return;
    case CLUSTER:
        return plan_cluster(d, p);
    case GLOBAL:
        p->launch = fill_gpu(d, (const void *)histo_global<true>, 0, 0);
        return;
    case GLOBAL_PLAIN:
        p->launch = fill_gpu(d, (const void *)histo_global<false>, 0, 0);
        return;
    case PARTITION:
        return plan_partition(d, p, n);
    case SORT:
        return plan_sort(d, p, n);
    case CUB: /* levels as 64-bit integers: the last, 2^32, is not a u32 */
        HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(NULL, p->cub_bytes, (const unsigned *)NULL,
                                                         (unsigned *)NULL, (int)bins + 1, 0LL,
                                                         1LL << 32, (int64_t)n));
        HANDLE_ERROR(cudaMalloc(&p->cub_scratch, p->cub_bytes ? p->cub_bytes : 1));
        return;
    case AUTO:
        return; /* main chooses, then plans the chosen strategy */
    }
}

static void free_plan(struct plan *p)
{
    void *scratch[] = {p->indices, p->starts, p->totals, p->cub_scratch};
    for (void *space : scratch)
        HANDLE_ERROR(cudaFree(space));
    free_sort_scratch(&p->sort);
}

/* The one place a strategy becomes a launch, as a histo_launcher: the
 * harness times it, its bins already zeroed, the keys at dev_buffer. */
static void launch_plan(void *context, const unsigned char *dev_buffer, size_t size,
                        unsigned *histo, struct launch)
{
    struct plan *p = (struct plan *)context;
    const unsigned *keys = (const unsigned *)dev_buffer;
    size_t n = size / 4;
    dim3 grid((unsigned)p->launch.blocks), block(p->launch.threads);
    size_t shared = p->shared_bytes;
    unsigned bins = p->bins;
    switch (p->s->kind) {
    case PER_WARP:
        histo_per_warp<<<grid, block, shared>>>(keys, n, bins, histo);
        break;
    case PER_BLOCK:
        histo_per_block<<<grid, block, shared>>>(keys, n, bins, histo);
        break;
    case HALVES:
        histo_per_block_halves<false><<<grid, block, shared>>>(keys, n, bins, p->words, histo);
        break;
    case HALVES_AGGREGATED:
        histo_per_block_halves<true><<<grid, block, shared>>>(keys, n, bins, p->words, histo);
        break;
    case CLUSTER: {
        cudaLaunchAttribute attribute = {cudaLaunchAttributeClusterDimension};
        attribute.val.clusterDim = {(unsigned)p->cluster, 1, 1};
        cudaLaunchConfig_t config = {grid, block, shared, 0, &attribute, 1};
        HANDLE_ERROR(cudaLaunchKernelEx(&config, histo_cluster, keys, n, bins, p->slice,
                                        p->over_slice, histo));
        break;
    }
    case GLOBAL:
        histo_global<true><<<grid, block>>>(keys, n, bins, histo);
        break;
    case GLOBAL_PLAIN:
        histo_global<false><<<grid, block>>>(keys, n, bins, histo);
        break;
    case PARTITION: /* both passes are its time, and so is clearing the totals */
        HANDLE_ERROR(cudaMemsetAsync(p->totals, 0, (size_t)p->buckets * 4));
        histo_partition<<<grid, block, shared>>>(keys, n, bins, p->bucket_bits, p->buckets,
                                                 p->indices, p->starts, p->totals, histo);
        HANDLE_ERROR(cudaGetLastError());
        histo_count_buckets<<<(unsigned)p->count_launch.blocks, p->count_launch.threads,
                              p->count_shared_bytes>>>(p->indices, n, bins, p->bucket_bits,
                                                       p->buckets, p->starts, p->totals,
                                                       p->tile_keys, histo);
        break;
    case SORT: /* every step is its time: the bins, the sort, the runs */
        sort_then_count(&p->sort, keys, (int)n, bins, p->launch, p->count_launch, histo);
        break;
    case CUB:
        HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(
            p->cub_scratch, p->cub_bytes, keys, histo, (int)bins + 1, 0LL, 1LL << 32, (int64_t)n));
        break;
    case AUTO:
        fail("auto is never launched: it becomes the strategy it chose");
    }
    HANDLE_ERROR(cudaGetLastError());
}

static const struct stage_option own_options[] = {
    {"--bins", "N", "even bins over every u32 key, 2 to 1048576 (default 65536)"},
    {"--sweep", NULL,
     "bins 2, 8, 32, 256, 1024, 4096, 16384, 65536, 262144 and 1048576 in "
     "turn, kernel only (global-plain from 65536 up)"},
    {"--bucket-bins", "N",
     "partition: bins per bucket, a power of two to 65536 that a block "
     "holds in 32-bit counters (default: the largest)"},
    {NULL, NULL, NULL}};
enum { OPT_BINS, OPT_SWEEP, OPT_BUCKET_BINS };

static const unsigned sweep_bins[] = {2, 8, 32, 256, 1024, 4096, 16384, 65536, 262144, 1048576};

/* What row i of the report (results[i]) owns: its plan, bins and name; the
 * floor's, row 0, owns nothing. */
struct row {
    struct plan p;
    char impl[48];
    unsigned *histo, *kernel_histo;
};

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "07_many_bins",
        .program = "hist_gpu_many_bins",
        .summary = "where the counters live as the bins grow",
        .gpu = true,
        .variants = variant_names_of_rows(strategies, STRATEGIES, sizeof strategies[0], true),
        .help = "The keys are the input read as 32-bit little-endian words (its size a multiple "
                "of 4); bin = key x bins / 2^32. Scratch space (partition's, sort's, CUB's) is "
                "allocated once, outside both times.",
        .options = own_options,
        .launch_default = "as many blocks as fit at once (the occupancy API) of 512 or 1024 "
                          "threads, whichever keeps more threads on an SM; per-warp: 256, "
                          "cluster and partition: 1024"};
    struct options opt = options_or_exit(argc, argv, &stage);
    unsigned bins_asked = (unsigned)stage_option_number(&stage, &opt, OPT_BINS, 2, MAX_BINS, 65536);
    bool sweep = opt.stage_values[OPT_SWEEP] != NULL;
    if (sweep && opt.stage_values[OPT_BINS])
        usage_error(&stage, "--sweep runs its own bins: leave out --bins");
    if (opt.print_bins && sweep)
        usage_error(&stage, "--print-bins and --sweep cannot be combined: which bins?");
    if (opt.threads % WARP)
        usage_error(&stage, "--threads must be a multiple of 32: the kernels work in whole warps");
    if (opt.size_given && opt.size % 4)
        usage_error(&stage, "--size must be a multiple of 4: the keys are 32-bit words");
    long long bucket_bins =
        stage_option_number(&stage, &opt, OPT_BUCKET_BINS, 2, MAX_BUCKET_BINS, 0);
    if (bucket_bins & (bucket_bins - 1))
        usage_error(&stage, "--bucket-bins must be a power of two");
    bool all = strcmp(stage.variants[opt.variant], "all") == 0;

    struct device d = {&stage, &opt, open_gpu(&stage), 0, 1};
    d.max_shared = shared_memory_per_block(&d.gpu);
    while (d.bucket_bins * 2 <= MAX_BUCKET_BINS && d.bucket_bins * 2 * 4 <= d.max_shared)
        d.bucket_bins *= 2;
    if ((size_t)bucket_bins * 4 > d.max_shared)
        usage_error(&stage, "--bucket-bins: its 32-bit counters do not fit in one block here");
    d.bucket_bins = bucket_bins ? (unsigned)bucket_bins : d.bucket_bins;
    /* A kernel past 48 KiB of dynamic shared memory must ask for it. */
    const void *big[] = {(const void *)histo_per_warp,
                         (const void *)histo_per_block,
                         (const void *)histo_per_block_halves<false>,
                         (const void *)histo_per_block_halves<true>,
                         (const void *)histo_cluster,
                         (const void *)histo_partition,
                         (const void *)histo_count_buckets};
    for (const void *kernel : big)
        allow_all_shared_memory(kernel, &d.gpu);

    struct input in = make_input(&stage, &opt);
    if (in.size % 4)
        usage_error(&stage, "the input is not a whole number of 32-bit keys (its size is not a "
                            "multiple of 4)");
    size_t n = in.size / 4;
    const unsigned *host_keys = (const unsigned *)in.buffer;
    unsigned *cpu_histo = (unsigned *)checked_malloc(MAX_BINS * 4);
    /* the keys, partition's scratch (half as much) and an end-to-end run's own copy */
    require_gpu_memory(&stage, in.size / 2 * 5);
    unsigned char *dev_keys;
    HANDLE_ERROR(cudaMalloc((void **)&dev_keys, in.size ? in.size : 4));
    HANDLE_ERROR(cudaMemcpy(dev_keys, in.buffer, in.size, cudaMemcpyHostToDevice));

    struct row rows[STRATEGIES + 1];
    struct result results[STRATEGIES + 1];
    int wrong = 0, sweeps = sweep ? (int)(sizeof sweep_bins / sizeof sweep_bins[0]) : 1;
    for (int sw = 0; sw < sweeps; sw++) {
        unsigned bins = sweep ? sweep_bins[sw] : bins_asked;
        cpu_many_bins(host_keys, n, bins, cpu_histo);
        int count = 0, not_run_count = 0;
        char not_run[STRATEGIES][240];

        /* The floor: a kernel that only reads the same keys, timed the same way. */
        unsigned xor_kernel, xor_total = 0;
        struct launch read_launch = {read_blocks(&d.gpu, in.size, 256), 256};
        results[count] = {"read-bandwidth", d.gpu.name, read_launch.blocks, read_launch.threads};
        results[count].kernel_ms =
            time_kernel_only(&opt, &in, dev_keys, read_launch, launch_read, NULL, 1, &xor_kernel);
        if (!sweep)
            results[count].total_ms =
                time_end_to_end(&opt, &in, read_launch, launch_read, NULL, 1, &xor_total);
        if (xor_kernel != cpu_xor(in.buffer, in.size) || (!sweep && xor_total != xor_kernel))
            fail("the read-bandwidth kernel did not read every key (its XOR is wrong)");
        count++;

        /* auto: every strategy from per-warp to partition (the table's order)
         * that holds the bins but global-plain, which global beats or ties,
         * once on these keys after a warm-up; the fastest is kept. Not sort:
         * it moves 3 to 5 times the bytes partition moves (its header's napkin
         * math), and would add 8 bytes a key to what auto allocates. */
        int chosen = -1;
        double tuning_ms = 0;
        if (variant_wants(&stage, &opt, "auto")) {
            double begin = now_ms(), best = 0;
            unsigned *scratch_histo = (unsigned *)checked_malloc((size_t)bins * 4);
            struct options once = opt;
            once.reps = 1;
            for (int i = PER_WARP; i <= PARTITION; i++) {
                struct plan p = {&strategies[i], bins};
                plan_strategy(&d, &p, n);
                if (!p.why_not[0] && i != GLOBAL_PLAIN) {
                    double ms = time_kernel_only(&once, &in, dev_keys, p.launch, launch_plan, &p,
                                                 bins, scratch_histo);
                    if (chosen < 0 || ms < best)
                        chosen = i, best = ms;
                }
                free_plan(&p);
            }
            free(scratch_histo);
            tuning_ms = now_ms() - begin;
        }

        /* Every kernel-only time first, back to back, then every end-to-end
         * one: a kernel timed right after a whole trip starts on a GPU left
         * idle by the copies, and reads less (chapter 07). */
        for (int i = 0; i < STRATEGIES; i++) {
            const struct strategy *s = &strategies[i];
            if (!variant_wants(&stage, &opt, s->name))
                continue;
            if (sweep && s->kind == GLOBAL_PLAIN && bins < 65536)
                continue; /* seconds of one atomic per key on few bins; the targets want 2^20 */
            if (s->kind == AUTO && chosen < 0)
                continue; /* nothing else holds these bins */
            struct row *r = &rows[count];
            *r = row{{s->kind == AUTO ? &strategies[chosen] : s, bins}};
            plan_strategy(&d, &r->p, n);
            if (r->p.why_not[0]) {
                if (!all && r->p.not_here) /* asked for by name, and this GPU lacks a need */
                    cannot_run(&stage, r->p.why_not);
                if (!all) /* asked for by name, with more bins than it holds */
                    usage_error(&stage, r->p.why_not);
                snprintf(not_run[not_run_count++], sizeof not_run[0], "%s", r->p.why_not);
                free_plan(&r->p);
                continue;
            }
            snprintf(r->impl, sizeof r->impl, "%s%s/%u", s->kind == AUTO ? "auto:" : "",
                     r->p.s->name, bins);
            r->histo = (unsigned *)checked_malloc((size_t)bins * 4);
            r->kernel_histo = (unsigned *)checked_malloc((size_t)bins * 4);
            struct launch shown = r->p.s->kind == CUB ? launch{0, 0} : r->p.launch;
            /* histo: the kernel-only result until an end-to-end run replaces it */
            results[count] = {r->impl, d.gpu.name,      shown.blocks,    shown.threads, 0,
                              0,       r->kernel_histo, r->kernel_histo, bins,          cpu_histo};
            results[count++].kernel_ms = time_kernel_only(
                &opt, &in, dev_keys, r->p.launch, launch_plan, &r->p, bins, r->kernel_histo);
        }
        for (int i = 1; i < count && !sweep; i++) {
            results[i].total_ms = time_end_to_end(&opt, &in, rows[i].p.launch, launch_plan,
                                                  &rows[i].p, bins, rows[i].histo);
            results[i].histo = rows[i].histo;
        }

        wrong += report_results(&stage, &opt, &in, results, count) != EXIT_OK;
        if (!opt.csv && chosen >= 0)
            printf("auto:       tried each strategy once on these keys in %.1f ms: %s\n", tuning_ms,
                   strategies[chosen].name);
        for (int i = 0; i < not_run_count && !opt.csv; i++)
            printf("not run:    %s\n", not_run[i]);
        for (int i = 1; i < count; i++) {
            free_plan(&rows[i].p);
            free(rows[i].histo);
            free(rows[i].kernel_histo);
        }
        fputs(!opt.csv && sw + 1 < sweeps ? "\n" : "", stdout);
    }
    HANDLE_ERROR(cudaFree(dev_keys));
    free(cpu_histo);
    free_input(&in);
    return wrong ? EXIT_FAILED : EXIT_OK;
}
