/*
 * 05_privatized - beyond the book: a histogram at the memory-bandwidth limit.
 * Stage 03 runs at a few % of the speed of a kernel that only reads the same
 * bytes. Each variant below tries one way to close that gap, and the program
 * shows each as a % of that read-only kernel, beside NVIDIA's library
 * histogram (CUB).
 * (b), (b2) and (b3) are three answers to atomics that collide in a block's
 * bins: more copies of the bins, or fewer atomics (aggregation):
 *
 *   ./hist_gpu_privatized                            every variant, side by side
 *   ./hist_gpu_privatized --variant book-occupancy   (a) stage 03, grid from the occupancy API
 *   ./hist_gpu_privatized --variant lane-bins        (b) a copy of the bins per lane: no bank conflicts
 *   ./hist_gpu_privatized --variant run-length       (b2) (a) with one atomic per run of equal bytes
 *   ./hist_gpu_privatized --variant warp-aggregated  (b3) (a) with one atomic per bin per warp
 *   ./hist_gpu_privatized --variant vector-loads     (c) (b) reading 16 bytes at a time
 *   ./hist_gpu_privatized --variant unrolled         (d) (c) with two loads in flight
 *   ./hist_gpu_privatized --impl cub                 cub::DeviceHistogram::HistogramEven
 */
#include "book.h"          /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h"  /* options, the GPU, repeats, the report: no need to read it */
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the input */

#include <cub/device/device_histogram.cuh>

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
 * first threads of the grid. */
__device__ __forceinline__ void count_tail(const unsigned char *buffer, size_t size,
                                           unsigned int *lane_bins)
{
    size_t first = size / 16 * 16, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (first + i < size)
        atomicAdd(&lane_bins[buffer[first + i] * LANES], 1);
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

/* ------------------------------------------------------------- launchers -- */

typedef void (*histo_kernel_fn)(const unsigned char *, size_t, unsigned int *);

/* What the harness hands back to a launcher on every run: the variant's
 * kernel, or CUB's scratch space, which the first (warm-up) call allocates
 * and keeps, so that the timed calls do not pay for it. */
struct variant_run {
    histo_kernel_fn kernel; /* NULL for CUB */
    void *cub_scratch;
    size_t cub_scratch_bytes;
};

static void launch_kernel(void *context, const unsigned char *dev_buffer, size_t size,
                          unsigned int *dev_histo, struct launch launch)
{
    struct variant_run *run = (struct variant_run *)context;
    run->kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
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
    {"unrolled", histo_unrolled, 1024},
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
    int threads = opt->threads ? opt->threads : v->threads, per_sm;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v->kernel, threads, 0));
    return choose_launch(stage, opt, gpu, per_sm > 0 ? per_sm : 1, threads);
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
                "book-occupancy, run-length and warp-aggregated, 1024 "
                "for the others; CUB chooses its own launch."};
    struct options opt = options_or_exit(argc, argv, &stage);
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
        if (!variant_wants(&stage, &opt, v->name))
            continue;
        struct launch launch = choose_grid(&stage, &opt, &gpu, v);
        struct variant_run run = {.kernel = v->kernel};
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
