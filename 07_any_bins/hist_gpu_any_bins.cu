/*
 * 07_any_bins - beyond the book: a histogram of any number of bins, of 8-,
 * 16- and 32-bit integer keys or floats, counted or weighted, in up to four
 * interleaved channels. Stage 05 reached the memory's speed with 256 bins
 * that fit many times over in shared memory. Here the bins grow until they
 * fit one warp's copy, then one block's, then a cluster of blocks', then only
 * global memory: each step is its own strategy, and which one is fastest
 * changes with the number of bins (chapter 07).
 *
 *   ./hist_gpu_any_bins --bins 4096                      every strategy that holds 4096 bins
 *   ./hist_gpu_any_bins --bins 4096 --variant per-warp   (a) a copy of the bins per warp
 *   ./hist_gpu_any_bins --bins 4096 --variant per-block  (b) one copy per block
 *   ./hist_gpu_any_bins --bins 500000 --variant cluster  (c) one copy per cluster of blocks
 *   ./hist_gpu_any_bins --bins 4M --variant global       (d) global atomics, a warp's equal bins added once
 *   ./hist_gpu_any_bins --variant global-plain           (d0) global atomics, one per key
 *   ./hist_gpu_any_bins --variant auto                   (e) the fastest of (a)-(d) on this input, tried once
 *   ./hist_gpu_any_bins --variant cub                    (f) CUB's HistogramEven (or MultiHistogramEven)
 *   ./hist_gpu_any_bins --variant cub-range              (f) CUB's HistogramRange, the same bins as levels
 *   ./hist_gpu_any_bins --keys f32 --bins 1000 --range 0:1 --weights
 *   ./hist_gpu_any_bins --keys u8 --channels 4           RGBA: 4 x 256 bins in one pass
 *   ./hist_gpu_any_bins --image data/chelsea.bmp         R, G and B of a picture, 3 x 256 bins
 */
#include "book.h"
#include "harness_cuda.h"
#include "keys.h"
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the keys */

#include <cooperative_groups.h>
#include <cub/device/device_histogram.cuh>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

namespace cg = cooperative_groups;

#define WARP           32
#define MAX_TOTAL_BINS (1u << 28) /* bins x channels: 1 GiB of global counters */
/* A weighted bin may differ from the CPU's double sum by this fraction of it
 * (or by this much, near 0): each block sums its weights in float. */
#define WEIGHT_TOLERANCE 1e-3

/* --------------------------------------------------------- counting keys -- */

/* Where a kernel's keys go: the bins in shared or global memory that a
 * strategy keeps, behind one add(bin, weight). Count is unsigned int for
 * counts, float for weights. */
struct job {
    struct binning b;
    const void *keys;     /* n keys of b.type, 16-byte aligned (cudaMalloc) */
    const float *weights; /* n weights, or NULL: each key counts 1 */
    size_t n;
    unsigned int total; /* b.bins x b.channels */
};

#define NO_BIN 0xffffffffu /* a key outside the range, or a NaN */

/* Integer keys are binned as 32-bit numbers, floats as floats. */
template <typename Key> struct cpu_widen {
    typedef uint32_t type;
};
template <> struct cpu_widen<float> {
    typedef float type;
};
template <typename Key> __device__ static inline typename cpu_widen<Key>::type widen(Key key)
{
    return (typename cpu_widen<Key>::type)key;
}

/* The global bins: 32-bit counts, or, for weights, doubles. A block's float
 * sums are added into doubles so that the sum of many blocks loses no more. */
template <typename Count> struct global_of;
template <> struct global_of<unsigned int> {
    typedef unsigned int type;
    static constexpr bool counts = true;
};
template <> struct global_of<float> {
    typedef double type;
    static constexpr bool counts = false;
};

/* A thread's run of keys in one bin, added once when it ends: constant keys
 * (and any long run) cost one add per thread instead of one per key, so no
 * strategy waits on a single hot counter (stage 05's run-length variant). */
template <typename Count, typename Add> struct equal_run {
    Add &add;
    unsigned bin;
    Count count;
    __device__ void operator()(unsigned next, Count w)
    {
        if (next == bin) {
            count += w;
            return;
        }
        if (count != 0)
            add(bin, count);
        bin = next, count = w;
    }
};

/* Calls add(bin, count) for every run of keys in one bin (bin NO_BIN: in no
 * bin), each thread taking 16-byte vectors of keys in a grid-stride loop, two
 * loads in flight (stage 05's lesson), then the last keys past the vectors one
 * at a time. Key i's bin goes in channel i % channels. */
template <typename Key, typename Count, typename Add>
__device__ void for_each_key(const struct job &job, Add &bin_add)
{
    equal_run<Count, Add> add = {bin_add, NO_BIN, 0};
    constexpr int per_vector = 16 / sizeof(Key);
    const Key *keys = (const Key *)job.keys;
    const uint4 *vectors = (const uint4 *)job.keys;
    size_t count = job.n / per_vector;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    auto count_vector = [&](size_t v, uint4 raw) {
        Key k[per_vector];
        memcpy(k, &raw, sizeof raw);
        int channel = job.b.channels > 1 ? (int)((v * per_vector) % job.b.channels) : 0;
        for (int j = 0; j < per_vector; j++) {
            int bin = key_bin(job.b, widen(k[j]));
            Count w = global_of<Count>::counts ? (Count)1 : (Count)job.weights[v * per_vector + j];
            add(bin < 0 ? NO_BIN : channel * job.b.bins + (unsigned)bin, w);
            if (job.b.channels > 1 && ++channel == job.b.channels)
                channel = 0;
        }
    };
    size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; v + stride < count; v += 2 * stride) {
        uint4 first = vectors[v], second = vectors[v + stride];
        count_vector(v, first);
        count_vector(v + stride, second);
    }
    if (v < count)
        count_vector(v, vectors[v]);
    for (size_t i = count * per_vector + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < job.n;
         i += stride) {
        int bin = key_bin(job.b, widen(keys[i]));
        add(bin < 0 ? NO_BIN : (unsigned)(i % job.b.channels) * job.b.bins + (unsigned)bin,
            global_of<Count>::counts ? (Count)1 : (Count)job.weights[i]);
    }
    if (add.count != 0)
        bin_add(add.bin, add.count);
}

/* Adds a block's shared bins into the global ones: empty bins cost nothing. */
template <typename Count>
__device__ void merge_bins(const Count *shared, unsigned total, int copies,
                           typename global_of<Count>::type *histo)
{
    for (unsigned bin = threadIdx.x; bin < total; bin += blockDim.x) {
        Count sum = 0;
        for (int c = 0; c < copies; c++)
            sum += shared[c * total + bin];
        if (sum != 0)
            atomicAdd(&histo[bin], (typename global_of<Count>::type)sum);
    }
}

template <typename Count> __device__ void zero_bins(Count *shared, size_t count)
{
    for (size_t i = threadIdx.x; i < count; i += blockDim.x)
        shared[i] = 0;
}

extern __shared__ unsigned char dynamic_shared[]; /* sized at launch */

/* (a) A copy of the bins per warp. The 32 lanes of a warp that count the
 * same bin still meet, but two warps never do, so for few bins, where every
 * warp would hit the same counters, the collisions drop by the number of
 * warps per block. The price: copies x bins of shared memory, so it holds
 * the fewest bins of all, and its blocks are few per SM once the copies grow. */
