/*
 * 09_equalize - the histogram put to work: histogram equalization of a
 * photograph. Three kernels, each reading what the one before wrote: (1) the
 * 256-bin histogram of the brightness, with stage 05's block-private bins and
 * 16-byte loads; (2) its running sum, the cumulative distribution (a scan, in
 * one block), made into (3) a lookup table from old brightness to new; (4)
 * every pixel through that table. Each row of the report runs the pipeline one
 * step further, beside the read-only kernel of stage 05.
 *
 *   ./hist_gpu_equalize --image ../data/chelsea.bmp --write equalized.bmp
 *   ./hist_gpu_equalize                  the book's 100 MiB, equalized as bytes
 *   ./hist_gpu_equalize --image ../data/chelsea.bmp --chart equalize-chelsea.dat
 */
#include "book.h"          /* HANDLE_ERROR, the input, the CPU's check: worth reading */
#include "harness_cuda.h"  /* options, the GPU, repeats, the report: no need to read it */
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the input */

#include "equalize_check.h" /* the check of every run, the files written: no need to read it */

#include <cub/block/block_scan.cuh>

/* ------------------------------------------------------------ the kernels -- */

__device__ __forceinline__ void count_word(unsigned int *temp, unsigned int word)
{
    atomicAdd(&temp[word & 0xff], 1);
    atomicAdd(&temp[(word >> 8) & 0xff], 1);
    atomicAdd(&temp[(word >> 16) & 0xff], 1);
    atomicAdd(&temp[word >> 24], 1);
}

/* (1) The histogram: stage 03's private bins per block, read 16 bytes at a
 * time as in stage 05's (c). One copy of the bins per block is enough here:
 * this stage's lesson is the pipeline, not the counting. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    __shared__ unsigned int temp[BINS];
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads();
    const uint4 *vectors = (const uint4 *)buffer; /* cudaMalloc aligns to 256 bytes */
    size_t count = size / 16, stride = (size_t)blockDim.x * gridDim.x;
    size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = first; i < count; i += stride) {
        uint4 v = vectors[i];
        count_word(temp, v.x);
        count_word(temp, v.y);
        count_word(temp, v.z);
        count_word(temp, v.w);
    }
    for (size_t i = count * 16 + first; i < size; i += stride) /* the last 0 to 15 bytes */
        atomicAdd(&temp[buffer[i]], 1);
    __syncthreads(); /* every thread has counted */
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x)
        if (temp[bin])
            atomicAdd(&histo[bin], temp[bin]);
}

/* (2) and (3) in one block of BINS threads, thread v for brightness v. The
 * scan is cub::BlockScan's: 256 numbers are one block's work, where
 * cub::DeviceScan would launch kernels of its own and need scratch memory.
 * Its algorithm BLOCK_SCAN_WARP_SCANS "can often provide lower turnaround
 * latencies when the GPU is under-occupied" (CUB's BlockScanAlgorithm), as
 * one block leaves it.
 * The sums are 64-bit, so that the table's arithmetic below is exact for any
 * input up to 4 GiB: (cdf - cdf_min) x 510 needs 41 bits there. */
typedef cub::BlockScan<unsigned long long, BINS, cub::BLOCK_SCAN_WARP_SCANS> BinScan;

__global__ void table_kernel(const unsigned int *histo, unsigned long long pixels,
                             unsigned char *table)
{
    __shared__ typename BinScan::TempStorage scan_space;
    __shared__ unsigned long long cdf_min;
    unsigned int v = threadIdx.x;
    unsigned long long count = histo[v], cdf;
    if (v == 0)
        cdf_min = 0; /* stays 0 for an empty input */
    __syncthreads();
    BinScan(scan_space).InclusiveSum(count, cdf); /* cdf: the pixels of brightness v or darker */
    if (count && cdf == count)
        cdf_min = cdf; /* the darkest brightness present: one thread, nothing darker */
    __syncthreads();
    /* The usual formula, round((cdf - cdf_min) x 255 / (pixels - cdf_min)),
     * rounding halves up, in integers. The darkest brightness present becomes
     * 0, the brightest 255; cdf <= pixels keeps every entry at most 255. */
    unsigned long long spread = pixels - cdf_min; /* the pixels brighter than the darkest */
    if (spread == 0)
        table[v] = (unsigned char)v; /* one brightness only (or none): nothing to spread */
    else if (cdf <= cdf_min)
        table[v] = 0;
    else
        table[v] = (unsigned char)((2 * 255 * (cdf - cdf_min) + spread) / (2 * spread));
}

