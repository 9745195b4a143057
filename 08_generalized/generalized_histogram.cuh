/*
 * generalized_histogram.cuh - a histogram of anything, in one header: stage 08's library
 * (chapter 08 tells how to use it, and how it maps to kernels). The caller writes two
 * small types; the library does the rest:
 *   a transform  read(input, i): item i, one wide load; operator()(input, item, i, out):
 *                its outputs, out(bin, value), or for gh_count out(bin) to count one and
 *                out(bin, n) n, each bin below bins(), which a call's bins must equal (none
 *                is tested). T::outputs is the most an item emits (counts: its n's in all),
 *                T::max_bins the most bins it can have; T::runs, if true: its outputs come
 *                in long runs;
 *   a combine    how two values of a bin become one, associative and commutative (combined
 *                in any order and grouping): gh_count, a count of 1 or n; gh_parts<V,
 *                ops...>, 1 to 4 32-bit parts, each a sum, min or max by the hardware's
 *                atomic; or derived from gh_cas<V>, any operator() on 4 or 8 bytes.
 * gh_histogram(input, transform, combine, first, end, bins, out, call) combines the outputs of
 * items [first, end) into out[0 .. bins). call says whether out is in host memory, whether to
 * combine onto what it holds, the stream, the temporary buffer (gh_temp_bytes; NULL: its own) and
 * where the bins live as they grow (GH_AUTO: gh_choose's). It returns a cudaError_t, as CUB does
 * (cudaErrorInvalidValue: a call it cannot do), and never exits. Each (combine, transform,
 * placement) compiles to a kernel of its own.
 */
#ifndef GENERALIZED_HISTOGRAM_CUH
#define GENERALIZED_HISTOGRAM_CUH

#include "float_order.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

/* What a 32-bit part does when two values meet (a float min or max: on float_order's int). */
enum gh_part_op { GH_ADD_U32, GH_ADD_F32, GH_MIN_U32, GH_MAX_U32, GH_MIN_F32, GH_MAX_F32 };
enum gh_combine_kind { GH_COUNT, GH_PARTS, GH_CAS };

template <typename Value, gh_part_op... Ops> struct gh_parts {
    typedef Value value_type;
    static constexpr gh_combine_kind kind = GH_PARTS;
    static constexpr int parts = sizeof...(Ops);
    __host__ __device__ static constexpr gh_part_op op(int p)
    {
        const gh_part_op ops[] = {Ops...};
        return ops[p];
    }
    static_assert(sizeof(Value) == 4 * sizeof...(Ops), "a part is a 32-bit word");
};

struct gh_count : gh_parts<unsigned, GH_ADD_U32> {
    static constexpr gh_combine_kind kind = GH_COUNT;
};

/* Your own: derive from gh_cas<Value>; give __host__ __device__ static Value
 * identity() (combine(identity(), v) == v) and Value operator()(Value, Value). */
template <typename Value> struct gh_cas {
    typedef Value value_type;
    static constexpr gh_combine_kind kind = GH_CAS;
    static constexpr int parts = 1;
    static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "a CAS value is 4 or 8 bytes");
};

