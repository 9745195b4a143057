/*
 * read_bandwidth - the yardstick for every GPU stage: how fast this GPU reads
 * the input once and does nothing else. A 256-bin byte histogram must read each
 * byte once and writes almost nothing, so no histogram kernel can beat this;
 * make bench records it beside every GPU stage, at every input size, so that
 * each stage's speed can be shown as a percentage of it.
 *
 * The kernel reads 16 bytes at a time, four loads in flight per thread, and
 * XORs the words together so the compiler cannot drop the reads; the XOR is
 * checked against the CPU's. It is timed exactly like the stages.
 *
 *   ./read_bandwidth                 100 MiB, the stages' default
 *   ./read_bandwidth --size 1G --csv
 */
#include "book.h"

#include <stdint.h>

__global__ void read_kernel(const unsigned char *buffer, size_t size, unsigned int *result)
{
    __shared__ unsigned int block_xor;
    if (threadIdx.x == 0)
        block_xor = 0;
    __syncthreads();
    const uint4 *vectors = (const uint4 *)buffer; /* cudaMalloc aligns to 256 bytes */
    size_t count = size / sizeof(uint4);
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    unsigned int x = 0;
    for (; i + 3 * stride < count; i += 4 * stride) { /* four independent loads in flight */
        uint4 a = vectors[i], b = vectors[i + stride], c = vectors[i + 2 * stride],
              d = vectors[i + 3 * stride];
        x ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^
             d.z ^ d.w;
    }
    for (; i < count; i += stride) {
        uint4 a = vectors[i];
        x ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) /* the last 0 to 15 bytes */
        for (size_t j = count * sizeof(uint4); j < size; j++)
            x ^= (unsigned int)buffer[j] << (8 * (j % 4));
    /* One global atomic per block, so that even a small input is not slowed
     * down by its own bookkeeping: this kernel must be the floor. */
    atomicXor(&block_xor, x);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicXor(result, block_xor);
}

static void launch_read(const unsigned char *dev_buffer, size_t size, unsigned int *dev_result,
                        struct launch launch)
{
    read_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_result);
    HANDLE_ERROR(cudaGetLastError());
}

/* The same XOR of little-endian 32-bit words, on the CPU. */
static unsigned int cpu_xor(const unsigned char *buffer, size_t size)
{
    unsigned int x = 0;
    for (size_t i = 0; i < size; i++)
        x ^= (unsigned int)buffer[i] << (8 * (i % 4));
    return x;
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "read_bandwidth",
                                .program = "read_bandwidth",
                                .summary = "the GPU's streaming-read speed over the same input",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.bins)
        usage_error(&stage, "--bins: read_bandwidth makes no histogram");
    struct gpu gpu = open_gpu(&stage);
    /* Enough resident blocks to fill every SM, as the occupancy API counts them. */
    int blocks_per_sm;
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_kernel, 256, 0));
    struct launch launch = choose_launch(&stage, &opt, &gpu, blocks_per_sm, 256);
    struct input in = make_input(&stage, &opt);
    /* A small input needs fewer blocks: each thread should have at least four
     * 16-byte loads to do, or the launch costs more than the reading. */
    long useful = (long)((in.size / 16 + 4 * launch.threads - 1) / (4 * launch.threads));
    if (!opt.blocks && !opt.blocks_per_sm && useful < launch.blocks)
        launch.blocks = useful > 0 ? useful : 1;

    unsigned int result[BINS], kernel_result[BINS]; /* only [0] is used: the XOR */
    struct gpu_times times =
        time_gpu_histogram(&stage, &opt, &in, launch, launch_read, result, kernel_result);

    unsigned int expected = cpu_xor(in.buffer, in.size);
    bool verified = result[0] == expected && kernel_result[0] == expected;
    struct csv_row row = {.stage = stage.dir,
                          .impl = "read-bandwidth",
                          .device = gpu.name,
                          .data = in.name,
                          .bytes = in.size,
                          .seed = opt.data == DATA_FILE || opt.data == DATA_IMAGE ? 0 : opt.seed,
                          .blocks = launch.blocks,
                          .threads = launch.threads,
                          .reps = opt.reps,
                          .kernel_ms = times.kernel_ms,
                          .total_ms = times.total_ms,
                          .verified = verified};
    if (opt.csv) {
        puts(CSV_HEADER);
        print_csv_row(stdout, &row);
    } else {
        printf("%s: %s\n", stage.dir, stage.summary);
        printf("device:     %s\n", gpu.name);
        printf("input:      %s, %zu bytes\n", in.name, in.size);
        printf("launch:     %ld blocks x %d threads (at most %d per SM fit)\n", launch.blocks,
               launch.threads, blocks_per_sm);
        printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d runs after %d warm-up)\n",
               times.kernel_ms, gb_per_s(in.size, times.kernel_ms), opt.reps, WARMUP_RUNS);
        printf("end to end:  %10.3f ms %9.2f GB/s  (allocate, copy in, kernel, copy out)\n",
               times.total_ms, gb_per_s(in.size, times.total_ms));
        printf("verified:   %s\n", verified ? "yes, the XOR of every word matches the CPU" : "NO");
    }
    free_input(&in);
    if (!verified) {
        fprintf(stderr, "read_bandwidth: the GPU's XOR %08x differs from the CPU's %08x\n",
                result[0], expected);
        return EXIT_FAILED;
    }
    return EXIT_OK;
}