/* Counts in 16-bit halves of 32-bit words, two bins a word, hold twice the
 * bins in the same shared memory ((b) past what 32-bit counters hold, and
 * (c) always). A half must not carry into its neighbour: the add that takes
 * a half from 0x7fff to 0x8000 takes 0x8000 back out and adds it to the
 * global bin. To carry before that thread's next instruction, 32768 more adds
 * would have to land in the same half in between. That holds for adds of 1
 * only, so a run of more keys goes to the global bin at once. (Adding whole
 * runs failed on the H100: with constant keys every thread of a cluster adds
 * its run of about 1000 at the same moment, at the end of the keys, and the
 * half carried into the next bin.) */
__device__ static void add_to_half(unsigned *words, unsigned local, unsigned count, unsigned bin,
                                   unsigned *histo)
{
    if (count > 1) {
        atomicAdd(&histo[bin], count);
        return;
    }
    unsigned shift = (local & 1) * 16;
    unsigned old = (atomicAdd(&words[local / 2], 1u << shift) >> shift) & 0xffff;
    if (old == 0x7fff) {
        atomicSub(&words[local / 2], 0x8000u << shift);
        atomicAdd(&histo[bin], 0x8000u);
    }
}

__device__ static unsigned read_half(const unsigned *words, unsigned local)
{
    return (words[local / 2] >> (local & 1) * 16) & 0xffff;
}

/* An add to bins in shared memory: a counter per bin, or (counts only) a half. */
template <typename Count> struct shared_add {
    Count *bins;
    bool halves;
    typename global_of<Count>::type *histo; /* where a half's carries go */
    __device__ void operator()(unsigned bin, Count w)
    {
        if (bin == NO_BIN)
            return;
        if constexpr (global_of<Count>::counts)
            if (halves) {
                add_to_half((unsigned *)bins, bin, w, bin, histo);
                return;
            }
        atomicAdd(&bins[bin], w);
    }
};

template <typename Key, typename Count>
__global__ void histo_per_warp(struct job job, typename global_of<Count>::type *histo)
{
    Count *bins = (Count *)dynamic_shared;
    int warps = blockDim.x / WARP;
    zero_bins(bins, (size_t)warps * job.total);
    __syncthreads();
    shared_add<Count> add = {bins + (threadIdx.x / WARP) * job.total, false, histo};
    for_each_key<Key, Count>(job, add);
    __syncthreads();
    merge_bins(bins, job.total, warps, histo);
}

/* (b) One copy per block: stage 03's kernel for any number of bins, as
 * many as the block's shared memory holds (cudaFuncSetAttribute lets it ask
 * for more than the default 48 KB), in 16-bit halves when 32-bit counters do
 * not fit. With many bins the keys of a warp rarely collide, and one copy is
 * enough. */
template <typename Key, typename Count>
__global__ void __launch_bounds__(1024)
    histo_per_block(struct job job, bool halves, typename global_of<Count>::type *histo)
{
    Count *bins = (Count *)dynamic_shared;
    zero_bins(bins, halves ? (job.total + 1) / 2 : job.total);
    __syncthreads();
    shared_add<Count> add = {bins, halves, histo};
    for_each_key<Key, Count>(job, add);
    __syncthreads();
    if (!halves) {
        merge_bins(bins, job.total, 1, histo);
        return;
    }
    for (unsigned bin = threadIdx.x; bin < job.total; bin += blockDim.x) {
        unsigned value = read_half((const unsigned *)bins, bin);
        if (value != 0)
            atomicAdd(&histo[bin], (typename global_of<Count>::type)value);
    }
}

/* (c) One copy per cluster. A thread-block cluster's blocks run at the same
 * time on neighbouring SMs, and each can address the others' shared memory
 * (distributed shared memory, sm_90 and later). The bins are cut into one
 * slice per block: block r of the cluster holds bins [r x slice, (r+1) x
 * slice), and a key whose bin lives in another block is added there, across
 * the SMs. A cluster then holds as many bins as all its blocks together.
 * Counts are kept in 16-bit halves (add_to_half), which doubles the bins a
 * cluster holds. */
#ifdef _CG_HAS_CLUSTER_GROUP /* compiled for sm_90 or later */

template <typename Count> struct cluster_add {
    cg::cluster_group cluster;
    Count *slice0; /* this block's slice; map_shared_rank finds the others' */
    unsigned slice;
    typename global_of<Count>::type *histo;
    __device__ void operator()(unsigned bin, Count w)
    {
        if (bin == NO_BIN)
            return;
        unsigned rank = bin / slice, local = bin - rank * slice;
        Count *target = cluster.map_shared_rank(slice0, rank);
        if constexpr (global_of<Count>::counts) /* 16-bit halves */
            add_to_half((unsigned *)target, local, w, bin, (unsigned *)histo);
        else
            atomicAdd(&target[local], w);
    }
};

template <typename Key, typename Count>
__global__ void __launch_bounds__(1024)
    histo_cluster(struct job job, unsigned slice, typename global_of<Count>::type *histo)
{
    cg::cluster_group cluster = cg::this_cluster();
    const bool halves = global_of<Count>::counts;
    Count *bins = (Count *)dynamic_shared;
    zero_bins(bins, halves ? (slice + 1) / 2 : slice);
    cluster.sync(); /* every slice is zero before any block adds to it */
    cluster_add<Count> add = {cluster, bins, slice, histo};
    for_each_key<Key, Count>(job, add);
    cluster.sync(); /* every add has landed, and no block still needs another's memory */
    unsigned first = cluster.block_rank() * slice;
    for (unsigned local = threadIdx.x; local < slice && first + local < job.total;
         local += blockDim.x) {
        Count value = halves ? (Count)read_half((const unsigned *)bins, local) : bins[local];
        if (value != 0)
            atomicAdd(&histo[first + local], (typename global_of<Count>::type)value);
    }
}
#else /* GPUs before sm_90 have no clusters: plan_kernel never launches this */
template <typename Key, typename Count>
__global__ void histo_cluster(struct job, unsigned, typename global_of<Count>::type *)
{
    __trap();
}
#endif

/* (d) No copy on chip: every key is an atomic on the global bins, done in
 * the GPU's L2 cache. With millions of bins the keys of a warp rarely
 * collide, and this is all that is left. Where they do collide (few hot
 * bins, constant keys), the lanes of a warp with the same bin find each
 * other (__match_any_sync) and the first of them adds their count at once:
 * one atomic per distinct bin per warp step (warp aggregation, chapter 05). */
template <typename Count> struct global_add {
    typename global_of<Count>::type *histo;
    bool aggregate;
    __device__ void operator()(unsigned bin, Count w)
    {
        if (global_of<Count>::counts && aggregate) {
            unsigned same = __match_any_sync(__activemask(), bin);
#if __CUDA_ARCH__ >= 800
            unsigned sum = __reduce_add_sync(same, (unsigned)w); /* the lanes' runs together */
#else
            unsigned sum = 0; /* no warp reduce before sm_80: a shuffle per lane */
            for (unsigned lanes = same; lanes; lanes &= lanes - 1)
                sum += __shfl_sync(same, (unsigned)w, __ffs(lanes) - 1);
#endif
            if (bin != NO_BIN && (threadIdx.x % WARP) == (unsigned)(__ffs(same) - 1))
                atomicAdd(&histo[bin], (typename global_of<Count>::type)sum);
        } else if (bin != NO_BIN) {
            atomicAdd(&histo[bin], (typename global_of<Count>::type)w);
        }
    }
};

template <typename Key, typename Count>
__global__ void histo_global(struct job job, bool aggregate, typename global_of<Count>::type *histo)
{
    global_add<Count> add = {histo, aggregate};
    for_each_key<Key, Count>(job, add);
}

/* ------------------------------------------------------------- strategies -- */

enum strategy_kind { PER_WARP, PER_BLOCK, CLUSTER, GLOBAL, GLOBAL_PLAIN, CUB_EVEN, CUB_RANGE };