/* A combine's values on the GPU: 32-bit words (a float min or max: its order), or a CAS's. */
template <typename C> struct gh_store {
    typedef typename C::value_type V;
    static constexpr bool cas = C::kind == GH_CAS;
    typedef
        typename std::conditional<cas && sizeof(V) == 8, unsigned long long, uint32_t>::type word;

    __host__ __device__ static constexpr bool is_order(int p)
    {
        if constexpr (cas)
            return false;
        else
            return C::op(p) == GH_MIN_F32 || C::op(p) == GH_MAX_F32;
    }
    __host__ __device__ static word encode(int p, word w)
    {
        float f;
        memcpy(&f, &w, 4);
        return is_order(p) ? float_order(f) : w;
    }
    __host__ __device__ static word decode(int p, word w)
    {
        float f = float_from_order((uint32_t)w);
        uint32_t bits;
        memcpy(&bits, &f, 4);
        return is_order(p) ? bits : w;
    }
    /* what a bin holds before its first value: for floats, +-infinity's orders */
    __host__ __device__ static word identity(int p)
    {
        if constexpr (cas) {
            V v = C::identity();
            word w;
            memcpy(&w, &v, sizeof w);
            return w;
        } else {
            const uint32_t none[] = {0, 0, 0xffffffffu, 0, 0xff800000u, 0x007fffffu};
            return none[C::op(p)];
        }
    }
    __host__ __device__ static word combine(int p, word a, word b)
    {
        if constexpr (cas) {
            V x, y;
            memcpy(&x, &a, sizeof x), memcpy(&y, &b, sizeof y), x = C()(x, y);
            memcpy(&a, &x, sizeof a);
        } else { /* as the parts' atomics combine them; a float min or max: its order */
            float x, y;
            memcpy(&x, &a, 4), memcpy(&y, &b, 4), x += y;
            if (C::op(p) == GH_ADD_F32)
                memcpy(&a, &x, 4);
            else if (C::op(p) == GH_ADD_U32)
                a += b;
            else if (C::op(p) == GH_MIN_U32 || C::op(p) == GH_MIN_F32)
                a = b < a ? b : a;
            else
                a = b > a ? b : a;
        }
        return a;
    }
    /* whether out itself can hold the sums as they grow: nothing to decode */
    static constexpr bool as_is()
    {
        for (int p = 0; p < C::parts; p++)
            if (is_order(p))
                return false;
        return true;
    }
};

/* ------------------------------------------------------------- the GPU -- */

#define GH_WARP 32
extern __shared__ uint4 gh_shared[]; /* sized at launch; uint4: 16-byte aligned */

/* v into *at: the part's own atomic, or C's operator in a compare-and-swap loop
 * (read, combine, swap in if no one changed it since). */
template <typename C>
__device__ __forceinline__ void gh_atomic(int p, typename gh_store<C>::word *at,
                                          typename gh_store<C>::word v)
{
    if constexpr (gh_store<C>::cas) {
        typename gh_store<C>::word seen = *at, was;
        do
            seen = atomicCAS(at, was = seen, gh_store<C>::combine(0, seen, v));
        while (seen != was);
    } else if (C::op(p) == GH_ADD_U32)
        atomicAdd(at, v);
    else if (C::op(p) == GH_ADD_F32) /* in shared memory, a CAS loop itself (Hopper) */
        atomicAdd((float *)at, __uint_as_float(v));
    else if (C::op(p) == GH_MIN_U32 || C::op(p) == GH_MIN_F32)
        atomicMin(at, v);
    else
        atomicMax(at, v);
}

/* Where a block keeps the bins as it counts. Per lane: 32 copies, lane l's in bank l (no two
 * lanes of a warp meet). Per block: one; in halves (counts), two bins a word. Global: none. */
enum gh_strategy { GH_AUTO, GH_PER_LANE, GH_PER_BLOCK, GH_PER_BLOCK_HALVES, GH_GLOBAL };

/* The transform's out: an atomic on the block's copy of each output's bin. Values and global
 * counts, whose atomics lanes may wait on, go as a thread's runs of equal outputs; a warp's
 * runs ending in one bin are combined by shuffles (not per lane: its 32 take one pass). */
