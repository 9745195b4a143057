/*
 * histogram.cl - stage 03's kernel in OpenCL C. A work-group is a CUDA block,
 * a work-item a thread, __local memory is shared memory, barrier() is
 * __syncthreads(). The host program (hist_opencl.c) builds this file at run
 * time, for whichever device it chose. Stage 02's kernel is at the end, for
 * --variant global-atomics: with it, a machine without a GPU can time the
 * step from chapter 02 to chapter 03 itself.
 */

#define BINS 256

__kernel void histo_kernel(__global const uchar *buffer, ulong size, __global uint *histo)
{
    __local uint temp[BINS];
    /* Zero and merge with a stride of the work-group size: the OpenCL book's
     * merge strides by the global size instead, which leaves bins out of the
     * total whenever a work-group has fewer than 256 work-items. */
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        temp[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every bin is zero before any work-item counts */

    ulong stride = get_global_size(0); /* ulong, not int: inputs past 2 GiB */
    for (ulong i = get_global_id(0); i < size; i += stride)
        atomic_inc(&temp[buffer[i]]);
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has counted before the merge */

    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        atomic_add(&histo[bin], temp[bin]);
}

/* Stage 02's kernel: one atomic add per byte, straight into the global bins
 * that every work-item of every work-group shares. */
__kernel void histo_global_kernel(__global const uchar *buffer, ulong size, __global uint *histo)
{
    ulong stride = get_global_size(0);
    for (ulong i = get_global_id(0); i < size; i += stride)
        atomic_inc(&histo[buffer[i]]);
}
