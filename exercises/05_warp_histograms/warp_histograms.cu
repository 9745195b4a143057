/*
 * Exercise 05 - a private histogram per warp. Stage 03 gives each block one
 * copy of the 256 bins in shared memory; stage 05 went as far as a copy per
 * lane. Here each warp of the block gets its own copy (blockDim.x / 32 of
 * them, sized at launch), counts into it with shared atomics, and the block
 * adds the copies up into the global histogram. Finish the count and the
 * merge, in warp_histograms_yours.cuh.
 *
 *   make run ARGS='--data constant'   every byte on one bin: lanes of a warp on one counter
 *   make run ARGS='--threads 1024'    32 warps, 32 copies: 32 KiB of shared memory
 *   make run ARGS='--size 1000 --threads 64 --show-copies'   each warp's copy, before the merge
 *   make run ARGS='--threads 96 --check-merge'   is the merge whole once it returns?
 *   make check                        does every warp count right, for every block size?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#define WARP_SIZE 32

/* The warps' copies sit one after another: warp w's count of bin b is at
 * warp_bins[w * BINS + b]. Their number is only known at launch, hence extern
 * (dynamic) shared memory, sized by shared_bytes below. The kernel is cut in
 * two: the count and the merge are yours (count_into_warp_copies and
 * merge_warp_copies), and between them the program can copy every warp's
 * copy out for --show-copies to print. */
#include "warp_histograms_yours.cuh"

/* For --show-copies only: every warp's copy, as it stands after the count. */
__device__ void dump_warp_copies(const unsigned int *warp_bins, unsigned int *dump)
{
    __syncthreads(); /* the copies are complete before they are copied out */
    int warps = blockDim.x / WARP_SIZE;
    for (int i = threadIdx.x; i < warps * BINS; i += blockDim.x)
        dump[(size_t)blockIdx.x * warps * BINS + i] = warp_bins[i];
    __syncthreads(); /* every copy is out before a merge could change one */
}

/* For --check-merge only: once merge_warp_copies has returned in every thread
 * and the block has met at one more barrier, the histogram is whole, and every
 * thread reads all of it. A merge whose __syncthreads() some threads meet more
 * often than others (inside a loop of unequal trips, say) pairs with this
 * barrier instead, and lets threads through before the merge is done. */
__device__ void read_merged_bins(const unsigned int *histo, const unsigned int *want,
                                 unsigned int *wrong_reads)
{
    __syncthreads(); /* every thread's part of the merge is done */
    for (int bin = 0; bin < BINS; bin++)
        if (histo[bin] != want[bin])
            atomicAdd(wrong_reads, 1);
}

__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo,
                             unsigned int *dump, const unsigned int *want,
                             unsigned int *wrong_reads)
{
    extern __shared__ unsigned int warp_bins[];
    int warps = blockDim.x / WARP_SIZE; /* main takes only whole warps */
    for (int i = threadIdx.x; i < warps * BINS; i += blockDim.x)
        warp_bins[i] = 0;
    __syncthreads(); /* every copy is zero before any warp counts into it */

    count_into_warp_copies(warp_bins, buffer, size);
    if (dump) /* NULL except for --show-copies: the same for every thread */
        dump_warp_copies(warp_bins, dump);
    merge_warp_copies(warp_bins, histo);
    if (want) /* NULL except for --check-merge: the same for every thread */
        read_merged_bins(histo, want, wrong_reads);
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
        dev_buffer, size, dev_histo, NULL, NULL, NULL);
    HANDLE_ERROR(cudaGetLastError());
}

/* --show-copies: one more launch, of one block, that copies every warp's copy
 * out after the count and before the merge, and prints each as a line
 * "copy <w>: <bin 0's count> ... <bin 255's count>". One block reads the whole
 * input, so warp w's copy must hold exactly the bytes its 32 lanes read. */
static void show_copies(const struct input *in, int threads)
{
    int warps = threads / WARP_SIZE;
    size_t dump_bytes = (size_t)warps * BINS * sizeof(unsigned int);
    unsigned char *dev_buffer;
    unsigned int *dev_histo, *dev_dump;
    unsigned int *dump = (unsigned int *)malloc(dump_bytes);
    if (!dump)
        fail("out of host memory for %d copies of the bins", warps);
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_dump, dump_bytes));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_dump, 0, dump_bytes));
    histo_kernel<<<1, threads, shared_bytes(threads)>>>(dev_buffer, in->size, dev_histo, dev_dump,
                                                        NULL, NULL);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaMemcpy(dump, dev_dump, dump_bytes, cudaMemcpyDeviceToHost));
    for (int w = 0; w < warps; w++) {
        printf("copy %d:", w);
        for (int bin = 0; bin < BINS; bin++)
            printf(" %u", dump[w * BINS + bin]);
        printf("\n");
    }
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaFree(dev_dump));
    free(dump);
}

/* --check-merge: one more launch, of one block that reads the whole input,
 * where every thread reads the merged histogram after the block's next barrier
 * (read_merged_bins). Prints how many of those reads were wrong: 0, or exit 1. */
static int check_merge(const struct input *in, int threads)
{
    unsigned int want[BINS] = {0}, wrong_reads = 0;
    for (size_t i = 0; i < in->size; i++)
        want[in->buffer[i]]++;
    unsigned char *dev_buffer;
    unsigned int *dev_histo, *dev_want, *dev_wrong_reads;
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_want, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_wrong_reads, sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(dev_want, want, sizeof want, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_wrong_reads, 0, sizeof(unsigned int)));
    histo_kernel<<<1, threads, shared_bytes(threads)>>>(dev_buffer, in->size, dev_histo, NULL,
                                                        dev_want, dev_wrong_reads);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(
        cudaMemcpy(&wrong_reads, dev_wrong_reads, sizeof wrong_reads, cudaMemcpyDeviceToHost));
    printf("merge check: %d threads read all %d bins after the barrier that follows the merge: "
           "%u reads wrong\n",
           threads, BINS, wrong_reads);
    if (wrong_reads)
        fprintf(stderr,
                "warp_histograms: --check-merge: threads passed the barrier after the merge "
                "before it was done (does every thread meet each __syncthreads() in it "
                "equally often?)\n");
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaFree(dev_want));
    HANDLE_ERROR(cudaFree(dev_wrong_reads));
    return wrong_reads ? EXIT_FAILED : EXIT_OK;
}

static const struct stage_option show_options[] = {
    {"--show-copies", NULL, "after the report, one block's copies before the merge, one line each"},
    {"--check-merge", NULL,
     "after the report, one block: every thread reads the merged bins after the next barrier"},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "05_warp_histograms",
        .program = "warp_histograms",
        .summary = "exercise: a private histogram per warp, in shared memory",
        .gpu = true,
        .options = show_options,
        .launch_default = "256 threads per block, and as many blocks as fit on each SM "
                          "at once for this kernel, block size and shared memory, as "
                          "the occupancy API counts them (stage 05's book-occupancy "
                          "grid), not the book's 2 per SM"};
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
    if (opt.stage_values[0]) /* --show-copies */
        show_copies(&in, threads);
    if (opt.stage_values[1] && status == EXIT_OK) /* --check-merge */
        status = check_merge(&in, threads);
    free_input(&in);
    return status;
}