struct strategy {
    const char *name;
    enum strategy_kind kind;
    int threads; /* per block, unless --threads says otherwise */
};

/* 256 threads give (a) 8 copies; (b) takes 512, so that two or more blocks
 * share an SM when their bins leave room; (c) wants as many threads as an SM
 * runs at once around its one slice. */
static const struct strategy strategies[] = {
    {"per-warp", PER_WARP, 256}, {"per-block", PER_BLOCK, 512},       {"cluster", CLUSTER, 1024},
    {"global", GLOBAL, 256},     {"global-plain", GLOBAL_PLAIN, 256}, {"cub", CUB_EVEN, 0},
    {"cub-range", CUB_RANGE, 0},
};
#define STRATEGIES ((int)(sizeof strategies / sizeof strategies[0]))

/* How one strategy runs on this GPU for this job: its grid, its shared
 * memory, and for (c) its cluster; or why it cannot. */
struct plan {
    const struct strategy *s;
    struct launch launch;
    size_t shared_bytes;
    bool halves;    /* (b): counts in 16-bit halves */
    int cluster;    /* blocks per cluster, (c) only */
    unsigned slice; /* bins per block of a cluster */
    void *cub_scratch;
    size_t cub_scratch_bytes;
    bool sizing_only;  /* launch_cub only asks CUB how much scratch it wants */
    void *cub_levels;  /* cub-range: the bins' edges, on the GPU */
    char why_not[200]; /* empty: it can run */
    bool not_here;     /* why_not is this GPU's or this build's: --variant asking for it exits 77 */
};

template <typename Key, typename Count> static const void *kernel_of(enum strategy_kind kind)
{
    switch (kind) {
    case PER_WARP:
        return (const void *)histo_per_warp<Key, Count>;
    case PER_BLOCK:
        return (const void *)histo_per_block<Key, Count>;
    case CLUSTER:
        return (const void *)histo_cluster<Key, Count>;
    default:
        return (const void *)histo_global<Key, Count>;
    }
}

/* The most shared memory one block may ask for (the opt-in limit). */
static size_t shared_limit(const struct gpu *gpu)
{
    int bytes;
    HANDLE_ERROR(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->id));
    return (size_t)bytes;
}

/* A launch of (c): grid and blocks, the slice's shared memory, and the
 * cluster's size as a launch attribute. The occupancy query and the launch
 * use the same one. */
static cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, size_t shared_bytes, int cluster,
                                         cudaLaunchAttribute *attribute)
{
    attribute->id = cudaLaunchAttributeClusterDimension;
    attribute->val.clusterDim.x = cluster;
    attribute->val.clusterDim.y = attribute->val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.attrs = attribute;
    config.numAttrs = 1;
    return config;
}

template <typename Key, typename Count>
static void plan_kernel(struct plan *p, const struct job &job, const struct gpu *gpu,
                        const struct options *opt, const struct stage *stage)
{
    const void *kernel = kernel_of<Key, Count>(p->s->kind);
    int threads = opt->threads ? opt->threads : p->s->threads;
    size_t limit = shared_limit(gpu), count_bytes = sizeof(Count);
    p->shared_bytes = 0;
    p->halves = false;
    size_t most = limit / count_bytes; /* the bins one block holds */
    if (p->s->kind == PER_WARP) {
        p->shared_bytes = (size_t)(threads / WARP) * job.total * count_bytes;
        most /= threads / WARP;
    } else if (p->s->kind == PER_BLOCK) {
        p->shared_bytes = (size_t)job.total * count_bytes;
        if (global_of<Count>::counts) { /* halves, where 32-bit counters do not fit */
            p->halves = p->shared_bytes > limit;
            if (p->halves)
                p->shared_bytes = (size_t)(job.total + 1) / 2 * 4;
            most = limit / 2;
        }
        /* Room for one block per SM: give it every thread an SM runs (2048 on
         * sm_90; 1024 is a block's most), or its loads in flight are too few
         * to keep the memory busy. */
        if (!opt->threads && p->shared_bytes > limit / 2)
            threads = 1024;
    }
    if (p->shared_bytes > limit) {
        snprintf(p->why_not, sizeof p->why_not,
                 "%s holds at most %zu bins here (%zu bytes of shared memory per block)",
                 p->s->name, most, limit);
        return;
    }
    if (p->s->kind == CLUSTER) {
        /* Clusters need a 9.0 GPU, and code compiled for 9.0: what the driver
         * loads for this kernel (ptxVersion: the architecture it was compiled
         * for) may be older, in a build for older GPUs, where it is a stub. */
        int cc_major;
        HANDLE_ERROR(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, gpu->id));
        struct cudaFuncAttributes loaded;
        HANDLE_ERROR(cudaFuncGetAttributes(&loaded, kernel));
        if (cc_major < 9 || loaded.ptxVersion < 90) {
            p->not_here = true;
            if (cc_major < 9)
                snprintf(p->why_not, sizeof p->why_not,
                         "cluster needs thread-block clusters (compute capability 9.0 or later)");
            else
                snprintf(p->why_not, sizeof p->why_not,
                         "cluster needs code compiled for compute capability 9.0, and this build's "
                         "is for %d.%d: make CUDA_ARCH=90",
                         loaded.ptxVersion / 10, loaded.ptxVersion % 10);
            return;
        }
        /* The largest cluster this GPU allows for this kernel: 8 blocks is
         * portable, more only when the kernel asks for a non-portable size. */
        HANDLE_ERROR(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        HANDLE_ERROR(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)limit));
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(gpu->sm_count);
        config.blockDim = dim3(threads);
        config.dynamicSmemBytes = limit;
        int largest = 0;
        HANDLE_ERROR(cudaOccupancyMaxPotentialClusterSize(&largest, kernel, &config));
        /* The smallest cluster whose blocks hold the bins together: the fewer
         * blocks, the more of a key's adds stay in its own SM. */
        size_t per_block = limit / (global_of<Count>::counts ? 2 : count_bytes);
        int needed = (int)((job.total + per_block - 1) / per_block);
        if (largest < 1 || needed > largest) {
            snprintf(p->why_not, sizeof p->why_not,
                     "cluster holds at most %zu bins here (%d blocks of %zu bytes)",
                     (size_t)(largest > 0 ? largest : 0) * per_block, largest, limit);
            return;
        }
        p->cluster = needed < 2 ? 2 : needed;
        p->slice = (job.total + p->cluster - 1) / p->cluster;
        p->shared_bytes = global_of<Count>::counts ? (size_t)(p->slice + 1) / 2 * 4
                                                   : (size_t)p->slice * count_bytes;
        cudaLaunchAttribute attribute;
        config = cluster_config(dim3(p->cluster) /* a whole number of clusters */, dim3(threads),
                                p->shared_bytes, p->cluster, &attribute);
        int clusters = 0;
        HANDLE_ERROR(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
        if (clusters < 1) {
            snprintf(p->why_not, sizeof p->why_not,
                     "cluster: no cluster of %d blocks of %zu bytes fits on this GPU", p->cluster,
                     p->shared_bytes);
            return;
        }
        long blocks = opt->blocks ? opt->blocks : (long)clusters * p->cluster;
        if (blocks % p->cluster)
            usage_error(stage, "--blocks must be a multiple of the cluster's blocks here");
        p->launch = {blocks, threads};
        return;
    }
    if (p->shared_bytes > 48 * 1024)
        HANDLE_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)p->shared_bytes));
    int per_sm = 0;
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, p->shared_bytes));
    p->launch = choose_launch(stage, opt, gpu, per_sm > 0 ? per_sm : 1, threads);
}

