/*
 * sort_then_count.cuh - the other way past what one SM holds: sort, then
 * count. Partition (many_bins_kernels.cuh) groups the keys by bucket and
 * counts each bucket on chip. This puts equal bins side by side instead:
 * bins_of_keys writes each key's bin, CUB sorts the bins
 * (cub::DeviceRadixSort::SortKeys), CUB cuts the sorted bins into runs of
 * equal ones (cub::DeviceRunLengthEncode::Encode: each run's bin and length),
 * and runs_to_histo writes each run's length into its bin. Its own kernels
 * have no counters to collide on (CUB's sort does the grouping); the price
 * is traffic.
 *
 * Traffic, n keys of 4 bytes: bins_of_keys reads 4n and writes 4n; CUB's sort
 * reads the bins once to count the digits of every pass, then each pass of 8
 * bits reads and writes them (one pass to 256 bins, two to 65536, three to
 * 2^20); the encode reads them once. 16n + 8n x passes: 24n, 32n, 40n bytes,
 * 6 to 10 times the read floor's 4n, so 17%, 12.5%, 10% of the floor at
 * best, where partition moves 8n (50%). The scratch: two buffers of n bins
 * (8 bytes a key; the sort goes back and forth between them), the runs (at
 * most one per bin), and CUB's temporary storage.
 *
 * For a power-of-two number of bins the bin is the key's top bits, and the
 * sort could take the keys themselves (begin_bit = 32 - log2(bins)) with no
 * bins_of_keys: 8n bytes saved of the 24n to 40n. It is not done. The sorted
 * keys are not bins yet, so the encode would have to see them through a
 * shift (a transform iterator); and the stage would hold two paths, one for
 * powers of two and one for the rest, where the lesson is one: sort the
 * bins, count the runs.
 */
#ifndef SORT_THEN_COUNT_CUH
#define SORT_THEN_COUNT_CUH

/* CUB's headers first: they name a WARP of their own, which the macro in
 * many_bins_kernels.cuh would replace. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include "book.h"
#include "harness_cuda.h"
#include "many_bins_kernels.cuh" /* bin_of */

/* Each key's bin, 16 bytes at a time, then the 0 to 3 keys past the last
 * vector by the first threads of block 0. */
__global__ void bins_of_keys(const unsigned *keys, size_t n, unsigned bins, unsigned *bins_out)
{
    const uint4 *in = (const uint4 *)keys;
    uint4 *out = (uint4 *)bins_out;
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n / 4;
         v += (size_t)blockDim.x * gridDim.x) {
        uint4 k = in[v];
        out[v] =
            make_uint4(bin_of(k.x, bins), bin_of(k.y, bins), bin_of(k.z, bins), bin_of(k.w, bins));
    }
    size_t i = n / 4 * 4 + threadIdx.x;
    if (blockIdx.x == 0 && i < n) /* every launch has 4 threads or more */
        bins_out[i] = bin_of(keys[i], bins);
}

/* Run r holds every key of bin unique[r], as the bins are sorted, so its
 * length is the whole count: a store, not an add. The bins no run holds keep
 * the zero they were given before the launch. */
__global__ void runs_to_histo(const unsigned *unique, const unsigned *counts, const unsigned *runs,
                              unsigned *histo)
{
    unsigned total = *runs; /* written by the encode, on the GPU: the host never waits for it */
    for (unsigned r = blockIdx.x * blockDim.x + threadIdx.x; r < total; r += blockDim.x * gridDim.x)
        histo[unique[r]] = counts[r];
}

/* Everything the strategy needs besides the keys, allocated once. */
struct sort_scratch {
    unsigned *sorted[2];       /* the keys' bins, and the sort's other buffer */
    unsigned *unique, *counts; /* each run's bin and length: at most one run per bin */
    unsigned *runs;            /* how many runs */
    void *temp;                /* CUB's, for the sort and then the encode */
    size_t temp_bytes;
    int end_bit; /* the bits of bins - 1: the only bits a bin has */
};

/* Sizes s for n keys and bins, and returns the bytes it will allocate. n is
 * an int: CUDA 13.0's CUB takes the encode's num_items as an int (the sort's
 * as any integer type), so the caller refuses more keys than INT_MAX. */
static size_t size_sort_scratch(struct sort_scratch *s, int n, unsigned bins)
{
    for (s->end_bit = 0; (bins - 1) >> s->end_bit; s->end_bit++)
        ;
    size_t sort_bytes = 0, encode_bytes = 0;
    cub::DoubleBuffer<unsigned> none(NULL, NULL);
    HANDLE_ERROR(cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, none, n, 0, s->end_bit));
    HANDLE_ERROR(cub::DeviceRunLengthEncode::Encode(NULL, encode_bytes, (unsigned *)NULL,
                                                    (unsigned *)NULL, (unsigned *)NULL,
                                                    (unsigned *)NULL, n));
    s->temp_bytes = sort_bytes > encode_bytes ? sort_bytes : encode_bytes;
    return 2 * 4 * (size_t)n + 2 * 4 * (size_t)bins + 4 + s->temp_bytes;
}

static void allocate_sort_scratch(struct sort_scratch *s, int n, unsigned bins)
{
    size_t keys_bytes = n ? 4 * (size_t)n : 4;
    HANDLE_ERROR(cudaMalloc(&s->temp, s->temp_bytes ? s->temp_bytes : 1));
    HANDLE_ERROR(cudaMalloc((void **)&s->runs, 4));
    HANDLE_ERROR(cudaMalloc((void **)&s->sorted[0], keys_bytes));
    HANDLE_ERROR(cudaMalloc((void **)&s->sorted[1], keys_bytes));
    HANDLE_ERROR(cudaMalloc((void **)&s->unique, 4 * (size_t)bins));
    HANDLE_ERROR(cudaMalloc((void **)&s->counts, 4 * (size_t)bins));
}

static void free_sort_scratch(struct sort_scratch *s)
{
    void *scratch[] = {s->sorted[0], s->sorted[1], s->unique, s->counts, s->runs, s->temp};
    for (void *space : scratch)
        HANDLE_ERROR(cudaFree(space));
}

/* The strategy, one step after another on the default stream: map is
 * bins_of_keys's launch, write runs_to_histo's. The sort leaves the sorted
 * bins in whichever buffer its last pass wrote, which sorted.Current() names. */
static void sort_then_count(const struct sort_scratch *s, const unsigned *keys, int n,
                            unsigned bins, struct launch map, struct launch write, unsigned *histo)
{
    size_t temp_bytes = s->temp_bytes;
    bins_of_keys<<<(unsigned)map.blocks, map.threads>>>(keys, (size_t)n, bins, s->sorted[0]);
    HANDLE_ERROR(cudaGetLastError());
    cub::DoubleBuffer<unsigned> sorted(s->sorted[0], s->sorted[1]);
    HANDLE_ERROR(cub::DeviceRadixSort::SortKeys(s->temp, temp_bytes, sorted, n, 0, s->end_bit));
    HANDLE_ERROR(cub::DeviceRunLengthEncode::Encode(s->temp, temp_bytes, sorted.Current(),
                                                    s->unique, s->counts, s->runs, n));
    runs_to_histo<<<(unsigned)write.blocks, write.threads>>>(s->unique, s->counts, s->runs, histo);
    HANDLE_ERROR(cudaGetLastError());
}

#endif /* SORT_THEN_COUNT_CUH */
