/*
 * 05_privatized - beyond the book: a histogram at the memory-bandwidth limit.
 * Stage 03 runs at a few % of the speed of a kernel that only reads the same
 * bytes. Each variant below tries one way to close that gap, and the program
 * shows each as a % of that read-only kernel, beside NVIDIA's library
 * histogram (CUB).
 * (b), (b2) and (b3) are three answers to atomics that collide in a block's
 * bins: more copies of the bins, or fewer atomics (aggregation); (e) counts
 * with no atomics at all; (f) and (g) are CUB's block-level histogram:
 *
 *   ./hist_gpu_privatized                            every variant but (c'), side by side
 *   ./hist_gpu_privatized --variant book-occupancy   (a) stage 03, grid from the occupancy API
 *   ./hist_gpu_privatized --variant lane-bins        (b) a copy of the bins per lane: no bank conflicts
 *   ./hist_gpu_privatized --variant run-length       (b2) (a) with one atomic per run of equal bytes
 *   ./hist_gpu_privatized --variant warp-aggregated  (b3) (a) with one atomic per bin per warp
 *   ./hist_gpu_privatized --variant vector-loads     (c) (b) reading 16 bytes at a time
 *   ./hist_gpu_privatized --variant one-copy-vector-loads
 *                                                    (c') (a) reading 16 bytes at a time
 *   ./hist_gpu_privatized --variant unrolled         (d) (c) with two loads in flight
 *   ./hist_gpu_privatized --variant packed-bytes     (e) (c) with an 8-bit counter per bin per thread
 *   ./hist_gpu_privatized --variant cub-block-sort   (f) cub::BlockHistogram, sort then count runs
 *   ./hist_gpu_privatized --variant cub-block-atomic (g) cub::BlockHistogram, shared atomics
 *   ./hist_gpu_privatized --variant cub              cub::DeviceHistogram::HistogramEven
 */
/* CUB's block histogram first: book.h's BINS macro would rewrite its template
 * parameter of the same name. */
#include <cub/block/block_histogram.cuh>
#include <cub/device/device_histogram.cuh>

#include "book.h"          /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h"  /* options, the GPU, repeats, the report: no need to read it */
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the input */

#include <string.h>

#define LANES 32 /* the threads of a warp, and the banks of shared memory */

/* ------------------------------------------------------------ the kernels -- */

/* (a) Stage 03's kernel, unchanged; only its grid differs (see choose_grid). */
__global__ void histo_book(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads();
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size; i += stride)
        atomicAdd(&temp[buffer[i]], 1);
    __syncthreads();
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}

/* (b), (c), (d) keep 32 copies of the 256 bins, one per lane of a warp, laid
 * out bin by bin: lane l's count of bin b is at temp[b * LANES + l], in bank l
 * whatever b is. The 32 threads of a warp then never touch the same bank, so
 * each warp's 32 shared atomics go through in one pass, on random bytes and on
 * constant ones alike. That is 32 KB of shared memory per block. */
__device__ void zero_lane_bins(unsigned int *temp)
{
    for (int i = threadIdx.x; i < BINS * LANES; i += blockDim.x)
        temp[i] = 0;
    __syncthreads();
}

/* Adds the 32 copies of each bin into the global histogram. Thread t starts at
 * lane t % 32, so the threads of a warp read 32 different banks. */
__device__ void merge_lane_bins(const unsigned int *temp, unsigned int *histo)
{
    __syncthreads(); /* every thread has counted */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        unsigned int sum = 0;
        for (int l = 0; l < LANES; l++)
            sum += temp[bin * LANES + (bin + l) % LANES];
        if (sum) /* on skewed or constant data most bins are empty */
            atomicAdd(&histo[bin], sum);
    }
}

__device__ __forceinline__ void count_word(unsigned int *lane_bins, unsigned int word)
{
    atomicAdd(&lane_bins[(word & 0xff) * LANES], 1);
    atomicAdd(&lane_bins[((word >> 8) & 0xff) * LANES], 1);
    atomicAdd(&lane_bins[((word >> 16) & 0xff) * LANES], 1);
    atomicAdd(&lane_bins[(word >> 24) * LANES], 1);
}

__device__ __forceinline__ void count_vector(unsigned int *lane_bins, uint4 v)
{
    count_word(lane_bins, v.x);
    count_word(lane_bins, v.y);
    count_word(lane_bins, v.z);
    count_word(lane_bins, v.w);
}

