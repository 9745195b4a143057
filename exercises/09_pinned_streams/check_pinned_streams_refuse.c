/*
 * check_pinned_streams_refuse.c - memory that cannot be page-locked. make check
 * builds pinned_streams.cu once more (build/pinned_streams-refuse), linked with
 * --wrap=cudaHostAlloc, which sends every cudaHostAlloc call here first. With
 * PINNED_STREAMS_REFUSE=N set, the N-th call locks nothing and returns
 * cudaErrorMemoryAllocation, as cudaHostAlloc does when the host cannot lock
 * that much memory (a low RLIMIT_MEMLOCK, a container's cap, a size near the
 * host's memory); every other call goes on to CUDA as usual.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>

cudaError_t __real_cudaHostAlloc(void **, size_t, unsigned int);
cudaError_t __wrap_cudaHostAlloc(void **, size_t, unsigned int);

cudaError_t __wrap_cudaHostAlloc(void **host, size_t size, unsigned int flags)
{
    static long calls;
    const char *refuse = getenv("PINNED_STREAMS_REFUSE");
    if (refuse && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == atol(refuse))
        return cudaErrorMemoryAllocation;
    return __real_cudaHostAlloc(host, size, flags);
}
