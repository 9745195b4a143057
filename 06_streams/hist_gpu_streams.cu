/*
 * 06_streams - the whole trip: bytes in host memory to bins back on the host.
 * Every stage so far spends far more time copying the input to the GPU than
 * counting it (the book's chapter 10 is about this). Seven ways, against the
 * floor, a plain copy of the same bytes from page-locked memory:
 *
 *   pageable        the book's way: cudaMemcpy from malloc'd memory, which the
 *                   driver must first stage through a page-locked buffer of its own
 *   pinned          the same copy from page-locked memory (cudaHostAlloc) where the
 *                   input was produced: the GPU's copy engine reads it directly
 *   streams         that page-locked input, cut into chunks over several streams:
 *                   while chunk k is counted, chunk k + 1 is on its way
 *   pinned-staged   from malloc'd memory: memcpy into a page-locked buffer, then pinned
 *   alloc-staged    the same, allocating and freeing that buffer inside the clock
 *   registered      page-lock the malloc'd buffer itself (cudaHostRegister), then pinned
 *   streams-staged  streams, the CPU staging chunk k + 1 while chunk k is copied
 *
 *   ./hist_gpu_streams                  every way and the copy, side by side
 *   ./hist_gpu_streams --variant streams --chunks 16
 *   ./hist_gpu_streams --size 1G --chunks 16 --timeline t.txt   when each step ran, by the GPU
 *
 * The counting is CUB's (stage 05's baseline): one library call takes a stream,
 * a start and a 64-bit length, so it counts the whole input or any chunk, and
 * this file stays about the copies. Stage 05's unrolled kernel is faster, but
 * the kernel is a small part of every trip here. Each chunk gets its own bins,
 * added up on the host. Device memory and streams are made once, before the
 * clock starts, as a program that histograms many inputs would.
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <cub/device/device_histogram.cuh>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STREAMS        4
#define DEFAULT_CHUNKS 8

/* The timeline (--timeline FILE): after the timed runs, one more run of each
 * way that has one, with a CUDA event recorded before and after each step of
 * each chunk, on the stream that runs the step. An event's time is when its
 * stream reached it on the GPU, so a step "begins" when its stream was ready
 * for it (the step before it done, the host's call made), which can be before
 * a copy engine or the SMs were free to start it. cudaEventElapsedTime gives
 * times to about 0.5 us (CUDA Runtime API): a step of a few microseconds
 * reads as 0 or 0.001 ms. */
enum step { COPY_IN, KERNEL, COPY_OUT, STEPS };
static const char *const step_names[STEPS] = {"copy-in", "kernel", "copy-out"};
#define DEFAULT_STREAM (-1) /* where whole's cudaMemcpy runs: the legacy default stream */

struct chunk_marks {
    cudaEvent_t begin[STEPS], end[STEPS];
    int stream[STEPS];   /* 0 to STREAMS - 1, or DEFAULT_STREAM */
    size_t bytes[STEPS]; /* what the step copied or counted */
};

/* Everything made once: device buffers, per-chunk bins and CUB's scratch space. */
struct trip {
    const struct input *in;
    unsigned char *pinned;  /* the input, as if produced in page-locked memory */
    unsigned char *staging; /* page-locked, filled only inside the clock (the staged ways) */
    unsigned char *dev_buffer;
    unsigned int *dev_bins;  /* chunks x BINS */
    unsigned int *host_bins; /* chunks x BINS, page-locked: the copies back can overlap too */
    void *scratch[STREAMS];
    size_t scratch_bytes;
    cudaStream_t streams[STREAMS];
    int chunks;
    unsigned int histo[BINS];  /* the result of the last run */
    bool timeline;             /* this run records its steps into marks */
    struct chunk_marks *marks; /* chunks of them, made for --timeline only */
};

static cudaStream_t stream_of(const struct trip *t, int stream)
{
    return stream == DEFAULT_STREAM ? cudaStreamLegacy : t->streams[stream];
}

/* In the timeline's run: chunk's step, of bytes, begins here on that stream... */
static void begin_step(struct trip *t, int chunk, enum step step, int stream, size_t bytes)
{
    if (!t->timeline)
        return;
    struct chunk_marks *m = &t->marks[chunk];
    m->stream[step] = stream;
    m->bytes[step] = bytes;
    HANDLE_ERROR(cudaEventRecord(m->begin[step], stream_of(t, stream)));
}