template <typename C, typename T, gh_strategy S> struct gh_out {
    typedef typename gh_store<C>::word word;
    static constexpr bool lanes = S == GH_PER_LANE, halves = S == GH_PER_BLOCK_HALVES;
    static constexpr bool keeps_runs = C::kind != GH_COUNT || S == GH_GLOBAL;
    static constexpr bool two_blocks = lanes && C::kind == GH_COUNT && T::max_bins <= 512;
    static constexpr unsigned stride = (lanes ? GH_WARP : 1) * C::parts; /* bin to bin */

    word *mine; /* this lane's copy */
    unsigned lane, run_bin;
    word run[C::parts]; /* the run's values as stored, or (counts) its count */

    /* n counted. Per lane, from the array, not mine: a byte key's address is a shift and a
     * mask ORing the lane in, a channel a constant: 3 instructions a byte, not 5 (SASS). */
    __device__ void add(unsigned bin, unsigned n)
    {
        if constexpr (halves)
            atomicAdd(&mine[bin / 2 * stride], n << (bin % 2 * 16));
        else if constexpr (lanes && C::kind == GH_COUNT)
            atomicAdd((uint32_t *)((char *)gh_shared + bin * (GH_WARP * 4) + lane * 4), n);
        else
            atomicAdd(&mine[bin * stride], n);
    }

    template <typename N = unsigned> /* counts: out(bin) one, out(bin, n) n */
    __device__ void operator()(unsigned bin, N n = 1) requires(C::kind == GH_COUNT)
    {
        static_assert(std::is_integral<N>::value, "gh_count: out(bin, n), n a whole number");
        if (!keeps_runs)
            return add(bin, (unsigned)n);
        if (bin != run_bin) /* a run of counts: in global memory only */
            flush(), run_bin = bin, run[0] = 0;
        run[0] += n;
    }

    __device__ void operator()(unsigned bin, typename C::value_type v) requires(C::kind != GH_COUNT)
    {
        word part[C::parts];
        memcpy(part, &v, sizeof part);
        bool same = bin == run_bin;
        if (!same)
            flush(), run_bin = bin;
#pragma unroll
        for (int p = 0; p < C::parts; p++) {
            word w = gh_store<C>::encode(p, part[p]);
            run[p] = same ? gh_store<C>::combine(p, run[p], w) : w;
        }
    }

    __device__ void flush() /* the run into the bins, and no run */
    {
        unsigned bin = run_bin;
        run_bin = ~0u;
        if (bin == ~0u) /* no run */
            return;
        if constexpr (C::kind == GH_COUNT)
            return add(bin, (unsigned)run[0]);
        if (!lanes && __activemask() == ~0u && __all_sync(~0u, bin == __shfl_sync(~0u, bin, 0))) {
#pragma unroll
            for (int p = 0; p < C::parts; p++) /* a butterfly: any order, any grouping */
                for (int d = GH_WARP / 2; d > 0; d /= 2)
                    run[p] = gh_store<C>::combine(p, run[p], __shfl_xor_sync(~0u, run[p], d));
            if (lane != 0)
                return;
        }
#pragma unroll
        for (int p = 0; p < C::parts; p++)
            gh_atomic<C>(p, &mine[bin * stride + p * (lanes ? GH_WARP : 1)], run[p]);
    }
};

/* Halves count in rounds: between two, each half at GH_CARRY_AT or more goes to the global
 * sums; a round adds at most GH_ROUND to a half (as the host sizes it): none passes 65535. */
#define GH_CARRY_AT 0x1000u
#define GH_ROUND    (0x10000u - GH_CARRY_AT)

/* count: a multiple of 4 (the host rounds the shared memory up). */
__device__ inline void gh_carry(uint32_t *words, unsigned count, unsigned bins, uint32_t *sums)
{
    const uint32_t high = ((GH_CARRY_AT - 1) ^ 0xffffu) * 0x10001u; /* 0xf000f000 */
    for (unsigned q = threadIdx.x; q < count / 4; q += blockDim.x) {
        uint4 quad = ((uint4 *)words)[q];
        if (((quad.x | quad.y | quad.z | quad.w) & high) == 0)
            continue; /* nearly always: one read of 16 bytes */
        for (unsigned bin = 8 * q; bin < 8 * q + 8 && bin < bins; bin++) { /* its 8 halves */
            uint32_t n = words[bin / 2] >> (bin % 2 * 16) & 0xffff;
            if (n >= GH_CARRY_AT)
                atomicAdd(&sums[bin], n), words[bin / 2] -= n << (bin % 2 * 16);
        }
    }
}

#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define GH_TWO 2 /* blocks of 1024 an SM: 2048 threads an SM there (Programming Guide) */
#else
#define GH_TWO 1
#endif
/* A block of placement S: its bins at the identity; its items, a grid-stride apart, in
 * batches of B loads issued before any is used (halves: two carried across the rounds'
 * barriers), each through the transform; its bins into the sums. Counts per lane of 512 bins
 * or fewer (64 KiB of copies): B = 2, held to 32 registers where GH_TWO is 2 for two blocks
 * an SM; else B = 4 per lane, 2 for the others (each as measured in experiments-nvidia-h200). */
