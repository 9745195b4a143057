/*
 * many_bins_kernels.cuh - the kernels of 07_many_bins, one per place the
 * counters can live: a copy per warp, per block (32-bit counters, or 16-bit
 * halves), per cluster of blocks, none on chip (global atomics), and, past
 * what one SM holds, partition then count. Every kernel bins a 32-bit key
 * the same way: bin = __umulhi(key, bins), the high word of key x bins, which
 * is floor(key x bins / 2^32): even bins over every u32 value, exact, one
 * instruction, and never out of range. Nothing a launch knows is tested per
 * key: a choice made at launch (halves or not, aggregate or not) is a
 * template parameter, so each choice is its own kernel.
 */
#ifndef MANY_BINS_KERNELS_CUH
#define MANY_BINS_KERNELS_CUH

#include <cooperative_groups.h>
#include <cstdint>

#define WARP 32

__device__ __forceinline__ unsigned bin_of(unsigned key, unsigned bins)
{
    return __umulhi(key, bins);
}

/* The 0 to 3 keys past the last 16-byte vector: a global add each, by the
 * first threads of block 0 (every kernel calls it once). */
__device__ __forceinline__ void count_tail_keys(const unsigned *keys, size_t n, unsigned bins,
                                                unsigned *histo)
{
    size_t i = n / 4 * 4 + threadIdx.x;
    if (blockIdx.x == 0 && i < n) /* every launch has 4 threads or more */
        atomicAdd(&histo[bin_of(keys[i], bins)], 1u);
}

/* Calls count(key) for the keys of vectors [first, end) that are this
 * thread's in a grid-stride loop of stride vectors, two loads in flight. */
template <typename Count>
__device__ __forceinline__ void for_each_vector(const uint4 *vectors, size_t first, size_t end,
                                                size_t stride, Count count)
{
    size_t v = first;
    for (; v + stride < end; v += 2 * stride) {
        uint4 a = vectors[v], b = vectors[v + stride];
        count(a.x), count(a.y), count(a.z), count(a.w);
        count(b.x), count(b.y), count(b.z), count(b.w);
    }
    if (v < end) {
        uint4 a = vectors[v];
        count(a.x), count(a.y), count(a.z), count(a.w);
    }
}

extern __shared__ unsigned shared_words[]; /* sized at launch */

/* ----------------------------------------------------- (a) a copy per warp -- */

/* Each warp its own copy of the bins, so that only its own 32 lanes ever
 * meet on a counter; the copies are summed at the end. The price is warps x
 * bins of shared memory: it holds the fewest bins of all. */
__global__ void histo_per_warp(const unsigned *keys, size_t n, unsigned bins, unsigned *histo)
{
    const unsigned warps = blockDim.x / WARP;
    for (unsigned i = threadIdx.x; i < warps * bins; i += blockDim.x)
        shared_words[i] = 0;
    __syncthreads();
    unsigned *mine = shared_words + threadIdx.x / WARP * bins;
    for_each_vector((const uint4 *)keys, blockIdx.x * (size_t)blockDim.x + threadIdx.x, n / 4,
                    (size_t)blockDim.x * gridDim.x,
                    [&](unsigned key) { atomicAdd(&mine[bin_of(key, bins)], 1u); });
    count_tail_keys(keys, n, bins, histo);
    __syncthreads();
    for (unsigned bin = threadIdx.x; bin < bins; bin += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++)
            sum += shared_words[w * bins + bin];
        if (sum)
            atomicAdd(&histo[bin], sum);
    }
}

/* ------------------------------------------ (b) per block, 32-bit counters -- */

/* One histogram per block in shared memory. atomicAdd(..., 1) with its result
 * unused is the line that compiles to ATOMS.POPC.INC in chapter 03's kernel,
 * which combines the lanes of a warp that hit one counter: equal keys cost no
 * more than random ones (this kernel's profile on constant keys: one
 * shared-atomic wavefront per warp step). */
