/*
 * Exercise 10 - one histogram split over several GPUs, where there are several;
 * otherwise over several streams of one. The input is cut into parts (--blocks N,
 * default: one per GPU, at least 2); part p goes to GPU p % (number of GPUs), on
 * a stream of its own, and is counted into a private histogram on that GPU. The
 * host adds the parts' histograms up at the end: finish that sum (look for TODO).
 *
 *   make run                          the book's 100 MiB, split as described above
 *   make run ARGS='--blocks 8'        8 parts
 *   make check                        every part counted, and counted once?
 */
#include "book.h"         /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h" /* options, the GPU, repeats, the report: no need to read it */

#include <string.h>

#define MOST_PARTS 64 /* each part holds a device buffer and a stream */

/* Stage 03's kernel: a private histogram per block in shared memory, merged
 * with one global atomic per bin into the part's own histogram. */
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

struct part {
    int device; /* the GPU it runs on */
    size_t offset, count;
    unsigned char *dev_buffer; /* its bytes only, on its GPU */
    unsigned int *dev_histo;   /* its private histogram, on its GPU */
    cudaStream_t stream;       /* created on its GPU: work queued there runs there */
    int most_blocks;           /* 2 blocks per SM of its GPU */
};

struct split {
    const struct input *in;
    unsigned char *host;      /* the input, page-locked for every GPU */
    unsigned int *part_bins;  /* parts x BINS, page-locked: the copies back are async too */
    unsigned char *dev_whole; /* GPU 0: the floor's plain copy lands here */
    struct part parts[MOST_PARTS];
    int count, devices, threads;
    unsigned int histo[BINS]; /* the sum of the parts, from the last run */
};

/* A launch needs the part's GPU to be the current one. */
static void count_part(const struct split *s, const struct part *part)
{
    if (part->count == 0) /* a grid of 0 blocks is an error */
        return;
    size_t needed = (part->count + s->threads - 1) / s->threads;
    unsigned blocks = (unsigned)(needed < (size_t)part->most_blocks ? needed : part->most_blocks);
    histo_kernel<<<blocks, s->threads, 0, part->stream>>>(part->dev_buffer, part->count,
                                                          part->dev_histo);
    HANDLE_ERROR(cudaGetLastError());
}

static void wait_for_parts(const struct split *s)
{
    for (int p = 0; p < s->count; p++) {
        HANDLE_ERROR(cudaSetDevice(s->parts[p].device));
        HANDLE_ERROR(cudaStreamSynchronize(s->parts[p].stream));
    }
}

/* The parts' histograms live on different GPUs, so no atomic can join them:
 * they come back to the host and are added here, bin by bin. */
static void add_parts(struct split *s)
{
    /* TODO: histo must be the sum of every part's bins; for now it is only
     * part 0's. Part p's bins are s->part_bins[p * BINS] to [p * BINS + BINS - 1]. */
    memcpy(s->histo, s->part_bins, sizeof s->histo);
}

/* Every part's work is queued before any is waited for, so that all GPUs (or
 * all streams) work at once; the host only waits at the end. */
static double split_once(void *context)
{
    struct split *s = (struct split *)context;
    double start = now_ms();
    for (int p = 0; p < s->count; p++) {
        struct part *part = &s->parts[p];
        HANDLE_ERROR(cudaSetDevice(part->device));
        HANDLE_ERROR(
            cudaMemsetAsync(part->dev_histo, 0, BINS * sizeof(unsigned int), part->stream));
        HANDLE_ERROR(cudaMemcpyAsync(part->dev_buffer, s->host + part->offset, part->count,
                                     cudaMemcpyHostToDevice, part->stream));
        count_part(s, part);
        HANDLE_ERROR(cudaMemcpyAsync(s->part_bins + p * BINS, part->dev_histo,
                                     BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost,
                                     part->stream));
    }
    wait_for_parts(s);
    add_parts(s);
    return now_ms() - start;
}

/* The kernels alone, every part already on its GPU, on the host clock, since
 * one pair of events cannot span several GPUs. */
static double kernels_once(void *context)
{
    struct split *s = (struct split *)context;
    for (int p = 0; p < s->count; p++) {
        HANDLE_ERROR(cudaSetDevice(s->parts[p].device));
        HANDLE_ERROR(cudaMemsetAsync(s->parts[p].dev_histo, 0, BINS * sizeof(unsigned int),
                                     s->parts[p].stream));
    }
    wait_for_parts(s);
    double start = now_ms();
    for (int p = 0; p < s->count; p++) {
        HANDLE_ERROR(cudaSetDevice(s->parts[p].device));
        count_part(s, &s->parts[p]);
    }
    wait_for_parts(s);
    return now_ms() - start;
}

