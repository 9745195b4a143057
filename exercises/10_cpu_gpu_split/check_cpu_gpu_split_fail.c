/*
 * check_cpu_gpu_split_fail.c - a GPU share that fails on the way. make check
 * builds cpu_gpu_split.cu once more (build/cpu_gpu_split-fail), linked with
 * --wrap=cudaStreamSynchronize, which sends every cudaStreamSynchronize call
 * here first. With CPU_GPU_SPLIT_FAIL=N set, the N-th call waits for the
 * stream as usual and then returns cudaErrorLaunchFailure, as the wait does
 * when something queued on the stream faulted (a kernel's bad address, an Xid,
 * a watchdog); every other call is CUDA's own.
 */
#include <cuda_runtime_api.h>
#include <stdlib.h>

cudaError_t __real_cudaStreamSynchronize(cudaStream_t);
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t);

cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream)
{
    static long calls;
    cudaError_t err = __real_cudaStreamSynchronize(stream);
    const char *fail = getenv("CPU_GPU_SPLIT_FAIL");
    if (err == cudaSuccess && fail && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == atol(fail))
        return cudaErrorLaunchFailure;
    return err;
}
