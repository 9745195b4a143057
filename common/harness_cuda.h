/*
 * harness_cuda.h - the harness's CUDA part: finding the GPU, choosing the
 * launch the options ask for, and timing a kernel that a launcher starts.
 * A student need not read it (see harness.h); the host code a lesson is
 * about stays in the stage. C against CUDA's runtime API, so the harness
 * builds without nvcc.
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

/* The first CUDA device, or a one-line reason and exit 77 when there is none. */
struct gpu open_gpu(const struct stage *stage);

/* The book's launch (blocks_per_sm x SMs blocks of threads threads) unless
 * --blocks, --blocks-per-sm or --threads say otherwise; exits 2 for a shape
 * this GPU cannot launch. */
struct launch choose_launch(const struct stage *stage, const struct options *opt,
                            const struct gpu *gpu, int blocks_per_sm, int threads);

/* Fails with a clear message, before cudaMalloc would, when bytes of input
 * cannot fit in the GPU's free memory. */
void require_gpu_memory(const struct stage *stage, size_t bytes);

/* Starts a kernel over dev_buffer into dev_histo (already zeroed). context is
 * the caller's own: whatever its launch needs (a variant, scratch space). */
typedef void (*histo_launcher)(void *context, const unsigned char *dev_buffer, size_t size,
                               unsigned int *dev_histo, struct launch launch);

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

#endif /* HARNESS_CUDA_H */