template <typename C, typename T, typename In, gh_strategy S>
__global__ void __launch_bounds__(1024, gh_out<C, T, S>::two_blocks ? GH_TWO : 1)
    gh_kernel(In in, T transform, size_t first, size_t end, unsigned bins, size_t per_round,
              typename gh_store<C>::word *sums)
{
    typedef gh_out<C, T, S> out_type;
    typedef typename gh_store<C>::word word;
    constexpr int P = C::parts, halves = out_type::halves;
    const unsigned copies = out_type::lanes ? GH_WARP : 1, lane = threadIdx.x % GH_WARP;
    word *shared = (word *)gh_shared;
    const unsigned words = halves ? ((bins + 1) / 2 + 3) / 4 * 4 : bins * P * copies;
    for (unsigned w = threadIdx.x; S != GH_GLOBAL && w < words; w += blockDim.x)
        shared[w] = halves ? 0 : gh_store<C>::identity(w / copies % P);
    __syncthreads();
    out_type out = {S == GH_GLOBAL ? sums : shared + lane % copies, lane, ~0u};

    const size_t stride = (size_t)blockDim.x * gridDim.x;
    const size_t block_first = first + blockIdx.x * (size_t)blockDim.x;
    size_t i = block_first + threadIdx.x;
    constexpr int B = S == GH_PER_LANE && !out_type::two_blocks ? 4 : 2;
    typename T::item_type next[2] = {}; /* halves: the two loads carried */
    for (int b = 0; halves && b < 2 && i + b * stride < end; b++)
        next[b] = transform.read(in, i + b * stride);
    /* the rounds' test is the block's, so that every thread meets the barriers */
    for (size_t round = block_first; round < end;
         round = halves ? round + per_round * stride : end) {
        size_t stop = halves && i + per_round * stride < end ? i + per_round * stride : end;
        for (; halves && i < stop; i += stride) {
            typename T::item_type now = next[0];
            next[0] = next[1];
            if (i + 2 * stride < end)
                next[1] = transform.read(in, i + 2 * stride);
            transform(in, now, i, out);
        }
        for (; !halves && i + (B - 1) * stride < stop; i += B * stride) {
            typename T::item_type item[B];
#pragma unroll
            for (int b = 0; b < B; b++)
                item[b] = transform.read(in, i + b * stride);
#pragma unroll
            for (int b = 0; b < B; b++)
                transform(in, item[b], i + b * stride, out);
        }
        for (; i < stop; i += stride)
            transform(in, transform.read(in, i), i, out);
        out.flush();
        if (halves) {
            __syncthreads();
            gh_carry((uint32_t *)shared, words, bins, (uint32_t *)sums);
            __syncthreads();
        }
    }
    __syncthreads(); /* every thread has counted: the block's bins into the sums */
    for (unsigned s = threadIdx.x; S != GH_GLOBAL && s < bins * P; s += blockDim.x) {
        word sum = halves ? 0 : gh_store<C>::identity(s % P);
        for (unsigned c = 0; c < copies; c++) { /* lane l starts at copy (s + l) % 32 */
            word w = halves ? shared[s / 2] >> (s % 2 * 16) & 0xffff
                            : shared[s * copies + (c + s) % copies];
            sum = halves ? sum + w : gh_store<C>::combine(s % P, sum, w);
        }
        if (sum != gh_store<C>::identity(s % P))
            gh_atomic<C>(s % P, &sums[s], sum);
    }
}

/* The sums at the identity, or at out's values (from) as stored; or back. */
template <typename C>
__global__ void gh_convert(typename gh_store<C>::word *sums, const void *from, bool back,
                           size_t words)
{
    for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w < words;
         w += (size_t)blockDim.x * gridDim.x)
        sums[w] = back   ? gh_store<C>::decode(w % C::parts, sums[w])
                  : from ? gh_store<C>::encode(w % C::parts, ((decltype(sums))from)[w])
                         : gh_store<C>::identity(w % C::parts);
}

/* ------------------------------------------------------------ the host -- */

struct gh_call {
    cudaStream_t stream; /* 0: the default stream */
    bool out_on_host;    /* out in host memory: the call returns once it holds the bins */
    bool accumulate;     /* combine onto out's values; else out starts at the identity */
    void *temp;          /* gh_temp_bytes of device memory, or NULL: the call's own */
    size_t temp_bytes;
    gh_strategy strategy; /* GH_AUTO: gh_choose's */
    dim3 *launched;       /* if not NULL: the call's grid (x) and block (y) */
};

