/*
 * Exercise 04 - block-count tuning with a measured answer. The book launches
 * stage 03's kernel on 2 blocks per SM; this program times the same kernel on
 * 1, 2, 4, ... 64 blocks per SM, verifies every one, and says which grid was
 * fastest and how much faster it was than the book's. Write the sweep and
 * the choice of the best, in block_tuning_yours.cuh.
 *
 *   make run ARGS='--size 16M'                      the sweep on 16 MiB of random bytes
 *   make run ARGS='--data constant --threads 1024'  the worst case for atomics, bigger blocks
 *   make check                                      seven grids, each verified, the best right?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <math.h>
#include <stdlib.h>

#define BOOK_BLOCKS_PER_SM 2          /* the book's rule: twice as many blocks as SMs */
#define MOST_BLOCKS_PER_SM 64         /* the sweep doubles from 1 up to this */
#define SWEEP              7          /* 1, 2, 4, 8, 16, 32, 64 */
#define HANDICAP_CYCLES    10000000LL /* --favour's wait: some milliseconds on any GPU */

/* Stage 03's kernel, unchanged: a private histogram per block in shared memory,
 * merged with one global atomic per bin. Only its grid changes here. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    /* Striding by blockDim.x covers the 256 bins whatever the block size. */
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

/* For --favour: one thread that waits a number of clock cycles. Not part of
 * the lesson: it gives the check a sweep whose fastest grid is known. */
__global__ void wait_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}

/* context: the cycles to wait after the histogram, inside the timed region (0: none). */
static void launch_histo(void *context, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
    long long handicap = *(const long long *)context;
    if (handicap) {
        wait_kernel<<<1, 1>>>(handicap);
        HANDLE_ERROR(cudaGetLastError());
    }
}

/* The grids timed so far; report_results verifies and prints them together. */
struct sweep {
    int count;
    struct result results[SWEEP];
    char names[SWEEP][32]; /* "blocks-per-sm-8": each result's impl */
    unsigned int histos[SWEEP][BINS], kernel_histos[SWEEP][BINS];
    int reps[SWEEP]; /* the --reps each grid was timed with: the table says opt's */
};

/* --favour N, or 0 when not given: N must come out fastest by the kernel-only
 * time, and only by it (time_grid says how). */
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

/* --times T1,...,T7, or false when not given: the kernel-only times the
 * sweep reads instead of its measurements, in its order (milliseconds, each
 * above 0), so that the check can make two grids nearly tie. */
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

/* Times the kernel on blocks_per_sm blocks per SM and adds it to the sweep. */
static void time_grid(const struct stage *stage, const struct options *opt, const struct gpu *gpu,
                      const struct input *in, int blocks_per_sm, struct sweep *s)
{
    int n = s->count++;
    s->reps[n] = opt->reps;
    struct launch launch = choose_launch(stage, opt, gpu, blocks_per_sm, 256);
    /* --favour N: in the kernel-only runs every other grid waits, twice as
     * long on every other grid of the sweep, so that the times rise and fall
     * and a search that stops at the first rise misses N; in the end-to-end
     * runs N alone waits, so that a best read from those misses it too. */
    int favour = favoured(stage, opt);
    long long kernel_wait = favour && favour != blocks_per_sm ? HANDICAP_CYCLES * (1 + n % 2) : 0;
    long long total_wait = favour && favour == blocks_per_sm ? HANDICAP_CYCLES : 0;
    /* time_gpu_histogram's steps, with a wait of its own for each kind of run */
    require_gpu_memory(stage, in->size);
    unsigned char *dev_buffer;
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    struct gpu_times t;
    t.kernel_ms = time_kernel_only(opt, in, dev_buffer, launch, launch_histo, &kernel_wait, BINS,
                                   s->kernel_histos[n]);
    HANDLE_ERROR(cudaFree(dev_buffer)); /* so end to end has the memory to itself */
    t.total_ms = time_end_to_end(opt, in, launch, launch_histo, &total_wait, BINS, s->histos[n]);
    /* --tick MS: the kernel-only time as a clock that ticks every MS
     * milliseconds would read it (rounded up), so that grids can tie */
    long long tick_ms = stage_option_number(stage, opt, 1, 1, 1000000, 0);
    if (tick_ms)
        t.kernel_ms = ceil(t.kernel_ms / tick_ms) * tick_ms;
    double times[SWEEP];
    if (given_times(stage, opt, times)) /* --times: read, not measured */
        t.kernel_ms = times[n];
    snprintf(s->names[n], sizeof s->names[n], "blocks-per-sm-%d", blocks_per_sm);
    s->results[n] = {.impl = s->names[n],
                     .device = gpu->name,
                     .blocks = launch.blocks,
                     .threads = launch.threads,
                     .kernel_ms = t.kernel_ms,
                     .total_ms = t.total_ms,
                     .histo = s->histos[n],
                     .kernel_histo = s->kernel_histos[n]};
}

/* Yours: sweep_grids, which times every grid, and fastest, which picks the best. */
#include "block_tuning_yours.cuh"

int main(int argc, char **argv)
{
    static const struct stage_option options[] = {
        {"--favour", "N",
         "for the check: every grid but N blocks per SM waits some milliseconds more in its "
         "kernel-only runs, so that N is the fastest there, and N alone waits in its end-to-end "
         "runs"},
        {"--tick", "MS",
         "for the check: every kernel-only time rounded up to a whole number of MS milliseconds, "
         "as a coarse clock would read it, so that grids tie"},
        {"--times", "T1,...,T7",
         "for the check: the 7 grids' kernel-only times read as these (ms), not as measured, so "
         "that two grids can nearly tie"},
        {NULL, NULL, NULL}};
    const struct stage stage = {.dir = "04_block_tuning",
                                .program = "block_tuning",
                                .summary = "exercise: stage 03's kernel on 1 to 64 blocks per SM",
                                .gpu = true,
                                .options = options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks || opt.blocks_per_sm) /* before open_gpu: a usage error needs no GPU */
        usage_error(&stage, "--blocks, --blocks-per-sm: this program tries every grid itself; "
                            "--threads sets the block size");
    favoured(&stage, &opt); /* a bad --favour, --tick or --times, too */
    stage_option_number(&stage, &opt, 1, 1, 1000000, 0);
    double times[SWEEP];
    given_times(&stage, &opt, times);
    struct gpu gpu = open_gpu(&stage);
    struct input in = make_input(&stage, &opt);

    static struct sweep s; /* static: 14 KiB of bins */
    int book = sweep_grids(&stage, &opt, &gpu, &in, &s);
    for (int i = 0; i < s.count; i++) /* the table prints every row as a median of opt.reps */
        if (s.reps[i] != opt.reps)
            fail("%s was timed as a median of %d runs, but --reps asks for %d (and the table "
                 "would say %d)",
                 s.names[i], s.reps[i], opt.reps, opt.reps);
    int status = report_results(&stage, &opt, &in, s.results, s.count);

    /* The answer. With --csv it goes to stderr, so that stdout stays one CSV. */
    const struct result *best = &s.results[fastest(&s)], *ref = &s.results[book];
    fprintf(opt.csv ? stderr : stdout,
            "best:       %s, %ldx%d threads, %.4f ms kernel only, %.2fx as fast as the book's "
            "%d blocks per SM (%.4f ms)\n",
            best->impl, best->blocks, best->threads, best->kernel_ms,
            best->kernel_ms > 0 ? ref->kernel_ms / best->kernel_ms : 1.0, BOOK_BLOCKS_PER_SM,
            ref->kernel_ms);
    free_input(&in);
    return status;
}