/* (b) One byte per load, as in (a), into the per-lane bins. */
__global__ void histo_lane_bins(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS * LANES];
    zero_lane_bins(temp);
    unsigned int *lane_bins = temp + threadIdx.x % LANES;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size; i += stride)
        atomicAdd(&lane_bins[buffer[i] * LANES], 1);
    merge_lane_bins(temp, histo);
}

/* (b2) and (b3) keep (a)'s single copy of the bins, cleared and merged as (a)
 * does it, and change only how the bytes are counted into it. */
__device__ void zero_bins(unsigned int *temp)
{
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads();
}

__device__ void merge_bins(const unsigned int *temp, unsigned int *histo)
{
    __syncthreads(); /* every thread has counted */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}

/* (b2) Aggregation, as the parallel-histogram chapter of Programming Massively
 * Parallel Processors does it: a thread counts a run of equal bytes in a
 * register and adds it with one atomic when the bin changes. A thread's
 * consecutive bytes are stride = blocks x threads apart in the input, so expect
 * runs where the data repeats over that distance: on constant bytes, partly on
 * skewed ones, hardly ever on uniform ones. */
__global__ void histo_run_length(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    zero_bins(temp);
    unsigned int run_bin = 0, run = 0; /* run bytes of bin run_bin, not yet in temp */
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size; i += stride) {
        unsigned int bin = buffer[i];
        if (bin != run_bin) {
            if (run)
                atomicAdd(&temp[run_bin], run);
            run_bin = bin;
            run = 0;
        }
        run++;
    }
    if (run) /* the last run */
        atomicAdd(&temp[run_bin], run);
    merge_bins(temp, histo);
}

/* (b3) Aggregation across a warp: __match_any_sync gives each lane the set of
 * lanes that read the same bin in this step, and the lowest of them adds the
 * set's size with one atomic. The mask names only the lanes still in the loop
 * (__activemask()): in the last step, and in a block whose size is not a
 * multiple of 32, the others have no byte. Should the lanes in the loop reach
 * the match apart, each part matches among itself: still one count per byte.
 * Compute capability 7.0 and up (CUDA C++ Programming Guide, "Warp Match
 * Functions"; __activemask: "Warp Vote Functions"). On the H100 it was slower
 * than (a) on uniform, skewed, constant and text bytes: (a)'s atomicAdd(..., 1)
 * compiles to ATOMS.POPC.INC, which already combines a warp's lanes on one
 * address (chapter 05). */
__global__ void histo_warp_aggregated(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    zero_bins(temp);
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size; i += stride) {
        unsigned int bin = buffer[i];
        unsigned int same = __match_any_sync(__activemask(), bin);
        if ((int)(threadIdx.x % LANES) == __ffs(same) - 1) /* __ffs counts lanes from 1 */
            atomicAdd(&temp[bin], __popc(same));
    }
    merge_bins(temp, histo);
}

/* The last size % 16 bytes, which no 16-byte load covers: one each for the
 * first threads of the grid, round the grid again if it has fewer than 15. */
__device__ __forceinline__ void count_tail(const unsigned char *buffer, size_t size,
                                           unsigned int *lane_bins)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = size / 16 * 16 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size;
         i += stride)
        atomicAdd(&lane_bins[buffer[i] * LANES], 1);
}

/* (c) A 16-byte load (uint4) brings 16 bytes per instruction instead of one.
 * cudaMalloc's 256-byte alignment makes buffer a valid uint4 array. */
__global__ void histo_vector_loads(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS * LANES];
    zero_lane_bins(temp);
    unsigned int *lane_bins = temp + threadIdx.x % LANES;
    const uint4 *vectors = (const uint4 *)buffer;
    size_t count = size / 16, stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += stride)
        count_vector(lane_bins, vectors[i]);
    count_tail(buffer, size, lane_bins);
    merge_lane_bins(temp, histo);
}

/* (c') (a)'s one copy of the bins per block, read 16 bytes at a time as (c)
 * reads them: it tells what the loads bring from what (c)'s per-lane copies
 * bring. This is the loop of chapter 09's histo_kernel
 * (09_equalize/hist_gpu_equalize.cu), and does what it does: one copy per
 * block, uint4 loads, the last 0 to 15 bytes one at a time (a grid of any
 * size takes them all), and only the non-zero bins merged. It runs only when
 * named: --variant all keeps the rows it has always shown. */
