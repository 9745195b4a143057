/*
 * Exercise 05 - a private histogram per warp. Stage 03 gives each block one
 * copy of the 256 bins in shared memory, so all of a block's warps compete for
 * the same bins. Here each warp of the block gets its own copy (blockDim.x / 32
 * of them, sized at launch), counts into it with shared atomics, and the block
 * adds the copies up into the global histogram. Finish the kernel: look for TODO.
 *
 *   make run ARGS='--data constant'   every byte on one bin: where sharing hurts most
 *   make run ARGS='--threads 1024'    32 warps, 32 copies: 32 KiB of shared memory
 *   make check                        does every warp count right, for every block size?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#define WARP_SIZE 32

/* The warps' copies sit one after another: warp w's count of bin b is at
 * warp_bins[w * BINS + b]. Their number is only known at launch, hence extern
 * (dynamic) shared memory, sized by shared_bytes below. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    extern __shared__ unsigned int warp_bins[];
    int warps = blockDim.x / WARP_SIZE; /* main takes only whole warps */
    for (int i = threadIdx.x; i < warps * BINS; i += blockDim.x)
        warp_bins[i] = 0;
    __syncthreads(); /* every copy is zero before any warp counts into it */

    /* TODO: point mine at this warp's own copy; for now every warp uses copy 0. */
    unsigned int *mine = warp_bins;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    while (i < size) {
        /* TODO: lanes of this warp that read the same byte value add to the same
         * bin at the same moment: make this add lose nothing. */
        mine[buffer[i]]++;
        i += stride;
    }
    __syncthreads(); /* every warp has counted before any copy is read */

    /* One thread per bin adds that bin of every copy, then one global atomic. */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        /* TODO: add this bin of every warp's copy, not only copy 0's. */
        unsigned int sum = warp_bins[bin];
        if (sum) /* on skewed or constant data most bins are empty */
            atomicAdd(&histo[bin], sum);
    }
}

/* The dynamic shared memory a block of threads needs: one copy of the bins per
 * warp, 1 KiB each, so at most 32 KiB at 1024 threads, under the 48 KiB every
 * GPU gives a block without asking. */
static size_t shared_bytes(int threads)
{
    return (size_t)(threads / WARP_SIZE) * BINS * sizeof(unsigned int);
}

static void launch_histo(void *, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads, shared_bytes(launch.threads)>>>(
        dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "05_warp_histograms",
                                .program = "warp_histograms",
                                .summary =
                                    "exercise: a private histogram per warp, in shared memory",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    /* A partial warp would need a copy of its own too; whole warps keep the
     * kernel's arithmetic (blockDim.x / 32 copies) exact. */
    if (opt.threads % WARP_SIZE != 0) {
        char why[128];
        snprintf(why, sizeof why,
                 "--threads: %d is not a multiple of %d (one copy of the bins per warp)",
                 opt.threads, WARP_SIZE);
        usage_error(&stage, why);
    }
    struct gpu gpu = open_gpu(&stage);
    /* As many blocks as fit on an SM at once, as the occupancy API counts them
     * for this block size and this much shared memory (stage 05's grid). */
    int threads = opt.threads ? opt.threads : 256, per_sm;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histo_kernel, threads,
                                                               shared_bytes(threads)));
    struct launch launch = choose_launch(&stage, &opt, &gpu, per_sm > 0 ? per_sm : 1, threads);
    struct input in = make_input(&stage, &opt);

    unsigned int histo[BINS], kernel_histo[BINS];
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_histo, NULL, histo, kernel_histo);

    struct result result = {.impl = "warp-histograms",
                            .device = gpu.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = times.kernel_ms,
                            .total_ms = times.total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    free_input(&in);
    return status;
}
