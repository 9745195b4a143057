/*
 * Exercise 09 - page-locked memory and streams. The input should sit in
 * page-locked host memory, so that the GPU's copy engine can read it
 * directly, and go over in chunks, each chunk's copy and histogram
 * queued on one of STREAMS streams, so that one chunk is counted while the
 * next is on its way. Every chunk's kernel adds into one global histogram.
 * The starter copies from malloc'd memory, one chunk after the other, and
 * misses some bytes: the part to change is pinned_streams_yours.cuh.
 *
 *   make run                            the book's 100 MiB, 8 chunks, beside a plain copy
 *   make run ARGS='--chunks 3 --size 1000003'   chunks that do not divide the size
 *   make run ARGS='--timeline'          when each chunk's copy and kernel ran
 *   make check                          every byte counted, from page-locked memory, overlapped?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <stdlib.h>
#include <string.h>

#define STREAMS        4
#define DEFAULT_CHUNKS 8
#define MOST_CHUNKS    1024

/* Stage 03's kernel: a private histogram per block in shared memory, merged
 * with one global atomic per bin. Kernels of different chunks run at the same
 * time and add into the same global bins; the atomics keep that right. */
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

/* The timeline (--timeline): an event before and after each chunk's copy and
 * kernel, recorded on the chunk's stream, so that the GPU's own clock says
 * when each ran. Only the last run records them. */
enum mark { COPY_START, COPY_END, KERNEL_START, KERNEL_END, MARKS };

/* Everything made once, before any clock starts, as a program that histograms
 * many inputs would: page-locked input, device buffers, streams. */
struct trip {
    const struct input *in;
    unsigned char *host; /* the input, in page-locked memory */
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaStream_t streams[STREAMS];
    int chunks, threads, most_blocks; /* most_blocks: a chunk's grid, at most */
    unsigned int histo[BINS];         /* the result of the last run */
    bool timeline;                    /* record the marks in this run */
    int copies_ended;                 /* of the timeline run: see copies_ended() */
    cudaEvent_t origin, (*marks)[MARKS];
    size_t *chunk_bytes;        /* what each chunk copied, as the timeline saw it */
    cudaStream_t *chunk_stream; /* and on which stream */
};

static void mark(struct trip *t, int chunk, enum mark what, cudaStream_t stream)
{
    if (t->timeline)
        HANDLE_ERROR(cudaEventRecord(t->marks[chunk][what], stream));
}

/* Counts count bytes at dev_buffer + offset on a stream. No launch for an empty
 * chunk: a grid of 0 blocks is an error. */