__device__ __forceinline__ void count_word_one_copy(unsigned int *temp, unsigned int word)
{
    atomicAdd(&temp[word & 0xff], 1);
    atomicAdd(&temp[(word >> 8) & 0xff], 1);
    atomicAdd(&temp[(word >> 16) & 0xff], 1);
    atomicAdd(&temp[word >> 24], 1);
}

__global__ void histo_one_copy_vector_loads(const unsigned char *buffer, size_t size,
                                            unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    zero_bins(temp);
    const uint4 *vectors = (const uint4 *)buffer;
    size_t count = size / 16, stride = (size_t)blockDim.x * gridDim.x;
    size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = first; i < count; i += stride) {
        uint4 v = vectors[i];
        count_word_one_copy(temp, v.x);
        count_word_one_copy(temp, v.y);
        count_word_one_copy(temp, v.z);
        count_word_one_copy(temp, v.w);
    }
    for (size_t i = count * 16 + first; i < size; i += stride) /* the last 0 to 15 bytes */
        atomicAdd(&temp[buffer[i]], 1);
    __syncthreads(); /* every thread has counted */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        if (temp[bin])
            atomicAdd(&histo[bin], temp[bin]);
}

/* (d) As (c), but two loads are issued before either is counted, so a thread
 * waits for memory once per 32 bytes instead of once per 16. */
__global__ void histo_unrolled(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS * LANES];
    zero_lane_bins(temp);
    unsigned int *lane_bins = temp + threadIdx.x % LANES;
    const uint4 *vectors = (const uint4 *)buffer;
    size_t count = size / 16, stride = (size_t)blockDim.x * gridDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + stride < count; i += 2 * stride) {
        uint4 first = vectors[i], second = vectors[i + stride];
        count_vector(lane_bins, first);
        count_vector(lane_bins, second);
    }
    if (i < count)
        count_vector(lane_bins, vectors[i]);
    count_tail(buffer, size, lane_bins);
    merge_lane_bins(temp, histo);
}

/* (e) The idea of NVIDIA cuda-samples' histogram64, for 256 bins: each
 * thread counts into its own 8-bit counter per bin with a plain increment
 * (the counter is no other thread's: no atomic), four counters to a word.
 * 256 threads x 256 bins x 1 byte = 64 KiB of shared memory per block,
 * asked for at launch (dynamic). A byte holds 255: histogram64 launches
 * enough blocks that no thread counts more than 240 bytes; here the grid
 * is the occupancy API's, and a block flushes instead: after each round of
 * at most 15 x 16 = 240 bytes per thread (and one tail byte before the
 * first), it adds the counters into 32-bit totals in registers and clears
 * them. Thread t's byte of bin b is byte t / 32 % 4 of word b * 64 + t % 32
 * + 32 * (t / 128): lane l is always in bank l, so a warp's 32 increments
 * go through in one pass whatever bins they count. */
#define PACKED_THREADS 256 /* one thread per bin when the counters are added up */
#define ROUND_VECTORS  15  /* 16-byte loads per thread between two flushes */
#define PACKED_WORDS   (BINS * PACKED_THREADS / 4)
static_assert(PACKED_THREADS == BINS, "the flush gives each thread one bin");
static_assert(ROUND_VECTORS * 16 + 1 <= 255, "a round, and a tail byte, must fit in a byte");

__device__ __forceinline__ void count_packed_word(unsigned char *my_bins, unsigned int word)
{
    my_bins[(word & 0xff) * PACKED_THREADS]++;
    my_bins[((word >> 8) & 0xff) * PACKED_THREADS]++;
    my_bins[((word >> 16) & 0xff) * PACKED_THREADS]++;
    my_bins[(word >> 24) * PACKED_THREADS]++;
}

