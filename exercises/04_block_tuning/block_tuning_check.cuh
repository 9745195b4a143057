/*
 * block_tuning_check.cuh - exercise 04's hooks for make check. No need to
 * read it: a plain run uses none of this. The check gives three options that
 * make the sweep's answer known in advance, whatever the GPU:
 *
 *   --favour N      every grid but N blocks per SM waits some milliseconds
 *                   more in its kernel-only runs, so that N is the fastest
 *                   there; N alone waits in its end-to-end runs
 *   --tick MS       every kernel-only time rounded up to a whole number of
 *                   MS milliseconds, as a coarse clock would read it, so that
 *                   grids tie
 *   --times T1,...  the 7 grids' kernel-only times read as these (ms), not
 *                   measured, so that two grids can nearly tie: nothing runs
 *   --sm-threads N, --sm-blocks N
 *                   the SM's limits the predicted knee is computed from, in
 *                   place of the GPU's (or, with --times, an H100's)
 *
 * --times also serves a machine without a GPU: with it nothing runs, so main
 * opens no GPU (check_no_gpu stands in, with one SM: a grid's blocks are its
 * blocks per SM), makes no input, and prints the times given in place of the
 * report (check_print_times): the student's sweep and picks run on them.
 *
 * block_tuning.cu calls check_refuse_bad_options, check_times_given,
 * check_no_gpu, check_no_input and check_print_times (in main),
 * check_times_given, check_waits and check_adjusted_time (in time_grid),
 * check_wait (in launch_histo) and check_sm_limits (in read_sm_limits).
 */

#define HANDICAP_CYCLES 10000000LL /* --favour's wait: some milliseconds on any GPU */

static const struct stage_option check_stage_options[] = {
    {"--favour", "N",
     "for the check: every grid but N blocks per SM waits some milliseconds more in its "
     "kernel-only runs, so that N is the fastest there, and N alone waits in its end-to-end "
     "runs"},
    {"--tick", "MS",
     "for the check: every kernel-only time rounded up to a whole number of MS milliseconds, "
     "as a coarse clock would read it, so that grids tie"},
    {"--times", "T1,...,T7",
     "the 7 grids' kernel-only times read as these (ms): nothing runs, no GPU is needed (for "
     "the check, or a recorded sweep: README)"},
    {"--sm-threads", "N",
     "the predicted knee for an SM of N resident threads (a multiple of 32, 1024 to 4096), not "
     "this GPU's (with --times: an H100's 2048)"},
    {"--sm-blocks", "N",
     "the predicted knee for an SM of N resident blocks (1 to 64), not this GPU's (with "
     "--times: an H100's 32)"},
    {NULL, NULL, NULL}};

/* One thread that waits a number of clock cycles. */
__global__ void wait_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}

/* Called after the histogram kernel, inside the timed region: context holds
 * the cycles to wait (0: none, as in every plain run). */
static void check_wait(void *context)
{
    long long cycles = *(const long long *)context;
    if (cycles) {
        wait_kernel<<<1, 1>>>(cycles);
        HANDLE_ERROR(cudaGetLastError());
    }
}

/* --favour N, or 0 when not given. */
static int favoured(const struct stage *stage, const struct options *opt)
{
    const char *text = opt->stage_values[0];
    if (!text)
        return 0;
    char *end;
    long per_sm = strtol(text, &end, 10);
    if (*end || per_sm < 1 || per_sm > MOST_BLOCKS_PER_SM || (per_sm & (per_sm - 1)))
        usage_error(stage, "--favour: a power of two from 1 to 64 (blocks per SM)");
    return (int)per_sm;
}

/* --tick MS, or 0 when not given. */
static long long tick_ms(const struct stage *stage, const struct options *opt)
{
    return stage_option_number(stage, opt, 1, 1, 1000000, 0);
}

/* --times T1,...,T7, or false when not given: the kernel-only times the
 * sweep reads instead of its measurements, in its order (milliseconds, each
 * above 0). */
static bool given_times(const struct stage *stage, const struct options *opt, double times[SWEEP])
{
    const char *text = opt->stage_values[2];
    if (!text)
        return false;
    for (int n = 0; n < SWEEP; n++) {
        char *end;
        times[n] = strtod(text, &end);
        if (end == text || !(times[n] > 0 && times[n] < 1e9) ||
            *end != (n < SWEEP - 1 ? ',' : '\0'))
            usage_error(stage, "--times: 7 kernel times in milliseconds, each above 0, "
                               "separated by commas (1 to 64 blocks per SM, in order)");
        text = end + 1;
    }
    return true;
}