static void count_chunk(struct trip *t, size_t offset, size_t count, cudaStream_t stream)
{
    if (count == 0)
        return;
    size_t needed = (count + t->threads - 1) / t->threads; /* no block without a byte */
    unsigned blocks = (unsigned)(needed < (size_t)t->most_blocks ? needed : t->most_blocks);
    histo_kernel<<<blocks, t->threads, 0, stream>>>(t->dev_buffer + offset, count, t->dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

/* Yours: the host memory the copies read (alloc_host, free_host), and the
 * chunks queued on streams (copy_chunk, queue_chunks). */
#include "pinned_streams_yours.cuh"

/* How many chunks with bytes have had their copy end, by the GPU's marks, at
 * this moment. Right after queue_chunks returns it shows whether the host
 * waited for the copies in its loop: queued copies have barely begun. */
static int copies_ended(const struct trip *t)
{
    int ended = 0;
    for (int c = 0; c < t->chunks; c++) {
        if (t->chunk_bytes[c] == 0)
            continue;
        cudaError_t status = cudaEventQuery(t->marks[c][COPY_END]);
        if (status != cudaErrorNotReady) /* not yet reached: the one answer that is no error */
            HANDLE_ERROR(status);
        ended += status == cudaSuccess;
    }
    return ended;
}

/* One run: the histogram zeroed, every chunk queued, then waited for. */
static double streams_once(void *context)
{
    struct trip *t = (struct trip *)context;
    size_t size = t->in->size;
    /* Before the clock: the device copy of the input is overwritten, so that a
     * kernel that ran before its chunk's copy counts the wrong bytes. */
    HANDLE_ERROR(cudaMemset(t->dev_buffer, 0x5a, size ? size : 1));
    HANDLE_ERROR(cudaDeviceSynchronize());
    double start = now_ms();
    HANDLE_ERROR(cudaMemset(t->dev_histo, 0, BINS * sizeof(unsigned int)));
    /* The streams are non-blocking: they do not wait for the default stream's
     * memset, so the host waits for it, once. */
    HANDLE_ERROR(cudaDeviceSynchronize());
    if (t->timeline)
        HANDLE_ERROR(cudaEventRecord(t->origin, 0));
    queue_chunks(t);
    if (t->timeline)
        t->copies_ended = copies_ended(t);
    HANDLE_ERROR(cudaDeviceSynchronize()); /* every stream has finished */
    HANDLE_ERROR(
        cudaMemcpy(t->histo, t->dev_histo, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    return now_ms() - start;
}

/* The floor: the same bytes in one copy from the same host memory, nothing else. */
static double copy_once(void *context)
{
    struct trip *t = (struct trip *)context;
    double start = now_ms();
    HANDLE_ERROR(cudaMemcpy(t->dev_buffer, t->host, t->in->size, cudaMemcpyHostToDevice));
    return now_ms() - start;
}

/* The histogram alone, the whole input already on the GPU, timed by events. */
static double kernel_once(void *context)
{
    struct trip *t = (struct trip *)context;
    cudaEvent_t start, stop;
    float ms;
    HANDLE_ERROR(cudaMemset(t->dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    HANDLE_ERROR(cudaEventRecord(start, 0));
    count_chunk(t, 0, t->in->size, 0);
    HANDLE_ERROR(cudaEventRecord(stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    return ms;
}

static void make_trip(struct trip *t, const struct input *in, const struct gpu *gpu, int chunks,
                      int threads)
{
    size_t size = in->size ? in->size : 1;
    t->in = in;
    t->chunks = chunks;
    t->threads = threads;
    t->most_blocks = 2 * gpu->sm_count; /* the book's 2 blocks per SM, for each chunk */
    t->host = alloc_host(size);
    memcpy(t->host, in->buffer, in->size);
    HANDLE_ERROR(cudaMalloc((void **)&t->dev_buffer, size));
    HANDLE_ERROR(cudaMalloc((void **)&t->dev_histo, BINS * sizeof(unsigned int)));
    /* The whole input in place once, for the kernel-only runs. */
    HANDLE_ERROR(cudaMemcpy(t->dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    /* Non-blocking: these streams and the default stream do not wait for each
     * other, so that only what a chunk's own stream holds orders its work. */
    for (int s = 0; s < STREAMS; s++)
        HANDLE_ERROR(cudaStreamCreateWithFlags(&t->streams[s], cudaStreamNonBlocking));
    t->marks = (cudaEvent_t(*)[MARKS])calloc(chunks, sizeof *t->marks);
    t->chunk_bytes = (size_t *)calloc(chunks, sizeof *t->chunk_bytes);
    t->chunk_stream = (cudaStream_t *)calloc(chunks, sizeof *t->chunk_stream);
    if (!t->marks || !t->chunk_bytes || !t->chunk_stream)
        fail("out of host memory for %d chunks", chunks);
    HANDLE_ERROR(cudaEventCreate(&t->origin));
    for (int c = 0; c < chunks; c++)
        for (int m = 0; m < MARKS; m++)
            HANDLE_ERROR(cudaEventCreate(&t->marks[c][m]));
}

static void free_trip(struct trip *t)
{
    for (int c = 0; c < t->chunks; c++)
        for (int m = 0; m < MARKS; m++)
            HANDLE_ERROR(cudaEventDestroy(t->marks[c][m]));
    HANDLE_ERROR(cudaEventDestroy(t->origin));
    free(t->marks);
    free(t->chunk_bytes);
    free(t->chunk_stream);
    for (int s = 0; s < STREAMS; s++)
        HANDLE_ERROR(cudaStreamDestroy(t->streams[s]));
    free_host(t->host);
    HANDLE_ERROR(cudaFree(t->dev_buffer));
    HANDLE_ERROR(cudaFree(t->dev_histo));
}

/* What CUDA says of the memory the copies read: page-locked, or pageable. */
static void print_host_memory(const struct trip *t)
{
    struct cudaPointerAttributes attributes;
    HANDLE_ERROR(cudaPointerGetAttributes(&attributes, t->host));
    printf("host memory: %s\n", attributes.type == cudaMemoryTypeHost
                                    ? "page-locked (cudaMemoryTypeHost)"
                                    : "pageable (not known to CUDA)");
}

/* One line per chunk: its bytes, its stream, and when its copy and its kernel
 * ran, in ms from the loop's start by the GPU's clock; then how many copies
 * had already ended when the host came back from queueing them all. */
static void print_timeline(const struct trip *t)
{
    for (int c = 0; c < t->chunks; c++) {
        float at[MARKS];
        for (int m = 0; m < MARKS; m++)
            HANDLE_ERROR(cudaEventElapsedTime(&at[m], t->origin, t->marks[c][m]));
        int stream = -1;
        for (int s = 0; s < STREAMS; s++)
            if (t->chunk_stream[c] == t->streams[s])
                stream = s;
        char name[16] = "default";
        if (stream >= 0)
            snprintf(name, sizeof name, "%d", stream);
        printf("chunk %d: %zu bytes on stream %s, copy %.4f to %.4f ms, kernel %.4f to %.4f ms\n",
               c, t->chunk_bytes[c], name, at[COPY_START], at[COPY_END], at[KERNEL_START],
               at[KERNEL_END]);
    }
    int with_bytes = 0;
    for (int c = 0; c < t->chunks; c++)
        with_bytes += t->chunk_bytes[c] > 0;
    printf("queued:     when queue_chunks returned, the copies of %d of the %d chunks with bytes "
           "had ended\n",
           t->copies_ended, with_bytes);
}

int main(int argc, char **argv)
{
    static const struct stage_option options[] = {
        {"--timeline", NULL, "print when each chunk's copy and kernel ran (the last run)"},
        {"--chunks", "N", "the chunks the input is cut into (default 8, at most 1024)"},
        {NULL, NULL, NULL}};
    enum { OPT_TIMELINE, OPT_CHUNKS };
    const struct stage stage = {
        .dir = "09_pinned_streams",
        .program = "pinned_streams",
        .summary = "exercise: page-locked memory, copied in chunks on streams",
        .gpu = true,
        .help = "--chunks N cuts the input into N chunks, queued over 4 streams; --threads "
                "sets the block size of the chunks' kernels; each chunk's grid is the book's, "
                "so --blocks and --blocks-per-sm are refused.",
        .options = options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks || opt.blocks_per_sm)
        usage_error(&stage, "--blocks and --blocks-per-sm: each chunk's grid is the book's here "
                            "(--chunks N sets the number of chunks)");
    int chunks = (int)stage_option_number(&stage, &opt, OPT_CHUNKS, 1, MOST_CHUNKS, DEFAULT_CHUNKS);
    bool timeline = opt.stage_values[OPT_TIMELINE] != NULL;
    if (timeline && opt.csv)
        usage_error(&stage, "--timeline and --csv cannot be combined");
    struct gpu gpu = open_gpu(&stage);
    if (opt.threads > gpu.max_threads_per_block)
        usage_error(&stage, "--threads: more than this GPU takes per block");
    struct input in = make_input(&stage, &opt);

    static struct trip trip;
    make_trip(&trip, &in, &gpu, chunks, opt.threads ? opt.threads : 256);
    double kernel_ms = median_ms(kernel_once, &trip, opt.reps);
    struct result results[2] = {
        {.impl = "pinned-copy", /* the floor: no histogram */
         .device = gpu.name,
         .total_ms = median_ms(copy_once, &trip, opt.reps)},
        {.impl = "pinned-streams",
         .device = gpu.name,
         .blocks = chunks, /* the table shows it as chunks */
         .kernel_ms = kernel_ms,
         .total_ms = median_ms(streams_once, &trip, opt.reps),
         .histo = trip.histo},
    };
    if (timeline) { /* one more run, with the marks; its histogram is the one verified */
        trip.timeline = true;
        streams_once(&trip);
        print_timeline(&trip);
    }
    if (!opt.csv)
        print_host_memory(&trip);
    int status = report_results(&stage, &opt, &in, results, 2);
    free_trip(&trip);
    free_input(&in);
    return status;
}
