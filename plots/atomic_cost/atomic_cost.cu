/*
 * atomic_cost - what one atomicAdd(counter, 1) costs on this GPU, the number
 * the histogram chapters lean on. Global-memory atomics are carried out in the
 * L2 cache, shared-memory atomics in the SM itself, and atomics on one address
 * wait for each other. Eight patterns, four in each memory, do the same number
 * of atomics, spread differently over their counters; each is timed like the
 * stages (CUDA events, the median of repeats after a warm-up) and every
 * counter is checked against the CPU's count.
 *
 *   ./atomic_cost            a table: ms, G atomics/s, ns per atomic per address
 *   ./atomic_cost --csv      the same as CSV (make bench records it)
 */
#include "book.h"         /* HANDLE_ERROR, big_random_block, fail */
#include "harness_cuda.h" /* options, the GPU, the median of repeats */

#include <stdlib.h>
#include <string.h>

#define THREADS            256  /* per block */
#define ATOMICS_PER_THREAD 1024 /* enough work that even the fastest pattern takes a while */
#define SHARED_COUNTERS    1024 /* per block: bank-conflict reaches counter 31 x 32 */

#define CSV_COLUMNS                                                                                \
    "tool,memory,pattern,threads,blocks,atomics,addresses,reps,kernel_ms,gatomics_per_s,"          \
    "ns_per_atomic_per_address,verified,gpu"

/* ---------------------------------------------------------- the kernels -- */

/* Every thread adds 1 to its counter ATOMICS_PER_THREAD times. Which counter
 * is read from counter_of_thread, as a histogram reads its bin from the input:
 * the pattern, made on the host, is all that differs between the runs, and the
 * compiler knows no more about which lanes share an address than it does in a
 * histogram. The result of atomicAdd is not used, so on NVIDIA GPUs it compiles
 * to RED, a reduction that returns nothing and that the thread does not wait
 * for: what the histograms' atomicAdd(&histo[bin], 1) compile to. */
__global__ void global_atomics(unsigned int *counters, const unsigned int *counter_of_thread)
{
    unsigned int *counter =
        &counters[counter_of_thread[blockIdx.x * (size_t)blockDim.x + threadIdx.x]];
    for (int i = 0; i < ATOMICS_PER_THREAD; i++)
        atomicAdd(counter, 1);
}

/* The same on a block's own counters in shared memory, which live in the SM,
 * as stage 03's per-block histogram does. The block writes them out at the
 * end, so that the host can check them and the compiler cannot drop the work. */
__global__ void shared_atomics(unsigned int *block_counters, const unsigned int *counter_of_thread)
{
    __shared__ unsigned int counters[SHARED_COUNTERS];
    for (int i = threadIdx.x; i < SHARED_COUNTERS; i += blockDim.x)
        counters[i] = 0;
    __syncthreads();
    unsigned int *counter =
        &counters[counter_of_thread[blockIdx.x * (size_t)blockDim.x + threadIdx.x]];
    for (int i = 0; i < ATOMICS_PER_THREAD; i++)
        atomicAdd(counter, 1);
    __syncthreads(); /* every add of the block done before the counters are read */
    for (int i = threadIdx.x; i < SHARED_COUNTERS; i += blockDim.x)
        block_counters[blockIdx.x * (size_t)SHARED_COUNTERS + i] = counters[i];
}

/* --------------------------------------------------------- the patterns -- */

enum memory { GLOBAL, SHARED };

/* Which counter a thread's atomics go to. */
enum spread {
    OWN,        /* global: one per thread; shared: counter = lane, each lane its own bank */
    WARP,       /* the 32 lanes of a warp on one counter, each warp its own */
    ONE,        /* the whole grid on one counter */
    RANDOM_256, /* 256 counters, picked as a histogram of uniform random bytes would */
    ONE_BANK,   /* shared: counter = lane x 32, 32 counters all in bank 0 */
};

struct pattern {
    enum memory memory;
    enum spread spread;
    const char *name;  /* the CSV's pattern column */
    bool same_address; /* a warp's lanes share a counter: ns per atomic per address is shown */
};

static const struct pattern patterns[] = {
    {GLOBAL, OWN, "own-address", false},        {GLOBAL, WARP, "warp-address", true},
    {GLOBAL, ONE, "one-address", true},         {GLOBAL, RANDOM_256, "random-256", false},
    {SHARED, OWN, "own-bank", false},           {SHARED, WARP, "warp-address", true},
    {SHARED, ONE_BANK, "bank-conflict", false}, {SHARED, RANDOM_256, "random-256", false},
};
#define PATTERNS ((int)(sizeof patterns / sizeof patterns[0]))

/* The counter of one thread of the grid: an index into the global counters, or
 * into its block's shared ones. random_bytes holds a uniform random byte per
 * thread: lane i of warp w picks byte 32 w + i. */
