/*
 * Exercise 04 - block-count tuning with a measured answer. The book launches
 * stage 03's kernel on 2 blocks per SM; this program times the same kernel on
 * 1, 2, 4, ... 64 blocks per SM, verifies every one, and says which grid was
 * fastest, how much faster it was than the book's, and which is the smallest
 * grid within 5% of the fastest; and, from the SM's limits, where the time
 * should stop falling. You write the sweep, the two choices and the
 * prediction, in block_tuning_yours.cuh.
 *
 *   make run                                        the sweep on 100 MiB of random bytes
 *   make run ARGS='--threads 1024'                  bigger blocks: where is the knee now?
 *   make check                                      seven grids, each verified, the picks right?
 *   make run ARGS='--times T1,...,T7'               no GPU: the picks on 7 given times (README)
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <math.h>
#include <stdlib.h>

#define BOOK_BLOCKS_PER_SM 2  /* the book's rule: twice as many blocks as SMs */
#define MOST_BLOCKS_PER_SM 64 /* the sweep doubles from 1 up to this */
#define SWEEP              7  /* 1, 2, 4, 8, 16, 32, 64 */
#define WARP               32 /* threads: the SM schedules (and counts) whole warps */

/* An SM's two limits on the blocks it holds at once (cudaDeviceProp's
 * maxThreadsPerMultiProcessor and maxBlocksPerMultiProcessor), and what they
 * predict for one block size: the blocks per SM that fill it, and which limit
 * stops it there (both, when they stop it at the same count). */
struct sm_limits {
    int threads, blocks;
};
static const struct sm_limits H100_SM = {2048, 32}; /* compute capability 9.0: for --times */
enum binding { THREADS_BIND, BLOCKS_BIND, BOTH_BIND };
struct knee {
    int blocks_per_sm;
    enum binding binds;
};

#include "block_tuning_check.cuh" /* make check's options (check_...): no need to read it */

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

/* Launches the kernel on one grid. context is for make check (check_wait
 * does nothing in a plain run). */
static void launch_histo(void *context, const unsigned char *dev_buffer, size_t size,
                         unsigned int *dev_histo, struct launch launch)
{
    histo_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
    check_wait(context);
}

/* The grids timed so far; report_results verifies and prints them together. */
struct sweep {
    int count;
    struct result results[SWEEP];
    char names[SWEEP][32]; /* "blocks-per-sm-8": each result's impl */
    unsigned int histos[SWEEP][BINS], kernel_histos[SWEEP][BINS];
    int reps[SWEEP]; /* the --reps each grid was timed with: the table says opt's */
};

/* Times the kernel on blocks_per_sm blocks per SM and adds it to the sweep.
 * With --times nothing runs: the grid reads its time from the list given. */
