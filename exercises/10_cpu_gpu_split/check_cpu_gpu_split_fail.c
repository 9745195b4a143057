/*
 * check_cpu_gpu_split_fail.c - a GPU share that fails on the way. make check
 * builds cpu_gpu_split.cu once more (build/cpu_gpu_split-fail), linked with
 * --wrap for cudaStreamSynchronize, cudaMemcpyAsync and cudaEventSynchronize,
 * which sends every call of those here first. With CPU_GPU_SPLIT_FAIL=N set,
 * the N-th cudaStreamSynchronize waits for the stream as usual and then
 * returns cudaErrorLaunchFailure, as the wait does when something queued on
 * the stream faulted (a kernel's bad address, an Xid, a watchdog). With
 * CPU_GPU_SPLIT_FAIL_COPY=N the N-th cudaMemcpyAsync is queued as usual and
 * then returns that error (as a call does that reports an earlier
 * asynchronous fault), and with CPU_GPU_SPLIT_FAIL_EVENT=N the N-th
 * cudaEventSynchronize waits and then returns it. A call made to fail this
 * way says so on stderr, with the line INJECTED_LINE, so that the check can
 * tell a program that never made the N-th call from one that ignored its
 * error. Every other call is CUDA's own.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define INJECTED_LINE "check: an injected failure was returned here\n"

cudaError_t __real_cudaStreamSynchronize(cudaStream_t);
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t);
cudaError_t __real_cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t __wrap_cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaEventSynchronize(cudaEvent_t);
cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t);

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

cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream)
{
    static long calls;
    cudaError_t err = __real_cudaStreamSynchronize(stream);
    if (err == cudaSuccess && fails_now(&calls, "CPU_GPU_SPLIT_FAIL"))
        return cudaErrorLaunchFailure;
    return err;
}

cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    static long calls;
    cudaError_t err = __real_cudaMemcpyAsync(dst, src, count, kind, stream);
    if (err == cudaSuccess && fails_now(&calls, "CPU_GPU_SPLIT_FAIL_COPY"))
        return cudaErrorLaunchFailure;
    return err;
}

cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t event)
{
    static long calls;
    cudaError_t err = __real_cudaEventSynchronize(event);
    if (err == cudaSuccess && fails_now(&calls, "CPU_GPU_SPLIT_FAIL_EVENT"))
        return cudaErrorLaunchFailure;
    return err;
}