__global__ void __launch_bounds__(PACKED_THREADS)
    histo_packed_bytes(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    extern __shared__ unsigned int packed[]; /* PACKED_WORDS words, 4 counters each */
    if (blockDim.x != PACKED_THREADS)        /* the layout is for this many threads */
        __trap();
    unsigned int t = threadIdx.x;
    /* my_bins[b * PACKED_THREADS] is this thread's counter of bin b */
    unsigned char *my_bins =
        (unsigned char *)packed + 4 * (t % LANES + LANES * (t / 128)) + t / LANES % 4;
    for (unsigned int i = t; i < PACKED_WORDS; i += PACKED_THREADS)
        packed[i] = 0;
    __syncthreads();
    size_t first = size / 16 * 16, i = blockIdx.x * (size_t)PACKED_THREADS + t;
    if (first + i < size) /* the tail, as count_tail does it */
        my_bins[buffer[first + i] * PACKED_THREADS]++;

    const uint4 *vectors = (const uint4 *)buffer;
    size_t count = size / 16, stride = (size_t)PACKED_THREADS * gridDim.x;
    unsigned int total = 0; /* this block's count of bin t */
    /* start (thread 0's first vector of the round) is the same for the whole
     * block, so every thread reaches each __syncthreads. At least one round:
     * it flushes the tail. */
    for (size_t start = blockIdx.x * (size_t)PACKED_THREADS;; start += ROUND_VECTORS * stride) {
#pragma unroll
        for (int k = 0; k < ROUND_VECTORS; k++) {
            size_t v = start + t + k * stride;
            if (v < count) {
                uint4 vector = vectors[v];
                count_packed_word(my_bins, vector.x);
                count_packed_word(my_bins, vector.y);
                count_packed_word(my_bins, vector.z);
                count_packed_word(my_bins, vector.w);
            }
        }
        __syncthreads(); /* every counter of the round is in */
        /* Thread t adds up bin t's 64 words. Starting at word t % 64 puts the
         * lanes of a warp in 32 different banks. __dp4a(w, 0x01010101, s)
         * adds w's four bytes (each times 1) to s. */
        unsigned int *bin_words = packed + t * (PACKED_THREADS / 4);
        for (unsigned int k = 0; k < PACKED_THREADS / 4; k++) {
            unsigned int w = (k + t) % (PACKED_THREADS / 4);
            total = __dp4a(bin_words[w], 0x01010101u, total);
            bin_words[w] = 0;
        }
        __syncthreads(); /* every counter is clear before the next round counts */
        if (start + ROUND_VECTORS * stride >= count)
            break;
    }
    if (total)
        atomicAdd(&histo[t], total);
}

/* (f) and (g) CUB's block-level histogram, cub::BlockHistogram, in a kernel
 * of ours: the block's bins in shared memory, counted one tile at a time.
 * Its two algorithms: BLOCK_HISTO_SORT sorts the tile (a block radix sort),
 * then each thread reads the length of its bin's run; BLOCK_HISTO_ATOMIC is
 * a shared atomicAdd per byte, as (a). 256 threads x 16 bytes: one 16-byte
 * load per thread per tile, as (c), and 256 threads are one per bin in the
 * sort's last step. The load is ours: cub::BlockLoad's vectorized load
 * reads bytes 4 at a time (cub/block/block_load.cuh). */
#define TILE_THREADS 256
#define TILE_ITEMS   16 /* bytes per thread per tile: one uint4 */
#define TILE_BYTES   (TILE_THREADS * TILE_ITEMS)
static_assert(TILE_ITEMS == sizeof(uint4), "a thread's tile bytes are one 16-byte load");

template <cub::BlockHistogramAlgorithm ALGORITHM>
__global__ void __launch_bounds__(TILE_THREADS)
    histo_cub_block(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    using BlockHistogram =
        cub::BlockHistogram<unsigned char, TILE_THREADS, TILE_ITEMS, BINS, ALGORITHM>;
    __shared__ typename BlockHistogram::TempStorage scratch; /* the sort's */
    __shared__ unsigned int temp[BINS];
    if (blockDim.x != TILE_THREADS) /* CUB's block is built for this many */
        __trap();
    BlockHistogram block_histogram(scratch);
    block_histogram.InitHistogram(temp);
    __syncthreads(); /* the atomic algorithm counts into any bin */
    const uint4 *vectors = (const uint4 *)buffer;
    size_t tiles = size / TILE_BYTES;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        unsigned char items[TILE_ITEMS];
        uint4 vector = vectors[tile * TILE_THREADS + threadIdx.x];
        memcpy(items, &vector, sizeof vector);
        block_histogram.Composite(items, temp);
        /* The sort reuses scratch for its next tile, and its last step adds
         * to temp without atomics: wait until every thread is done with both. */
        __syncthreads();
    }
    /* BlockHistogram counts whole tiles only. The rest, under TILE_BYTES, goes
     * to the block whose turn it would be, one shared atomic per byte. */
    if (blockIdx.x == tiles % gridDim.x)
        for (size_t i = tiles * TILE_BYTES + threadIdx.x; i < size; i += TILE_THREADS)
            atomicAdd(&temp[buffer[i]], 1);
    merge_bins(temp, histo);
}

