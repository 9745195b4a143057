/*
 * read_bandwidth - the yardstick for every GPU stage: how fast this GPU reads
 * the input once and does nothing else. A 256-bin byte histogram must read each
 * byte once and writes almost nothing, so no histogram kernel can beat this;
 * make bench records it beside every GPU stage, at every input size, so that
 * each stage's speed can be shown as a percentage of it.
 *
 * The kernel (common/read_kernel.cuh, shared with 05_privatized) XORs every
 * word so that the reads cannot be dropped; the XOR is checked against the
 * CPU's. It is timed exactly like the stages.
 *
 *   ./read_bandwidth                 100 MiB, the stages' default
 *   ./read_bandwidth --size 1G --csv
 */
#include "read_kernel.cuh"

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
        time_gpu_histogram(&stage, &opt, &in, launch, launch_read, NULL, result, kernel_result);

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
        printf("launch:     %ld blocks x %d threads\n", launch.blocks, launch.threads);
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