template <typename Key, typename Count>
static void launch_kernel(struct plan *p, const struct job &job,
                          typename global_of<Count>::type *histo)
{
    dim3 grid((unsigned)p->launch.blocks), block(p->launch.threads);
    switch (p->s->kind) {
    case PER_WARP:
        histo_per_warp<Key, Count><<<grid, block, p->shared_bytes>>>(job, histo);
        break;
    case PER_BLOCK:
        histo_per_block<Key, Count><<<grid, block, p->shared_bytes>>>(job, p->halves, histo);
        break;
    case CLUSTER: {
        cudaLaunchAttribute attribute;
        cudaLaunchConfig_t config =
            cluster_config(grid, block, p->shared_bytes, p->cluster, &attribute);
        HANDLE_ERROR(cudaLaunchKernelEx(&config, histo_cluster<Key, Count>, job, p->slice, histo));
        break;
    }
    default:
        histo_global<Key, Count><<<grid, block>>>(job, p->s->kind == GLOBAL, histo);
    }
    HANDLE_ERROR(cudaGetLastError());
}

template <int C, typename Key, typename Level>
static void cub_multi(void *scratch, size_t &bytes, const struct job &job, unsigned *histo,
                      Level lo, Level hi)
{
    cuda::std::array<unsigned *, C> histos;
    cuda::std::array<int, C> levels;
    cuda::std::array<Level, C> lower, upper;
    for (int c = 0; c < C; c++) {
        histos[c] = histo + (size_t)c * job.b.bins;
        levels[c] = (int)job.b.bins + 1;
        lower[c] = lo;
        upper[c] = hi;
    }
    HANDLE_ERROR((cub::DeviceHistogram::MultiHistogramEven<C, C>(
        scratch, bytes, (const Key *)job.keys, histos, levels, lower, upper,
        (int64_t)(job.n / C))));
}

/* Interleaved channels: CUB counts whole pixels of C keys. */
template <typename Key, typename Level>
static void launch_cub_channels(void *scratch, size_t &bytes, const struct job &job,
                                unsigned *histo, Level lo, Level hi)
{
    switch (job.b.channels) {
    case 2:
        cub_multi<2, Key, Level>(scratch, bytes, job, histo, lo, hi);
        break;
    case 3:
        cub_multi<3, Key, Level>(scratch, bytes, job, histo, lo, hi);
        break;
    default:
        cub_multi<4, Key, Level>(scratch, bytes, job, histo, lo, hi);
        break;
    }
}

/* CUB over the same keys: even bins by the same rule (keys.h), or
 * HistogramRange with the bins' edges as levels. Its scratch space is
 * sized (sizing_only) and allocated when the strategy is planned. */
template <typename Key, typename Level>
static void launch_cub(struct plan *p, const struct job &job, unsigned *histo)
{
    const Key *keys = (const Key *)job.keys;
    int levels = (int)job.b.bins + 1;
    Level lo, hi;
    if (job.b.type == KEY_F32) {
        lo = (Level)job.b.flo;
        hi = (Level)job.b.fhi;
    } else {
        lo = (Level)job.b.lo;
        hi = (Level)(job.b.lo + job.b.width);
    }
    for (int pass = 0; pass < 2; pass++) {
        void *scratch = pass ? p->cub_scratch : nullptr;
        size_t bytes = p->cub_scratch_bytes;
        if (pass && p->sizing_only)
            return;
        /* Only the instantiations a run can reach are compiled (each costs CUB's
         * kernels for every architecture): cub-range takes integer keys, and
         * channels only u8 keys (plan_any and the options refuse the rest). */
        if (p->s->kind == CUB_RANGE) {
            if constexpr (!std::is_same_v<Key, float>)
                HANDLE_ERROR(cub::DeviceHistogram::HistogramRange(
                    scratch, bytes, keys, histo, levels, (const Level *)p->cub_levels,
                    (int64_t)job.n));
        } else if (job.b.channels == 1) {
            HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(scratch, bytes, keys, histo, levels,
                                                             lo, hi, (int64_t)job.n));
        } else if constexpr (std::is_same_v<Key, uint8_t>) {
            launch_cub_channels<Key, Level>(scratch, bytes, job, histo, lo, hi);
        }
        if (!pass && p->sizing_only)
            p->cub_scratch_bytes = bytes;
        else if (!pass && bytes > p->cub_scratch_bytes)
            fail("CUB wants %zu bytes of scratch, %zu were set aside", bytes, p->cub_scratch_bytes);
    }
}

/* ------------------------------------------------------------------ the CPU -- */

static void *host_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        fail("out of host memory (%zu bytes)", bytes);
    return p;
}

/* The reference: every key, one at a time, by the rule of keys.h. Counts in
 * 32 bits (no input holds more keys than that), weights summed in double.
 * Returns the keys in no bin. */
template <typename Key>
static uint64_t cpu_bins(const struct job &job, unsigned *counts, double *sums)
{
    const Key *keys = (const Key *)job.keys;
    uint64_t outside = 0;
    for (size_t i = 0; i < job.n; i++) {
        int bin = key_bin(job.b, (typename cpu_widen<Key>::type)keys[i]);
        if (bin < 0) {
            outside++;
            continue;
        }
        size_t at = (i % job.b.channels) * job.b.bins + (size_t)bin;
        if (sums)
            sums[at] += job.weights[i];
        else
            counts[at]++;
    }
    return outside;
}

/* ------------------------------------------------------------------ the GPU -- */

/* The keys on the GPU, and the bins each strategy counts into. */
struct on_gpu {
    struct job job; /* job.keys and job.weights point to the GPU's copies */
    void *histo;    /* total counters (unsigned) or sums (double) */
    size_t histo_bytes, key_bytes;
};

static void launch_any(struct plan *p, const struct on_gpu *g, void *histo)
{
    const struct job &j = g->job;
    bool w = j.weights != NULL;
#define KEYED(Key, Level)                                                                          \
    if (p->s->kind == CUB_EVEN || p->s->kind == CUB_RANGE)                                         \
        launch_cub<Key, Level>(p, j, (unsigned *)histo);                                           \
    else if (w)                                                                                    \
        launch_kernel<Key, float>(p, j, (double *)histo);                                          \
    else                                                                                           \
        launch_kernel<Key, unsigned>(p, j, (unsigned *)histo);
    switch (j.b.type) {
    case KEY_U8:
        KEYED(uint8_t, long long) break;
    case KEY_U16:
        KEYED(uint16_t, long long) break;
    case KEY_U32:
        KEYED(uint32_t, long long) break;
    case KEY_F32:
        KEYED(float, float) break;
    }
#undef KEYED
}

/* The bins' edges for cub-range: bin k starts at the first key whose bin
 * is k, lo + ceil(k x width / bins), so that its bins are the even ones. */
static void *range_levels(const struct binning &b)
{
    size_t count = (size_t)b.bins + 1;
    long long *levels = (long long *)host_malloc(count * sizeof *levels);
    for (size_t k = 0; k < count; k++)
        levels[k] = (long long)(b.lo + (k * b.width + b.bins - 1) / b.bins);
    void *dev;
    HANDLE_ERROR(cudaMalloc(&dev, count * sizeof *levels));
    HANDLE_ERROR(cudaMemcpy(dev, levels, count * sizeof *levels, cudaMemcpyHostToDevice));
    free(levels);
    return dev;
}

/* The bytes of cub-range's edges on the GPU: one long long per edge. */
static size_t levels_bytes(const struct plan *p, const struct binning &b)
{
    return p->s->kind == CUB_RANGE ? ((size_t)b.bins + 1) * sizeof(long long) : 0;
}

/* CUB's memory for one strategy, held only while that strategy runs: its
 * scratch space and, for cub-range, the bins' edges. false: the scratch
 * could not be had in one piece. */