__global__ void histo_per_block(const unsigned *keys, size_t n, unsigned bins, unsigned *histo)
{
    for (unsigned i = threadIdx.x; i < bins; i += blockDim.x)
        shared_words[i] = 0;
    __syncthreads();
    for_each_vector((const uint4 *)keys, blockIdx.x * (size_t)blockDim.x + threadIdx.x, n / 4,
                    (size_t)blockDim.x * gridDim.x,
                    [&](unsigned key) { atomicAdd(&shared_words[bin_of(key, bins)], 1u); });
    count_tail_keys(keys, n, bins, histo);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < bins; i += blockDim.x)
        if (shared_words[i])
            atomicAdd(&histo[i], shared_words[i]);
}

/* ------------------------------------------ (b2) per block, 16-bit halves -- */

/* Two bins per 32-bit word: bin b is the half (b & 1) of word b / 2, so a block
 * holds twice the bins of (b). A half must never pass 65535, or it carries
 * into its neighbour. The scheme: the block counts its keys in rounds of at
 * most ROUND_KEYS keys, and between rounds every half that has reached
 * CARRY_AT moves its whole count to the global bin. A half starts a round
 * below CARRY_AT and gains at most ROUND_KEYS in it, so it ends at most
 * CARRY_AT - 1 + ROUND_KEYS = 65535. The check between rounds reads each word
 * once (16 bytes at a time, one mask test); while a block's keys over the
 * bins stay well under CARRY_AT (1 GiB of uniform keys from 256 bins up), no
 * half reaches it, and the check writes nothing. No atomic uses its
 * result: none waits for a round trip, as an add that read back its half to
 * test it would. CARRY_AT weighs two costs: the higher it is, the shorter
 * a round and the more often every word is read; the lower, the more halves
 * move out on skewed keys. */
#define CARRY_AT   0x1000u
#define ROUND_KEYS (0x10000u - CARRY_AT)

/* words: a multiple of 4 (the host rounds the shared memory up). */
__device__ void carry_big_halves(unsigned words, unsigned *histo, unsigned bins)
{
    uint4 *quads = (uint4 *)shared_words;
    for (unsigned q = threadIdx.x; q < words / 4; q += blockDim.x) {
        uint4 w = quads[q];
        /* the bits worth CARRY_AT or more, in both halves (0xf000f000) */
        const unsigned high = ((CARRY_AT - 1) ^ 0xffffu) * 0x10001u;
        if (((w.x | w.y | w.z | w.w) & high) == 0)
            continue;
        unsigned word[4] = {w.x, w.y, w.z, w.w};
        for (int k = 0; k < 4; k++)
            for (int half = 0; half < 2; half++) {
                unsigned count = (word[k] >> (16 * half)) & 0xffff;
                unsigned bin = 2 * (4 * q + k) + half;
                if (count >= CARRY_AT && bin < bins) {
                    atomicAdd(&histo[bin], count);
                    word[k] &= ~(0xffffu << (16 * half));
                }
            }
        quads[q] = make_uint4(word[0], word[1], word[2], word[3]);
    }
}

/* Aggregate: the lanes of a warp with the same bin add their number at once
 * (__match_any_sync). An add of 1 << 16 or 1 is not the constant 1, so it is
 * not the combining increment of (b): lanes on one word take turns, whatever
 * they add (constant keys: one shared-atomic wavefront per key). auto runs
 * both and keeps what the input favours; the bound of a round still holds (a
 * warp's add counts keys of the round). */
