/*
 * Exercise 10 - the CPU and the GPU on one histogram, at the same time. The
 * CPU counts the input's first bytes with a thread per logical CPU while the GPU
 * counts the rest; the split comes from measured speeds, so that both sides
 * finish together, and the two histograms are added at the end. After
 * exercise 09: the GPU's work is queued, not waited for. Three steps, in
 * cpu_gpu_split_yours.cuh: the split, the two sides at once, and the merge.
 *
 *   make run                               the book's 100 MiB: CPU only, GPU only, both
 *   make run ARGS='--cpu-threads 1'        a slower CPU takes a smaller share
 *   make run ARGS='--cpu-bytes 1000'       a split you choose
 *   make check                             every byte once, a measured split, both at once?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOST_CPU_THREADS 64

/* Stage 03's kernel: a private histogram per block in shared memory, merged
 * with one global atomic per bin. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads(); /* every bin is zero before any thread counts into it */
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < size; i += stride)
        atomicAdd(&temp[buffer[i]], 1);
    __syncthreads(); /* every thread has counted before the bins are read */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        if (temp[bin])
            atomicAdd(&histo[bin], temp[bin]);
}

struct split {
    const struct input *in;
    unsigned char *host;       /* the input, page-locked: the GPU's copy is truly async */
    unsigned char *dev_buffer; /* the GPU's share lands at its start */
    unsigned int *dev_histo;
    unsigned int *gpu_bins; /* the GPU's histogram, back on the host (page-locked) */
    unsigned int cpu_bins[BINS];
    unsigned int histo[BINS]; /* the merged result of the last run */
    cudaStream_t stream;
    int cpu_threads, threads, most_blocks;
    size_t cpu_bytes; /* the CPU's share: bytes 0 to cpu_bytes - 1; the GPU has the rest */
    /* What the last run did, as the helpers below saw it: bytes each side
     * counted, and when (host clock, ms from the run's start). */
    double start_ms, cpu_start_ms, cpu_end_ms, gpu_queued_ms, gpu_done_ms;
    size_t cpu_counted, gpu_counted;
    bool copy_in_flight;   /* the GPU's stream still busy when its kernel was queued */
    cudaEvent_t copied_in; /* recorded by count_on_gpu first: the copy in before it is done */
    bool cpu_during_copy;  /* that copy still on its way when count_on_cpu began */
    long long wait_cycles; /* --slow-gpu: cycles the GPU waits before it counts */
};

/* ------------------------------------------------------------ the CPU side -- */

struct slice {
    pthread_t thread;
    const unsigned char *buffer;
    size_t size;
    unsigned int histo[BINS];
};

static void *count_slice(void *context)
{
    struct slice *s = (struct slice *)context;
    cpu_histogram(s->buffer, s->size, s->histo);
    return NULL;
}

/* Counts count bytes at host + offset into cpu_bins, a private histogram per
 * thread, merged after (stage 01's way). Returns when they are counted. */
static void count_on_cpu(struct split *s, size_t offset, size_t count)
{
    static struct slice slices[MOST_CPU_THREADS];
    s->cpu_start_ms = now_ms() - s->start_ms;
    cudaError_t copy = cudaEventQuery(s->copied_in); /* not yet done, or done */
    if (copy != cudaErrorNotReady)
        HANDLE_ERROR(copy);
    s->cpu_during_copy = copy == cudaErrorNotReady;
    int threads = count < (size_t)s->cpu_threads ? 1 : s->cpu_threads;
    size_t per_thread = count / threads;
    for (int t = 0; t < threads; t++) {
        slices[t].buffer = s->host + offset + t * per_thread;
        slices[t].size = t < threads - 1 ? per_thread : count - t * per_thread;
        int err = pthread_create(&slices[t].thread, NULL, count_slice, &slices[t]);
        if (err)
            fail("pthread_create: %s", strerror(err));
    }
    memset(s->cpu_bins, 0, sizeof s->cpu_bins);
    for (int t = 0; t < threads; t++) {
        int err = pthread_join(slices[t].thread, NULL);
        if (err)
            fail("pthread_join: %s", strerror(err));
        for (int bin = 0; bin < BINS; bin++)
            s->cpu_bins[bin] += slices[t].histo[bin];
    }
    s->cpu_counted += count;
    s->cpu_end_ms = now_ms() - s->start_ms;
}

/* ------------------------------------------------------------ the GPU side -- */

/* For --slow-gpu: one thread that waits a number of clock cycles, so that the
 * GPU's share takes longer, as on a slower GPU. Not part of the lesson. */
__global__ void wait_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles)
        ;
}

static void CUDART_CB stamp_done(void *context)
{
    struct split *s = (struct split *)context;
    s->gpu_done_ms = now_ms() - s->start_ms;
}

