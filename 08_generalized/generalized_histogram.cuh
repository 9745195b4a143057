/*
 * generalized_histogram.cuh - a histogram of anything, in one header (stage
 * 08's library; chapter 08 tells how to use it and how it maps to kernels).
 *
 * The caller writes two small types and the library does the rest:
 *   a transform: item_type read(input, i), one wide load, and
 *                operator()(input, item, i, out), which emits the item's
 *                (bin, value) pairs, out(bin, value), or out(bin) to count
 *                one; T::outputs is the most an item emits and T::max_bins
 *                the most bins it can name;
 *   a combine:   how two values of a bin become one. It must be associative
 *                and commutative, for the library adds the values in any order
 *                and groups them as it likes. Three kinds:
 *                  gh_count                     every output counts 1 (u32);
 *                  gh_parts<Value, ops...>      Value is 1 to 4 32-bit parts, each
 *                                               combined on its own: a sum, a min
 *                                               or a max, by the hardware's atomic;
 *                  derived from gh_cas<Value>   any operator() on a 4- or 8-byte
 *                                               value, done in a compare-and-swap loop.
 *
 * gh_histogram(input, transform, combine, first, end, bins, out, call) runs
 * the transform over items [first, end) and combines every output into
 * out[bin], bins of them. call says where out is (device or host memory),
 * whether to combine onto what out holds or start afresh, which stream, which
 * temporary buffer (gh_temp_bytes says how big; NULL: the call allocates one
 * on the stream) and which placement of the bins (GH_AUTO: gh_choose's). It
 * returns a cudaError_t, as CUB does, and never exits: cudaErrorInvalidValue
 * for a call it cannot do (no bins, a placement that cannot hold them, too
 * little temporary memory).
 *
 * Everything known at launch is a template parameter: each (combine,
 * transform, placement) is a kernel of its own, and no key pays for a
 * choice it does not use.
 */
#ifndef GENERALIZED_HISTOGRAM_CUH
#define GENERALIZED_HISTOGRAM_CUH

#include "float_order.h"

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

/* ---------------------------------------------------------- combines -- */

/* What one 32-bit part of a value does when two values meet. A float min
 * or max is kept as float_order's integer, so that it is one integer atomic. */
enum gh_part_op { GH_ADD_U32, GH_ADD_F32, GH_MIN_U32, GH_MAX_U32, GH_MIN_F32, GH_MAX_F32 };

enum gh_combine_kind { GH_COUNT, GH_PARTS, GH_CAS };

struct gh_count {
    typedef unsigned value_type;
    static constexpr gh_combine_kind kind = GH_COUNT;
    static constexpr int parts = 1;
    __host__ __device__ static constexpr gh_part_op op(int) { return GH_ADD_U32; }
};

template <typename Value, gh_part_op... Ops> struct gh_parts {
    typedef Value value_type;
    static constexpr gh_combine_kind kind = GH_PARTS;
    static constexpr int parts = sizeof...(Ops);
    /* part p's operator (p known when compiled, where it matters) */
    __host__ __device__ static constexpr gh_part_op op(int p)
    {
        const gh_part_op ops[] = {Ops...};
        return ops[p];
    }
    static_assert(sizeof(Value) == 4 * sizeof...(Ops), "a value of parts is one 32-bit word a part");
};

/* A combine of your own: derive from gh_cas<Value> and give
 *   __host__ __device__ static Value identity();      (combine(identity, v) == v)
 *   __host__ __device__ Value operator()(Value a, Value b) const; */
template <typename Value> struct gh_cas {
    typedef Value value_type;
    static constexpr gh_combine_kind kind = GH_CAS;
    static constexpr int parts = 1;
    static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "a CAS value is 4 or 8 bytes");
};

/* A part as stored (float min/max as their order), back, and its identity. */
__host__ __device__ inline uint32_t gh_encode(gh_part_op op, uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return op == GH_MIN_F32 || op == GH_MAX_F32 ? float_order(f) : bits;
}
__host__ __device__ inline uint32_t gh_decode(gh_part_op op, uint32_t word)
{
    float f = float_from_order(word);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return op == GH_MIN_F32 || op == GH_MAX_F32 ? bits : word;
}
__host__ __device__ inline uint32_t gh_identity(gh_part_op op)
{
    switch (op) {
    case GH_MIN_U32:
        return 0xffffffffu;
    case GH_MIN_F32:
        return 0xff800000u; /* +infinity's order: an empty bin's minimum */
    case GH_MAX_F32:
        return 0x007fffffu; /* -infinity's */
    default:
        return 0u;
    }
}