static bool hold_cub_memory(struct plan *p, const struct binning &b)
{
    cudaError_t status =
        cudaMalloc(&p->cub_scratch, p->cub_scratch_bytes ? p->cub_scratch_bytes : 1);
    if (status == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not a sticky error: this clears it */
        p->cub_scratch = NULL;
        return false;
    }
    HANDLE_ERROR(status);
    if (p->s->kind == CUB_RANGE)
        p->cub_levels = range_levels(b);
    return true;
}

static void drop_cub_memory(struct plan *p)
{
    if (p->cub_scratch)
        HANDLE_ERROR(cudaFree(p->cub_scratch));
    if (p->cub_levels)
        HANDLE_ERROR(cudaFree(p->cub_levels));
    p->cub_scratch = p->cub_levels = NULL;
}

/* Whether a whole trip (its own keys, weights and bins, beside those kept
 * on the GPU for the kernel-only runs) and extra bytes fit in the GPU's free
 * memory; if not, the strategy is refused with the reason, and the others
 * still run. */
static bool fits_beside_a_trip(struct plan *p, const struct on_gpu *g, size_t extra)
{
    size_t free_bytes, total_bytes;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t weight_bytes = g->job.weights ? g->job.n * sizeof(float) : 0;
    size_t needed = g->key_bytes + weight_bytes + g->histo_bytes + extra;
    size_t margin = 64 << 20; /* the driver's own allocations, rounding */
    if (needed + margin <= free_bytes)
        return true;
    snprintf(p->why_not, sizeof p->why_not,
             "%s needs %zu MiB of GPU memory for a whole trip%s; %zu MiB of %zu MiB are free",
             p->s->name, (needed >> 20) + 1, extra ? " and CUB's scratch space" : "",
             free_bytes >> 20, total_bytes >> 20);
    return false;
}

static void plan_any(struct plan *p, const struct on_gpu *g, const struct gpu *gpu,
                     const struct options *opt, const struct stage *stage)
{
    const struct job &j = g->job;
    p->why_not[0] = '\0';
    if (p->s->kind == CUB_EVEN || p->s->kind == CUB_RANGE) {
        p->launch = {0, 0}; /* CUB chooses */
        /* CUB turns each block's bin back into the key type on its way out
         * (agent_histogram.cuh: (SampleT) privatized_bin), so bins past the
         * key type's largest value land in the wrong bin: NVIDIA/cccl#10976. */
        bool truncates = (j.b.type == KEY_U16 && j.b.bins > 65536) ||
                         (j.b.type == KEY_F32 && j.b.bins > (1u << 24));
        if (j.weights)
            snprintf(p->why_not, sizeof p->why_not, "%s: CUB has no weighted histogram",
                     p->s->name);
        else if (truncates)
            snprintf(p->why_not, sizeof p->why_not,
                     "%s holds at most %u bins of %s keys: past that CUB (CUDA 13.0) puts keys in "
                     "the wrong bin (NVIDIA/cccl#10976)",
                     p->s->name, j.b.type == KEY_U16 ? 65536u : 1u << 24, key_name(j.b.type));
        else if (p->s->kind == CUB_RANGE && (j.b.type == KEY_F32 || j.b.channels > 1))
            snprintf(p->why_not, sizeof p->why_not,
                     "cub-range is shown for integer keys in one channel only");
        if (p->why_not[0])
            return;
        p->sizing_only = true; /* CUB says what it wants before anything runs */
        launch_any(p, g, g->histo);
        p->sizing_only = false;
        /* Its scratch holds a copy of the bins per block, and CUB before 3.5
         * (CUDA 13.0 ships 3.0) finds a block's copy at block x bins in a
         * 32-bit int: past 2^31 counters that wraps, and CUB writes outside
         * its scratch (NVIDIA/cccl#9570; seen here as an illegal address at
         * 16M bins of 256M keys). The scratch's counters bound that product. */
        if (CUB_VERSION < 300500 && p->cub_scratch_bytes / sizeof(unsigned) >= (1ull << 31)) {
            snprintf(p->why_not, sizeof p->why_not,
                     "%s: CUB (CUDA 13.0) wants %zu MiB of scratch for %u bins, past the 2^31 "
                     "counters it can index (NVIDIA/cccl#9570)",
                     p->s->name, p->cub_scratch_bytes >> 20, j.b.bins);
            return;
        }
        if (!fits_beside_a_trip(p, g, p->cub_scratch_bytes + levels_bytes(p, j.b)))
            return;
        /* Held only while this strategy runs (hold_cub_memory), so that the
         * other strategies' trips find the memory it needs free; tried once
         * here, as it may not be had in one piece: a refusal, not an error. */
        if (!hold_cub_memory(p, j.b))
            snprintf(p->why_not, sizeof p->why_not,
                     "%s: CUB wants %zu MiB of scratch space for %u bins, more than the GPU can "
                     "give in one piece",
                     p->s->name, p->cub_scratch_bytes >> 20, j.b.bins);
        drop_cub_memory(p);
        return;
    }
    bool w = j.weights != NULL;
#define KEYED(Key)                                                                                 \
    if (w)                                                                                         \
        plan_kernel<Key, float>(p, j, gpu, opt, stage);                                            \
    else                                                                                           \
        plan_kernel<Key, unsigned>(p, j, gpu, opt, stage);
    switch (j.b.type) {
    case KEY_U8:
        KEYED(uint8_t) break;
    case KEY_U16:
        KEYED(uint16_t) break;
    case KEY_U32:
        KEYED(uint32_t) break;
    case KEY_F32:
        KEYED(float) break;
    }
#undef KEYED
    if (!p->why_not[0])
        fits_beside_a_trip(p, g, 0);
}

/* One timed run of a strategy: what a user waits for, on the host clock
 * (allocate, copy the keys in, clear the bins, count, copy the bins out,
 * free), with CUDA events around the counting alone. */
struct trip {
    struct plan *p;
    struct on_gpu *resident; /* the keys already on the GPU, for the kernel-only runs */
    const void *host_keys;
    const float *host_weights;
    void *host_histo;   /* the trip's bins, copied back */
    void *kernel_histo; /* the kernel-only runs' bins, copied back at the end */
};