/* ------------------------------------------------------------- launchers -- */

typedef void (*histo_kernel_fn)(const unsigned char *, size_t, unsigned int *);

/* What the harness hands back to a launcher on every run: the variant's
 * kernel, or CUB's scratch space, which the first (warm-up) call allocates
 * and keeps, so that the timed calls do not pay for it. */
struct variant_run {
    histo_kernel_fn kernel; /* NULL for CUB */
    size_t shared_bytes;    /* the kernel's dynamic shared memory per block */
    void *cub_scratch;
    size_t cub_scratch_bytes;
};

static void launch_kernel(void *context, const unsigned char *dev_buffer, size_t size,
                          unsigned int *dev_histo, struct launch launch)
{
    struct variant_run *run = (struct variant_run *)context;
    run->kernel<<<(unsigned)launch.blocks, launch.threads, run->shared_bytes>>>(dev_buffer, size,
                                                                                dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* CUB picks its own grid. */
static void launch_cub(void *context, const unsigned char *dev_buffer, size_t size,
                       unsigned int *dev_histo, struct launch)
{
    struct variant_run *run = (struct variant_run *)context;
    size_t needed = 0;
    int64_t samples = (int64_t)size; /* 64-bit: inputs past 2 GiB */
    HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(nullptr, needed, dev_buffer, dev_histo,
                                                     BINS + 1, 0, BINS, samples));
    if (needed > run->cub_scratch_bytes) {
        if (run->cub_scratch)
            HANDLE_ERROR(cudaFree(run->cub_scratch));
        HANDLE_ERROR(cudaMalloc(&run->cub_scratch, needed));
        run->cub_scratch_bytes = needed;
    }
    HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(run->cub_scratch, needed, dev_buffer,
                                                     dev_histo, BINS + 1, 0, BINS, samples));
}

struct variant {
    const char *name;
    histo_kernel_fn kernel; /* NULL for CUB */
    int threads;            /* per block, unless --threads says otherwise */
    bool fixed_threads;     /* the kernel is built for this many: see refuse_threads */
    size_t shared_bytes;    /* dynamic shared memory per block */
    bool named_only;        /* not under all: its recorded table has no such row */
};

static const struct variant all_variants[] = {
    {"book-occupancy", histo_book, 256},
    /* 1024: 2 blocks fill an SM's 2048 threads, and their 2 x 32 KB of bins fit in its
     * shared memory (chapter 05, Pitfalls); other block sizes were not recorded */
    {"lane-bins", histo_lane_bins, 1024},
    /* (a)'s block size, and its grid rule: only the counting differs */
    {"run-length", histo_run_length, 256},
    {"warp-aggregated", histo_warp_aggregated, 256},
    {"vector-loads", histo_vector_loads, 1024},
    /* (c'): (a)'s block size, as chapter 09 launches it */
    {"one-copy-vector-loads", histo_one_copy_vector_loads, 256, false, 0, true},
    {"unrolled", histo_unrolled, 1024},
    {"packed-bytes", histo_packed_bytes, PACKED_THREADS, true, PACKED_WORDS * 4},
    {"cub-block-sort", histo_cub_block<cub::BLOCK_HISTO_SORT>, TILE_THREADS, true},
    {"cub-block-atomic", histo_cub_block<cub::BLOCK_HISTO_ATOMIC>, TILE_THREADS, true},
    {"cub", NULL, 0},
};
#define VARIANTS ((int)(sizeof all_variants / sizeof all_variants[0]))

/* As many blocks as fit on the GPU at once, as the occupancy API counts them
 * for this kernel and block size: the book's "2 per SM", worked out. */