/* Two stored parts combined: the same rule the atomics follow. */
__host__ __device__ inline uint32_t gh_combine_words(gh_part_op op, uint32_t a, uint32_t b)
{
    float x, y;
    switch (op) {
    case GH_ADD_U32:
        return a + b;
    case GH_ADD_F32:
        memcpy(&x, &a, 4), memcpy(&y, &b, 4);
        x += y;
        memcpy(&a, &x, 4);
        return a;
    case GH_MIN_U32:
    case GH_MIN_F32:
        return a < b ? a : b;
    default:
        return a > b ? a : b;
    }
}

/* The stored form of a combine's values: 32-bit words (count, parts) or the
 * value itself (CAS), and what a bin holds before its first value. */
template <typename C, gh_combine_kind = C::kind> struct gh_store {
    typedef uint32_t word;
    static constexpr int words = C::parts;
    __host__ __device__ static word identity(int part) { return gh_identity(C::op(part)); }
};
template <typename C> struct gh_store<C, GH_CAS> {
    typedef typename std::conditional<sizeof(typename C::value_type) == 8, unsigned long long,
                                      unsigned>::type word;
    static constexpr int words = 1;
    __host__ __device__ static word identity(int)
    {
        typename C::value_type v = C::identity();
        word w;
        memcpy(&w, &v, sizeof w);
        return w;
    }
};

/* Whether a combine's stored words are its values' bits: then out itself can
 * hold the sums while they grow (no float min or max to decode). */
template <typename C> constexpr bool gh_stored_as_is()
{
    if constexpr (C::kind != GH_CAS)
        for (int p = 0; p < C::parts; p++)
            if (C::op(p) == GH_MIN_F32 || C::op(p) == GH_MAX_F32)
                return false;
    return true;
}

/* ----------------------------------------------------- on the GPU: atomics -- */

#define GH_WARP 32

/* Combines v into *at, one part, with the hardware's own atomic. */
__device__ __forceinline__ void gh_atomic(gh_part_op op, uint32_t *at, uint32_t v)
{
    switch (op) {
    case GH_ADD_U32:
        atomicAdd(at, v);
        break;
    case GH_ADD_F32:
        atomicAdd((float *)at, __uint_as_float(v));
        break;
    case GH_MIN_U32:
    case GH_MIN_F32:
        atomicMin(at, v);
        break;
    default:
        atomicMax(at, v);
    }
}

/* Combines v into *at with C's own operator: read, combine, swap in if no
 * other thread got there first, else try again with what it left. */
template <typename C, typename W> __device__ void gh_atomic_cas(W *at, W v)
{
    typedef typename C::value_type V;
    W seen = *(volatile W *)at, was;
    do {
        was = seen;
        V a, b;
        memcpy(&a, &was, sizeof a), memcpy(&b, &v, sizeof b);
        V sum = C()(a, b);
        W next;
        memcpy(&next, &sum, sizeof next);
        seen = atomicCAS(at, was, next);
    } while (seen != was);
}

/* Where a placement keeps a bin's words: slot(bin, part) in its array. */
enum gh_strategy { GH_AUTO, GH_PER_LANE, GH_PER_BLOCK, GH_PER_BLOCK_HALVES, GH_GLOBAL };
static const char *const gh_strategy_names[] = {"auto", "per-lane", "per-block",
                                                "per-block-halves", "global"};

/* The transform's out: each output becomes an atomic on the placement's
 * copy of its bin. Outputs to bins at or past bins are dropped: a transform
 * says "no bin" with any of them. Where lanes of a warp often meet on one
 * counter and the hardware does not combine them (every placement but
 * per-lane, and counts in 32-bit counters, whose increment it does), a full
 * warp that emits one bin adds its values together first, by shuffles, and
 * makes one atomic. */