/* Four bytes of a word, each through the table. */
__device__ __forceinline__ unsigned int remap_word(const unsigned char *lookup, unsigned int word)
{
    return (unsigned int)lookup[word & 0xff] | (unsigned int)lookup[(word >> 8) & 0xff] << 8 |
           (unsigned int)lookup[(word >> 16) & 0xff] << 16 | (unsigned int)lookup[word >> 24] << 24;
}

/* (4) Every byte through the table, 16 at a time. Each block copies the
 * 256-byte table into shared memory first: 64 words, so a warp's 32 lookups
 * find at most two different words in one bank, where a table of 256 ints
 * would have eight (32 banks of 4-byte words: CUDA C++ Programming Guide,
 * Compute Capabilities, shared memory). */
__global__ void remap_kernel(const unsigned char *buffer, size_t size, const unsigned char *table,
                             unsigned char *image)
{
    __shared__ unsigned char lookup[BINS];
    for (int v = threadIdx.x; v < BINS; v += blockDim.x)
        lookup[v] = table[v];
    __syncthreads(); /* the whole table is in before any thread looks up */
    const uint4 *in = (const uint4 *)buffer;
    uint4 *out = (uint4 *)image;
    size_t count = size / 16, stride = (size_t)blockDim.x * gridDim.x;
    size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (size_t i = first; i < count; i += stride) {
        uint4 v = in[i];
        out[i] = make_uint4(remap_word(lookup, v.x), remap_word(lookup, v.y),
                            remap_word(lookup, v.z), remap_word(lookup, v.w));
    }
    for (size_t i = count * 16 + first; i < size; i += stride) /* the last 0 to 15 bytes */
        image[i] = lookup[buffer[i]];
}

/* ------------------------------------------------- the CPU's answer -- */

/* The CPU's table, written the plain way: the running sum bin by bin, and the
 * darkest brightness present as the first bin that holds a pixel. */
static void cpu_equalize_table(const unsigned int histo[BINS], uint64_t pixels,
                               unsigned char table[BINS])
{
    uint64_t cdf_min = 0, cdf = 0;
    for (int v = 0; v < BINS && cdf_min == 0; v++)
        cdf_min = histo[v];
    for (int v = 0; v < BINS; v++) {
        cdf += histo[v];
        uint64_t spread = pixels - cdf_min;
        if (spread == 0)
            table[v] = (unsigned char)v;
        else if (cdf <= cdf_min)
            table[v] = 0;
        else
            table[v] = (unsigned char)((2 * 255 * (cdf - cdf_min) + spread) / (2 * spread));
    }
}

/* ------------------------------------------------------------- the pipeline -- */

enum { KERNEL_ONLY, END_TO_END }; /* the two timings of a row */

/* The kernel-only runs' buffers, made once for every row, the input in them. */
struct resident {
    unsigned char *buffer, *table, *image;
    unsigned int *histo;
    cudaEvent_t start, stop;
};

struct pipeline {
    const char *name;
    enum step steps;
    const struct input *in;
    struct launch launch; /* of the histogram and the remap; the scan is one block */
    struct resident *dev;
    const struct expected *expected;
    struct made made[2]; /* the last kernel-only run's, the last end-to-end run's */
    char sum[64];        /* the report's sum line */
};