/* The SM's limits, with --sm-threads and --sm-blocks in place of sm's. */
static struct sm_limits check_sm_limits(const struct stage *stage, const struct options *opt,
                                        struct sm_limits sm)
{
    sm.threads = (int)stage_option_number(stage, opt, 3, 1024, 4096, sm.threads);
    if (opt->stage_values[3] && sm.threads % WARP)
        usage_error(stage, "--sm-threads: a multiple of 32 (whole warps), 1024 to 4096");
    sm.blocks = (int)stage_option_number(stage, opt, 4, 1, 64, sm.blocks);
    return sm;
}

/* A bad --favour, --tick, --times, --sm-threads or --sm-blocks is a usage
 * error before the GPU opens. */
static void check_refuse_bad_options(const struct stage *stage, const struct options *opt)
{
    double times[SWEEP];
    favoured(stage, opt);
    tick_ms(stage, opt);
    check_sm_limits(stage, opt, H100_SM);
    if (given_times(stage, opt, times) && opt->csv)
        usage_error(stage, "--times: nothing runs and nothing is verified, so there is no CSV "
                           "row to print (leave out --csv)");
}

/* Whether --times was given: then nothing runs. */
static bool check_times_given(const struct stage *stage, const struct options *opt)
{
    double times[SWEEP];
    return given_times(stage, opt, times);
}

/* With --times, what main has in place of a GPU: one SM, no kernel run. */
static struct gpu check_no_gpu(void)
{
    struct gpu gpu = {};
    snprintf(gpu.name, sizeof gpu.name, "none: --times gave the kernel times, nothing ran");
    gpu.sm_count = 1; /* so a grid's blocks read as its blocks per SM */
    gpu.max_threads_per_block = 1024;
    gpu.max_blocks = MOST_BLOCKS_PER_SM;
    return gpu;
}

/* With --times, no input: nothing reads it. */
static struct input check_no_input(void)
{
    struct input in = {};
    in.name = "none";
    return in;
}

/* With --times, in place of the report: the times given, one row per grid as
 * timed (nothing ran, so nothing is verified). Returns EXIT_OK. */
static int check_print_times(const struct stage *stage, const struct result *r, int count)
{
    printf("%s: %s\n", stage->dir, stage->summary);
    printf("device:     %s\n", check_no_gpu().name);
    printf("launch:     blocks per SM x threads per block\n\n");
    printf("%-16s %-10s %10s\n", "impl", "launch", "kernel ms");
    for (int i = 0; i < count; i++) {
        char launch[32];
        snprintf(launch, sizeof launch, "%ldx%d", r[i].blocks, r[i].threads);
        printf("%-16s %-10s %10.4f\n", r[i].impl, launch, r[i].kernel_ms);
    }
    return EXIT_OK;
}

/* The cycles each kind of run waits after the kernel, for the n-th grid
 * timed (blocks_per_sm blocks per SM). --favour N: in the kernel-only runs
 * every other grid waits, twice as long on every other grid of the sweep, so
 * that the times rise and fall and a search that stops at the first rise
 * misses N; in the end-to-end runs N alone waits, so that a best read from
 * those misses it too. */
struct waits {
    long long kernel, total; /* cycles after each kernel-only run, each end-to-end run */
};

static struct waits check_waits(const struct stage *stage, const struct options *opt, int n,
                                int blocks_per_sm)
{
    int favour = favoured(stage, opt);
    struct waits w = {0, 0};
    if (favour && favour != blocks_per_sm)
        w.kernel = HANDICAP_CYCLES * (1 + n % 2);
    if (favour && favour == blocks_per_sm)
        w.total = HANDICAP_CYCLES;
    return w;
}

/* The kernel-only time of the grid of blocks_per_sm blocks per SM, the n-th
 * timed, as the sweep reads it: as measured, or rounded up to --tick's whole
 * milliseconds, or with --times the time given for that grid (1, 2, 4, ... 64
 * blocks per SM: the first to the seventh), in whatever order it is timed. */
static double check_adjusted_time(const struct stage *stage, const struct options *opt,
                                  int blocks_per_sm, int n, double kernel_ms)
{
    long long tick = tick_ms(stage, opt);
    if (tick)
        kernel_ms = ceil(kernel_ms / tick) * tick;
    double times[SWEEP];
    if (given_times(stage, opt, times)) {
        int k = 0; /* the sweep's row for blocks_per_sm, where it is a power of two */
        while (k < SWEEP - 1 && (1 << k) < blocks_per_sm)
            k++;
        kernel_ms = (1 << k) == blocks_per_sm ? times[k] : times[n < SWEEP ? n : SWEEP - 1];
    }
    return kernel_ms;
}
