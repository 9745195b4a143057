/*
 * local_histogram.cl - a work-group's private histogram in local memory,
 * merged into the global bins, as in chapters 03 and 04; this one has data
 * races. Find them with Oclgrind (make race-report) and fix each with no more
 * than it needs, in the four parts of README.md, *The task*: the races
 * between the kernel's steps first, then PoCL and Oclgrind again, then the
 * rest. Nothing else needs to change.
 */

#define BINS 256

__kernel void histo_kernel(__global const uchar *buffer, ulong size, __global uint *histo)
{
    /* TODO: Oclgrind reports data races in this kernel; make race-report (README, parts 1-4). */
    __local uint temp[BINS];
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        temp[bin] = 0;

    ulong stride = get_global_size(0); /* ulong, not int: inputs past 2 GiB */
    for (ulong i = get_global_id(0); i < size; i += stride)
        temp[buffer[i]]++;

    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        atomic_add(&histo[bin], temp[bin]);
}
