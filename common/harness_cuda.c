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

/* ---------------------------------------------- what a program needs here -- */

/* What each CUDA major version asks of the machine. driver_branch: the oldest
 * driver that runs a program built with any of its minor versions (minor
 * version compatibility, Table 1 of
 * https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).
 * oldest_cc: the oldest compute capability its nvcc builds for (nvcc
 * --list-gpu-arch; CUDA 13.0 dropped 5.0 to 7.2, as its release notes say:
 * https://docs.nvidia.com/cuda/archive/13.0.0/pdf/CUDA_Toolkit_Release_Notes.pdf). */
static const struct {
    int cuda_major, driver_branch, oldest_cc;
} cuda_majors[] = {{11, 450, 35}, {12, 525, 50}, {13, 580, 75}};
#define CUDA_MAJORS ((int)(sizeof cuda_majors / sizeof cuda_majors[0]))

static int driver_branch_for(int cuda_major)
{
    for (int i = 0; i < CUDA_MAJORS; i++)
        if (cuda_majors[i].cuda_major == cuda_major)
            return cuda_majors[i].driver_branch;
    return 0;
}

static int oldest_cc_built_by(int cuda_major)
{
    for (int i = 0; i < CUDA_MAJORS; i++)
        if (cuda_majors[i].cuda_major == cuda_major)
            return cuda_majors[i].oldest_cc;
    return 0;
}

/* CUDA's version numbers in words: 12040 is "12.4". */
static void version_text(int version, char *text, size_t len)
{
    snprintf(text, len, "%d.%d", version / 1000, version % 1000 / 10);
}

/* A compute capability x 10 in words: 86 is "8.6", 100 is "10.0". */
static void cc_text(int cc, char *text, size_t len)
{
    snprintf(text, len, "%d.%d", cc / 10, cc % 10);
}

/* What a build was made for, in words: "750,800,900" (__CUDA_ARCH_LIST__,
 * 100 x the compute capability) is "compute capabilities 7.5, 8.0 and 9.0". */
static void archs_text(const char *archs, char *text, size_t len)
{
    int cc[32], count = 0;
    for (const char *p = archs ? archs : ""; *p && count < 32;) {
        char *end;
        long arch = strtol(p, &end, 10);
        if (end == p)
            break;
        cc[count++] = (int)(arch / 10);
        p = *end == ',' ? end + 1 : end;
    }
    if (count == 0) {
        snprintf(text, len, "other GPUs");
        return;
    }
    size_t used = (size_t)snprintf(text, len, "compute capabilit%s", count > 1 ? "ies" : "y");
    for (int i = 0; i < count && used < len; i++) {
        char one[16];
        cc_text(cc[i], one, sizeof one);
        used += (size_t)snprintf(text + used, len - used, "%s%s",
                                 i == 0           ? " "
                                 : i == count - 1 ? " and "
                                                  : ", ",
                                 one);
    }
}

