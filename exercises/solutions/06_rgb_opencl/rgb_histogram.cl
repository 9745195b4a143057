/*
 * rgb_histogram.cl - the three channel histograms of RGB pixels in one pass:
 * stage 04's kernel with three local histograms, one per channel. The
 * reference solution.
 */

#define BINS 256

/* rgb holds pixels of 3 bytes, R, G, B; histo is three histograms of BINS
 * bins one after the other (red, green, blue), zeroed by the host. */
__kernel void rgb_histo_kernel(__global const uchar *rgb, ulong pixels, __global uint *histo)
{
    /* 3 KiB of local memory per work-group: three histograms, not one of 768
     * bins, so that each channel's index is its byte, as in stage 04. */
    __local uint red[BINS], green[BINS], blue[BINS];
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0)) {
        red[bin] = 0;
        green[bin] = 0;
        blue[bin] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every bin is zero before any work-item counts */

    /* One work-item per pixel at a time: its three bytes sit side by side. */
    ulong stride = get_global_size(0); /* ulong: 3 x pixels passes 2 GiB long before 4 GiB */
    for (ulong p = get_global_id(0); p < pixels; p += stride) {
        atomic_inc(&red[rgb[3 * p]]);
        atomic_inc(&green[rgb[3 * p + 1]]);
        atomic_inc(&blue[rgb[3 * p + 2]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has counted before the merge */

    /* Each channel goes to its own third of the global bins. */
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0)) {
        atomic_add(&histo[bin], red[bin]);
        atomic_add(&histo[BINS + bin], green[bin]);
        atomic_add(&histo[2 * BINS + bin], blue[bin]);
    }
}