template <typename C, gh_strategy S> struct gh_out {
    typedef typename gh_store<C>::word word;
    word *bins_at; /* shared memory, or the global sums for GH_GLOBAL */
    unsigned bins;
    unsigned lane;
    uint32_t *carry_to; /* halves: where a half's count goes (unused here) */

    __device__ size_t slot(unsigned bin, int part) const
    {
        size_t s = (size_t)bin * gh_store<C>::words + part;
        return S == GH_PER_LANE ? s * GH_WARP + lane : s;
    }

    /* a count: 1 into bin (a half, for halves) */
    __device__ void operator()(unsigned bin)
    {
        static_assert(C::kind == GH_COUNT, "out(bin) counts one: the combine must be gh_count");
        if constexpr (S == GH_PER_BLOCK_HALVES || S == GH_GLOBAL) {
            unsigned active = __activemask();
            if (active == 0xffffffffu && warp_shares(bin)) {
                if (lane == 0 && bin < bins)
                    add_count(bin, GH_WARP);
                return;
            }
        }
        if (bin < bins)
            add_count(bin, 1);
    }

    __device__ void add_count(unsigned bin, unsigned n)
    {
        if constexpr (S == GH_PER_BLOCK_HALVES)
            atomicAdd(&bins_at[bin / 2], n << (16 * (bin & 1)));
        else
            atomicAdd(&bins_at[slot(bin, 0)], n); /* n = 1: the combining increment */
    }

    __device__ bool warp_shares(unsigned bin) const
    {
        return __all_sync(0xffffffffu, bin == __shfl_sync(0xffffffffu, bin, 0));
    }

    /* a value: combined into bin */
    __device__ void operator()(unsigned bin, typename C::value_type v)
    {
        static_assert(C::kind != GH_COUNT, "gh_count takes out(bin): every output counts one");
        if constexpr (S != GH_PER_LANE) {
            if (__activemask() == 0xffffffffu && warp_shares(bin)) {
                v = warp_combine(v);
                if (lane != 0)
                    return;
            }
        }
        if (bin >= bins)
            return;
        if constexpr (C::kind == GH_CAS) {
            word w;
            memcpy(&w, &v, sizeof w);
            gh_atomic_cas<C>(&bins_at[slot(bin, 0)], w);
        } else {
            uint32_t part[C::parts];
            memcpy(part, &v, sizeof part);
#pragma unroll
            for (int p = 0; p < C::parts; p++)
                gh_atomic(C::op(p), &bins_at[slot(bin, p)], gh_encode(C::op(p), part[p]));
        }
    }

    /* Every lane's value combined, by a butterfly of shuffles: any order,
     * any grouping, which associativity and commutativity make the same. */
    __device__ typename C::value_type warp_combine(typename C::value_type v) const
    {
        typedef typename C::value_type V;
        if constexpr (C::kind == GH_CAS) {
            word w;
            memcpy(&w, &v, sizeof w);
            for (int d = GH_WARP / 2; d > 0; d /= 2) {
                word other = __shfl_xor_sync(0xffffffffu, w, d);
                V a, b;
                memcpy(&a, &w, sizeof a), memcpy(&b, &other, sizeof b);
                V sum = C()(a, b);
                memcpy(&w, &sum, sizeof w);
            }
            memcpy(&v, &w, sizeof v);
        } else {
            uint32_t part[C::parts];
            memcpy(part, &v, sizeof part);
#pragma unroll
            for (int p = 0; p < C::parts; p++) {
                uint32_t w = gh_encode(C::op(p), part[p]);
                for (int d = GH_WARP / 2; d > 0; d /= 2)
                    w = gh_combine_words(C::op(p), w, __shfl_xor_sync(0xffffffffu, w, d));
                part[p] = gh_decode(C::op(p), w);
            }
            memcpy(&v, part, sizeof v);
        }
        return v;
    }
};

/* ----------------------------------------------------- on the GPU: kernels -- */

extern __shared__ uint4 gh_shared[]; /* sized at launch; uint4: 16-byte aligned */

/* Halves: counts in 16-bit halves of 32-bit words, two bins a word. A block
 * counts in rounds of at most GH_ROUND outputs, and between rounds every half
 * at GH_CARRY_AT or more moves to the global bin: a half starts a round below
 * GH_CARRY_AT and gains at most GH_ROUND in it, so it never passes 65535 and
 * never carries into its neighbour (stage 07's per-block-halves). */
#define GH_CARRY_AT 0x1000u
#define GH_ROUND    (0x10000u - GH_CARRY_AT)

