/*
 * check_pinned_streams_refuse.c - memory that cannot be page-locked. make check
 * builds pinned_streams.cu once more (build/pinned_streams-refuse), linked with
 * --wrap for each of the runtime's three ways to page-lock host memory
 * (cudaHostAlloc, cudaMallocHost, cudaHostRegister), which sends every such
 * call here first, whichever a solution uses. With PINNED_STREAMS_REFUSE=N
 * set, the N-th of those calls, counted together, locks nothing and returns
 * cudaErrorMemoryAllocation, as when the host cannot lock that much memory
 * (a low RLIMIT_MEMLOCK, a container's cap, a size near the host's memory);
 * every other call goes on to CUDA as usual.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>

cudaError_t __real_cudaHostAlloc(void **, size_t, unsigned int);
cudaError_t __real_cudaMallocHost(void **, size_t);
cudaError_t __real_cudaHostRegister(void *, size_t, unsigned int);
cudaError_t __wrap_cudaHostAlloc(void **, size_t, unsigned int);
cudaError_t __wrap_cudaMallocHost(void **, size_t);
cudaError_t __wrap_cudaHostRegister(void *, size_t, unsigned int);

/* Whether this page-locking call is the one to refuse. */
static int refused(void)
{
    static long calls;
    const char *refuse = getenv("PINNED_STREAMS_REFUSE");
    return refuse && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == atol(refuse);
}

cudaError_t __wrap_cudaHostAlloc(void **host, size_t size, unsigned int flags)
{
    return refused() ? cudaErrorMemoryAllocation : __real_cudaHostAlloc(host, size, flags);
}

cudaError_t __wrap_cudaMallocHost(void **host, size_t size)
{
    return refused() ? cudaErrorMemoryAllocation : __real_cudaMallocHost(host, size);
}

cudaError_t __wrap_cudaHostRegister(void *host, size_t size, unsigned int flags)
{
    return refused() ? cudaErrorMemoryAllocation : __real_cudaHostRegister(host, size, flags);
}