static void time_grid(const struct stage *stage, const struct options *opt, const struct gpu *gpu,
                      const struct input *in, int blocks_per_sm, struct sweep *s)
{
    int n = s->count++;
    s->reps[n] = opt->reps;
    struct launch launch = choose_launch(stage, opt, gpu, blocks_per_sm, 256);
    struct gpu_times t = {0, 0};
    if (!check_times_given(stage, opt)) {
        struct waits wait = check_waits(stage, opt, n, blocks_per_sm); /* 0, 0 in a plain run */
        /* Kernel only: the input copied to the GPU once, then the kernel timed alone. */
        require_gpu_memory(stage, in->size);
        unsigned char *dev_buffer;
        HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
        HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
        t.kernel_ms = time_kernel_only(opt, in, dev_buffer, launch, launch_histo, &wait.kernel,
                                       BINS, s->kernel_histos[n]);
        HANDLE_ERROR(cudaFree(dev_buffer)); /* so end to end has the memory to itself */
        /* End to end: copy in, kernel, copy out, every run. */
        t.total_ms =
            time_end_to_end(opt, in, launch, launch_histo, &wait.total, BINS, s->histos[n]);
    }
    t.kernel_ms = /* as measured, in a plain run */
        check_adjusted_time(stage, opt, blocks_per_sm, n, t.kernel_ms);
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

/* The SM's limits: this GPU's, or with --times an H100's (compute capability
 * 9.0), unless --sm-threads or --sm-blocks give others. */
static struct sm_limits read_sm_limits(const struct stage *stage, const struct options *opt,
                                       const struct gpu *gpu, bool given)
{
    struct sm_limits sm = H100_SM;
    if (!given) {
        cudaDeviceProp prop;
        HANDLE_ERROR(cudaGetDeviceProperties(&prop, gpu->id));
        sm = {prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor};
    }
    return check_sm_limits(stage, opt, sm);
}

/* Yours: sweep_grids, which times every grid; fastest, which picks the best;
 * smallest_within_5pct, which picks the smallest grid about as fast; and
 * predicted_knee, which says from the SM's limits where the curve should stop
 * falling. */
#include "block_tuning_yours.cuh"

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "04_block_tuning",
                                .program = "block_tuning",
                                .summary = "exercise: stage 03's kernel on 1 to 64 blocks per SM",
                                .gpu = true,
                                .options = check_stage_options}; /* --favour, --tick, --times */
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks || opt.blocks_per_sm) /* before open_gpu: a usage error needs no GPU */
        usage_error(&stage, "--blocks, --blocks-per-sm: this program tries every grid itself; "
                            "--threads sets the block size");
    check_refuse_bad_options(&stage, &opt);
    /* --times T1,...,T7: the seven kernel times given, so nothing runs and no
     * GPU is needed (README, *Without a GPU*) */
    bool given = check_times_given(&stage, &opt);
    struct gpu gpu = given ? check_no_gpu() : open_gpu(&stage);
    struct input in = given ? check_no_input() : make_input(&stage, &opt);

    static struct sweep s; /* static: 14 KiB of bins */
    int book = sweep_grids(&stage, &opt, &gpu, &in, &s);
    for (int i = 0; i < s.count; i++) /* the table prints every row as a median of opt.reps */
        if (s.reps[i] != opt.reps)
            fail("%s was timed as a median of %d runs, but --reps asks for %d (and the table "
                 "would say %d)",
                 s.names[i], s.reps[i], opt.reps, opt.reps);
    int status = given ? check_print_times(&stage, s.results, s.count)
                       : report_results(&stage, &opt, &in, s.results, s.count);

    /* The answers. With --csv they go to stderr, so that stdout stays one CSV. */
    FILE *answer = opt.csv ? stderr : stdout;
    int best_index = fastest(&s), pick_index = smallest_within_5pct(&s, best_index);
    if (pick_index < 0 || pick_index >= s.count)
        fail("smallest_within_5pct returned %d, not a row of the sweep (0 to %d)", pick_index,
             s.count - 1);
    const struct result *best = &s.results[best_index], *ref = &s.results[book];
    const struct result *pick = &s.results[pick_index];
    fprintf(answer,
            "best:       %s, %ldx%d threads, %.4f ms kernel only, %.2fx as fast as the book's "
            "%d blocks per SM (%.4f ms)\n",
            best->impl, best->blocks, best->threads, best->kernel_ms,
            best->kernel_ms > 0 ? ref->kernel_ms / best->kernel_ms : 1.0, BOOK_BLOCKS_PER_SM,
            ref->kernel_ms);
    struct sm_limits sm = read_sm_limits(&stage, &opt, &gpu, given);
    struct knee knee = predicted_knee(best->threads, sm);
    const char *binds[] = {"threads per SM bind", "blocks per SM bind", "both limits bind"};
    if (knee.binds < THREADS_BIND || knee.binds > BOTH_BIND)
        fail("predicted_knee returned binds = %d, not one of THREADS_BIND, BLOCKS_BIND, BOTH_BIND",
             (int)knee.binds);
    fprintf(answer, "predicted knee: %d blocks per SM, %s (an SM holds %d threads and %d blocks)\n",
            knee.blocks_per_sm, binds[knee.binds], sm.threads, sm.blocks);
    if (!given) { /* the runtime's answer for this kernel, registers and shared memory counted */
        int resident = 0;
        HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, histo_kernel,
                                                                   best->threads, 0));
        fprintf(answer, "occupancy API:  %d blocks per SM of this kernel at %d threads\n", resident,
                best->threads);
    }
    fprintf(answer,
            "pick:       %s, %ldx%d threads, %.4f ms kernel only, the smallest grid within 5%% "
            "of the best's %.4f ms\n",
            pick->impl, pick->blocks, pick->threads, pick->kernel_ms, best->kernel_ms);
    free_input(&in);
    return status;
}