/* ...and ends here, on the same stream. */
static void end_step(struct trip *t, int chunk, enum step step)
{
    if (t->timeline)
        HANDLE_ERROR(
            cudaEventRecord(t->marks[chunk].end[step], stream_of(t, t->marks[chunk].stream[step])));
}

/* CUB's histogram of count bytes at dev_buffer + offset into bins, on a stream.
 * CUB says how much scratch space each size needs (a query on the host, no GPU
 * work); make_trip set aside the most. Each HistogramEven call then launches
 * two kernels: DeviceHistogramInitKernel, one block that clears the bins, and
 * DeviceHistogramSweepKernel, which counts (both appear in make profile). */
static size_t cub_scratch_for(struct trip *t, size_t count)
{
    size_t needed = 0;
    HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(nullptr, needed, t->dev_buffer, t->dev_bins,
                                                     BINS + 1, 0, BINS, (int64_t)count));
    return needed;
}

static void count_chunk(struct trip *t, size_t offset, size_t count, int chunk, int stream)
{
    size_t needed = cub_scratch_for(t, count);
    if (needed > t->scratch_bytes)
        fail("CUB wants %zu bytes of scratch for %zu bytes, %zu were set aside", needed, count,
             t->scratch_bytes);
    HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(
        t->scratch[stream], needed, t->dev_buffer + offset, t->dev_bins + chunk * BINS, BINS + 1, 0,
        BINS, (int64_t)count, t->streams[stream]));
}

static void add_chunks(struct trip *t)
{
    memset(t->histo, 0, sizeof t->histo);
    for (int c = 0; c < t->chunks; c++)
        for (int bin = 0; bin < BINS; bin++)
            t->histo[bin] += t->host_bins[c * BINS + bin];
}

/* One copy in from source, one histogram, the bins back: pageable or pinned. */
static double whole(struct trip *t, const unsigned char *source)
{
    double start = now_ms();
    begin_step(t, 0, COPY_IN, DEFAULT_STREAM, t->in->size);
    HANDLE_ERROR(cudaMemcpy(t->dev_buffer, source, t->in->size, cudaMemcpyHostToDevice));
    end_step(t, 0, COPY_IN);
    begin_step(t, 0, KERNEL, 0, t->in->size);
    count_chunk(t, 0, t->in->size, 0, 0);
    end_step(t, 0, KERNEL);
    begin_step(t, 0, COPY_OUT, 0, BINS * sizeof(unsigned int));
    HANDLE_ERROR(cudaMemcpyAsync(t->host_bins, t->dev_bins, BINS * sizeof(unsigned int),
                                 cudaMemcpyDeviceToHost, t->streams[0]));
    end_step(t, 0, COPY_OUT);
    HANDLE_ERROR(cudaStreamSynchronize(t->streams[0]));
    double ms = now_ms() - start;
    memcpy(t->histo, t->host_bins, sizeof t->histo);
    return ms;
}

static double pageable_once(void *context)
{
    struct trip *t = (struct trip *)context;
    return whole(t, t->in->buffer);
}

/* The input was produced directly in page-locked memory (make_trip put it
 * there before any clock): no cost of pinning is counted here. */
static double pinned_once(void *context)
{
    struct trip *t = (struct trip *)context;
    return whole(t, t->pinned);
}

/* Chunk c goes to stream c % STREAMS: its copy, its histogram and its bins
 * back queue up in order there, while the other streams' work may run beside
 * them. A copy from page-locked memory can run while a kernel of another
 * stream runs (CUDA C++ Programming Guide, "Overlap of Data Transfer and
 * Kernel Execution"). The copies in all cross the same host-to-GPU link,
 * however many copy engines share it, so together they take at least as long
 * as one copy of the whole input; what overlap can hide is the counting of
 * the earlier chunks, and the last chunk's count and bins are left over.
 * Like pinned, it starts from the input already in page-locked memory. */
