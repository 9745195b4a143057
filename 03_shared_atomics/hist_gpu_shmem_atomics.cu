/*
 * 03_shared_atomics - the book's fast GPU histogram: each block first counts
 * into its own 256 bins in shared memory, where atomics are cheap and only the
 * block's threads compete, then adds its bins to the global histogram with one
 * atomicAdd per bin. Unlike the book's kernel, any block size works, not only 256.
 * A second kernel splits the input between threads the other way, to measure
 * what the book's order of reads is worth, and to say why (coalescing).
 *
 *   ./hist_gpu_shmem_atomics                       the book's launch: 2 blocks per SM, 256 threads
 *   ./hist_gpu_shmem_atomics --blocks-per-sm 8     four times the book's grid
 *   ./hist_gpu_shmem_atomics --variant contiguous  one contiguous slice of the input per thread
 *   ./hist_gpu_shmem_atomics --variant all         both kernels, side by side
 */
#include "book.h"             /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h"     /* options, the GPU, repeats, the report: no need to read it */
#include "contiguous_slice.h" /* which bytes a thread counts in histo_kernel_contiguous */

/* ---------------------------------------------------------- the kernels -- */

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    /* The book zeroes and merges with temp[threadIdx.x], which leaves bins
     * untouched when a block has fewer than 256 threads and overruns temp when
     * it has more. Striding by blockDim.x covers the 256 bins for any size. */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads(); /* every bin is zero before any thread counts into it */

    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += stride;
    }
    __syncthreads(); /* every thread has counted before the bins are read */

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}

/* The same kernel with the input split the other way. Above, thread t of the
 * grid's T threads reads bytes t, t + T, t + 2T, ... (interleaved), so at each
 * step the 32 threads of a warp read 32 neighbouring bytes, which the GPU
 * fetches from memory for the whole warp at once (a coalesced load). Here each
 * thread reads one contiguous slice of size / T bytes, rounded up, much as
 * 01_cpu splits its input between CPU threads; at each step the 32 threads of
 * a warp read 32 bytes a slice apart, up to 32 separate places in memory, each
 * fetched on its own. Caches may keep the rest of each fetch for the thread's
 * next bytes: how much that saves is for the measurement to say. Every byte is
 * still counted once, into the same bins in shared memory: only which thread
 * reads which byte, and so the pattern of a warp's reads, has changed. */
__global__ void histo_kernel_contiguous(const unsigned char *buffer, size_t size,
                                        unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads();

    size_t thread = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    struct slice mine = contiguous_slice(size, (size_t)blockDim.x * gridDim.x, thread);
    for (size_t i = mine.first; i < mine.end; i++)
        atomicAdd(&temp[buffer[i]], 1);
    __syncthreads();

    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        atomicAdd(&histo[bin], temp[bin]);
}

/* ------------------------------------------------------- the host side -- */

typedef void (*histo_kernel_fn)(const unsigned char *, size_t, unsigned int *);

/* What one run needs, and where it leaves its result. */
struct histo_run {
    histo_kernel_fn kernel;      /* histo_kernel or histo_kernel_contiguous */
    const unsigned char *buffer; /* the input, in host memory */
    size_t size;
    struct launch launch;
    unsigned int histo[BINS]; /* the bins, copied back */
};

/* The book's host program, once: GPU memory, the input copied in, the bins
 * cleared, the kernel, the bins copied back, the memory freed. The harness
 * calls it once per timed run and reports the medians. It keeps two clocks:
 * CUDA events around the launch alone (kernel only), and the host's clock
 * around the whole trip (end to end, what the book timed; the host clock also
 * sees the CPU's share of a copy from pageable memory). */
static struct gpu_times histogram_on_gpu(void *context)
{
    struct histo_run *run = (struct histo_run *)context;
    const unsigned char *buffer = run->buffer;
    size_t size = run->size;
    unsigned int blocks = (unsigned int)run->launch.blocks, threads = run->launch.threads;
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaEvent_t start, stop;
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));

    double trip_start = now_ms();
    /* At least one byte: a zero-byte input still needs a pointer to pass. */
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));

    HANDLE_ERROR(cudaEventRecord(start, 0));
    run->kernel<<<blocks, threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError()); /* a launch returns nothing: ask whether it failed */
    HANDLE_ERROR(cudaEventRecord(stop, 0));

    /* This copy waits for the kernel, since both are on stream 0. */
    HANDLE_ERROR(
        cudaMemcpy(run->histo, dev_histo, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    struct gpu_times times = {.total_ms = now_ms() - trip_start};
    float kernel_ms;
    HANDLE_ERROR(cudaEventSynchronize(stop));
    HANDLE_ERROR(cudaEventElapsedTime(&kernel_ms, start, stop));
    times.kernel_ms = kernel_ms;

    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    return times;
}

/* The kernels by their --variant names. The book's keeps "shared-atomics" as
 * the name its report gives, the name every recorded result knows it by. */
struct variant {
    const char *name, *impl;
    histo_kernel_fn kernel;
};
static const struct variant variants[] = {
    {"interleaved", "shared-atomics", histo_kernel},
    {"contiguous", "contiguous", histo_kernel_contiguous},
};
#define VARIANTS ((int)(sizeof variants / sizeof variants[0]))

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "03_shared_atomics",
        .program = "hist_gpu_shmem_atomics",
        .summary = "a shared-memory histogram per block, merged with global atomics",
        .gpu = true,
        /* the table's names, the book's first (the default), and all last */
        .variants = variant_names_of_rows(variants, VARIANTS, sizeof variants[0], false),
        .help = "With T threads in the grid, thread t reads bytes t, t + T, t + 2T and so on in "
                "the book's kernel (interleaved), and the t-th run of ceil(size/T) bytes in "
                "contiguous; all runs both on the same input, a row each."};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct gpu gpu = open_gpu(&stage);
    /* The book's launch: twice as many blocks as SMs, 256 threads each. */
    struct launch launch = choose_launch(&stage, &opt, &gpu, 2, 256);
    struct input in = make_input(&stage, &opt);
    require_gpu_memory(&stage, in.size);

    struct histo_run runs[VARIANTS];
    struct result results[VARIANTS];
    int count = 0;
    for (int v = 0; v < VARIANTS; v++) {
        if (!variant_wants(&stage, &opt, variants[v].name))
            continue;
        struct histo_run *run = &runs[count];
        *run = {variants[v].kernel, in.buffer, in.size, launch, {0}};
        struct gpu_times times = median_gpu_times(histogram_on_gpu, run, opt.reps);
        results[count++] = {.impl = variants[v].impl,
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = run->histo};
    }
    int status = report_results(&stage, &opt, &in, results, count);
    free_input(&in);
    return status;
}