/* What placement s needs of shared memory for bins, in 16-byte quads. */
template <typename C> size_t gh_shared_bytes(gh_strategy s, unsigned bins)
{
    size_t bytes = (size_t)bins * sizeof(typename C::value_type), pairs = ((size_t)bins + 1) / 2;
    size_t by[] = {0, bytes * GH_WARP, bytes, pairs * 4, 0};
    return (by[s] + 15) / 16 * 16;
}

/* The placements a (combine, transform) is compiled with: halves count only;
 * bins that all fit in 48 KiB (any block's) never need halves or global memory. */
template <typename C, typename T> constexpr bool gh_compiled(gh_strategy s)
{
    bool small = (size_t)T::max_bins * sizeof(typename C::value_type) <= 48 * 1024;
    return s == GH_PER_BLOCK_HALVES ? C::kind == GH_COUNT && !small : s != GH_GLOBAL || !small;
}

/* Whether placement s holds bins here: compiled, and in a block's shared memory. */
template <typename C, typename T> bool gh_fits(gh_strategy s, unsigned bins)
{
    int device = 0, most = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    return bins >= 1 && bins <= T::max_bins && s != GH_AUTO && gh_compiled<C, T>(s) &&
           gh_shared_bytes<C>(s, bins) <= (size_t)most;
}

/* GH_AUTO's placement. Counts of keys dense in the input (half an output a byte or more: u8,
 * u16) come faster than bank conflicts allow: a copy per lane where it fits. Then, and for other
 * counts: per block, in halves (07). Values: per lane, then per block (T::runs: the other way). */
template <typename C, typename T> gh_strategy gh_choose(unsigned bins)
{
    bool dense = C::kind == GH_COUNT && 2 * T::outputs >= (int)sizeof(typename T::item_type);
    bool runs = requires
    {
        requires T::runs;
    };
    const gh_strategy order[4][4] = {{GH_PER_LANE, GH_PER_BLOCK, GH_PER_BLOCK_HALVES, GH_GLOBAL},
                                     {GH_PER_BLOCK, GH_PER_BLOCK_HALVES, GH_GLOBAL, GH_GLOBAL},
                                     {GH_PER_LANE, GH_PER_BLOCK, GH_GLOBAL, GH_GLOBAL},
                                     {GH_PER_BLOCK, GH_PER_LANE, GH_GLOBAL, GH_GLOBAL}};
    for (gh_strategy s : order[C::kind != GH_COUNT ? 2 + runs : dense ? 0 : 1])
        if (gh_fits<C, T>(s, bins))
            return s;
    return GH_GLOBAL;
}

/* The temporary bytes a call needs: the sums, where out cannot hold them (host; float order). */
template <typename C> size_t gh_temp_bytes(unsigned bins, bool out_on_host)
{
    return out_on_host || !gh_store<C>::as_is() ? (size_t)bins * sizeof(typename C::value_type) : 0;
}

/* Launches placement S over [first, end): 512 or 1024 threads a block, whichever keeps more
 * on an SM (1024 on a tie: faster on the H200), as many blocks as fit at once but no more
 * than the items need; the occupancy, once per device and shared size (it costs more). */