const char *why_cuda_cannot_run(const struct cuda_facts *f, char *why, size_t why_len)
{
    char driver[16], runtime[16], cc[16], needs[16], built[256];
    int runtime_major = f->runtime_version / 1000;
    version_text(f->driver_version, driver, sizeof driver);
    version_text(f->runtime_version, runtime, sizeof runtime);

    /* A driver of the same major version runs the program (minor version
     * compatibility); one of an older major version does not. No driver at
     * all (0) is for the device count to say. */
    if (f->driver_version > 0 && f->driver_version / 1000 < runtime_major) {
        int branch = driver_branch_for(runtime_major);
        if (branch)
            snprintf(why, why_len,
                     "the NVIDIA driver supports CUDA %s, this program was built with CUDA %s: "
                     "update the driver to %d or newer",
                     driver, runtime, branch);
        else
            snprintf(why, why_len,
                     "the NVIDIA driver supports CUDA %s, this program was built with CUDA %s: "
                     "update the driver to one for CUDA %d.0 or newer",
                     driver, runtime, runtime_major);
        return why;
    }
    if (!f->gpu)
        return NULL;

    char for_what[128] = "";
    cc_text(f->cc, cc, sizeof cc);
    cc_text(f->needs_cc, needs, sizeof needs);
    if (f->needs_for)
        snprintf(for_what, sizeof for_what, " (for %s)", f->needs_for);
    if (f->needs_cc && f->cc < f->needs_cc) {
        snprintf(why, why_len, "this program needs compute capability %s or later%s; %s has %s",
                 needs, for_what, f->gpu, cc);
        return why;
    }
    if (f->code == cudaSuccess) {
        /* The GPU has what the program needs, but the code the driver found
         * for it may be for an older one, without it: a kernel compiled for
         * compute_80 cannot use what 9.0 brings. */
        if (f->needs_cc && f->code_cc < f->needs_cc) {
            char code_cc[16];
            cc_text(f->code_cc, code_cc, sizeof code_cc);
            snprintf(why, why_len,
                     "this program needs code compiled for compute capability %s or later%s, "
                     "and this build's code for %s was compiled for %s: rebuild with make "
                     "CUDA_ARCH=%d",
                     needs, for_what, f->gpu, code_cc, f->cc);
            return why;
        }
        return NULL;
    }

    switch (f->code) { /* the answers that mean: no code here that this GPU can run */
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction: /* older CUDA's word for it: the kernel asked of exists */
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorJitCompilationDisabled:
    case cudaErrorJitCompilerNotFound:
        break;
    default:
        return NULL;
    }
    archs_text(f->archs, built, sizeof built);
    int oldest = oldest_cc_built_by(runtime_major);
    if (oldest && f->cc < oldest) {
        char oldest_text[16];
        cc_text(oldest, oldest_text, sizeof oldest_text);
        snprintf(why, why_len,
                 "%s (compute capability %s) is older than any GPU CUDA %s builds for "
                 "(compute capability %s and later)",
                 f->gpu, cc, runtime, oldest_text);
    } else if (f->code == cudaErrorUnsupportedPtxVersion) {
        /* The driver would have to compile the program's PTX, and that PTX is
         * newer than the driver's compiler (the driver is older than the
         * runtime, which minor version compatibility allows otherwise). */
        snprintf(why, why_len,
                 "the NVIDIA driver supports CUDA %s, too old to compile the PTX that CUDA %s made "
                 "of this program, built for %s, into code for %s (compute capability %s): "
                 "update the driver, or rebuild with make CUDA_ARCH=%d",
                 driver, runtime, built, f->gpu, cc, f->cc);
    } else if (f->code == cudaErrorJitCompilationDisabled ||
               f->code == cudaErrorJitCompilerNotFound) {
        snprintf(why, why_len,
                 "this program, built for %s, has only PTX for %s (compute capability %s), and "
                 "the driver cannot compile it here (%s): rebuild with make CUDA_ARCH=%d",
                 built, f->gpu, cc,
                 f->code == cudaErrorJitCompilationDisabled ? "CUDA_DISABLE_PTX_JIT is set"
                                                            : "its PTX compiler is missing",
                 f->cc);
    } else {
        snprintf(why, why_len,
                 "this program has no code for %s (compute capability %s): it was built for %s "
                 "(%s): rebuild with make CUDA_ARCH=%d",
                 f->gpu, cc, built, cudaGetErrorName(f->code), f->cc);
    }
    return why;
}

void cannot_run(const struct stage *stage, const char *why)
{
    fprintf(stderr, "%s: cannot run here: %s\n", stage->program, why);
    exit(EXIT_CANNOT_RUN);
}

struct gpu open_cuda_gpu(const struct stage *stage, const struct cuda_build *build)
{
    struct cuda_facts facts = {
        .archs = build->archs, .needs_cc = build->needs_cc, .needs_for = build->needs_for};
    char why[768];
    /* The versions first: where the driver is too old, the device count
     * fails too, and says less. */
    if (cudaDriverGetVersion(&facts.driver_version) != cudaSuccess)
        facts.driver_version = 0; /* no driver: the count says so next */
    HANDLE_ERROR(cudaRuntimeGetVersion(&facts.runtime_version));
    if (why_cuda_cannot_run(&facts, why, sizeof why))
        cannot_run(stage, why);

    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        snprintf(why, sizeof why, "no CUDA device (%s)",
                 err == cudaErrorInsufficientDriver
                     ? "no NVIDIA driver, or one older than this program's CUDA runtime"
                 : err != cudaSuccess ? cudaGetErrorString(err)
                                      : "the driver reports none");
        cannot_run(stage, why);
    }
    struct gpu gpu = {0};
    struct cudaDeviceProp prop;
    HANDLE_ERROR(cudaGetDeviceProperties(&prop, gpu.id));
    HANDLE_ERROR(cudaSetDevice(gpu.id));
    snprintf(gpu.name, sizeof gpu.name, "%s", prop.name);
    gpu.sm_count = prop.multiProcessorCount;
    gpu.max_threads_per_block = prop.maxThreadsPerBlock;
    gpu.max_blocks = prop.maxGridSize[0];

    /* Whether the driver has code for this GPU in the program, asked of one
     * of its kernels before any launch: machine code for it, or PTX that the
     * driver compiles for it now (then cached). */
    struct cudaFuncAttributes code;
    facts.gpu = gpu.name;
    facts.cc = prop.major * 10 + prop.minor;
    facts.code = cudaFuncGetAttributes(&code, build->kernel);
    facts.code_cc = facts.code == cudaSuccess ? code.ptxVersion : 0;
    if (why_cuda_cannot_run(&facts, why, sizeof why))
        cannot_run(stage, why);
    if (facts.code != cudaSuccess)
        cuda_failed(facts.code, "cudaFuncGetAttributes(&code, build->kernel)", __FILE__, __LINE__);
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
    const unsigned char *dev_buffer;
    unsigned int *dev_histo;
    size_t histo_bytes;
    cudaEvent_t start, stop;
    unsigned int *histo; /* where the end-to-end runs leave their result */
};

