/*
 * first_launch - why does stage 03's kernel read slower than the same kernel
 * in stage 05? Stage 03 times its kernel inside the book's sequence: a new
 * cudaMalloc, a copy of 100 MiB from the host, then the launch. Stage 05
 * launches it again and again on one buffer. This probe times the same kernel
 * (stage 03's histo_kernel, included from the stage) after five different
 * histories, so that each candidate cause is changed alone:
 *
 *   book        new cudaMalloc, copy in from the host, launch   (stage 03)
 *   again       launch again at once, same buffer               (stage 05)
 *   recopy      copy in from the host again, same buffer, launch
 *   idle        GPU idle for as long as that copy takes, same buffer, launch
 *   new-buffer  new cudaMalloc, filled on the GPU (device-to-device copy), launch
 *
 * book vs recopy: a buffer used for the first time; recopy vs idle: the copy
 * itself; idle vs again: an idle GPU before the launch; new-buffer vs again:
 * a new buffer without any host copy. Kernel time from CUDA events, median of
 * --reps rounds, each round doing the five in the order above.
 *
 *   03_shared_atomics/probe/run.sh      (builds it and runs it; see there)
 */
#define main stage_main /* the stage's kernel, without its main */
#include "../hist_gpu_shmem_atomics.cu"
#undef main

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BOOK, AGAIN, RECOPY, IDLE, NEW_BUFFER, HISTORIES, MAX_REPS = 101 };
static const char *const history_names[HISTORIES] = {"book", "again", "recopy", "idle",
                                                     "new-buffer"};

/* One timed launch of histo_kernel over dev_buffer, in milliseconds. */
static float timed_launch(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                          unsigned int blocks, unsigned int threads)
{
    cudaEvent_t start, stop;
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    HANDLE_ERROR(cudaMemset(dev_histo, 0, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaEventRecord(start, 0));
    histo_kernel<<<blocks, threads>>>(dev_buffer, size, dev_histo);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaEventRecord(stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(stop));
    float ms;
    HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    return ms;
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)((ms - 1000 * (time_t)(ms / 1000)) * 1e6)};
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    int blocks_per_sm = argc > 1 ? atoi(argv[1]) : 8, reps = argc > 2 ? atoi(argv[2]) : 21;
    if (argc > 3 || blocks_per_sm < 1 || blocks_per_sm > 64 || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "usage: first_launch [BLOCKS_PER_SM 1-64 [REPS 1-%d]]\n", MAX_REPS);
        return 2;
    }
    const size_t size = 100u << 20; /* the book's 100 MiB of random bytes */
    int device = 0, sms;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        fprintf(stderr, "first_launch: cannot run here: no CUDA device\n");
        return 77;
    }
    unsigned int blocks = (unsigned int)(blocks_per_sm * sms), threads = 256;
    unsigned char *buffer = big_random_block(size, 1);
    unsigned int *dev_histo, histo[BINS];
    unsigned char *dev_buffer, *dev_source;
    HANDLE_ERROR(cudaMalloc((void **)&dev_histo, BINS * sizeof(unsigned int)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_source, size));
    HANDLE_ERROR(cudaMemcpy(dev_source, buffer, size, cudaMemcpyHostToDevice));
    float ms[HISTORIES][MAX_REPS];

    for (int r = 0; r <= reps; r++) { /* round 0 is a warm-up, not kept */
        int k = r - 1;
        float t[HISTORIES];
        HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size));
        HANDLE_ERROR(cudaMemcpy(dev_buffer, buffer, size, cudaMemcpyHostToDevice));
        t[BOOK] = timed_launch(dev_buffer, size, dev_histo, blocks, threads);
        t[AGAIN] = timed_launch(dev_buffer, size, dev_histo, blocks, threads);
        double copy_start = now_ms();
        HANDLE_ERROR(cudaMemcpy(dev_buffer, buffer, size, cudaMemcpyHostToDevice));
        double copy_ms = now_ms() - copy_start;
        t[RECOPY] = timed_launch(dev_buffer, size, dev_histo, blocks, threads);
        sleep_ms(copy_ms);
        t[IDLE] = timed_launch(dev_buffer, size, dev_histo, blocks, threads);
        HANDLE_ERROR(cudaFree(dev_buffer));
        HANDLE_ERROR(cudaMalloc((void **)&dev_buffer, size));
        HANDLE_ERROR(cudaMemcpy(dev_buffer, dev_source, size, cudaMemcpyDeviceToDevice));
        t[NEW_BUFFER] = timed_launch(dev_buffer, size, dev_histo, blocks, threads);
        /* every launch must have counted every byte: check the last one */
        HANDLE_ERROR(cudaMemcpy(histo, dev_histo, sizeof histo, cudaMemcpyDeviceToHost));
        if (verify_histogram(buffer, size, histo, "first_launch", stderr) != 0)
            return 1; /* the wrong bins are printed above */
        HANDLE_ERROR(cudaFree(dev_buffer));
        for (int h = 0; h < HISTORIES && k >= 0; h++)
            ms[h][k] = t[h];
    }
    printf("first_launch: histo_kernel of 03_shared_atomics, %u blocks x %u threads, %zu bytes, "
           "median of %d rounds (kernel ms, CUDA events)\n",
           blocks, threads, size, reps);
    printf("%-11s %10s %10s %10s\n", "history", "median", "min", "max");
    for (int h = 0; h < HISTORIES; h++) {
        qsort(ms[h], (size_t)reps, sizeof(float), by_value);
        printf("%-11s %10.4f %10.4f %10.4f\n", history_names[h], ms[h][reps / 2], ms[h][0],
               ms[h][reps - 1]);
    }
    HANDLE_ERROR(cudaFree(dev_source));
    HANDLE_ERROR(cudaFree(dev_histo));
    free(buffer);
    return 0;
}