static void launch_pipeline(const struct pipeline *p, const unsigned char *dev_buffer,
                            unsigned int *dev_histo, unsigned char *dev_table,
                            unsigned char *dev_image)
{
    unsigned int blocks = (unsigned int)p->launch.blocks;
    histo_kernel<<<blocks, p->launch.threads>>>(dev_buffer, p->in->size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
    if (p->steps == HISTOGRAM)
        return;
    /* the same stream: it starts when the histogram is done */
    table_kernel<<<1, BINS>>>(dev_histo, p->in->size, dev_table);
    HANDLE_ERROR(cudaGetLastError());
    if (p->steps == TABLE)
        return;
    remap_kernel<<<blocks, p->launch.threads>>>(dev_buffer, p->in->size, dev_table, dev_image);
    HANDLE_ERROR(cudaGetLastError());
}

/* Kernel only: CUDA events around the row's kernels, the input already on the
 * GPU, the bins cleared before the first event. */
static double kernel_only_once(void *context)
{
    struct pipeline *p = (struct pipeline *)context;
    struct resident *dev = p->dev;
    float ms;
    HANDLE_ERROR(cudaMemset(dev->histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventRecord(dev->start, 0));
    launch_pipeline(p, dev->buffer, dev->histo, dev->table, dev->image);
    HANDLE_ERROR(cudaEventRecord(dev->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(dev->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, dev->start, dev->stop));
    return ms;
}

/* End to end, on the host clock: the book's sequence (allocate, copy in,
 * clear the bins, the kernels), then what the row makes for its user comes
 * back: the bins, the table or the image. What comes back only for the check,
 * and the frees, come after the clock stops. */
static double end_to_end_once(void *context)
{
    struct pipeline *p = (struct pipeline *)context;
    struct made *made = &p->made[END_TO_END];
    size_t size = p->in->size, allocated = size ? size : 1;
    unsigned char *dev_buffer, *dev_table = NULL, *dev_image = NULL;
    unsigned int *dev_histo;
    double start = now_ms();
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, allocated));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, p->in->buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, sizeof made->histo));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, sizeof made->histo));
    if (p->steps >= TABLE)
        HANDLE_ERROR(cudaMalloc((void **)&dev_table, BINS));
    if (p->steps == EQUALIZE)
        HANDLE_ERROR(cudaMalloc((void **)&dev_image, allocated));
    launch_pipeline(p, dev_buffer, dev_histo, dev_table, dev_image);
    if (p->steps == HISTOGRAM)
        HANDLE_ERROR(
            cudaMemcpy(made->histo, dev_histo, sizeof made->histo, cudaMemcpyDeviceToHost));
    else if (p->steps == TABLE)
        HANDLE_ERROR(cudaMemcpy(made->table, dev_table, BINS, cudaMemcpyDeviceToHost));
    else
        HANDLE_ERROR(cudaMemcpy(made->image, dev_image, size, cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaMemcpy(made->histo, dev_histo, sizeof made->histo, cudaMemcpyDeviceToHost));
    if (p->steps >= TABLE)
        HANDLE_ERROR(cudaMemcpy(made->table, dev_table, BINS, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    HANDLE_ERROR(cudaFree(dev_table)); /* cudaFree(NULL) does nothing */
    HANDLE_ERROR(cudaFree(dev_image));
    return ms;
}

/* The remap's own floor, for the report's last lines: the input copied to the
 * image's buffer on the GPU (it reads and writes every byte, as the remap
 * does), between events. */
static double copy_once(void *context)
{
    struct pipeline *p = (struct pipeline *)context;
    float ms;
    HANDLE_ERROR(cudaEventRecord(p->dev->start, 0));
    HANDLE_ERROR(
        cudaMemcpyAsync(p->dev->image, p->dev->buffer, p->in->size, cudaMemcpyDeviceToDevice, 0));
    HANDLE_ERROR(cudaEventRecord(p->dev->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(p->dev->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, p->dev->start, p->dev->stop));
    return ms;
}

/* The grid of the histogram and the remap: as many blocks as fit on the GPU
 * at once for both kernels (the occupancy API, as in stage 05), but no more
 * than give each thread one 16-byte piece: every block also clears and
 * merges 256 bins, work that pays only where it has bytes to count. --blocks,
 * --blocks-per-sm and --threads say otherwise. */
static struct launch choose_grid(const struct stage *stage, const struct options *opt,
                                 const struct gpu *gpu, size_t size)
{
    int threads = opt->threads ? opt->threads : 256, histo_per_sm, remap_per_sm;
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&histo_per_sm, histo_kernel, threads, 0));
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&remap_per_sm, remap_kernel, threads, 0));
    int per_sm = histo_per_sm < remap_per_sm ? histo_per_sm : remap_per_sm;
    struct launch launch = choose_launch(stage, opt, gpu, per_sm > 0 ? per_sm : 1, threads);
    long useful = (long)((size / 16 + (size_t)launch.threads - 1) / (size_t)launch.threads);
    if (!opt->blocks && !opt->blocks_per_sm && launch.blocks > useful)
        launch.blocks = useful > 0 ? useful : 1;
    return launch;
}

