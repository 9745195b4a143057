/*
 * harness_cuda.c - harness_cuda.h, and book.h's cuda_failed: plain C against
 * CUDA's runtime API. A student need not read it.
 */
#include "harness_cuda.h"

#include <stdlib.h>
#include <string.h>

void cuda_failed(cudaError_t err, const char *call, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorString(err),
            cudaGetErrorName(err));
    exit(EXIT_FAILED);
}

struct gpu open_gpu(const struct stage *stage)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        const char *why = err == cudaErrorInsufficientDriver
                              ? "no NVIDIA driver, or one older than this program's CUDA runtime"
                          : err != cudaSuccess ? cudaGetErrorString(err)
                                               : "the driver reports none";
        fprintf(stderr, "%s: cannot run here: no CUDA device (%s)\n", stage->program, why);
        exit(EXIT_CANNOT_RUN);
    }
    struct gpu gpu = {0};
    struct cudaDeviceProp prop;
    HANDLE_ERROR(cudaGetDeviceProperties(&prop, gpu.id));
    HANDLE_ERROR(cudaSetDevice(gpu.id));
    snprintf(gpu.name, sizeof gpu.name, "%s", prop.name);
    gpu.sm_count = prop.multiProcessorCount;
    gpu.max_threads_per_block = prop.maxThreadsPerBlock;
    gpu.max_blocks = prop.maxGridSize[0];
    return gpu;
}

struct launch choose_launch(const struct stage *stage, const struct options *opt,
                            const struct gpu *gpu, int blocks_per_sm, int threads)
{
    struct launch launch;
    launch.threads = opt->threads ? opt->threads : threads;
    if (opt->blocks)
        launch.blocks = opt->blocks;
    else
        launch.blocks =
            (long)(opt->blocks_per_sm ? opt->blocks_per_sm : blocks_per_sm) * gpu->sm_count;
    char why[256];
    if (launch.threads > gpu->max_threads_per_block) {
        snprintf(why, sizeof why, "--threads: %.200s takes at most %d threads per block", gpu->name,
                 gpu->max_threads_per_block);
        usage_error(stage, why);
    }
    if (launch.blocks > gpu->max_blocks) {
        snprintf(why, sizeof why, "--blocks: %.200s takes at most %d blocks", gpu->name,
                 gpu->max_blocks);
        usage_error(stage, why);
    }
    return launch;
}

/* What one timed run needs; the device buffers belong to the kernel-only runs. */
struct gpu_run {
    const struct input *in;
    struct launch launch;
    histo_launcher launch_histo;
    void *context; /* the launcher's own */
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    cudaEvent_t start, stop;
    unsigned int *histo; /* where the end-to-end runs leave their result */
};

static double kernel_only_once(void *context)
{
    struct gpu_run *run = context;
    float ms;
    /* The memset is outside the events: it is not the histogram's work. */
    HANDLE_ERROR(cudaMemset(run->dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventRecord(run->start, 0));
    run->launch_histo(run->context, run->dev_buffer, run->in->size, run->dev_histo, run->launch);
    HANDLE_ERROR(cudaEventRecord(run->stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(run->stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, run->start, run->stop));
    return ms;
}

/* The book's sequence, timed on the host clock so that the pageable copy's
 * staging on the CPU is counted too. The frees come after the clock stops,
 * as in the book. */
static double end_to_end_once(void *context)
{
    struct gpu_run *run = context;
    unsigned char *dev_buffer;
    unsigned int *dev_histo;
    size_t size = run->in->size;
    double start = now_ms();
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size ? size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, run->in->buffer, size, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));
    run->launch_histo(run->context, dev_buffer, size, dev_histo, run->launch);
    HANDLE_ERROR(
        cudaMemcpy(run->histo, dev_histo, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    return ms;
}

void require_gpu_memory(const struct stage *stage, size_t bytes)
{
    size_t free_bytes, total_bytes;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes + (1 << 20) > free_bytes) {
        fprintf(stderr,
                "%s: the input (%zu bytes) does not fit in GPU memory: %zu MiB free of %zu MiB\n",
                stage->program, bytes, free_bytes >> 20, total_bytes >> 20);
        exit(EXIT_FAILED);
    }
}

struct gpu_times time_gpu_histogram(const struct stage *stage, const struct options *opt,
                                    const struct input *in, struct launch launch,
                                    histo_launcher launch_histo, void *context,
                                    unsigned int histo[BINS], unsigned int kernel_histo[BINS])
{
    struct gpu_run run = {.in = in,
                          .launch = launch,
                          .launch_histo = launch_histo,
                          .context = context,
                          .histo = histo};
    struct gpu_times times;
    require_gpu_memory(stage, in->size);

    HANDLE_ERROR(cudaEventCreate(&run.start));
    HANDLE_ERROR(cudaEventCreate(&run.stop));
    HANDLE_ERROR(cudaMalloc((void **)&run.dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMalloc((void **)&run.dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMemcpy(run.dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    times.kernel_ms = median_ms(kernel_only_once, &run, opt->reps);
    HANDLE_ERROR(cudaMemcpy(kernel_histo, run.dev_histo, BINS * sizeof(unsigned int),
                            cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(run.dev_buffer)); /* so end to end has the memory to itself */
    HANDLE_ERROR(cudaFree(run.dev_histo));
    HANDLE_ERROR(cudaEventDestroy(run.start));
    HANDLE_ERROR(cudaEventDestroy(run.stop));

    times.total_ms = median_ms(end_to_end_once, &run, opt->reps);
    return times;
}