template <bool Aggregate>
__global__ void histo_per_block_halves(const unsigned *keys, size_t n, unsigned bins,
                                       unsigned words, unsigned *histo)
{
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
        shared_words[i] = 0;
    __syncthreads();
    const uint4 *vectors = (const uint4 *)keys;
    size_t count = n / 4, stride = (size_t)blockDim.x * gridDim.x;
    /* vectors per thread per round: 4 keys each, ROUND_KEYS keys per block */
    size_t per_round = ROUND_KEYS / (4 * blockDim.x);
    const unsigned lane = threadIdx.x % WARP;
    auto add = [&](unsigned key) {
        unsigned bin = bin_of(key, bins);
        if (Aggregate) {
            unsigned same = __match_any_sync(__activemask(), bin);
            if (lane == (unsigned)__ffs(same) - 1)
                atomicAdd(&shared_words[bin / 2], (unsigned)__popc(same) << (16 * (bin & 1)));
        } else {
            atomicAdd(&shared_words[bin / 2], 1u << (16 * (bin & 1)));
        }
    };
    /* The loop's test is the same for every thread of the block: the
     * __syncthreads() inside it is reached by all. */
    for (size_t start = blockIdx.x * (size_t)blockDim.x; start < count;
         start += per_round * stride) {
        size_t end = start + per_round * stride;
        for_each_vector(vectors, start + threadIdx.x, end < count ? end : count, stride, add);
        __syncthreads();
        carry_big_halves(words, histo, bins);
        __syncthreads();
    }
    count_tail_keys(keys, n, bins, histo);
    for (unsigned w = threadIdx.x; w < words; w += blockDim.x) {
        unsigned pair = shared_words[w];
        if ((pair & 0xffff) && 2 * w < bins)
            atomicAdd(&histo[2 * w], pair & 0xffff);
        if ((pair >> 16) && 2 * w + 1 < bins)
            atomicAdd(&histo[2 * w + 1], pair >> 16);
    }
}

/* ------------------------------------------ (c) a copy per cluster of blocks -- */

/* A thread-block cluster's blocks run at once on neighbouring SMs, and each
 * can address the others' shared memory (distributed shared memory, compute
 * capability 9.0). The bins are cut in slices, one per block of the cluster:
 * block r holds bins [r x slice, (r + 1) x slice), so a cluster holds as many
 * bins as its blocks together, and a key whose bin is another block's is
 * added there, across the SMs. The block of a bin, bin / slice, is a
 * multiply and a shift: over_slice = ceil(2^40 / slice) = (2^40 + e) / slice
 * with 0 <= e < slice, so bin x over_slice / 2^40 = bin / slice + bin x e /
 * (slice x 2^40), and the error term, below 1 / slice when bin < 2^20 and
 * slice <= 2^20, never carries the quotient past its floor. slice >= 512
 * keeps over_slice within 32 bits. */
#if defined(_CG_HAS_CLUSTER_GROUP) /* compiled for sm_90 or later */
__global__ void __launch_bounds__(1024)
    histo_cluster(const unsigned *keys, size_t n, unsigned bins, unsigned slice,
                  unsigned over_slice, unsigned *histo)
{
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    for (unsigned i = threadIdx.x; i < slice; i += blockDim.x)
        shared_words[i] = 0;
    cluster.sync(); /* every slice is zero before any block adds to it */
    for_each_vector((const uint4 *)keys, blockIdx.x * (size_t)blockDim.x + threadIdx.x, n / 4,
                    (size_t)blockDim.x * gridDim.x, [&](unsigned key) {
                        unsigned bin = bin_of(key, bins);
                        unsigned rank = (unsigned)(((uint64_t)bin * over_slice) >> 40);
                        atomicAdd(
                            cluster.map_shared_rank(shared_words, rank) + (bin - rank * slice), 1u);
                    });
    count_tail_keys(keys, n, bins, histo);
    cluster.sync(); /* every add has landed, and no block still needs another's memory */
    unsigned first = cluster.block_rank() * slice;
    for (unsigned i = threadIdx.x; i < slice && first + i < bins; i += blockDim.x)
        if (shared_words[i])
            atomicAdd(&histo[first + i], shared_words[i]);
}
#else /* before sm_90 there are no clusters: the host never launches this */
__global__ void histo_cluster(const unsigned *, size_t, unsigned, unsigned, unsigned, unsigned *)
{
    __trap();
}
#endif

/* ------------------------------------------------------ (d) global atomics -- */

/* No copy on chip: each key is an atomic on the global bins, which the L2
 * cache carries out. Aggregate: the lanes of a warp with the same bin find
 * each other (__match_any_sync) and the lowest adds their number, one atomic
 * per distinct bin per warp; without it (global-plain, the baseline the
 * targets name), one atomic per key. Every lane of a warp takes the loop's
 * branches together only when the warp's vectors all exist, so the mask is
 * __activemask(). */