__device__ inline void gh_carry_halves(uint32_t *words, unsigned count, unsigned bins,
                                       uint32_t *histo)
{
    for (unsigned w = threadIdx.x; w < count; w += blockDim.x) {
        uint32_t pair = words[w];
        const uint32_t high = ((GH_CARRY_AT - 1) ^ 0xffffu) * 0x10001u; /* bits >= CARRY_AT */
        if ((pair & high) == 0)
            continue;
        for (int half = 0; half < 2; half++) {
            uint32_t n = (pair >> (16 * half)) & 0xffff, bin = 2 * w + half;
            if (n >= GH_CARRY_AT && bin < bins) {
                atomicAdd(&histo[bin], n);
                pair &= ~(0xffffu << (16 * half));
            }
        }
        words[w] = pair;
    }
}

/* The placements' kernel: each block keeps the bins where S says (nowhere
 * for GH_GLOBAL), starts them at the identity, runs the transform over its
 * items, two loads in flight, and adds its bins into sums, the global ones.
 * Items are taken a grid-stride apart, in rounds of per_round items a
 * thread (halves; the others have one round), the next two loaded before a
 * round ends, so that the memory stays busy over its barriers. */
template <typename C, typename T, typename In, gh_strategy S>
__global__ void __launch_bounds__(1024)
    gh_kernel(In in, T transform, size_t first, size_t end, unsigned bins, size_t per_round,
              typename gh_store<C>::word *sums)
{
    typedef typename gh_store<C>::word word;
    typedef typename T::item_type item;
    constexpr int P = gh_store<C>::words;
    word *shared = (word *)gh_shared;
    const unsigned copies = S == GH_PER_LANE ? GH_WARP : 1;
    const size_t words = S == GH_PER_BLOCK_HALVES ? (bins + 1) / 2 : (size_t)bins * P * copies;
    if constexpr (S != GH_GLOBAL) {
        for (size_t w = threadIdx.x; w < words; w += blockDim.x)
            shared[w] = S == GH_PER_BLOCK_HALVES ? 0 : gh_store<C>::identity(w / copies % P);
        __syncthreads();
    }
    gh_out<C, S> out = {S == GH_GLOBAL ? sums : shared, bins, threadIdx.x % GH_WARP, nullptr};

    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t block_first = first + (size_t)blockIdx.x * blockDim.x;
    size_t i = block_first + threadIdx.x;
    item next0{}, next1{};
    if (i < end)
        next0 = transform.read(in, i);
    if (i + stride < end)
        next1 = transform.read(in, i + stride);
    /* the loop's test is the block's, so that every thread meets the barriers;
     * but halves' placement has one round */
    const bool rounds = S == GH_PER_BLOCK_HALVES;
    for (size_t round = block_first; round < end; round = rounds ? round + per_round * stride : end) {
        for (size_t k = 0; (!rounds || k < per_round) && i < end; k++, i += stride) {
            item now = next0;
            next0 = next1;
            if (i + 2 * stride < end)
                next1 = transform.read(in, i + 2 * stride);
            transform(in, now, i, out);
        }
        if constexpr (S == GH_PER_BLOCK_HALVES) {
            __syncthreads();
            gh_carry_halves(shared, (unsigned)words, bins, (uint32_t *)sums);
            __syncthreads();
        }
    }
    if constexpr (S == GH_GLOBAL)
        return;
    __syncthreads(); /* every thread has counted: add the block's bins */
    for (size_t s = threadIdx.x; s < (size_t)bins * P; s += blockDim.x) {
        if constexpr (S == GH_PER_BLOCK_HALVES) {
            uint32_t n = (shared[s / 2] >> (16 * (s & 1))) & 0xffff;
            if (n)
                atomicAdd((uint32_t *)&sums[s], n);
        } else if constexpr (C::kind == GH_CAS) {
            word w = shared[s * copies];
            for (unsigned c = 1; c < copies; c++) {
                typename C::value_type a, b;
                memcpy(&a, &w, sizeof a), memcpy(&b, &shared[s * copies + c], sizeof b);
                a = C()(a, b);
                memcpy(&w, &a, sizeof w);
            }
            if (w != gh_store<C>::identity(0))
                gh_atomic_cas<C>(&sums[s], w);
        } else {
            const gh_part_op op = C::op(s % P);
            /* lane l starts at copy (s + l) % 32: the lanes read 32 banks */
            word w = shared[s * copies + s % copies];
            for (unsigned c = 1; c < copies; c++)
                w = gh_combine_words(op, w, shared[s * copies + (s + c) % copies]);
            if (w != gh_identity(op))
                gh_atomic(op, (uint32_t *)&sums[s], w);
        }
    }
}

