/*
 * harness_cuda.h - the harness's CUDA part: finding the GPU, choosing the
 * launch the options ask for, and timing a kernel that a launcher starts.
 * A student need not read it (see harness.h); the host code a lesson is
 * about stays in the stage. C against CUDA's runtime API, so the harness
 * builds without nvcc; only open_gpu, at the end, is compiled in each .cu
 * file, where it can see what nvcc built that program for.
 */
#ifndef HARNESS_CUDA_H
#define HARNESS_CUDA_H

#include <cuda_runtime_api.h> /* before book.h: HANDLE_ERROR needs it */

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gpu {
    int id;
    char name[256];
    int sm_count;
    int max_threads_per_block;
    int max_blocks; /* the grid's x limit */
};

/* What a CUDA program's own build says of itself, which only its .cu file
 * sees: open_gpu (at the end of this file) fills it in. */
struct cuda_build {
    const void *kernel;    /* a kernel compiled for the program's architectures */
    const char *archs;     /* those architectures, as nvcc's __CUDA_ARCH_LIST__: "750,800,900" */
    int needs_cc;          /* the least compute capability it needs, x 10 (90 for 9.0), or 0 */
    const char *needs_for; /* what needs it, for the message ("thread-block clusters"), or NULL */
};

/* The first CUDA device, or a one-line reason and exit 77 when this program
 * cannot run on it (why_cuda_cannot_run says when). */
struct gpu open_cuda_gpu(const struct stage *stage, const struct cuda_build *build);

/* Says "PROGRAM: cannot run here: why" and exits 77: what a stage does when
 * this GPU or build lacks what one of its strategies needs. */
void cannot_run(const struct stage *stage, const char *why);

/* What open_cuda_gpu has learnt, each as CUDA reports it. */
struct cuda_facts {
    int driver_version;  /* cudaDriverGetVersion: 12040 for CUDA 12.4; 0 for none */
    int runtime_version; /* cudaRuntimeGetVersion: the CUDA this program was built with */
    const char *gpu;     /* the GPU's name, or NULL before there is one */
    int cc;              /* its compute capability, x 10: 86 for 8.6 */
    const char *archs;   /* as in struct cuda_build */
    /* what cudaFuncGetAttributes said of the build's kernel on this GPU: the
     * driver's own word on whether it has code for it that it can load */
    cudaError_t code;
    int code_cc; /* when it did: the architecture that code was compiled for (ptxVersion) */
    int needs_cc;
    const char *needs_for;
};

/* Why this program cannot run here, one sentence written into why, or NULL
 * when it can. Pure: it reads only facts, so that a suite can try every case
 * without a GPU. An error of cudaFuncGetAttributes that says nothing of the
 * build or the driver is not a reason: it returns NULL, and the caller fails. */
const char *why_cuda_cannot_run(const struct cuda_facts *facts, char *why, size_t why_len);

/* The book's launch (blocks_per_sm x SMs blocks of threads threads) unless
 * --blocks, --blocks-per-sm or --threads say otherwise; exits 2 for a shape
 * this GPU cannot launch. */
struct launch choose_launch(const struct stage *stage, const struct options *opt,
                            const struct gpu *gpu, int blocks_per_sm, int threads);

/* The most dynamic shared memory one block may have on this GPU, where its
 * kernel asks for it (cudaDevAttrMaxSharedMemoryPerBlockOptin)... */
size_t shared_memory_per_block(const struct gpu *gpu);

/* ...which a kernel must ask for before a launch that gives it more than
 * 48 KiB: this lets it have all of it, less its static shared memory. */
void allow_all_shared_memory(const void *kernel, const struct gpu *gpu);

/* Fails with a clear message, before cudaMalloc would, when bytes of input
 * cannot fit in the GPU's free memory. */
void require_gpu_memory(const struct stage *stage, size_t bytes);

/* Starts a kernel over dev_buffer into dev_histo (already zeroed). context is
 * the caller's own: whatever its launch needs (a variant, scratch space). */
typedef void (*histo_launcher)(void *context, const unsigned char *dev_buffer, size_t size,
                               unsigned int *dev_histo, struct launch launch);

/* The two honest times of one kernel, each a median over opt->reps after a
 * warm-up, written once for every program (time_gpu_histogram below is both):
 *
 * kernel only: CUDA events around launch_histo, the input already on the GPU
 * at dev_buffer (in->size bytes), its bins counters cleared outside the
 * events; leaves the last run's bins in kernel_histo. */
double time_kernel_only(const struct options *opt, const struct input *in,
                        const unsigned char *dev_buffer, struct launch launch,
                        histo_launcher launch_histo, void *context, unsigned bins,
                        unsigned int *kernel_histo);

/* end to end: the book's sequence on the host clock (allocate, copy in,
 * memset, kernel, copy out; the frees after the clock stops); leaves the last
 * run's bins in histo. */
double time_end_to_end(const struct options *opt, const struct input *in, struct launch launch,
                       histo_launcher launch_histo, void *context, unsigned bins,
                       unsigned int *histo);

/* For programs whose lesson is the kernel, not the host code (05, the
 * yardstick, exercises): times launch_histo the two honest ways, each a
 * median over opt->reps after a warm-up: kernel only (CUDA events around the
 * launch, the input already on the GPU), and end to end (the book's
 * sequence: allocate, copy in, memset, kernel, copy out, on the host clock).
 * Leaves the last end-to-end result in histo and the last kernel-only result
 * in kernel_histo, for report_result to verify. */
struct gpu_times time_gpu_histogram(const struct stage *stage, const struct options *opt,
                                    const struct input *in, struct launch launch,
                                    histo_launcher launch_histo, void *context,
                                    unsigned int histo[BINS], unsigned int kernel_histo[BINS]);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Does nothing. Compiled into each program with its own architectures, it
 * lets open_gpu ask the driver whether it has code for this GPU, without a
 * launch, as CUB asks (cub/util_device.cuh, PtxVersionUncached). */
template <int> __global__ void harness_empty_kernel() {}

#ifdef __CUDA_ARCH_LIST__ /* nvcc's list of the architectures it compiles this file for */
#define HARNESS_TEXT_(...) #__VA_ARGS__
#define HARNESS_TEXT(...)  HARNESS_TEXT_(__VA_ARGS__)
#define CUDA_ARCHS_BUILT   HARNESS_TEXT(__CUDA_ARCH_LIST__)
#else
#define CUDA_ARCHS_BUILT ""
#endif

/* open_gpu for a program that needs more than every GPU it is built for has:
 * compute capability needs_cc / 10 or later, for needs_for. */
static inline struct gpu open_gpu_needing(const struct stage *stage, int needs_cc,
                                          const char *needs_for)
{
    const struct cuda_build build = {(const void *)harness_empty_kernel<0>, CUDA_ARCHS_BUILT,
                                     needs_cc, needs_for};
    return open_cuda_gpu(stage, &build);
}

/* The first CUDA device, or a one-line reason and exit 77: no device or
 * driver, a driver older than the CUDA this program was built with, or a GPU
 * this build has no code for. */
static inline struct gpu open_gpu(const struct stage *stage)
{
    return open_gpu_needing(stage, 0, NULL);
}
#endif

#endif /* HARNESS_CUDA_H */