template <bool Aggregate>
__global__ void histo_global(const unsigned *keys, size_t n, unsigned bins, unsigned *histo)
{
    unsigned lane = threadIdx.x % WARP;
    for_each_vector((const uint4 *)keys, blockIdx.x * (size_t)blockDim.x + threadIdx.x, n / 4,
                    (size_t)blockDim.x * gridDim.x, [&](unsigned key) {
                        unsigned bin = bin_of(key, bins);
                        if (!Aggregate) {
                            atomicAdd(&histo[bin], 1u);
                            return;
                        }
                        unsigned same = __match_any_sync(__activemask(), bin);
                        if (lane == (unsigned)__ffs(same) - 1)
                            atomicAdd(&histo[bin], (unsigned)__popc(same));
                    });
    count_tail_keys(keys, n, bins, histo);
}

/* ------------------------------------------ (e) partition, then count -- */

/* Pass 1 splits the keys by bucket = bin / bucket_bins (a power of two, what
 * one block's shared memory holds) and keeps of each key only its bin within
 * the bucket, as a u16. The intermediate format:
 *
 *   indices  n u16, in tiles of tile_keys keys: tile t's indices sit at
 *            [t x tile_keys, t x tile_keys + its keys), the tile's own place
 *            (half the keys' bytes), grouped by bucket inside the tile;
 *   starts   (buckets + 1) u32 per tile: where each bucket's run starts in
 *            the tile, and the tile's length last;
 *   totals   buckets u32: the keys of each bucket, over all tiles.
 *
 * Extra memory: 2n bytes (+16, as pass 2 reads 16 bytes at a time) +
 * 4 (buckets + 1) n / tile_keys + 4 buckets: half the input again, where
 * tile_keys = 4 x TILE_VECTORS_PER_THREAD x the block's threads (16384 keys
 * with 1024 threads). A tile is grouped in shared memory and written out in
 * 8-byte stores, so every write is coalesced, and a tile's place is fixed by
 * its number, so no atomic reserves space: the only global atomics are one
 * per (tile, bucket) into totals, which pass 2 uses to share its blocks out.
 * Traffic: read 4n, write 2n, read 2n: 2x the read floor's, so 50% at best. */
#define TILE_VECTORS_PER_THREAD 4
#define SHORT_RUN               64 /* pass 2: a run a lane reads alone, in indices */

/* Shared memory of pass 1: counts and cursors per bucket, then the tile's
 * indices. A key's place in its bucket's run is the value returned by one
 * shared atomic on the bucket's cursor; a warp whose 32 keys all fall in one
 * bucket (constant keys) takes its 32 places in one atomic, as one cursor
 * would otherwise serialize them. (Ranking a warp's lanes by
 * __match_any_sync, one atomic per distinct bucket, was measured too: as fast
 * on constant keys, and half as fast on uniform ones, as its cost grows with
 * the buckets a warp sees; so was finding them by one __ballot_sync per bit
 * of the bucket's number: 26% of the floor at 2^20 uniform keys, where this
 * reads 41%: plots/results/partition-ranking-07-many-bins-*.txt.) */
