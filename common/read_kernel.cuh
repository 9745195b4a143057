/*
 * read_kernel.cuh - the yardstick every GPU measurement is set against: a
 * kernel that reads the input once and does nothing else. A 256-bin byte
 * histogram must read each byte once and writes almost nothing, so no
 * histogram kernel can be faster. Used by plots/read_bandwidth (make bench)
 * and by 05_privatized, which shows each variant as a % of it.
 *
 * It reads 16 bytes at a time, four loads in flight per thread, and XORs the
 * 32-bit words together so that the compiler cannot drop the reads; the XOR
 * is checked against cpu_xor. One global atomic per block, and fewer blocks
 * for small inputs (read_blocks), so that its own bookkeeping stays negligible.
 */
#ifndef READ_KERNEL_CUH
#define READ_KERNEL_CUH

#include "harness_cuda.h"

__global__ void read_kernel(const unsigned char *buffer, size_t size, unsigned int *result)
{
    __shared__ unsigned int block_xor;
    if (threadIdx.x == 0)
        block_xor = 0;
    __syncthreads();
    const uint4 *vectors = (const uint4 *)buffer; /* cudaMalloc aligns to 256 bytes */
    size_t count = size / sizeof(uint4);
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)blockDim.x * gridDim.x;
    unsigned int x = 0;
    for (; i + 3 * stride < count; i += 4 * stride) { /* four independent loads in flight */
        uint4 a = vectors[i], b = vectors[i + stride], c = vectors[i + 2 * stride],
              d = vectors[i + 3 * stride];
        x ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^
             d.z ^ d.w;
    }
    for (; i < count; i += stride) {
        uint4 a = vectors[i];
        x ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) /* the last 0 to 15 bytes */
        for (size_t j = count * sizeof(uint4); j < size; j++)
            x ^= (unsigned int)buffer[j] << (8 * (j % 4));
    /* One global atomic per block, so that even a small input is not slowed
     * down by its own bookkeeping: this kernel must be the floor. */
    atomicXor(&block_xor, x);
    __syncthreads();
    if (threadIdx.x == 0)
        atomicXor(result, block_xor);
}

/* A histo_launcher (harness_cuda.h), so that the harness times it as it
 * times a histogram; it needs no context. */
static inline void launch_read(void *, const unsigned char *dev_buffer, size_t size,
                               unsigned int *dev_result, struct launch launch)
{
    read_kernel<<<(unsigned)launch.blocks, launch.threads>>>(dev_buffer, size, dev_result);
    HANDLE_ERROR(cudaGetLastError());
}

/* The same XOR of little-endian 32-bit words, on the CPU. */
static inline unsigned int cpu_xor(const unsigned char *buffer, size_t size)
{
    unsigned int x = 0;
    for (size_t i = 0; i < size; i++)
        x ^= (unsigned int)buffer[i] << (8 * (i % 4));
    return x;
}

/* Blocks for the yardstick: what fills the GPU, but no more than give each
 * thread four 16-byte loads, or a small input costs more to launch than to read. */
static inline long read_blocks(const struct gpu *gpu, size_t size, int threads)
{
    int per_sm;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel, threads, 0));
    long full = (long)per_sm * gpu->sm_count;
    long useful = (long)((size / 16 + 4 * (size_t)threads - 1) / (4 * (size_t)threads));
    return useful < 1 ? 1 : useful < full ? useful : full;
}

#endif