static double streams_once(void *context)
{
    struct trip *t = (struct trip *)context;
    size_t size = t->in->size, per_chunk = (size + t->chunks - 1) / t->chunks;
    double start = now_ms();
    for (int c = 0; c < t->chunks; c++) {
        size_t offset = c * per_chunk < size ? c * per_chunk : size;
        size_t count = size - offset < per_chunk ? size - offset : per_chunk;
        cudaStream_t s = t->streams[c % STREAMS];
        begin_step(t, c, COPY_IN, c % STREAMS, count);
        HANDLE_ERROR(cudaMemcpyAsync(t->dev_buffer + offset, t->pinned + offset, count,
                                     cudaMemcpyHostToDevice, s));
        end_step(t, c, COPY_IN);
        begin_step(t, c, KERNEL, c % STREAMS, count);
        count_chunk(t, offset, count, c, c % STREAMS);
        end_step(t, c, KERNEL);
        begin_step(t, c, COPY_OUT, c % STREAMS, BINS * sizeof(unsigned int));
        HANDLE_ERROR(cudaMemcpyAsync(t->host_bins + c * BINS, t->dev_bins + c * BINS,
                                     BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
        end_step(t, c, COPY_OUT);
    }
    HANDLE_ERROR(cudaDeviceSynchronize());
    double ms = now_ms() - start;
    add_chunks(t);
    return ms;
}

/* The other four start from the user's malloc'd buffer, as pageable does.
 * pinned-staged: the CPU copies it into a page-locked buffer made once
 * beforehand, then the trip goes on as pinned. */
static double pinned_staged_once(void *context)
{
    struct trip *t = (struct trip *)context;
    double start = now_ms();
    memcpy(t->staging, t->in->buffer, t->in->size);
    double staging_ms = now_ms() - start;
    return staging_ms + whole(t, t->staging);
}

/* alloc-staged: the same with a new page-locked buffer for every input, so
 * that allocating and freeing it, slow themselves, are timed too. */
static double alloc_staged_once(void *context)
{
    struct trip *t = (struct trip *)context;
    unsigned char *staging;
    double start = now_ms();
    HANDLE_ERROR(cudaMallocHost((void **)&staging, t->in->size ? t->in->size : 1));
    memcpy(staging, t->in->buffer, t->in->size);
    whole(t, staging); /* its clock runs inside this one */
    HANDLE_ERROR(cudaFreeHost(staging));
    return now_ms() - start;
}

/* registered: page-lock the user's own buffer, and make it pageable again
 * after, both inside the clock. From the CUDA Runtime API's cudaHostRegister:
 * the range joins cudaHostAlloc's, which cudaMemcpy copies directly (no flag
 * needed for that); no alignment is asked for (CUDA 4.0 wanted ptr and size in
 * whole 4 KB pages, which malloc's are not), so the buffer goes in as it is;
 * and since pinned pages are lost to the rest of the system, it is "best used
 * sparingly". An empty input has nothing to pin. */
static double registered_once(void *context)
{
    struct trip *t = (struct trip *)context;
    unsigned char *buffer = t->in->buffer;
    size_t size = t->in->size;
    double start = now_ms();
    if (size)
        HANDLE_ERROR(cudaHostRegister(buffer, size, cudaHostRegisterDefault));
    whole(t, buffer); /* the driver knows the range is page-locked now: a direct copy */
    if (size)
        HANDLE_ERROR(cudaHostUnregister(buffer));
    return now_ms() - start;
}

/* streams-staged: streams from the user's buffer. The CPU copies chunk c into
 * the staging buffer, then queues its copy to the GPU, which returns at once:
 * so it stages chunk c + 1 while chunk c crosses to the GPU. (A real
 * pipeline reuses a few chunk-sized buffers; one the input's size never waits.) */
static double streams_staged_once(void *context)
{
    struct trip *t = (struct trip *)context;
    size_t size = t->in->size, per_chunk = (size + t->chunks - 1) / t->chunks;
    double start = now_ms();
    for (int c = 0; c < t->chunks; c++) {
        size_t offset = c * per_chunk < size ? c * per_chunk : size;
        size_t count = size - offset < per_chunk ? size - offset : per_chunk;
        cudaStream_t s = t->streams[c % STREAMS];
        memcpy(t->staging + offset, t->in->buffer + offset, count);
        begin_step(t, c, COPY_IN, c % STREAMS, count);
        HANDLE_ERROR(cudaMemcpyAsync(t->dev_buffer + offset, t->staging + offset, count,
                                     cudaMemcpyHostToDevice, s));
        end_step(t, c, COPY_IN);
        begin_step(t, c, KERNEL, c % STREAMS, count);
        count_chunk(t, offset, count, c, c % STREAMS);
        end_step(t, c, KERNEL);
        begin_step(t, c, COPY_OUT, c % STREAMS, BINS * sizeof(unsigned int));
        HANDLE_ERROR(cudaMemcpyAsync(t->host_bins + c * BINS, t->dev_bins + c * BINS,
                                     BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost, s));
        end_step(t, c, COPY_OUT);
    }
    HANDLE_ERROR(cudaDeviceSynchronize());
    double ms = now_ms() - start;
    add_chunks(t);
    return ms;
}

/* The floor: the same bytes copied from page-locked memory, nothing else. */
static double copy_once(void *context)
{
    struct trip *t = (struct trip *)context;
    double start = now_ms();
    HANDLE_ERROR(cudaMemcpy(t->dev_buffer, t->pinned, t->in->size, cudaMemcpyHostToDevice));
    return now_ms() - start;
}

/* The floor has no bins to verify; its "yes" means this: the bytes it copied
 * are the input's, read back and compared a piece at a time. */
static void check_copy(const struct trip *t)
{
    const size_t piece = (size_t)64 << 20;
    unsigned char *back = (unsigned char *)malloc(piece);
    if (!back)
        fail("out of host memory for %zu bytes", piece);
    for (size_t offset = 0; offset < t->in->size; offset += piece) {
        size_t count = t->in->size - offset < piece ? t->in->size - offset : piece;
        HANDLE_ERROR(cudaMemcpy(back, t->dev_buffer + offset, count, cudaMemcpyDeviceToHost));
        if (memcmp(back, t->in->buffer + offset, count) != 0)
            fail("pinned-copy: the bytes on the GPU differ from the input in [%zu, %zu)", offset,
                 offset + count);
    }
    free(back);
}

/* The histogram alone, the input already on the GPU (make_trip put it there),
 * timed by events once and reported in every row, so that rows differ only in
 * their end-to-end time. It is the whole input in one call, not the kernels
 * inside each trip (streams counts chunks). */
static double kernel_once(void *context)
{
    struct trip *t = (struct trip *)context;
    cudaEvent_t start, stop;
    float ms;
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    HANDLE_ERROR(cudaEventRecord(start, t->streams[0]));
    count_chunk(t, 0, t->in->size, 0, 0);
    HANDLE_ERROR(cudaEventRecord(stop, t->streams[0]));
    HANDLE_ERROR(cudaEventSynchronize(stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    return ms;
}

static void make_trip(struct trip *t, const struct input *in, int chunks)
{
    size_t size = in->size ? in->size : 1;
    t->in = in;
    t->chunks = chunks;
    HANDLE_ERROR(cudaHostAlloc((void **)&t->pinned, size, cudaHostAllocDefault));
    memcpy(t->pinned, in->buffer, in->size);
    HANDLE_ERROR(cudaMalloc((void **)&t->dev_buffer, size));
    HANDLE_ERROR(cudaMalloc((void **)&t->dev_bins, chunks * BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaHostAlloc((void **)&t->host_bins, chunks * BINS * sizeof(unsigned int),
                               cudaHostAllocDefault));
    HANDLE_ERROR(cudaMallocHost((void **)&t->staging, size));
    /* kernel_once counts whatever dev_buffer holds: let that be the input. */
    HANDLE_ERROR(cudaMemcpy(t->dev_buffer, t->pinned, in->size, cudaMemcpyHostToDevice));
    /* Scratch for the hungriest call (the whole input, or a chunk), one per
     * stream, since chunks on different streams run at the same time. */
    size_t per_chunk = (in->size + chunks - 1) / chunks, last = in->size - (chunks - 1) * per_chunk;
    t->scratch_bytes = cub_scratch_for(t, in->size);
    size_t sizes[] = {per_chunk, in->size >= (chunks - 1) * per_chunk ? last : 0};
    for (int i = 0; i < 2; i++) {
        size_t needed = cub_scratch_for(t, sizes[i]);
        if (needed > t->scratch_bytes)
            t->scratch_bytes = needed;
    }
    for (int s = 0; s < STREAMS; s++) {
        HANDLE_ERROR(cudaMalloc(&t->scratch[s], t->scratch_bytes ? t->scratch_bytes : 1));
        HANDLE_ERROR(cudaStreamCreate(&t->streams[s]));
    }
}

static void free_trip(struct trip *t)
{
    for (int s = 0; s < STREAMS; s++) {
        HANDLE_ERROR(cudaFree(t->scratch[s]));
        HANDLE_ERROR(cudaStreamDestroy(t->streams[s]));
    }
    HANDLE_ERROR(cudaFreeHost(t->pinned));
    HANDLE_ERROR(cudaFreeHost(t->staging));
    HANDLE_ERROR(cudaFreeHost(t->host_bins));
    HANDLE_ERROR(cudaFree(t->dev_buffer));
    HANDLE_ERROR(cudaFree(t->dev_bins));
}

/* The ways, in the order of the table above; --variant takes a name or all. */
static const struct way {
    const char *name;
    timed_run once;
    bool chunked;  /* cut into --chunks chunks over the streams */
    bool timeline; /* --timeline records its steps: the chunked ways, and pinned beside them */
} ways[] = {
    {"pageable", pageable_once, false, false},
    {"pinned", pinned_once, false, true},
    {"streams", streams_once, true, true},
    {"pinned-staged", pinned_staged_once, false, false},
    {"alloc-staged", alloc_staged_once, false, false},
    {"registered", registered_once, false, false},
    {"streams-staged", streams_staged_once, true, true},
};
#define WAYS ((int)(sizeof ways / sizeof ways[0]))

/* --timeline FILE, checked and opened (emptied) before anything runs, so that
 * a path that cannot be written fails at once, in one line. */
static FILE *open_timeline(const struct stage *stage, const struct options *opt, const char *path)
{
    bool any = false;
    for (int w = 0; w < WAYS; w++)
        any = any || (ways[w].timeline && variant_wants(stage, opt, ways[w].name));
    if (!any)
        usage_error(stage, "--timeline: only pinned, streams and streams-staged record one");
    FILE *out = fopen(path, "w");
    if (!out)
        fail("--timeline: cannot write %s: %s", path, strerror(errno));
    return out;
}

/* --timeline: each way that has one runs once more, after the timed runs,
 * recording its steps (struct chunk_marks); then one line per chunk and step,
 * its times in ms from an event that the GPU reached just before that run
 * was queued. The run must count what the timed runs did (histos, which the
 * report checks against the CPU). */
static void write_timeline(FILE *out, const char *path, struct trip *t, const struct stage *stage,
                           const struct options *opt, const char *device, int copy_engines,
                           const unsigned int histos[][BINS])
{
    cudaEvent_t origin;
    HANDLE_ERROR(cudaEventCreateWithFlags(&origin, cudaEventDefault)); /* with timing */
    t->marks = (struct chunk_marks *)checked_malloc(t->chunks * sizeof *t->marks);
    for (int c = 0; c < t->chunks; c++)
        for (int s = 0; s < STEPS; s++) {
            HANDLE_ERROR(cudaEventCreateWithFlags(&t->marks[c].begin[s], cudaEventDefault));
            HANDLE_ERROR(cudaEventCreateWithFlags(&t->marks[c].end[s], cudaEventDefault));
        }
    bool written = fprintf(out,
                           "# device: %s\n# copy engines: %d (cudaDevAttrAsyncEngineCount)\n"
                           "# input: %zu bytes, %s; streams ways: %d chunks on %d streams\n"
                           "# times: ms from an event just before each way's run (about 0.5 us "
                           "resolution)\n# variant stream chunk what start_ms end_ms bytes\n",
                           device, copy_engines, t->in->size, t->in->name, t->chunks, STREAMS) >= 0;
    for (int w = 0; w < WAYS; w++) {
        if (!ways[w].timeline || !variant_wants(stage, opt, ways[w].name))
            continue;
        HANDLE_ERROR(cudaDeviceSynchronize());
        HANDLE_ERROR(cudaEventRecord(origin, cudaStreamLegacy));
        HANDLE_ERROR(cudaEventSynchronize(origin)); /* reached before any step is queued */
        t->timeline = true;
        ways[w].once(t);
        t->timeline = false;
        HANDLE_ERROR(cudaDeviceSynchronize()); /* every mark reached */
        if (memcmp(t->histo, histos[w], sizeof t->histo) != 0)
            fail("--timeline: %s counted other bins in its run with events", ways[w].name);
        for (int c = 0; c < (ways[w].chunked ? t->chunks : 1); c++)
            for (int s = 0; s < STEPS; s++) {
                const struct chunk_marks *m = &t->marks[c];
                float begin_ms, end_ms;
                HANDLE_ERROR(cudaEventElapsedTime(&begin_ms, origin, m->begin[s]));
                HANDLE_ERROR(cudaEventElapsedTime(&end_ms, origin, m->end[s]));
                char stream[16] = "default";
                if (m->stream[s] != DEFAULT_STREAM)
                    snprintf(stream, sizeof stream, "%d", m->stream[s]);
                written =
                    written && fprintf(out, "%s %s %d %s %.4f %.4f %zu\n", ways[w].name, stream, c,
                                       step_names[s], begin_ms, end_ms, m->bytes[s]) >= 0;
            }
    }
    for (int c = 0; c < t->chunks; c++)
        for (int s = 0; s < STEPS; s++) {
            HANDLE_ERROR(cudaEventDestroy(t->marks[c].begin[s]));
            HANDLE_ERROR(cudaEventDestroy(t->marks[c].end[s]));
        }
    HANDLE_ERROR(cudaEventDestroy(origin));
    free(t->marks);
    t->marks = NULL;
    written = written && !ferror(out);
    if (fclose(out) != 0 || !written)
        fail("--timeline: writing %s failed", path);
}

enum { OPT_CHUNKS, OPT_TIMELINE };
static const struct stage_option own_options[] = {
    {"--chunks", "N", "chunks the streams ways cut the input into (default 8, at most 1024)"},
    {"--timeline", "FILE",
     "after the timed runs, write when each chunk's copy in, kernel and copy out ran "
     "(pinned, streams, streams-staged)"},
    {NULL}};

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "06_streams",
                                .program = "hist_gpu_streams",
                                .summary = "end to end: page-locked memory and streams",
                                .gpu = true,
                                /* all (the default), then the table's names */
                                .variants = variant_names_of_rows(ways, WAYS, sizeof ways[0], true),
                                .help = "CUB chooses its own launch, so the other stages' "
                                        "--blocks, --threads and --blocks-per-sm are refused "
                                        "here; --chunks N sets the chunks of the streams ways.",
                                .options = own_options,
                                .own_launch = true};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks || opt.threads || opt.blocks_per_sm)
        usage_error(&stage, "--blocks, --threads and --blocks-per-sm: CUB chooses its own launch "
                            "here (--chunks N sets the number of chunks)");
    int chunks = (int)stage_option_number(&stage, &opt, OPT_CHUNKS, 1, 1024, DEFAULT_CHUNKS);
    const char *timeline_path = opt.stage_values[OPT_TIMELINE];
    FILE *timeline = timeline_path ? open_timeline(&stage, &opt, timeline_path) : NULL;
    struct gpu gpu = open_gpu(&stage);
    /* Above 0, a copy can run while a kernel runs; 2, copies to and from the
     * GPU can run at the same time too (CUDA C++ Programming Guide, "Overlap
     * of Data Transfer and Kernel Execution", "Concurrent Data Transfers"). */
    int copy_engines;
    HANDLE_ERROR(cudaDeviceGetAttribute(&copy_engines, cudaDevAttrAsyncEngineCount, gpu.id));
    struct input in = make_input(&stage, &opt);

    struct trip trip = {0};
    make_trip(&trip, &in, chunks);
    double kernel_ms = median_ms(kernel_once, &trip, opt.reps);
    unsigned int kernel_histo[BINS]; /* what the last kernel-only run counted */
    HANDLE_ERROR(
        cudaMemcpy(kernel_histo, trip.dev_bins, sizeof kernel_histo, cudaMemcpyDeviceToHost));

    unsigned int histos[WAYS][BINS];
    struct result results[WAYS + 1];
    int count = 0;
    results[count++] = {.impl = "pinned-copy", /* the floor: no histogram */
                        .device = gpu.name,
                        .total_ms = median_ms(copy_once, &trip, opt.reps)};
    check_copy(&trip);
    for (int m = 0; m < WAYS; m++) {
        if (!variant_wants(&stage, &opt, ways[m].name))
            continue;
        double total_ms = median_ms(ways[m].once, &trip, opt.reps);
        memcpy(histos[m], trip.histo, sizeof trip.histo);
        results[count++] = {.impl = ways[m].name,
                            .device = gpu.name,
                            .blocks = ways[m].chunked ? chunks : 1, /* chunks */
                            .kernel_ms = kernel_ms,
                            .total_ms = total_ms,
                            .histo = histos[m]};
    }
    if (count > 1) /* the kernel-only result is verified once, with the first row */
        results[1].kernel_histo = kernel_histo;
    if (timeline)
        write_timeline(timeline, timeline_path, &trip, &stage, &opt, gpu.name, copy_engines,
                       histos);
    int status = report_results(&stage, &opt, &in, results, count);
    if (!opt.csv)
        printf("copy engines: %d (cudaDevAttrAsyncEngineCount)\n", copy_engines);
    free_trip(&trip);
    free_input(&in);
    return status;
}