static double kernel_only_once(void *context)
{
    struct gpu_run *run = context;
    float ms;
    /* The memset is outside the events: it is not the histogram's work. */
    HANDLE_ERROR(cudaMemset(run->dev_histo, 0, run->histo_bytes));
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
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, run->histo_bytes));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, run->histo_bytes));
    run->launch_histo(run->context, dev_buffer, size, dev_histo, run->launch);
    HANDLE_ERROR(cudaMemcpy(run->histo, dev_histo, run->histo_bytes, cudaMemcpyDeviceToHost));
    double ms = now_ms() - start;
    HANDLE_ERROR(cudaFree(dev_buffer));
    HANDLE_ERROR(cudaFree(dev_histo));
    return ms;
}

size_t shared_memory_per_block(const struct gpu *gpu)
{
    int bytes;
    HANDLE_ERROR(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, gpu->id));
    return (size_t)bytes;
}

void allow_all_shared_memory(const void *kernel, const struct gpu *gpu)
{
    struct cudaFuncAttributes attr;
    HANDLE_ERROR(cudaFuncGetAttributes(&attr, kernel));
    HANDLE_ERROR(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)(shared_memory_per_block(gpu) - attr.sharedSizeBytes)));
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

double time_kernel_only(const struct options *opt, const struct input *in,
                        const unsigned char *dev_buffer, struct launch launch,
                        histo_launcher launch_histo, void *context, unsigned bins,
                        unsigned int *kernel_histo)
{
    struct gpu_run run = {.in = in,
                          .launch = launch,
                          .launch_histo = launch_histo,
                          .context = context,
                          .dev_buffer = dev_buffer,
                          .histo_bytes = (size_t)bins * sizeof(unsigned int)};
    HANDLE_ERROR(cudaEventCreate(&run.start));
    HANDLE_ERROR(cudaEventCreate(&run.stop));
    HANDLE_ERROR(cudaMalloc((void **)&run.dev_histo, run.histo_bytes));
    double ms = median_ms(kernel_only_once, &run, opt->reps);
    HANDLE_ERROR(cudaMemcpy(kernel_histo, run.dev_histo, run.histo_bytes, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(run.dev_histo));
    HANDLE_ERROR(cudaEventDestroy(run.start));
    HANDLE_ERROR(cudaEventDestroy(run.stop));
    return ms;
}

double time_end_to_end(const struct options *opt, const struct input *in, struct launch launch,
                       histo_launcher launch_histo, void *context, unsigned bins,
                       unsigned int *histo)
{
    struct gpu_run run = {.in = in,
                          .launch = launch,
                          .launch_histo = launch_histo,
                          .context = context,
                          .histo_bytes = (size_t)bins * sizeof(unsigned int),
                          .histo = histo};
    return median_ms(end_to_end_once, &run, opt->reps);
}

struct gpu_times time_gpu_histogram(const struct stage *stage, const struct options *opt,
                                    const struct input *in, struct launch launch,
                                    histo_launcher launch_histo, void *context,
                                    unsigned int histo[BINS], unsigned int kernel_histo[BINS])
{
    struct gpu_times times;
    require_gpu_memory(stage, in->size);
    unsigned char *dev_buffer;
    HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev_buffer, in->buffer, in->size, cudaMemcpyHostToDevice));
    times.kernel_ms =
        time_kernel_only(opt, in, dev_buffer, launch, launch_histo, context, BINS, kernel_histo);
    HANDLE_ERROR(cudaFree(dev_buffer)); /* so end to end has the memory to itself */
    times.total_ms = time_end_to_end(opt, in, launch, launch_histo, context, BINS, histo);
    return times;
}