/* Puts the identity in each of the sums, or out's values as stored (encode). */
template <typename C>
__global__ void gh_prepare(typename gh_store<C>::word *sums, const void *from, size_t words)
{
    typedef typename gh_store<C>::word word;
    constexpr int P = gh_store<C>::words;
    for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < words;
         w += (size_t)blockDim.x * gridDim.x) {
        if (!from)
            sums[w] = gh_store<C>::identity(w % P);
        else if constexpr (C::kind == GH_CAS)
            sums[w] = ((const word *)from)[w];
        else
            sums[w] = gh_encode(C::op(w % P), ((const uint32_t *)from)[w]);
    }
}

/* The sums back as values (decode), in place. */
template <typename C> __global__ void gh_finish(typename gh_store<C>::word *sums, size_t words)
{
    constexpr int P = gh_store<C>::words;
    if constexpr (C::kind != GH_CAS)
        for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < words;
             w += (size_t)blockDim.x * gridDim.x)
            sums[w] = gh_decode(C::op(w % P), sums[w]);
}

/* ------------------------------------------------------- on the host -- */

/* How a call runs, besides its input, transform, items, bins and out. */
struct gh_call {
    cudaStream_t stream; /* 0: the default stream */
    bool out_on_host;    /* out is host memory; the call returns once it holds the bins */
    bool accumulate;     /* combine onto out's values; else out starts at the identity */
    void *temp;          /* gh_temp_bytes of device memory, or NULL: the call's own */
    size_t temp_bytes;
    gh_strategy strategy; /* GH_AUTO: gh_choose's */
};

/* What the call needs of the device: its shared memory per block and SMs. */
struct gh_device {
    int id, sms;
    size_t shared; /* the most dynamic shared memory a block may ask for */
};
inline cudaError_t gh_device_now(gh_device *d)
{
    static gh_device known = {-1, 0, 0};
    int id, value;
    cudaError_t e = cudaGetDevice(&id);
    if (e == cudaSuccess && id != known.id) {
        if ((e = cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, id)) != cudaSuccess)
            return e;
        known.sms = value;
        e = cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, id);
        known.shared = (size_t)value, known.id = id;
    }
    *d = known;
    return e;
}

/* The shared memory a placement needs for bins, or 0: it keeps none there. */
template <typename C> size_t gh_shared_bytes(gh_strategy s, unsigned bins)
{
    size_t words = (size_t)bins * gh_store<C>::words;
    size_t bytes = words * sizeof(typename gh_store<C>::word);
    switch (s) {
    case GH_PER_LANE:
        return bytes * GH_WARP;
    case GH_PER_BLOCK:
        return bytes;
    case GH_PER_BLOCK_HALVES:
        return (words + 1) / 2 * 4;
    default:
        return 0;
    }
}

/* Which placements a (combine, transform) is compiled with: halves count
 * only, and a transform whose most bins (T::max_bins) fit any block's 48 KiB
 * in 32-bit counters never needs halves or global memory. */
template <typename C, typename T> constexpr bool gh_compiled(gh_strategy s)
{
    bool small = (size_t)T::max_bins * gh_store<C>::words * sizeof(typename gh_store<C>::word) <=
                 48 * 1024;
    switch (s) {
    case GH_PER_BLOCK_HALVES:
        return C::kind == GH_COUNT && !small;
    case GH_GLOBAL:
        return !small;
    default:
        return true;
    }
}

/* Whether placement s can hold bins here, for this (combine, transform). */
template <typename C, typename T> bool gh_fits(gh_strategy s, unsigned bins, const gh_device &d)
{
    return bins >= 1 && bins <= T::max_bins && gh_compiled<C, T>(s) &&
           gh_shared_bytes<C>(s, bins) <= d.shared;
}

/* GH_AUTO's choice: a copy per lane where it fits (no two lanes of a warp
 * ever meet on a counter), else one per block, else 16-bit halves (counts),
 * else the global sums alone. */
