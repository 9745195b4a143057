/*
 * partitioning.cl - which work-item reads which byte. Both kernels below are
 * stage 04's (a private histogram per work-group in local memory, merged into
 * the global bins); they differ only in the walk each work-item takes over
 * the input, and the two walks are yours (look for TODO). The last two
 * kernels write down what each walk does: show_pattern the bytes it reads
 * (--show-pattern), show_walks its first, step and end at any size
 * (--show-walks); the check reads both.
 */

#define BINS 256

/* Work-item t reads bytes first, first + step, first + 2 x step, ... while
 * they are below end: none at all when first >= end. */
typedef struct {
    ulong first, step, end;
} walk;

/* Interleaved: all the grid's work-items (items of them) move over the
 * input together: at every step, neighbouring items read neighbouring
 * bytes, no byte is read twice, and every byte is read by someone (chapter
 * 03's side paths, "Which thread reads which byte"). Which byte does item t read first,
 * and how far is its next one? */
walk interleaved_walk(ulong size, ulong items, ulong t)
{
    /* TODO: the interleaved walk. For now work-item 0 reads every byte and
     * the others none: the right histogram, and no partitioning at all. */
    walk w = {t == 0 ? 0 : size, 1, size};
    return w;
}

/* Contiguous: item t reads one unbroken slice, the t-th of items slices that
 * together cover all size bytes (any size below 2^63), balanced: none longer
 * than size / items rounded up, except one, which may take the remainder
 * whole (size / items + size % items bytes), the bound the check holds. */
walk contiguous_walk(ulong size, ulong items, ulong t)
{
    /* TODO: the contiguous walk (the same placeholder as above). */
    walk w = {t == 0 ? 0 : size, 1, size};
    return w;
}

/* ---------------------------- no need to edit below: the kernels that use the walks -- */

/* Stage 04's kernel; the loop over the input follows the walk w. */
void count_walk(__global const uchar *buffer, walk w, __local uint *temp, __global uint *histo)
{
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        temp[bin] = 0;
    barrier(CLK_LOCAL_MEM_FENCE); /* every bin is zero before any work-item counts */
    for (ulong i = w.first; i < w.end; i += w.step)
        atomic_inc(&temp[buffer[i]]);
    barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has counted before the merge */
    for (uint bin = get_local_id(0); bin < BINS; bin += get_local_size(0))
        atomic_add(&histo[bin], temp[bin]);
}

__kernel void histo_interleaved(__global const uchar *buffer, ulong size, __global uint *histo)
{
    __local uint temp[BINS];
    count_walk(buffer, interleaved_walk(size, get_global_size(0), get_global_id(0)), temp, histo);
}

__kernel void histo_contiguous(__global const uchar *buffer, ulong size, __global uint *histo)
{
    __local uint temp[BINS];
    count_walk(buffer, contiguous_walk(size, get_global_size(0), get_global_id(0)), temp, histo);
}

/* For a small input: pattern[t * steps + s] is the byte work-item t reads at
 * step s, or size where it reads none; contiguous != 0 picks the walk. */
__kernel void show_pattern(ulong size, uint contiguous, ulong steps, __global ulong *pattern)
{
    ulong t = get_global_id(0), items = get_global_size(0);
    walk w = contiguous ? contiguous_walk(size, items, t) : interleaved_walk(size, items, t);
    ulong s = 0;
    for (ulong i = w.first; i < w.end && s < steps; i += w.step)
        pattern[t * steps + s++] = i;
    while (s < steps)
        pattern[t * steps + s++] = size;
}

/* For --show-walks: walks[3 t], walks[3 t + 1], walks[3 t + 2] are the first,
 * step and end of work-item t's walk over size bytes shared by items
 * work-items, one work-item here per item: the walks alone, at sizes no
 * input could have. */
__kernel void show_walks(ulong size, ulong items, uint contiguous, __global ulong *walks)
{
    ulong t = get_global_id(0);
    walk w = contiguous ? contiguous_walk(size, items, t) : interleaved_walk(size, items, t);
    walks[3 * t] = w.first;
    walks[3 * t + 1] = w.step;
    walks[3 * t + 2] = w.end;
}
