/*
 * rgb_histogram.cl - the three channel histograms of RGB pixels in one pass:
 * stage 04's kernel with three local histograms, one per channel. Red is
 * done; green and blue are yours (look for TODO).
 */

#define BINS 256

/* rgb holds pixels of 3 bytes, R, G, B; histo is three histograms of BINS
 * bins one after the other (red, green, blue), zeroed by the host. */
__kernel void rgb_histo_kernel(__global const uchar *rgb, ulong pixels, __global uint *histo)
{
    /* TODO: green and blue. When every work-group is done, histo holds all
     * three channels' counts, each channel in its own third. What holds for
     * red must hold for them: each work-group counts into local memory of its
     * own, one atomic update per byte, and touches histo only to merge; every
     * work-group size works; and each pixel is read once. */
    __local uint red[BINS];
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        red[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every bin is zero before any work-item counts */

    /* One work-item per pixel at a time: its three bytes sit side by side. */
    ulong stride = get_global_size(0); /* ulong: 3 x pixels passes 2 GiB long before 4 GiB */
    for (ulong p = get_global_id(0); p < pixels; p += stride)
        atomic_inc(&red[rgb[3 * p]]);
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has counted before the merge */

    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        atomic_add(&histo[bin], red[bin]);
}
