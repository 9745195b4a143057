/*
 * check_pinned_streams_refuse.c - memory that cannot be page-locked. make check
 * builds pinned_streams.cu once more (build/pinned_streams-refuse), linked with
 * --wrap for each of the runtime's three ways to page-lock host memory
 * (cudaHostAlloc, cudaMallocHost, cudaHostRegister), which sends every such
 * call here first, whichever a solution uses. With PINNED_STREAMS_REFUSE=N
 * set, the N-th of those calls, counted together, locks nothing and returns
 * cudaErrorMemoryAllocation, as when the host cannot lock that much memory
 * (a low RLIMIT_MEMLOCK, a container's cap, a size near the host's memory);
 * every other call goes on to CUDA as usual. The same build also wraps
 * cudaMemcpyAsync and cudaFreeHost: with PINNED_STREAMS_FAIL_COPY=N (or
 * PINNED_STREAMS_FAIL_FREE=N) the N-th such call does its work as usual and
 * then returns cudaErrorLaunchFailure, as a call does that reports an
 * earlier fault of the GPU's work, and says so on stderr with the line
 * INJECTED_LINE, so that the check can tell a program that never made that
 * call from one that ignored its error.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define INJECTED_LINE "check: an injected failure was returned here\n"

cudaError_t __real_cudaHostAlloc(void **, size_t, unsigned int);
cudaError_t __real_cudaMallocHost(void **, size_t);
cudaError_t __real_cudaHostRegister(void *, size_t, unsigned int);
cudaError_t __wrap_cudaHostAlloc(void **, size_t, unsigned int);
cudaError_t __wrap_cudaMallocHost(void **, size_t);
cudaError_t __wrap_cudaHostRegister(void *, size_t, unsigned int);
cudaError_t __real_cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t __wrap_cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaFreeHost(void *);
cudaError_t __wrap_cudaFreeHost(void *);

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

/* Whether this call, the next of those counted by calls, is the one the
 * environment's variable names. */
static int fails_now(long *calls, const char *variable)
{
    const char *fail = getenv(variable);
    if (!fail || __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST) != atol(fail))
        return 0;
    fputs(INJECTED_LINE, stderr);
    return 1;
}

cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    static long calls;
    cudaError_t err = __real_cudaMemcpyAsync(dst, src, count, kind, stream);
    if (err == cudaSuccess && fails_now(&calls, "PINNED_STREAMS_FAIL_COPY"))
        return cudaErrorLaunchFailure;
    return err;
}

cudaError_t __wrap_cudaFreeHost(void *host)
{
    static long calls;
    cudaError_t err = __real_cudaFreeHost(host);
    if (err == cudaSuccess && fails_now(&calls, "PINNED_STREAMS_FAIL_FREE"))
        return cudaErrorLaunchFailure;
    return err;
}