static unsigned int counter_of(const struct pattern *p, size_t thread,
                               const unsigned char *random_bytes)
{
    size_t lane = thread % 32, warp = thread / 32;
    switch (p->spread) {
    case OWN:
        return (unsigned int)(p->memory == GLOBAL ? thread : lane);
    case WARP:
        return (unsigned int)(p->memory == GLOBAL ? warp : thread % THREADS / 32);
    case ONE:
        return 0;
    case RANDOM_256:
        return random_bytes[thread];
    case ONE_BANK:
        return (unsigned int)(lane * 32); /* 32-bit words: bank = counter % 32 */
    }
    return 0;
}

/* ------------------------------------------------------- the host side -- */

/* Everything a pattern's measurement needs; pattern changes from run to run. */
struct atomic_run {
    const struct pattern *pattern;
    long blocks;
    size_t threads;
    size_t counter_count;        /* enough for any pattern: SHARED_COUNTERS per block */
    unsigned char *random_bytes; /* one per thread of the grid, for random-256 */
    unsigned int *counter_of_thread, *dev_counter_of_thread;
    unsigned int *expected;                /* what the CPU counts for each counter */
    unsigned int *counters, *dev_counters; /* what the GPU counted */
    cudaEvent_t start, stop;
};

/* One launch, timed by CUDA events around the kernel alone. */
static double kernel_once(void *context)
{
    struct atomic_run *run = (struct atomic_run *)context;
    float ms;
    /* The zeroing is outside the events: it is not the atomics' work. */
    HANDLE_ERROR(cudaMemset(run->dev_counters, 0, run->counter_count * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventRecord(run->start, 0));
    if (run->pattern->memory == GLOBAL)
        global_atomics<<<(unsigned)run->blocks, THREADS>>>(run->dev_counters,
                                                           run->dev_counter_of_thread);
    else
        shared_atomics<<<(unsigned)run->blocks, THREADS>>>(run->dev_counters,
                                                           run->dev_counter_of_thread);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaEventRecord(run->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(run->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, run->start, run->stop));
    return ms;
}

/* What a pattern's row reports. */
struct atomic_row {
    size_t atomics;
    size_t addresses; /* the counters that got any atomics */
    double kernel_ms; /* the median */
    bool verified;
};

/* Sets the pattern up, times it (reps runs after a warm-up) and checks every
 * counter of the last run against the count the CPU expects. */
static struct atomic_row measure(struct atomic_run *run, int reps)
{
    const struct pattern *p = run->pattern;
    memset(run->expected, 0, run->counter_count * sizeof(unsigned int));
    for (size_t t = 0; t < run->threads; t++) {
        run->counter_of_thread[t] = counter_of(p, t, run->random_bytes);
        size_t block_start = p->memory == SHARED ? t / THREADS * SHARED_COUNTERS : 0;
        run->expected[block_start + run->counter_of_thread[t]] += ATOMICS_PER_THREAD;
    }
    HANDLE_ERROR(cudaMemcpy(run->dev_counter_of_thread, run->counter_of_thread,
                            run->threads * sizeof(unsigned int), cudaMemcpyHostToDevice));

    struct atomic_row row = {.atomics = run->threads * ATOMICS_PER_THREAD, .verified = true};
    row.kernel_ms = median_ms(kernel_once, run, reps);

    HANDLE_ERROR(cudaMemcpy(run->counters, run->dev_counters,
                            run->counter_count * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    for (size_t c = 0; c < run->counter_count; c++) {
        row.addresses += run->expected[c] != 0;
        if (run->counters[c] != run->expected[c] && row.verified) {
            fprintf(stderr, "atomic_cost: %s %s: counter %zu is %u, expected %u\n",
                    p->memory == GLOBAL ? "global" : "shared", p->name, c, run->counters[c],
                    run->expected[c]);
            row.verified = false;
        }
    }
    return row;
}

/* The GPU's name as one CSV field: quoted, as RFC 4180 says, if it holds a
 * comma or a quote. */
static void print_csv_name(const char *name)
{
    if (!strpbrk(name, ",\"")) {
        fputs(name, stdout);
        return;
    }
    putchar('"');
    for (; *name; name++) {
        if (*name == '"')
            putchar('"');
        putchar(*name);
    }
    putchar('"');
}

static void print_row(const struct atomic_run *run, const struct atomic_row *row,
                      const struct options *opt, const char *gpu_name)
{
    const struct pattern *p = run->pattern;
    const char *memory = p->memory == GLOBAL ? "global" : "shared";
    double per_s = row->atomics / (row->kernel_ms * 1e6);
    /* Where a warp's lanes share a counter: the time over the atomics each
     * counter got, what one atomic costs if each waits for the one before. */
    char per_address[32] = "";
    if (p->same_address)
        snprintf(per_address, sizeof per_address, "%.4f",
                 row->kernel_ms * 1e6 / ((double)row->atomics / row->addresses));
    if (opt->csv) {
        printf("atomic_cost,%s,%s,%d,%ld,%zu,%zu,%d,%.4f,%.4f,%s,%s,", memory, p->name, THREADS,
               run->blocks, row->atomics, row->addresses, opt->reps, row->kernel_ms, per_s,
               per_address, row->verified ? "yes" : "no");
        print_csv_name(gpu_name);
        putchar('\n');
    } else {
        printf("%-7s %-14s %9zu %11.4f %12.4f %18s  %s\n", memory, p->name, row->addresses,
               row->kernel_ms, per_s, per_address[0] ? per_address : "-",
               row->verified ? "yes" : "NO");
    }
}

/* The option of the stages' set that has no use here, or NULL: the work is
 * fixed, so that every run of the tool measures the same thing. */
static const char *unused_option(const struct options *opt)
{
    return opt->size_given             ? "--size"
           : opt->data_given           ? "--data"
           : opt->file                 ? "--file"
           : opt->image                ? "--image"
           : opt->seed != DEFAULT_SEED ? "--seed"
           : opt->print_bins           ? "--print-bins"
           : opt->blocks               ? "--blocks"
           : opt->blocks_per_sm        ? "--blocks-per-sm"
           : opt->threads              ? "--threads"
                                       : NULL;
}

static unsigned int *host_counters(size_t count)
{
    unsigned int *counters = (unsigned int *)malloc(count * sizeof(unsigned int));
    if (!counters)
        fail("out of host memory for %zu counters", count);
    return counters;
}

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "atomic_cost",
        .program = "atomic_cost",
        .summary = "what an atomicAdd costs in global and in shared memory, and when threads "
                   "share its address",
        .gpu = true,
        .help = "atomic_cost takes only --reps, --csv and --help. Its work is fixed: the same "
                "number of atomicAdd(counter, 1) per thread of a grid that fills the GPU, in each "
                "of eight patterns; the stages' other options are refused."};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *unused = unused_option(&opt);
    if (unused) {
        char why[128];
        snprintf(why, sizeof why,
                 "%s: the work is fixed; atomic_cost takes only --reps, --csv "
                 "and --help",
                 unused);
        usage_error(&stage, why);
    }
    struct gpu gpu = open_gpu(&stage);

    /* A grid that fills the GPU: as many blocks as can be resident at once,
     * for whichever kernel allows fewer, so that both run the same grid. */
    int global_per_sm, shared_per_sm;
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&global_per_sm, global_atomics, THREADS, 0));
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shared_per_sm, shared_atomics, THREADS, 0));
    struct atomic_run run = {0};
    run.blocks =
        (long)(global_per_sm < shared_per_sm ? global_per_sm : shared_per_sm) * gpu.sm_count;
    run.threads = (size_t)run.blocks * THREADS;
    run.counter_count =
        (size_t)run.blocks * SHARED_COUNTERS; /* global ones: at most one a thread */
    run.random_bytes = big_random_block(run.threads, DEFAULT_SEED);
    run.counter_of_thread = host_counters(run.threads);
    run.expected = host_counters(run.counter_count);
    run.counters = host_counters(run.counter_count);
    HANDLE_ERROR(
        cudaMalloc((void **)&run.dev_counter_of_thread, run.threads * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&run.dev_counters, run.counter_count * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventCreate(&run.start));
    HANDLE_ERROR(cudaEventCreate(&run.stop));

    if (opt.csv) {
        puts(CSV_COLUMNS);
    } else {
        printf("%s: %s\n", stage.dir, stage.summary);
        printf("device:     %s\n", gpu.name);
        printf("launch:     %ld blocks x %d threads, %d atomicAdd(counter, 1) each: %zu atomics "
               "per pattern\n",
               run.blocks, THREADS, ATOMICS_PER_THREAD, run.threads * ATOMICS_PER_THREAD);
        printf("timing:     CUDA events around the kernel; median of %d runs after %d warm-up\n\n",
               opt.reps, WARMUP_RUNS);
        printf("memory  pattern        addresses   kernel ms  G atomics/s  ns/atomic/address  "
               "verified\n");
    }
    bool verified = true;
    for (int p = 0; p < PATTERNS; p++) {
        run.pattern = &patterns[p];
        struct atomic_row row = measure(&run, opt.reps);
        print_row(&run, &row, &opt, gpu.name);
        verified = verified && row.verified;
    }
    if (!opt.csv) {
        printf("(ns/atomic/address: where a warp's lanes share an address, the time over the "
               "atomics each address got)\n");
        printf("verified:   %s\n",
               verified ? "yes, every counter holds the CPU's count" : "NO (see above)");
    }

    HANDLE_ERROR(cudaEventDestroy(run.start));
    HANDLE_ERROR(cudaEventDestroy(run.stop));
    HANDLE_ERROR(cudaFree(run.dev_counter_of_thread));
    HANDLE_ERROR(cudaFree(run.dev_counters));
    free(run.random_bytes);
    free(run.counter_of_thread);
    free(run.expected);
    free(run.counters);
    return verified ? EXIT_OK : EXIT_FAILED;
}