/* Queues, on stream, the zeroing of dev_histo and the kernel over the first
 * count bytes of dev_buffer, and returns at once. Notes whether the stream was
 * still busy (with the copy in), and when the kernel is done, on the host's
 * clock. */
static void count_on_gpu(struct split *s, size_t count, cudaStream_t stream)
{
    s->gpu_queued_ms = now_ms() - s->start_ms;
    s->copy_in_flight = cudaStreamQuery(stream) == cudaErrorNotReady;
    HANDLE_ERROR(cudaEventRecord(s->copied_in, stream));
    HANDLE_ERROR(cudaMemsetAsync(s->dev_histo, 0, BINS * sizeof(unsigned int), stream));
    if (count > 0) { /* a grid of 0 blocks is an error */
        if (s->wait_cycles)
            wait_kernel<<<1, 1, 0, stream>>>(s->wait_cycles);
        size_t needed = (count + s->threads - 1) / s->threads;
        unsigned blocks = (unsigned)(needed < (size_t)s->most_blocks ? needed : s->most_blocks);
        histo_kernel<<<blocks, s->threads, 0, stream>>>(s->dev_buffer, count, s->dev_histo);
        HANDLE_ERROR(cudaGetLastError());
    }
    HANDLE_ERROR(cudaLaunchHostFunc(stream, stamp_done, s));
    s->gpu_counted += count;
}

/* ------------------------------------------------------- the split, the run -- */

/* Yours: choose_cpu_bytes, the split, and count_split, both sides at once. */
#include "cpu_gpu_split_yours.cuh"

/* One run: count_split on a clean slate, timed by the host's clock. */
static double split_once(void *context)
{
    struct split *s = (struct split *)context;
    size_t size = s->in->size;
    /* Before the clock: nothing left from the last run where a result lands. */
    HANDLE_ERROR(cudaMemset(s->dev_buffer, 0x5a, size ? size : 1));
    HANDLE_ERROR(cudaDeviceSynchronize());
    memset(s->gpu_bins, 0, BINS * sizeof(unsigned int));
    memset(s->histo, 0, sizeof s->histo);
    s->cpu_counted = s->gpu_counted = 0;
    s->start_ms = now_ms();
    count_split(s);
    double ms = now_ms() - s->start_ms;
    HANDLE_ERROR(cudaDeviceSynchronize()); /* the stamps are in before anyone reads them */
    return ms;
}

/* Runs split_once over reps with the CPU's share set to cpu_bytes; copies the
 * last run's histogram to histo. */
static double median_split(struct split *s, size_t cpu_bytes, int reps, unsigned int *histo)
{
    s->cpu_bytes = cpu_bytes;
    double ms = median_ms(split_once, s, reps);
    memcpy(histo, s->histo, BINS * sizeof(unsigned int));
    return ms;
}