__global__ void histo_partition(const unsigned *keys, size_t n, unsigned bins, unsigned bucket_bits,
                                unsigned buckets, uint16_t *indices, unsigned *starts,
                                unsigned *totals, unsigned *histo)
{
    unsigned *counts = shared_words, *cursors = shared_words + buckets;
    uint16_t *grouped = (uint16_t *)(shared_words + 2 * buckets);
    const uint4 *vectors = (const uint4 *)keys;
    const size_t count = n / 4, tile_vectors = (size_t)TILE_VECTORS_PER_THREAD * blockDim.x;
    const size_t tiles = (count + tile_vectors - 1) / tile_vectors;
    const unsigned mask = (1u << bucket_bits) - 1;
    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        size_t first = tile * tile_vectors;
        unsigned length =
            (unsigned)(4 * (count - first < tile_vectors ? count - first : tile_vectors));
        for (unsigned b = threadIdx.x; b < buckets; b += blockDim.x)
            counts[b] = 0;
        __syncthreads();
        unsigned bin[4 * TILE_VECTORS_PER_THREAD];
#pragma unroll
        for (int k = 0; k < TILE_VECTORS_PER_THREAD; k++) {
            size_t v = first + k * (size_t)blockDim.x + threadIdx.x;
            uint4 a = v < count ? vectors[v] : make_uint4(0, 0, 0, 0);
            bool valid = v < count;
            unsigned four[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                bin[4 * k + j] = valid ? bin_of(four[j], bins) : 0xffffffffu;
                if (valid)
                    atomicAdd(&counts[bin[4 * k + j] >> bucket_bits], 1u);
            }
        }
        __syncthreads();
        /* Warp 0 turns the counts into starts (an exclusive scan, 32 at a time). */
        if (threadIdx.x < WARP) {
            unsigned carried = 0;
            for (unsigned base = 0; base < buckets; base += WARP) {
                unsigned b = base + threadIdx.x, c = b < buckets ? counts[b] : 0, sum = c;
                for (int d = 1; d < WARP; d *= 2) {
                    unsigned other = __shfl_up_sync(0xffffffffu, sum, d);
                    if ((int)threadIdx.x >= d)
                        sum += other;
                }
                if (b < buckets) {
                    cursors[b] = carried + sum - c;
                    starts[tile * (buckets + 1) + b] = carried + sum - c;
                    if (c)
                        atomicAdd(&totals[b], c);
                }
                carried += __shfl_sync(0xffffffffu, sum, WARP - 1);
            }
            if (threadIdx.x == 0)
                starts[tile * (buckets + 1) + buckets] = length;
        }
        __syncthreads();
        /* Each key takes the next place in its bucket's run. */
        unsigned lane = threadIdx.x % WARP;
#pragma unroll
        for (int k = 0; k < 4 * TILE_VECTORS_PER_THREAD; k++) {
            bool valid = bin[k] != 0xffffffffu;
            unsigned bucket = valid ? bin[k] >> bucket_bits : 0xffffffffu;
            unsigned lane0 = __shfl_sync(0xffffffffu, bucket, 0);
            if (__all_sync(0xffffffffu, valid && bucket == lane0)) {
                unsigned place = 0;
                if (lane == 0)
                    place = atomicAdd(&cursors[bucket], (unsigned)WARP);
                grouped[__shfl_sync(0xffffffffu, place, 0) + lane] = (uint16_t)(bin[k] & mask);
            } else if (valid) {
                grouped[atomicAdd(&cursors[bucket], 1u)] = (uint16_t)(bin[k] & mask);
            }
        }
        __syncthreads();
        /* The tile out, 8 bytes (4 indices) a store: a tile's length is a multiple of 4. */
        uint2 *out = (uint2 *)(indices + tile * 4 * tile_vectors);
        for (unsigned i = threadIdx.x; i < length / 4; i += blockDim.x)
            out[i] = ((const uint2 *)grouped)[i];
        __syncthreads();
    }
    count_tail_keys(keys, n, bins, histo);
}

/* Pass 2: each block counts one bucket over a range of tiles in bucket_bins
 * shared counters. The blocks are shared out by the totals: each non-empty
 * bucket gets one, and the rest go in proportion to its keys, so that
 * constant keys (one bucket) still use the whole GPU. Within its bucket a
 * block takes an even share of the tiles, and reads each tile's run of its
 * bucket: a short run a lane alone, a long one the whole warp, 8 indices
 * (16 bytes) per lane at a time. */