template <typename C, typename T> gh_strategy gh_choose(unsigned bins, const gh_device &d)
{
    const gh_strategy order[] = {GH_PER_LANE, GH_PER_BLOCK, GH_PER_BLOCK_HALVES};
    for (gh_strategy s : order)
        if (gh_fits<C, T>(s, bins, d))
            return s;
    return GH_GLOBAL;
}

/* The temporary bytes a call needs: a place for the sums while they grow,
 * where out cannot be it (host memory, or a float min or max to decode). */
template <typename C> size_t gh_temp_bytes(unsigned bins, bool out_on_host)
{
    bool own = out_on_host || !gh_stored_as_is<C>();
    return own ? (size_t)bins * sizeof(typename C::value_type) : 0;
}

/* The grid of one placement: threads per block (1024 where the bins leave
 * room for one block an SM, else 512 or 1024, whichever keeps more threads
 * on an SM), and as many blocks as fit at once, but no more than the items. */
template <typename K> cudaError_t gh_grid(K kernel, size_t shared, size_t items,
                                          const gh_device &d, dim3 *grid, dim3 *block)
{
    cudaError_t e = cudaSuccess;
    if (shared > 48 * 1024 &&
        (e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)shared)) != cudaSuccess)
        return e;
    int best = 0, best_threads = 1024;
    for (int threads = 512; threads <= 1024; threads *= 2) {
        int per_sm = 0;
        if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                               shared)) != cudaSuccess)
            return e;
        if (per_sm * threads > best * best_threads)
            best = per_sm, best_threads = threads;
    }
    size_t blocks = (size_t)best * d.sms, most = (items + best_threads - 1) / best_threads;
    *block = dim3(best_threads);
    *grid = dim3((unsigned)(blocks < most ? blocks : most > 0 ? most : 1));
    return best ? cudaSuccess : cudaErrorInvalidConfiguration;
}

/* The grid of placement S for this (combine, transform, input), found once
 * per device and shared memory: the occupancy queries cost more than a launch. */
template <typename C, typename T, typename In, gh_strategy S>
cudaError_t gh_full_grid(unsigned bins, const gh_device &d, dim3 *grid, dim3 *block)
{
    static int known_device = -1;
    static size_t known_shared;
    static dim3 known_grid, known_block;
    size_t shared = gh_shared_bytes<C>(S, bins);
    if (known_device != d.id || known_shared != shared) {
        cudaError_t e = gh_grid(gh_kernel<C, T, In, S>, shared, (size_t)1 << 40, d, &known_grid,
                                &known_block);
        if (e != cudaSuccess)
            return e;
        known_device = d.id, known_shared = shared;
    }
    *grid = known_grid, *block = known_block;
    return cudaSuccess;
}

template <typename C, typename T, typename In, gh_strategy S>
cudaError_t gh_launch(const In &in, const T &t, size_t first, size_t end, unsigned bins,
                      typename gh_store<C>::word *sums, const gh_device &d, cudaStream_t stream,
                      dim3 *shape)
{
    if constexpr (!gh_compiled<C, T>(S)) {
        return cudaErrorInvalidValue;
    } else {
        dim3 grid, block;
        cudaError_t e = gh_full_grid<C, T, In, S>(bins, d, &grid, &block);
        if (e != cudaSuccess)
            return e;
        size_t most = (end - first + block.x - 1) / block.x; /* no block without an item */
        grid.x = (unsigned)(most < grid.x ? (most ? most : 1) : grid.x);
        *shape = dim3(grid.x, block.x);
        if (!sums) /* only the shape was asked for */
            return cudaSuccess;
        /* halves: a round's outputs, items x threads x T::outputs, stay within GH_ROUND */
        static_assert(S != GH_PER_BLOCK_HALVES || T::outputs * 1024 <= GH_ROUND,
                      "halves need a transform of at most 60 outputs an item");
        size_t per_round = GH_ROUND / (T::outputs * block.x);
        gh_kernel<C, T, In, S><<<grid, block, gh_shared_bytes<C>(S, bins), stream>>>(
            in, t, first, end, bins, per_round, sums);
        return cudaGetLastError();
    }
}