static void make_split(struct split *s, const struct input *in, const struct gpu *gpu,
                       int cpu_threads, int threads)
{
    size_t size = in->size ? in->size : 1;
    s->in = in;
    s->cpu_threads = cpu_threads;
    s->threads = threads;
    s->most_blocks = 2 * gpu->sm_count; /* the book's 2 blocks per SM */
    HANDLE_ERROR(cudaHostAlloc((void **)&s->host, size, cudaHostAllocDefault));
    memcpy(s->host, in->buffer, in->size);
    HANDLE_ERROR(
        cudaHostAlloc((void **)&s->gpu_bins, BINS * sizeof(unsigned int), cudaHostAllocDefault));
    HANDLE_ERROR(cudaMalloc((void **)&s->dev_buffer, size));
    HANDLE_ERROR(cudaMalloc((void **)&s->dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaStreamCreate(&s->stream));
    HANDLE_ERROR(cudaEventCreateWithFlags(&s->copied_in, cudaEventDisableTiming));
    HANDLE_ERROR(cudaEventRecord(s->copied_in, s->stream)); /* so that a query is defined */
}

static void free_split(struct split *s)
{
    HANDLE_ERROR(cudaEventDestroy(s->copied_in));
    HANDLE_ERROR(cudaStreamDestroy(s->stream));
    HANDLE_ERROR(cudaFree(s->dev_buffer));
    HANDLE_ERROR(cudaFree(s->dev_histo));
    HANDLE_ERROR(cudaFreeHost(s->gpu_bins));
    HANDLE_ERROR(cudaFreeHost(s->host));
}

int main(int argc, char **argv)
{
    static const struct stage_option options[] = {
        {"--cpu-threads", "N",
         "CPU threads that count the CPU's share (default: one per logical CPU)"},
        {"--cpu-bytes", "N", "the CPU's share in bytes, instead of the measured split"},
        {"--slow-gpu", "M",
         "for the check: the GPU waits M million clock cycles before it counts (1 to 10000), "
         "as a slower GPU would take longer"},
        {NULL, NULL, NULL}};
    const struct stage stage = {
        .dir = "10_cpu_gpu_split",
        .program = "cpu_gpu_split",
        .summary = "exercise: the CPU and the GPU count one input at the same time",
        .gpu = true,
        .help = "The CPU counts the first bytes, the GPU the rest. The split is chosen from "
                "the CPU-only and GPU-only times, so that both end together, unless "
                "--cpu-bytes sets it.",
        .options = options};
    struct options opt = options_or_exit(argc, argv, &stage);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu_threads = (int)(cores < 1 ? 1 : cores < MOST_CPU_THREADS ? cores : MOST_CPU_THREADS);
    if (opt.stage_values[0]) {
        char *end;
        long n = strtol(opt.stage_values[0], &end, 10);
        if (*end || n < 1 || n > MOST_CPU_THREADS)
            usage_error(&stage, "--cpu-threads: a number from 1 to 64");
        cpu_threads = (int)n;
    }
    long long forced = -1;
    if (opt.stage_values[1]) {
        char *end;
        forced = strtoll(opt.stage_values[1], &end, 10);
        if (*end || forced < 0 || opt.stage_values[1][0] == '\0')
            usage_error(&stage, "--cpu-bytes: not a number of bytes");
    }
    long long slow_gpu = 0;
    if (opt.stage_values[2]) {
        char *end;
        slow_gpu = strtoll(opt.stage_values[2], &end, 10);
        if (*end || slow_gpu < 1 || slow_gpu > 10000)
            usage_error(&stage, "--slow-gpu: a number of million cycles from 1 to 10000");
    }
    struct gpu gpu = open_gpu(&stage);
    if (opt.threads > gpu.max_threads_per_block)
        usage_error(&stage, "--threads: more than this GPU takes per block");
    struct input in = make_input(&stage, &opt);
    if (forced > (long long)in.size)
        usage_error(&stage, "--cpu-bytes: more than the input's size");

    static struct split split;
    static unsigned int gpu_histo[BINS], cpu_histo[BINS], split_histo[BINS];
    make_split(&split, &in, &gpu, cpu_threads, opt.threads ? opt.threads : 256);
    split.wait_cycles = slow_gpu * 1000000;
    /* Each side alone on the whole input: the speeds the split comes from. */
    double gpu_ms = median_split(&split, 0, opt.reps, gpu_histo);
    double cpu_ms = median_split(&split, in.size, opt.reps, cpu_histo);
    size_t cpu_bytes = forced >= 0 ? (size_t)forced
                                   : choose_cpu_bytes(in.size, cpu_ms > 0 ? cpu_ms : 1e-6,
                                                      gpu_ms > 0 ? gpu_ms : 1e-6);
    if (cpu_bytes > in.size)
        fail("the split gave the CPU %zu bytes of %zu", cpu_bytes, in.size);
    double split_ms = median_split(&split, cpu_bytes, opt.reps, split_histo);

    if (!opt.csv) {
        printf("measured:   cpu-only %.4f ms on %d threads, gpu-only %.4f ms (whole input)\n",
               cpu_ms, cpu_threads, gpu_ms);
        printf("split:      cpu %zu bytes, gpu %zu bytes (%.2f%% on the CPU, %s)\n", cpu_bytes,
               in.size - cpu_bytes, in.size ? 100.0 * cpu_bytes / in.size : 0.0,
               forced >= 0 ? "given by --cpu-bytes" : "from the measured times");
        printf("counted:    cpu %zu bytes, gpu %zu bytes (in the last run)\n", split.cpu_counted,
               split.gpu_counted);
        printf("timeline:   gpu queued %.4f ms, done %.4f ms; cpu %.4f to %.4f ms "
               "(from the last run's start)\n",
               split.gpu_queued_ms, split.gpu_done_ms, split.cpu_start_ms, split.cpu_end_ms);
        printf("copy in:    %s when the kernel was queued\n",
               split.copy_in_flight ? "still on its way" : "already done");
        printf("cpu start:  %s\n", split.cpu_during_copy ? "while the copy in was on its way"
                                                         : "after the copy in was done");
        printf("combined:   %.4f ms against gpu-only %.4f ms\n", split_ms, gpu_ms);
    }
    struct result results[3] = {
        {.impl = "gpu-only",
         .device = gpu.name,
         .blocks = 0,
         .threads = 0,
         .total_ms = gpu_ms,
         .histo = gpu_histo},
        {.impl = "cpu-only",
         .device = cpu_name(),
         .threads = cpu_threads,
         .total_ms = cpu_ms,
         .histo = cpu_histo},
        {.impl = "cpu+gpu",
         .device = gpu.name,
         .threads = cpu_threads,
         .total_ms = split_ms,
         .histo = split_histo},
    };
    int status = report_results(&stage, &opt, &in, results, 3);
    free_split(&split);
    free_input(&in);
    return status;
}