static struct gpu_times kernel_only_run(void *context)
{
    struct trip *t = (struct trip *)context;
    struct on_gpu *g = t->resident;
    cudaEvent_t start, stop;
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    HANDLE_ERROR(cudaMemset(g->histo, 0, g->histo_bytes));
    HANDLE_ERROR(cudaEventRecord(start, 0));
    launch_any(t->p, g, g->histo);
    HANDLE_ERROR(cudaEventRecord(stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(stop));
    float ms;
    HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    return {ms, 0};
}

static struct gpu_times whole_trip_run(void *context)
{
    struct trip *t = (struct trip *)context;
    struct on_gpu g = *t->resident; /* the same job, on buffers of its own */
    size_t weight_bytes = g.job.weights ? g.job.n * sizeof(float) : 0;
    double begin = now_ms();
    void *keys, *histo;
    float *weights = NULL;
    HANDLE_ERROR(cudaMalloc(&keys, g.key_bytes ? g.key_bytes : 1));
    HANDLE_ERROR(cudaMalloc(&histo, g.histo_bytes));
    if (weight_bytes)
        HANDLE_ERROR(cudaMalloc((void **)&weights, weight_bytes));
    HANDLE_ERROR(cudaMemcpy(keys, t->host_keys, g.key_bytes, cudaMemcpyHostToDevice));
    if (weight_bytes)
        HANDLE_ERROR(cudaMemcpy(weights, t->host_weights, weight_bytes, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemset(histo, 0, g.histo_bytes));
    g.job.keys = keys;
    g.job.weights = weights;
    launch_any(t->p, &g, histo);
    HANDLE_ERROR(cudaMemcpy(t->host_histo, histo, g.histo_bytes, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(keys));
    HANDLE_ERROR(cudaFree(histo));
    if (weights)
        HANDLE_ERROR(cudaFree(weights));
    return {0, now_ms() - begin};
}

/* ------------------------------------------------------------ the options -- */

static const struct stage_option own_options[] = {
    {"--bins", "N", "bins per channel, 1 to 268435456; K, M are powers of 1024 (default 256)"},
    {"--keys", "TYPE",
     "u8, u16, u32 (default) or f32: the input's bytes read as keys of this type"},
    {"--range", "LO:HI",
     "even bins over [LO, HI) (default: every u8/u16/u32 value, or [0, 1) "
     "for f32); keys outside, and NaNs, are in no bin and are counted apart"},
    {"--weights", NULL, "a weight in [0, 1) per key, from the seed; each bin sums them in float"},
    {"--channels", "C", "1 to 4 interleaved channels of u8 keys (4: RGBA), C x bins bins"},
    {"--print-bins", NULL, "print every bin, one '<bin>: <value>' line each"},
    {NULL, NULL, NULL}};
enum { OPT_BINS, OPT_KEYS, OPT_RANGE, OPT_WEIGHTS, OPT_CHANNELS, OPT_PRINT_BINS };

/* A whole number with an optional K or M (powers of 1024), or -1. */
static long long parse_count(const char *text)
{
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (end == text || errno || n < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        n *= 1024, end++;
    else if (*end == 'M' || *end == 'm')
        n *= 1024 * 1024, end++;
    return *end ? -1 : n;
}

static struct binning binning_from_options(const struct stage *stage, const struct options *opt,
                                           enum key_type type, int channels)
{
    char why[256];
    struct binning b = {};
    b.type = type;
    b.channels = channels;
    long long bins = opt->stage_values[OPT_BINS] ? parse_count(opt->stage_values[OPT_BINS]) : 256;
    if (bins < 1 || (unsigned long long)bins * channels > MAX_TOTAL_BINS) {
        snprintf(why, sizeof why, "--bins must be 1 to %u%s, not '%s'", MAX_TOTAL_BINS / channels,
                 channels > 1 ? " with these channels" : "", opt->stage_values[OPT_BINS]);
        usage_error(stage, why);
    }
    b.bins = (unsigned)bins;
    const char *range = opt->stage_values[OPT_RANGE];
    const char *colon = range ? strchr(range, ':') : NULL;
    if (range && !colon)
        usage_error(stage, "--range takes LO:HI, e.g. --range 0:1000");
    if (type == KEY_F32) {
        b.flo = 0, b.fhi = 1;
        if (range) {
            char *end;
            b.flo = strtof(range, &end);
            bool bad = end != colon;
            b.fhi = strtof(colon + 1, &end);
            if (bad || *end || colon == range || !colon[1])
                usage_error(stage, "--range: LO and HI must be numbers, e.g. --range -1.5:2.5");
        }
        if (!isfinite(b.flo) || !isfinite(b.fhi) || !isfinite(b.fhi - b.flo))
            usage_error(stage, "--range: LO, HI and HI - LO must be finite floats");
        if (!(b.flo < b.fhi))
            usage_error(stage, "--range: LO must be less than HI");
        b.scale = (float)b.bins / (b.fhi - b.flo); /* in float, as CUB computes it */
    } else {
        uint64_t values = (uint64_t)1 << (8 * key_bytes(type));
        b.lo = 0, b.width = values;
        if (range) {
            char *end;
            errno = 0;
            long long lo = strtoll(range, &end, 10);
            bool bad = end != colon || errno;
            long long hi = strtoll(colon + 1, &end, 10);
            if (bad || errno || *end || colon == range || !colon[1])
                usage_error(stage, "--range: LO and HI must be whole numbers for integer keys");
            if (lo < 0 || hi > (long long)values || lo >= hi) {
                snprintf(why, sizeof why, "--range: %s keys need 0 <= LO < HI <= %" PRIu64,
                         key_name(type), values);
                usage_error(stage, why);
            }
            b.lo = (uint64_t)lo, b.width = (uint64_t)(hi - lo);
        }
    }
    b.width_shift = -1;
    for (int shift = 0; shift <= 32; shift++)
        if (b.width == (uint64_t)1 << shift)
            b.width_shift = shift;
    b.narrow = type != KEY_F32 && b.width * b.bins <= ((uint64_t)1 << 32);
    return b;
}

/* --------------------------------------------------------------- the main -- */

struct row {
    const struct strategy *s;
    char impl[48];
    struct launch launch;
    struct gpu_times t;
    bool verified;
    struct plan p; /* kept from the kernel-only runs for the whole trips */
};

/* Bins that differ from the CPU's (exactly for counts; for sums, by more
 * than WEIGHT_TOLERANCE), each printed to stderr up to ten. */
static int wrong_bins(const char *impl, const struct job &job, const void *got,
                      const unsigned *counts, const double *sums)
{
    int wrong = 0;
    for (unsigned bin = 0; bin < job.total; bin++) {
        bool bad;
        double expected, value;
        if (sums) {
            expected = sums[bin], value = ((const double *)got)[bin];
            bad = fabs(value - expected) > WEIGHT_TOLERANCE * fmax(fabs(expected), 1.0);
        } else {
            expected = counts[bin], value = ((const unsigned *)got)[bin];
            bad = value != expected;
        }
        if (bad && ++wrong <= 10)
            fprintf(stderr, "%s: %s: bin %u is %.9g, the CPU counted %.9g\n", program_name, impl,
                    bin, value, expected);
    }
    return wrong;
}

int main(int argc, char **argv)
{
    /* --variant: all (the default), auto, or a strategy: the names come from the table */
    const char *variant_names[STRATEGIES + 3] = {"all", "auto"};
    for (int i = 0; i < STRATEGIES; i++)
        variant_names[i + 2] = strategies[i].name;
    const struct stage stage = {
        .dir = "07_any_bins",
        .program = "hist_gpu_any_bins",
        .summary = "any number of bins, four key types, weights and channels: the strategy that "
                   "wins changes with the bins",
        .gpu = true,
        .variants = variant_names,
        .help = "--size is in bytes, a whole number of keys (and of pixels with --channels). all "
                "(the default) runs every strategy that holds the bins, and says why the others "
                "do not; auto tries (a) to (d) once on this input and keeps the fastest.",
        .options = own_options,
        .launch_default = "as many blocks as fit on the GPU at once (the occupancy API; for "
                          "cluster, a whole number of clusters), of 256 threads for per-warp and "
                          "the global ones, 512 for per-block (1024 when one block fills an SM's "
                          "shared memory) and 1024 for cluster; CUB chooses its own",
        .image_means = "count a BMP's R, G and B as 3 channels of u8 keys (e.g. data/chelsea.bmp)"};
    struct options opt = options_or_exit(argc, argv, &stage);

    /* What the keys are, checked before any GPU is touched. */
    if (opt.stage_values[OPT_PRINT_BINS] && opt.csv)
        usage_error(&stage, "--print-bins and --csv cannot be combined: the CSV would break");
    const char *type_name = opt.stage_values[OPT_KEYS] ? opt.stage_values[OPT_KEYS] : "u32";
    enum key_type type = KEY_U32;
    bool known = false;
    for (int t = KEY_U8; t <= KEY_F32; t++)
        if (strcmp(type_name, key_name((enum key_type)t)) == 0)
            type = (enum key_type)t, known = true;
    if (!known)
        usage_error(&stage, "--keys must be u8, u16, u32 or f32");
    int channels = 1;
    if (opt.stage_values[OPT_CHANNELS]) {
        long long c = parse_count(opt.stage_values[OPT_CHANNELS]);
        if (c < 1 || c > 4)
            usage_error(&stage, "--channels must be 1 to 4");
        channels = (int)c;
    }
    if (opt.data == DATA_IMAGE) {
        if ((opt.stage_values[OPT_CHANNELS] && channels != 3) || opt.stage_values[OPT_KEYS])
            usage_error(&stage, "--image counts R, G and B: 3 channels of u8 keys");
        channels = 3, type = KEY_U8;
    }
    if (channels > 1 && type != KEY_U8)
        usage_error(&stage, "--channels needs --keys u8 (interleaved 8-bit channels, as RGBA)");
    struct binning b = binning_from_options(&stage, &opt, type, channels);
    const char *variant = variant_names[opt.variant];
    bool weighted = opt.stage_values[OPT_WEIGHTS] != NULL;
    if (opt.data != DATA_FILE && opt.data != DATA_IMAGE &&
        opt.size % ((size_t)key_bytes(type) * channels)) {
        char why[160];
        snprintf(why, sizeof why, "--size %zu is not a whole number of %s keys%s", opt.size,
                 key_name(type), channels > 1 ? " in whole pixels" : "");
        usage_error(&stage, why);
    }

    struct gpu gpu = open_gpu(&stage);
    struct input in = {};
    struct image img = {};
    if (opt.data == DATA_IMAGE) {
        char why[512];
        if (read_bmp(opt.image, &img, why, sizeof why) != EXIT_OK)
            usage_error(&stage, why);
        in.buffer = img.rgb, in.size = (size_t)img.width * img.height * 3, in.name = opt.image;
    } else {
        in = make_input(&stage, &opt);
    }
    size_t size = in.size, key_size = (size_t)key_bytes(type);
    if (size % (key_size * channels)) {
        char why[160];
        snprintf(why, sizeof why, "%zu bytes is not a whole number of %s keys%s", size,
                 key_name(type), channels > 1 ? " in whole pixels" : "");
        usage_error(&stage, why);
    }
    /* Generated floats: each 32-bit word of the bytes becomes a key in [0, 1),
     * so that uniform, skewed and constant bytes give such keys. A file's
     * floats are read as they are, NaNs and all. */
    if (type == KEY_F32 && opt.data != DATA_FILE)
        for (size_t i = 0; i < size / 4; i++) {
            uint32_t word;
            memcpy(&word, in.buffer + 4 * i, 4);
            float key = (float)(word >> 8) * (1.0f / 16777216.0f);
            memcpy(in.buffer + 4 * i, &key, 4);
        }
    struct job job = {b, in.buffer, NULL, size / key_size, b.bins * (unsigned)channels};
    float *host_weights = NULL;
    if (weighted) {
        host_weights = (float *)host_malloc((job.n ? job.n : 1) * sizeof *host_weights);
        for (size_t i = 0; i < job.n; i++)
            host_weights[i] = key_weight(opt.seed, i);
        job.weights = host_weights;
    }

    /* The CPU's answer, before any GPU run. */
    unsigned *cpu_counts = weighted ? NULL : (unsigned *)calloc(job.total, sizeof(unsigned));
    double *cpu_sums = weighted ? (double *)calloc(job.total, sizeof(double)) : NULL;
    if (!cpu_counts && !cpu_sums)
        fail("out of host memory for %u bins", job.total);
    uint64_t outside = 0;
    switch (type) {
    case KEY_U8:
        outside = cpu_bins<uint8_t>(job, cpu_counts, cpu_sums);
        break;
    case KEY_U16:
        outside = cpu_bins<uint16_t>(job, cpu_counts, cpu_sums);
        break;
    case KEY_U32:
        outside = cpu_bins<uint32_t>(job, cpu_counts, cpu_sums);
        break;
    case KEY_F32:
        outside = cpu_bins<float>(job, cpu_counts, cpu_sums);
        break;
    }

    /* The keys (and weights) on the GPU once, for every kernel-only run. */
    struct on_gpu g = {job, NULL,
                       (size_t)job.total * (weighted ? sizeof(double) : sizeof(unsigned)), size};
    require_gpu_memory(&stage, size + (weighted ? job.n * sizeof(float) : 0) + g.histo_bytes);
    void *dev_keys;
    float *dev_weights = NULL;
    HANDLE_ERROR(cudaMalloc(&dev_keys, size ? size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_keys, in.buffer, size, cudaMemcpyHostToDevice));
    if (weighted) {
        HANDLE_ERROR(cudaMalloc((void **)&dev_weights, job.n * sizeof(float) + 1));
        HANDLE_ERROR(
            cudaMemcpy(dev_weights, host_weights, job.n * sizeof(float), cudaMemcpyHostToDevice));
    }
    HANDLE_ERROR(cudaMalloc(&g.histo, g.histo_bytes));
    g.job.keys = dev_keys;
    g.job.weights = dev_weights;
    void *host_histo = host_malloc(g.histo_bytes), *kernel_histo = host_malloc(g.histo_bytes);

    struct row rows[STRATEGIES + 2]; /* the floor, auto, and each strategy */
    int count = 0;
    char not_run[STRATEGIES][200];
    int not_run_count = 0;
    int wrong = 0;

    /* The floor: a kernel that only reads the same bytes, timed the same way. */
    {
        unsigned xor_histo[BINS], xor_kernel[BINS];
        struct input bytes = {in.buffer, size, in.name, 0, 0};
        struct launch read_launch = {read_blocks(&gpu, size, 256), 256};
        struct gpu_times t = time_gpu_histogram(&stage, &opt, &bytes, read_launch, launch_read,
                                                NULL, xor_histo, xor_kernel);
        if (xor_histo[0] != cpu_xor(in.buffer, size) || xor_kernel[0] != xor_histo[0])
            fail("the read-bandwidth kernel did not read every byte (its XOR is wrong)");
        rows[count] = {NULL, "read-bandwidth", read_launch, t, true};
        count++;
    }

    /* auto: (a) to (d), each once on these keys after a warm-up, the fastest kept. */
    int chosen = -1;
    double tuning_ms = 0;
    if (strcmp(variant, "auto") == 0 || strcmp(variant, "all") == 0) {
        double begin = now_ms(), best = 0;
        for (int i = 0; i <= GLOBAL_PLAIN; i++) {
            struct plan p = {&strategies[i]};
            plan_any(&p, &g, &gpu, &opt, &stage);
            if (p.why_not[0])
                continue;
            struct trip t = {&p, &g, in.buffer, host_weights, host_histo, kernel_histo};
            kernel_only_run(&t); /* warm-up */
            double ms = kernel_only_run(&t).kernel_ms;
            if (chosen < 0 || ms < best)
                chosen = i, best = ms;
        }
        tuning_ms = now_ms() - begin;
    }

    /* First every strategy's kernel-only runs, back to back, then every whole
     * trip. Timed in turns (kernel, trip, kernel, ...), a kernel ran after a
     * trip had left the GPU idle, waiting on the PCIe copies: on the H100 the
     * same per-block kernel then read 83% of the floor where, run straight
     * after auto's tries, it read 98% (constant keys, 1 GiB). */
    for (int k = -1; k < STRATEGIES; k++) {
        /* k = -1 is auto: the chosen strategy, under its own name */
        const struct strategy *s =
            k < 0 ? (chosen >= 0 ? &strategies[chosen] : NULL) : &strategies[k];
        bool wanted = k < 0 ? strcmp(variant, "auto") == 0 || strcmp(variant, "all") == 0
                            : strcmp(variant, "all") == 0 || strcmp(variant, s->name) == 0;
        if (!wanted || !s)
            continue;
        struct row *r = &rows[count];
        r->p = (struct plan){s};
        plan_any(&r->p, &g, &gpu, &opt, &stage);
        if (r->p.why_not[0]) {
            if (strcmp(variant, "all") != 0 && r->p.not_here) {
                fprintf(stderr, "%s: cannot run here: %s\n", stage.program, r->p.why_not);
                exit(EXIT_CANNOT_RUN);
            }
            if (strcmp(variant, "all") != 0)
                usage_error(&stage, r->p.why_not);
            snprintf(not_run[not_run_count++], sizeof not_run[0], "%s", r->p.why_not);
            continue;
        }
        count++;
        r->s = s;
        if (k < 0)
            snprintf(r->impl, sizeof r->impl, "auto:%s", s->name);
        else
            snprintf(r->impl, sizeof r->impl, "%s", s->name);
        r->launch = r->p.launch;
        struct trip t = {&r->p, &g, in.buffer, host_weights, host_histo, kernel_histo};
        bool cub = s->kind == CUB_EVEN || s->kind == CUB_RANGE;
        if (cub && !hold_cub_memory(&r->p, job.b))
            fail("%s: CUB's scratch space (%zu MiB) could not be had again", r->impl,
                 r->p.cub_scratch_bytes >> 20);
        r->t.kernel_ms = median_gpu_times(kernel_only_run, &t, opt.reps).kernel_ms;
        drop_cub_memory(&r->p);
        HANDLE_ERROR(cudaMemcpy(kernel_histo, g.histo, g.histo_bytes, cudaMemcpyDeviceToHost));
        /* CUB counts into 32-bit counters; so do the others without weights */
        int bad = wrong_bins(r->impl, job, kernel_histo, cpu_counts, cpu_sums);
        r->verified = bad == 0;
        wrong += bad;
    }
    for (int i = 1; i < count; i++) { /* rows[0] is the floor */
        struct row *r = &rows[i];
        struct trip t = {&r->p, &g, in.buffer, host_weights, host_histo, kernel_histo};
        bool cub = r->s->kind == CUB_EVEN || r->s->kind == CUB_RANGE;
        if (cub && !hold_cub_memory(&r->p, job.b))
            fail("%s: CUB's scratch space (%zu MiB) could not be had again", r->impl,
                 r->p.cub_scratch_bytes >> 20);
        r->t.total_ms = median_gpu_times(whole_trip_run, &t, opt.reps).total_ms;
        int bad = wrong_bins(r->impl, job, host_histo, cpu_counts, cpu_sums);
        r->verified = r->verified && bad == 0;
        wrong += bad;
        drop_cub_memory(&r->p);
    }

    /* The report: the shared layout, with what this stage adds. */
    bool generated = opt.data != DATA_FILE && opt.data != DATA_IMAGE;
    if (opt.csv) {
        puts(CSV_HEADER);
        for (int i = 0; i < count; i++) {
            char impl[96];
            snprintf(impl, sizeof impl, "%s/%s/%u", rows[i].impl, key_name(type), b.bins);
            if (channels > 1)
                snprintf(impl + strlen(impl), sizeof impl - strlen(impl), "x%d", channels);
            if (weighted)
                strncat(impl, "/weighted", sizeof impl - strlen(impl) - 1);
            struct csv_row row = {stage.dir,
                                  impl,
                                  gpu.name,
                                  in.name,
                                  size,
                                  generated ? opt.seed : 0,
                                  rows[i].launch.blocks,
                                  rows[i].launch.threads,
                                  opt.reps,
                                  rows[i].t.kernel_ms,
                                  rows[i].t.total_ms,
                                  rows[i].verified};
            print_csv_row(stdout, &row);
        }
    } else {
        printf("%s: %s\n", stage.dir, stage.summary);
        printf("device:     %s\n", gpu.name);
        if (opt.data == DATA_IMAGE)
            printf("input:      image %s, %d x %d pixels: %zu bytes of R, G, B\n", in.name,
                   img.width, img.height, size);
        else
            printf("input:      %s, %zu bytes%s", in.name, size, generated ? "" : "\n");
        if (generated)
            printf(", seed %" PRIu64 "\n", opt.seed);
        if (type == KEY_F32)
            printf("keys:       %zu f32 keys, %u bins over [%g, %g)", job.n, b.bins, b.flo, b.fhi);
        else
            printf("keys:       %zu %s keys, %u bins over [%" PRIu64 ", %" PRIu64 ")", job.n,
                   key_name(type), b.bins, b.lo, b.lo + b.width);
        if (channels > 1)
            printf(" x %d channels", channels);
        printf("%s\n", weighted ? ", weighted" : "");
        printf("outside:    %" PRIu64 " keys in no bin (outside the range, or NaN)\n", outside);
        if (weighted) {
            double sum = 0;
            for (unsigned i = 0; i < job.total; i++)
                sum += cpu_sums[i];
            printf("Weight Sum: %.6f (the CPU's, in double)\n", sum);
        } else {
            uint64_t sum = 0;
            for (unsigned i = 0; i < job.total; i++)
                sum += cpu_counts[i];
            printf("Histogram Sum: %" PRIu64 "\n", sum);
        }
        if (chosen >= 0)
            printf("auto:       tried (a) to (d) on these keys in %.1f ms; %s was fastest\n",
                   tuning_ms, strategies[chosen].name);
        printf("medians of %d run%s after %d warm-up; read-bandwidth is the floor: %%: its kernel "
               "time over the\nrow's, x: the row's end-to-end time over its\n\n",
               opt.reps, opt.reps == 1 ? "" : "s", WARMUP_RUNS);
        printf("%-18s %-12s %10s %9s %7s %14s %7s  %s\n", "impl", "launch", "kernel ms", "GB/s",
               "%", "end-to-end ms", "x", "verified");
        for (int i = 0; i < count; i++) {
            const struct row *r = &rows[i];
            char launch[32] = "-", percent[16] = "";
            if (r->launch.blocks)
                snprintf(launch, sizeof launch, "%ldx%d", r->launch.blocks, r->launch.threads);
            if (r->t.kernel_ms > 0)
                snprintf(percent, sizeof percent, "%.1f",
                         100 * rows[0].t.kernel_ms / r->t.kernel_ms);
            printf("%-18s %-12s %10.4f %9.1f %7s %14.3f %7.3f  %s\n", r->impl, launch,
                   r->t.kernel_ms, gb_per_s(size, r->t.kernel_ms), percent, r->t.total_ms,
                   r->t.total_ms / rows[0].t.total_ms, r->verified ? "yes" : "NO");
        }
        for (int i = 0; i < not_run_count; i++)
            printf("not run:    %s\n", not_run[i]);
        printf("verified:   %s\n", wrong ? "NO" : "yes, every result matches the CPU");
    }
    if (opt.stage_values[OPT_PRINT_BINS] && count > 1) {
        for (unsigned bin = 0; bin < job.total; bin++)
            if (weighted)
                printf("%u: %.6f\n", bin, ((const double *)host_histo)[bin]);
            else
                printf("%u: %u\n", bin, ((const unsigned *)host_histo)[bin]);
    }
    HANDLE_ERROR(cudaFree(dev_keys));
    HANDLE_ERROR(cudaFree(g.histo));
    if (dev_weights)
        HANDLE_ERROR(cudaFree(dev_weights));
    free(host_histo);
    free(kernel_histo);
    free(host_weights);
    free(cpu_counts);
    free(cpu_sums);
    if (opt.data == DATA_IMAGE)
        free_image(&img);
    else
        free_input(&in);
    if (wrong) {
        fprintf(stderr, "%s: verification FAILED: %d bins differ from the CPU reference\n",
                stage.program, wrong);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}