__global__ void histo_count_buckets(const uint16_t *indices, size_t n, unsigned bins,
                                    unsigned bucket_bits, unsigned buckets, const unsigned *starts,
                                    const unsigned *totals, unsigned tile_keys, unsigned *histo)
{
    __shared__ unsigned bucket, part, parts;
    if (threadIdx.x == 0) {
        unsigned nonempty = 0, given = 0;
        for (unsigned b = 0; b < buckets; b++)
            nonempty += totals[b] != 0;
        size_t keys = n / 4 * 4, extra = gridDim.x - nonempty;
        bucket = buckets;
        for (unsigned b = 0; b < buckets; b++) {
            if (!totals[b])
                continue;
            unsigned blocks = 1 + (unsigned)(extra * totals[b] / keys);
            if (blockIdx.x < given + blocks) {
                bucket = b, part = blockIdx.x - given, parts = blocks;
                break;
            }
            given += blocks;
        }
    }
    __syncthreads();
    if (bucket == buckets)
        return; /* the whole block: the rounding left it no work */
    const unsigned bucket_size = 1u << bucket_bits;
    for (unsigned i = threadIdx.x; i < bucket_size; i += blockDim.x)
        shared_words[i] = 0;
    __syncthreads();
    size_t tiles = (n / 4 * 4 + tile_keys - 1) / tile_keys;
    size_t first = tiles * part / parts, end = tiles * (part + 1) / parts;
    unsigned warps = blockDim.x / WARP, warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    /* Counts the indices of a run [begin, stop) that a 16-byte load of 8 holds. */
    auto count_eight = [&](uint4 raw, unsigned q, unsigned begin, unsigned stop) {
        unsigned pairs[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
        for (int j = 0; j < 8; j++) {
            unsigned at = q * 8 + j;
            if (at >= begin && at < stop)
                atomicAdd(&shared_words[(pairs[j / 2] >> (16 * (j % 2))) & 0xffff], 1u);
        }
    };
    /* A warp's runs, 32 at a time: each lane loads one run's bounds first, so
     * that no run waits for its own two loads of starts before its data. The
     * warp's tiles are every warps-th of the block's, so that every warp has
     * work however few tiles the block has. A short run (a bucket the keys
     * seldom fall in) is its lane's alone, the 32 lanes' at once; the long
     * ones the warp reads together, 8 indices (16 bytes) a lane at a time,
     * one run after another, each waiting for its first load. On skewed
     * keys at 2^20 bins two buckets, about 0.7% of the keys each, get one
     * block each, and their runs, about 110 indices, are just too long for a
     * lane: each warp of those blocks walks its 512 runs in turn, and this
     * pass takes 1.8 times as long as on uniform keys
     * (profile-*-07-many-bins.csv; which blocks finish last is an
     * inference, not timed). */
    for (size_t group = first + warp; group < end; group += (size_t)warps * WARP) {
        size_t mine = group + (size_t)lane * warps;
        unsigned my_begin = 0, my_stop = 0;
        if (mine < end) {
            my_begin = starts[mine * (buckets + 1) + bucket];
            my_stop = starts[mine * (buckets + 1) + bucket + 1];
        }
        bool short_run = my_stop - my_begin <= SHORT_RUN;
        if (short_run)
            for (unsigned q = my_begin / 8; q * 8 < my_stop; q++)
                count_eight(((const uint4 *)(indices + mine * tile_keys))[q], q, my_begin, my_stop);
        for (unsigned long_runs = __ballot_sync(0xffffffffu, !short_run); long_runs;
             long_runs &= long_runs - 1) {
            unsigned r = __ffs(long_runs) - 1;
            unsigned begin = __shfl_sync(0xffffffffu, my_begin, r);
            unsigned stop = __shfl_sync(0xffffffffu, my_stop, r);
            const uint4 *runs = (const uint4 *)(indices + (group + (size_t)r * warps) * tile_keys);
            for (unsigned q = begin / 8 + lane; q * 8 < stop; q += WARP)
                count_eight(runs[q], q, begin, stop);
        }
    }
    __syncthreads();
    unsigned base = bucket << bucket_bits;
    for (unsigned i = threadIdx.x; i < bucket_size && base + i < bins; i += blockDim.x)
        if (shared_words[i])
            atomicAdd(&histo[base + i], shared_words[i]);
}

#endif /* MANY_BINS_KERNELS_CUH */