/* Runs placement s: its kernel, or with no sums, only its grid into shape. */
template <typename C, typename T, typename In>
cudaError_t gh_run(gh_strategy s, const In &in, const T &t, size_t first, size_t end, unsigned bins,
                   typename gh_store<C>::word *sums, const gh_device &d, cudaStream_t stream,
                   dim3 *shape)
{
    switch (s) {
    case GH_PER_LANE:
        return gh_launch<C, T, In, GH_PER_LANE>(in, t, first, end, bins, sums, d, stream, shape);
    case GH_PER_BLOCK:
        return gh_launch<C, T, In, GH_PER_BLOCK>(in, t, first, end, bins, sums, d, stream, shape);
    case GH_PER_BLOCK_HALVES:
        return gh_launch<C, T, In, GH_PER_BLOCK_HALVES>(in, t, first, end, bins, sums, d, stream,
                                                        shape);
    default:
        return gh_launch<C, T, In, GH_GLOBAL>(in, t, first, end, bins, sums, d, stream, shape);
    }
}

/* The launch a call of placement s makes over items [first, end): blocks
 * in shape.x, threads in shape.y. */
template <typename C, typename T, typename In>
cudaError_t gh_shape(gh_strategy s, unsigned bins, size_t first, size_t end, dim3 *shape)
{
    gh_device d;
    cudaError_t e = gh_device_now(&d);
    if (e == cudaSuccess && s == GH_AUTO)
        s = gh_choose<C, T>(bins, d);
    if (e == cudaSuccess && !gh_fits<C, T>(s, bins, d))
        e = cudaErrorInvalidValue;
    return e == cudaSuccess ? gh_run<C, T, In>(s, In{}, T{}, first, end, bins, nullptr, d, 0, shape)
                            : e;
}

template <typename C, typename T, typename In>
cudaError_t gh_histogram(const In &in, const T &t, const C &, size_t first, size_t end,
                         unsigned bins, typename C::value_type *out, const gh_call &call)
{
    typedef typename gh_store<C>::word word;
    static_assert(sizeof(typename C::value_type) ==
                      gh_store<C>::words * sizeof(typename gh_store<C>::word),
                  "a value is its stored words");
    gh_device d;
    cudaError_t e = gh_device_now(&d);
    if (e != cudaSuccess)
        return e;
    gh_strategy s = call.strategy == GH_AUTO ? gh_choose<C, T>(bins, d) : call.strategy;
    size_t need = gh_temp_bytes<C>(bins, call.out_on_host);
    size_t bytes = (size_t)bins * sizeof(typename C::value_type), words = bytes / sizeof(word);
    if (!out || end < first || !gh_fits<C, T>(s, bins, d) || (call.temp && call.temp_bytes < need))
        return cudaErrorInvalidValue;
    word *sums = (word *)out, *own = nullptr;
    cudaStream_t stream = call.stream;
    if (need) {
        if (!call.temp && (e = cudaMallocAsync((void **)&own, need, stream)) != cudaSuccess)
            return e;
        sums = own ? own : (word *)call.temp;
    }
    /* the sums start at the identity, or at out's values */
    if (call.accumulate && call.out_on_host)
        e = cudaMemcpyAsync(sums, out, bytes, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess && (!call.accumulate || sums != (word *)out)) {
        const void *from = !call.accumulate ? nullptr : call.out_on_host ? sums : (void *)out;
        gh_prepare<C><<<(unsigned)((words + 255) / 256), 256, 0, stream>>>(sums, from, words);
        e = cudaGetLastError();
    }
    dim3 shape;
    if (e == cudaSuccess && end > first)
        e = gh_run<C, T, In>(s, in, t, first, end, bins, sums, d, stream, &shape);
    if (e == cudaSuccess && sums != (word *)out) {
        if (!gh_stored_as_is<C>()) {
            gh_finish<C><<<(unsigned)((words + 255) / 256), 256, 0, stream>>>(sums, words);
            e = cudaGetLastError();
        }
        cudaMemcpyKind kind = call.out_on_host ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(out, sums, bytes, kind, stream);
    }
    if (own) {
        cudaError_t freed = cudaFreeAsync(own, stream);
        e = e == cudaSuccess ? freed : e;
    }
    if (e == cudaSuccess && call.out_on_host)
        e = cudaStreamSynchronize(stream);
    return e;
}

#endif /* GENERALIZED_HISTOGRAM_CUH */