template <typename C, typename T, typename In, gh_strategy S>
cudaError_t gh_launch(const In &in, const T &t, size_t first, size_t end, unsigned bins,
                      typename gh_store<C>::word *sums, cudaStream_t stream, dim3 *shape)
{
    if constexpr (!gh_compiled<C, T>(S)) {
        return cudaErrorInvalidValue;
    } else {
        static int known_device = -1, blocks, threads;
        static size_t known_shared;
        const void *kernel = (const void *)gh_kernel<C, T, In, S>;
        size_t shared = gh_shared_bytes<C>(S, bins);
        int device, sms, per_sm;
        cudaError_t e = cudaGetDevice(&device);
        if (e == cudaSuccess && (device != known_device || shared != known_shared)) {
            known_device = -1, blocks = 0;
            if (shared > 48 * 1024)
                e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)shared);
            if (e == cudaSuccess)
                e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
            for (int n = 512; n <= 1024 && e == cudaSuccess; n *= 2)
                if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, n,
                                                                       shared)) == cudaSuccess &&
                    per_sm * n >= blocks * threads)
                    blocks = per_sm, threads = n;
            if (e != cudaSuccess || blocks == 0)
                return e != cudaSuccess ? e : cudaErrorInvalidConfiguration;
            known_device = device, known_shared = shared, blocks *= sms;
        }
        size_t most = (end - first + threads - 1) / threads;
        *shape = dim3((unsigned)(most < (size_t)blocks ? most : blocks), threads);
        static_assert(S != GH_PER_BLOCK_HALVES || T::outputs * 1024 <= GH_ROUND,
                      "a round of halves may add all a block's outputs to one: at most 60 an item");
        if (e == cudaSuccess)
            gh_kernel<C, T, In, S><<<shape->x, threads, shared, stream>>>(
                in, t, first, end, bins, GH_ROUND / (T::outputs * threads), sums);
        return e == cudaSuccess ? cudaGetLastError() : e;
    }
}

template <typename C, typename T, typename In>
cudaError_t gh_histogram(const In &in, const T &t, const C &, size_t first, size_t end,
                         unsigned bins, typename C::value_type *out, const gh_call &call)
{
    typedef typename gh_store<C>::word word;
    const decltype(&gh_launch<C, T, In, GH_PER_LANE>) launch[] = {
        nullptr, gh_launch<C, T, In, GH_PER_LANE>, gh_launch<C, T, In, GH_PER_BLOCK>,
        gh_launch<C, T, In, GH_PER_BLOCK_HALVES>, gh_launch<C, T, In, GH_GLOBAL>};
    gh_strategy s = call.strategy == GH_AUTO ? gh_choose<C, T>(bins) : call.strategy;
    size_t need = gh_temp_bytes<C>(bins, call.out_on_host), bytes = (size_t)bins * sizeof *out;
    size_t words = bytes / sizeof(word);
    if (!out || end < first || !gh_fits<C, T>(s, bins) || t.bins() != bins ||
        (call.temp && call.temp_bytes < need))
        return cudaErrorInvalidValue;
    word *sums = (word *)out, *own = nullptr;
    cudaStream_t stream = call.stream;
    cudaError_t e = need && !call.temp ? cudaMallocAsync((void **)&own, need, stream) : cudaSuccess;
    sums = need ? (own ? own : (word *)call.temp) : sums;
    /* the sums start at the identity, or at out's values as stored */
    if (e == cudaSuccess && call.accumulate && call.out_on_host)
        e = cudaMemcpyAsync(sums, out, bytes, cudaMemcpyHostToDevice, stream);
    bool zeros = !call.accumulate; /* an identity of zero bits: a memset, not a launch */
    for (int p = 0; p < C::parts; p++)
        zeros = zeros && gh_store<C>::identity(p) == 0;
    if (e == cudaSuccess && zeros)
        e = cudaMemsetAsync(sums, 0, bytes, stream);
    else if (e == cudaSuccess && (!call.accumulate || sums != (word *)out)) {
        const void *from = !call.accumulate ? nullptr : call.out_on_host ? sums : (void *)out;
        gh_convert<C>
            <<<(unsigned)((words + 255) / 256), 256, 0, stream>>>(sums, from, false, words);
        e = cudaGetLastError();
    }
    dim3 shape(0, 0);
    if (e == cudaSuccess && end > first)
        e = launch[s](in, t, first, end, bins, sums, stream, &shape);
    if (call.launched)
        *call.launched = shape;
    if (e == cudaSuccess && sums != (word *)out) {
        if (!gh_store<C>::as_is())
            gh_convert<C>
                <<<(unsigned)((words + 255) / 256), 256, 0, stream>>>(sums, 0, true, words);
        e = cudaGetLastError();
        cudaMemcpyKind to = call.out_on_host ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(out, sums, bytes, to, stream);
    }
    cudaError_t freed = own ? cudaFreeAsync(own, stream) : cudaSuccess;
    e = e == cudaSuccess ? freed : e;
    return e == cudaSuccess && call.out_on_host ? cudaStreamSynchronize(stream) : e;
}

#endif /* GENERALIZED_HISTOGRAM_CUH */
