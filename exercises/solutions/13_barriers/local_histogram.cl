/*
 * local_histogram.cl - stage 04's kernel, a work-group's private histogram in
 * local memory merged into the global bins, with its two barriers and its
 * local atomics put back. The reference solution.
 */

#define BINS 256

__kernel void histo_kernel(__global const uchar *buffer, ulong size, __global uint *histo)
{
    __local uint temp[BINS];
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        temp[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every bin is zero before any work-item counts */

    ulong stride = get_global_size(0); /* ulong, not int: inputs past 2 GiB */
    for (ulong i = get_global_id(0); i < size; i += stride)
        atomic_inc(&temp[buffer[i]]); /* work-items of a group share the bins */
    barrier(CLK_LOCAL_MEM_FENCE);     /* every work-item has counted before the merge */

    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        atomic_add(&histo[bin], temp[bin]); /* other work-groups add to the same bins */
}