/* The floor: the whole input in one plain copy to GPU 0. */
static double copy_once(void *context)
{
    struct split *s = (struct split *)context;
    HANDLE_ERROR(cudaSetDevice(0));
    double start = now_ms();
    HANDLE_ERROR(cudaMemcpy(s->dev_whole, s->host, s->in->size, cudaMemcpyHostToDevice));
    return now_ms() - start;
}

static void make_split(struct split *s, const struct input *in, int parts, int threads)
{
    size_t size = in->size, per_part = (size + parts - 1) / parts;
    s->in = in;
    s->count = parts;
    s->threads = threads;
    HANDLE_ERROR(cudaGetDeviceCount(&s->devices));
    /* Portable: page-locked for every GPU's copies, not only the current one's. */
    HANDLE_ERROR(cudaHostAlloc((void **)&s->host, size ? size : 1, cudaHostAllocPortable));
    memcpy(s->host, in->buffer, size);
    HANDLE_ERROR(cudaHostAlloc((void **)&s->part_bins, parts * BINS * sizeof(unsigned int),
                               cudaHostAllocPortable));
    HANDLE_ERROR(cudaSetDevice(0));
    HANDLE_ERROR(cudaMalloc((void **)&s->dev_whole, size ? size : 1));
    for (int p = 0; p < parts; p++) {
        struct part *part = &s->parts[p];
        part->device = p % s->devices; /* round robin: one GPU, or each its share */
        /* per_part rounded up covers every byte; the last parts may be shorter,
         * or empty when there are more parts than bytes. */
        part->offset = p * per_part < size ? p * per_part : size;
        part->count = size - part->offset < per_part ? size - part->offset : per_part;
        int sm_count;
        HANDLE_ERROR(cudaSetDevice(part->device));
        HANDLE_ERROR(
            cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, part->device));
        part->most_blocks = 2 * sm_count;
        HANDLE_ERROR(cudaMalloc((void **)&part->dev_buffer, part->count ? part->count : 1));
        HANDLE_ERROR(cudaMalloc((void **)&part->dev_histo, BINS * sizeof(unsigned int)));
        HANDLE_ERROR(cudaStreamCreate(&part->stream));
        /* Each part's bytes in place once, for the kernel-only runs. */
        HANDLE_ERROR(cudaMemcpy(part->dev_buffer, s->host + part->offset, part->count,
                                cudaMemcpyHostToDevice));
    }
}

static void free_split(struct split *s)
{
    for (int p = 0; p < s->count; p++) {
        HANDLE_ERROR(cudaSetDevice(s->parts[p].device));
        HANDLE_ERROR(cudaStreamDestroy(s->parts[p].stream));
        HANDLE_ERROR(cudaFree(s->parts[p].dev_buffer));
        HANDLE_ERROR(cudaFree(s->parts[p].dev_histo));
    }
    HANDLE_ERROR(cudaSetDevice(0));
    HANDLE_ERROR(cudaFree(s->dev_whole));
    HANDLE_ERROR(cudaFreeHost(s->host));
    HANDLE_ERROR(cudaFreeHost(s->part_bins));
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "10_split_work",
                                .program = "split_work",
                                .summary = "exercise: one histogram split over GPUs or streams",
                                .gpu = true,
                                .help =
                                    "--blocks N cuts the input into N parts (default: one per "
                                    "GPU, at least 2, at most 64), spread over every GPU, or over "
                                    "streams of the one GPU; --blocks-per-sm is refused."};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks_per_sm)
        usage_error(&stage, "--blocks-per-sm: --blocks sets the number of parts here");
    struct gpu gpu = open_gpu(&stage);
    struct input in = make_input(&stage, &opt);

    static struct split split;
    int devices;
    HANDLE_ERROR(cudaGetDeviceCount(&devices));
    long parts = opt.blocks ? opt.blocks : devices > 2 ? devices : 2;
    make_split(&split, &in, (int)(parts < MOST_PARTS ? parts : MOST_PARTS),
               opt.threads ? opt.threads : 256);
    if (!opt.csv)
        printf("split:      %d parts over %d GPU%s, each part on a stream of its own\n",
               split.count, devices, devices > 1 ? "s" : "");
    double kernel_ms = median_ms(kernels_once, &split, opt.reps);
    struct result results[2] = {
        {.impl = "pinned-copy", /* the floor: no histogram */
         .device = gpu.name,
         .total_ms = median_ms(copy_once, &split, opt.reps)},
        {.impl = devices > 1 ? "split-over-gpus" : "split-over-streams",
         .device = gpu.name,
         .blocks = split.count, /* the table shows it as chunks */
         .kernel_ms = kernel_ms,
         .total_ms = median_ms(split_once, &split, opt.reps),
         .histo = split.histo},
    };
    int status = report_results(&stage, &opt, &in, results, 2);
    free_split(&split);
    free_input(&in);
    return status;
}