/* ---------------------------------------------------------------- the check -- */

/* The report's check of a row (a struct values): both of its runs. */
static long wrong_in_row(const void *context, const unsigned int *, const char *, FILE *report)
{
    const struct pipeline *p = (const struct pipeline *)context;
    char what[96];
    snprintf(what, sizeof what, "%s (kernel only)", p->name);
    long wrong = check_made(p->expected, p->steps, &p->made[KERNEL_ONLY], what, report);
    snprintf(what, sizeof what, "%s (end to end)", p->name);
    return wrong + check_made(p->expected, p->steps, &p->made[END_TO_END], what, report);
}

/* ------------------------------------------------------------------- main -- */

enum { OPT_WRITE, OPT_CHART };
static const struct stage_option own_options[] = {
    {"--write", "FILE.bmp", "write the equalized image as a grey 24-bit BMP (with --image only)"},
    {"--chart", "FILE",
     "write what plots/equalize.sh draws: both histograms, the table, and for "
     "--image the brightness before and after"},
    {NULL}};

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "09_equalize",
        .program = "hist_gpu_equalize",
        .summary = "histogram equalization: histogram, scan, table, remap",
        .gpu = true,
        .help = "Each row runs the pipeline one step further: histogram; histogram+scan+table "
                "(the table made from the running sum); equalize (every byte through the "
                "table). --blocks, --blocks-per-sm and --threads set the grid of the histogram "
                "and the remap; the scan is one block of 256 threads. Generated data and --file "
                "are equalized as bytes: without a width they make no picture to --write.",
        .options = own_options,
        .launch_default = "as many blocks as fit on the GPU at once, but at most one 16-byte "
                          "piece of input per thread; 256 threads",
        .image_means = "equalize a BMP's brightness (e.g. data/chelsea.bmp)"};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *write_path = opt.stage_values[OPT_WRITE], *chart_path = opt.stage_values[OPT_CHART];
    if (write_path && opt.data != DATA_IMAGE)
        usage_error(&stage, "--write needs --image: other inputs have no width and height");
    check_writable(&stage, "--write", write_path);
    check_writable(&stage, "--chart", chart_path);
    struct gpu gpu = open_gpu(&stage);
    struct input in = make_input(&stage, &opt);
    require_gpu_memory(&stage, 2 * in.size); /* the input and the equalized image */

    /* What the CPU says every row must make, before any GPU work. */
    struct expected expected = {};
    expected.in = &in;
    cpu_histogram(in.buffer, in.size, expected.histo);
    cpu_equalize_table(expected.histo, in.size, expected.table);
    for (int v = 0; v < BINS; v++)
        expected.after[expected.table[v]] += expected.histo[v];

    /* The yardstick first, over the same bytes and timed the same way. */
    unsigned int read_xor[2][BINS];
    struct launch read_launch = {read_blocks(&gpu, in.size, 256), 256};
    struct gpu_times read_times = time_gpu_histogram(&stage, &opt, &in, read_launch, launch_read,
                                                     NULL, read_xor[0], read_xor[1]);
    if (read_xor[0][0] != cpu_xor(in.buffer, in.size) || read_xor[1][0] != read_xor[0][0])
        fail("the read-bandwidth kernel did not read every byte (its XOR is wrong)");

    struct launch launch = choose_grid(&stage, &opt, &gpu, in.size);
    struct resident dev;
    struct pipeline rows[] = {
        {"histogram", HISTOGRAM}, {"histogram+scan+table", TABLE}, {"equalize", EQUALIZE}};
    const int count = (int)(sizeof rows / sizeof rows[0]);
    HANDLE_ERROR(cudaMalloc((void **)&dev.buffer, in.size ? in.size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&dev.image, in.size ? in.size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&dev.histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev.table, BINS));
    HANDLE_ERROR(cudaEventCreate(&dev.start));
    HANDLE_ERROR(cudaEventCreate(&dev.stop));
    HANDLE_ERROR(cudaMemcpy(dev.buffer, in.buffer, in.size, cudaMemcpyHostToDevice));
    double kernel_ms[3];
    for (int r = 0; r < count; r++) {
        struct pipeline *p = &rows[r];
        p->in = &in;
        p->launch = launch;
        p->dev = &dev;
        p->expected = &expected;
        for (int k = 0; k < 2 && p->steps == EQUALIZE; k++)
            p->made[k].image = (unsigned char *)checked_malloc(in.size);
        kernel_ms[r] = median_ms(kernel_only_once, p, opt.reps);
        struct made *m = &p->made[KERNEL_ONLY];
        HANDLE_ERROR(cudaMemcpy(m->histo, dev.histo, sizeof m->histo, cudaMemcpyDeviceToHost));
        if (p->steps >= TABLE)
            HANDLE_ERROR(cudaMemcpy(m->table, dev.table, BINS, cudaMemcpyDeviceToHost));
        if (p->steps == EQUALIZE)
            HANDLE_ERROR(cudaMemcpy(m->image, dev.image, in.size, cudaMemcpyDeviceToHost));
    }
    /* The remap's floor, a copy of the bytes, for the lines after the report. */
    bool explain = !opt.csv && !opt.print_bins;
    double copy_ms = explain ? median_ms(copy_once, &rows[count - 1], opt.reps) : 0;
    HANDLE_ERROR(cudaFree(dev.buffer)); /* so that end to end has the memory to itself */
    HANDLE_ERROR(cudaFree(dev.image));
    HANDLE_ERROR(cudaFree(dev.histo));
    HANDLE_ERROR(cudaFree(dev.table));
    HANDLE_ERROR(cudaEventDestroy(dev.start));
    HANDLE_ERROR(cudaEventDestroy(dev.stop));

    struct result results[4] = {{.impl = "read-bandwidth",
                                 .device = gpu.name,
                                 .blocks = read_launch.blocks,
                                 .threads = read_launch.threads,
                                 .kernel_ms = read_times.kernel_ms,
                                 .total_ms = read_times.total_ms}}; /* no histogram: the floor */
    struct values checks[3];
    for (int r = 0; r < count; r++) {
        struct pipeline *p = &rows[r];
        double total_ms = median_ms(end_to_end_once, p, opt.reps);
        snprintf(p->sum, sizeof p->sum, "Histogram Sum: %llu",
                 (unsigned long long)histogram_sum(p->made[END_TO_END].histo));
        /* the report checks a row with check_made: its bins, and what it made of them */
        checks[r] = {1, wrong_in_row, print_count, p->sum, p};
        results[r + 1] = {.impl = p->name,
                          .device = gpu.name,
                          .blocks = launch.blocks,
                          .threads = launch.threads,
                          .kernel_ms = kernel_ms[r],
                          .total_ms = total_ms,
                          .histo = p->made[END_TO_END].histo,
                          .values = &checks[r]};
    }
    int status = report_results(&stage, &opt, &in, results, count + 1);

    const struct pipeline *equalize = &rows[count - 1];
    if (explain) { /* what the table's % leaves out: equalize moves three times the bytes */
        double equalize_floor = read_times.kernel_ms + copy_ms, equalize_ms = kernel_ms[count - 1];
        printf("bytes:      %zu; the histogram rows read them once, equalize reads them twice\n"
               "            and writes them once, so the table's %% (of one read) is not its own.\n"
               "            Its floor: read-bandwidth, %.4f ms, and a copy of the bytes on the\n"
               "            GPU, %.4f ms: %.4f ms; equalize runs at %.1f%% of it\n",
               in.size, read_times.kernel_ms, copy_ms, equalize_floor,
               equalize_ms > 0 ? 100 * equalize_floor / equalize_ms : 0.0);
    }
    if (status == EXIT_OK && write_path)
        write_equalized(write_path, &in, equalize->made[END_TO_END].image);
    if (status == EXIT_OK && chart_path)
        write_chart(chart_path, &in, gpu.name, &equalize->made[END_TO_END], expected.after);
    if (explain && status == EXIT_OK && (write_path || chart_path))
        printf("wrote:      %s%s%s\n", write_path ? write_path : "",
               write_path && chart_path ? ", " : "", chart_path ? chart_path : "");
    for (int k = 0; k < 2; k++)
        free(rows[count - 1].made[k].image);
    free_input(&in);
    return status;
}
