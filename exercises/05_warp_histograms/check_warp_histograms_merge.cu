/*
 * check_warp_histograms_merge.cu - the check's own kernel for exercise 05's
 * merge (make check builds it beside the program, as warp_histograms-merge):
 * one block of the given threads fills every warp's copy of the bins itself
 * (copy w's bin b holds 1 + (w + b) % 7: never 0), then every thread calls
 * merge_warp_copies with a histogram of its own, so that what each thread
 * added can be told apart. It prints
 *     bins right: N of 256          (the threads' adds, summed, against the copies' sums)
 *     threads that added: N of T    (threads that added to at least one bin)
 *     most bins one thread added: N
 * and exits 0, or 1 on a CUDA error.
 */
#include "book.h"

#include <stdio.h>
#include <stdlib.h>

#define WARP_SIZE 32
/* angle brackets: the yours.cuh of the build (-I), never the one beside this file */
#include <warp_histograms_yours.cuh>

#define CUDA_OR_EXIT(call)                                                                         \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void merge_probe(unsigned int *added)
{
    extern __shared__ unsigned int warp_bins[];
    int warps = blockDim.x / WARP_SIZE;
    for (int i = threadIdx.x; i < warps * BINS; i += blockDim.x)
        warp_bins[i] = 1 + (i / BINS + i % BINS) % 7;
    __syncthreads();
    merge_warp_copies(warp_bins, added + (size_t)threadIdx.x * BINS);
}

int main(int argc, char **argv)
{
    int threads = argc == 2 ? atoi(argv[1]) : 0;
    if (threads < WARP_SIZE || threads > 1024 || threads % WARP_SIZE != 0) {
        fprintf(stderr, "usage: %s THREADS (whole warps, 32 to 1024)\n", argv[0]);
        return 2;
    }
    int warps = threads / WARP_SIZE;
    size_t bytes = (size_t)threads * BINS * sizeof(unsigned int);
    unsigned int *added = (unsigned int *)malloc(bytes), *dev_added;
    if (!added)
        return 1;
    CUDA_OR_EXIT(cudaMalloc((void **)&dev_added, bytes));
    CUDA_OR_EXIT(cudaMemset(dev_added, 0, bytes));
    merge_probe<<<1, threads, (size_t)warps * BINS * sizeof(unsigned int)>>>(dev_added);
    CUDA_OR_EXIT(cudaGetLastError());
    CUDA_OR_EXIT(cudaMemcpy(added, dev_added, bytes, cudaMemcpyDeviceToHost));
    CUDA_OR_EXIT(cudaFree(dev_added));

    int bins_right = 0, adders = 0, most = 0;
    for (int bin = 0; bin < BINS; bin++) {
        unsigned long long want = 0, got = 0;
        for (int w = 0; w < warps; w++)
            want += 1 + (w + bin) % 7;
        for (int t = 0; t < threads; t++)
            got += added[(size_t)t * BINS + bin];
        bins_right += got == want;
    }
    for (int t = 0; t < threads; t++) {
        int bins = 0;
        for (int bin = 0; bin < BINS; bin++)
            bins += added[(size_t)t * BINS + bin] != 0;
        adders += bins > 0;
        most = bins > most ? bins : most;
    }
    printf("bins right: %d of %d\n", bins_right, BINS);
    printf("threads that added: %d of %d\n", adders, threads);
    printf("most bins one thread added: %d\n", most);
    free(added);
    return 0;
}