static struct launch choose_grid(const struct stage *stage, const struct options *opt,
                                 const struct gpu *gpu, const struct variant *v)
{
    if (!v->kernel)
        return {0, 0}; /* CUB chooses */
    struct options own = *opt;
    if (v->fixed_threads)
        own.threads = 0; /* under all: this row keeps its own (refuse_threads) */
    int threads = own.threads ? own.threads : v->threads, per_sm;
    if (v->shared_bytes) {
        /* Past 48 KiB, a kernel must ask for its dynamic shared memory, up to
         * what this GPU gives one block (CUDA Runtime API, cudaFuncSetAttribute). */
        if (v->shared_bytes > shared_memory_per_block(gpu))
            cannot_run(stage, "packed-bytes needs 64 KiB of shared memory per block");
        HANDLE_ERROR(cudaFuncSetAttribute((const void *)v->kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)v->shared_bytes));
    }
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v->kernel, threads,
                                                               v->shared_bytes));
    return choose_launch(stage, &own, gpu, per_sm > 0 ? per_sm : 1, threads);
}

/* A variant built for its block size, asked for by name with another
 * --threads, is a usage error; under all it runs at its own size, as its row
 * shows. Checked before the GPU is opened. */
static void refuse_threads(const struct stage *stage, const struct options *opt)
{
    for (int i = 0; i < VARIANTS; i++) {
        const struct variant *v = &all_variants[i];
        if (v->fixed_threads && opt->threads && opt->threads != v->threads &&
            strcmp(stage->variants[opt->variant], v->name) == 0) {
            char why[128];
            snprintf(why, sizeof why, "--threads: %s runs %d threads per block, no other", v->name,
                     v->threads);
            usage_error(stage, why);
        }
    }
}

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "05_privatized",
        .program = "hist_gpu_privatized",
        .summary = "a histogram at the memory-bandwidth limit, and CUB",
        .gpu = true,
        /* all (the default), then the table's names */
        .variants = variant_names_of_rows(all_variants, VARIANTS, sizeof all_variants[0], true),
        .help = "The grid defaults to as many blocks as fit on the GPU "
                "at once (the occupancy API), and --threads to 256 for "
                "book-occupancy, run-length, warp-aggregated and "
                "one-copy-vector-loads, 1024 for lane-bins, vector-loads "
                "and unrolled. one-copy-vector-loads runs only when "
                "named, not under all. packed-bytes, "
                "cub-block-sort and cub-block-atomic are built for 256: "
                "named, they refuse another --threads; under all they "
                "keep 256. CUB chooses its own launch."};
    struct options opt = options_or_exit(argc, argv, &stage);
    refuse_threads(&stage, &opt);
    struct gpu gpu = open_gpu(&stage);
    struct input in = make_input(&stage, &opt);

    unsigned int histos[VARIANTS + 1][BINS], kernel_histos[VARIANTS + 1][BINS];
    struct result results[VARIANTS + 1];
    int count = 0;

    /* The yardstick first, over the same buffer and timed the same way. */
    struct launch read_launch = {read_blocks(&gpu, in.size, 256), 256};
    struct gpu_times t = time_gpu_histogram(&stage, &opt, &in, read_launch, launch_read, NULL,
                                            histos[0], kernel_histos[0]);
    if (histos[0][0] != cpu_xor(in.buffer, in.size) || kernel_histos[0][0] != histos[0][0])
        fail("the read-bandwidth kernel did not read every byte (its XOR is wrong)");
    results[count++] = {.impl = "read-bandwidth",
                        .device = gpu.name,
                        .blocks = read_launch.blocks,
                        .threads = read_launch.threads,
                        .kernel_ms = t.kernel_ms,
                        .total_ms = t.total_ms}; /* no histogram: report_results knows */

    for (int i = 0; i < VARIANTS; i++) {
        const struct variant *v = &all_variants[i];
        if (!variant_wants(&stage, &opt, v->name) ||
            (v->named_only && strcmp(stage.variants[opt.variant], v->name) != 0))
            continue;
        struct launch launch = choose_grid(&stage, &opt, &gpu, v);
        struct variant_run run = {.kernel = v->kernel, .shared_bytes = v->shared_bytes};
        t = time_gpu_histogram(&stage, &opt, &in, launch, v->kernel ? launch_kernel : launch_cub,
                               &run, histos[count], kernel_histos[count]);
        if (run.cub_scratch)
            HANDLE_ERROR(cudaFree(run.cub_scratch));
        results[count] = {.impl = v->name,
                          .device = gpu.name,
                          .blocks = launch.blocks,
                          .threads = launch.threads,
                          .kernel_ms = t.kernel_ms,
                          .total_ms = t.total_ms,
                          .histo = histos[count],
                          .kernel_histo = kernel_histos[count]};
        count++;
    }
    int status = report_results(&stage, &opt, &in, results, count);
    free_input(&in);
    return status;
}
