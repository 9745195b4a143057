/*
 * read_bandwidth - the yardstick for every GPU stage: how fast this GPU reads
 * the input once and does nothing else. A 256-bin byte histogram must read each
 * byte once and writes almost nothing, so no histogram kernel can beat this;
 * make bench records it beside every GPU stage, at every input size, so that
 * each stage's speed can be shown as a percentage of it.
 *
 * The kernel (common/read_kernel.cuh, shared with 05_privatized) XORs every
 * word so that the reads cannot be dropped; the XOR is checked against the
 * CPU's. It is timed exactly like the stages. Beside it, the memory's rated
 * speed, worked out from the GPU's own figures: a limit no kernel can pass,
 * against which even the plain read falls short.
 *
 *   ./read_bandwidth                 100 MiB, the stages' default
 *   ./read_bandwidth --size 1G --csv
 */
#include "read_kernel.cuh"

/* The memory's rated speed in bytes per second: two transfers per memory clock
 * (double data rate), each as wide as the bus. The H100 SXM's HBM3 (2619 MHz,
 * 5120 bits) gives 3.35 TB/s, its datasheet's figure. cudaDeviceProp lost its
 * memoryClockRate field in CUDA 13; the attribute is still there. 0 where the
 * device reports no memory clock or bus (some integrated GPUs). */
static double rated_bytes_per_s(const struct gpu *gpu, int *clock_khz, int *bus_bits)
{
    HANDLE_ERROR(cudaDeviceGetAttribute(clock_khz, cudaDevAttrMemoryClockRate, gpu->id));
    HANDLE_ERROR(cudaDeviceGetAttribute(bus_bits, cudaDevAttrGlobalMemoryBusWidth, gpu->id));
    return 2.0 * (*clock_khz * 1e3) * (*bus_bits / 8.0);
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "read_bandwidth",
                                .program = "read_bandwidth",
                                .summary = "the GPU's streaming-read speed over the same input",
                                .gpu = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.print_bins)
        usage_error(&stage, "--print-bins: read_bandwidth makes no histogram");
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
    int clock_khz, bus_bits;
    double rated = rated_bytes_per_s(&gpu, &clock_khz, &bus_bits);
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
    /* The rated speed as a second row of the same contract: the time it would
     * take for these bytes as kernel_ms (so gbps is the rated GB/s), no launch,
     * no end-to-end time, no timed runs. A figure, not a run: its verified is
     * the read's, since it is printed only beside a read that checked out. */
    struct csv_row rated_row = row;
    rated_row.impl = "rated-peak";
    rated_row.blocks = 0;
    rated_row.threads = 0;
    rated_row.reps = 0;
    rated_row.kernel_ms = rated > 0 ? 1e3 * in.size / rated : 0;
    rated_row.total_ms = 0;
    if (opt.csv) {
        puts(CSV_HEADER);
        print_csv_row(stdout, &row);
        if (rated > 0 && verified)
            print_csv_row(stdout, &rated_row);
    } else {
        printf("%s: %s\n", stage.dir, stage.summary);
        printf("device:     %s\n", gpu.name);
        printf("input:      %s, %zu bytes\n", in.name, in.size);
        printf("launch:     %ld blocks x %d threads\n", launch.blocks, launch.threads);
        printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d runs after %d warm-up)\n",
               times.kernel_ms, gb_per_s(in.size, times.kernel_ms), opt.reps, WARMUP_RUNS);
        printf("end to end:  %10.3f ms %9.2f GB/s  (allocate, copy in, kernel, copy out)\n",
               times.total_ms, gb_per_s(in.size, times.total_ms));
        if (rated > 0)
            printf("rated peak:  %10.3f ms %9.2f GB/s  (2 x %.0f MHz memory clock x %d-bit bus / 8:"
                   " the read reaches %.1f%% of it)\n",
                   rated_row.kernel_ms, rated / 1e9, clock_khz / 1e3, bus_bits,
                   100 * gb_per_s(in.size, times.kernel_ms) / (rated / 1e9));
        else
            printf("rated peak:  not known (the device reports no memory clock or bus width)\n");
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
