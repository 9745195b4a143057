/*
 * transforms.cuh - what stage 08 counts, written as the library asks
 * (generalized_histogram.cuh): each lesson's input, its transform and its
 * combine. A transform reads one item, 16 bytes in one load (a matrix's:
 * two), and emits its outputs; everything it knows at launch (the rule, the
 * channels, what it emits) is a template parameter or a field, never a test
 * per key.
 *
 *   integer_keys<Key, Rule, Channels>  u8, u16 or u32 keys in even bins: 16, 8 or 4 an item
 *   float_keys<Emit>                   f32 keys: counts, weights, moments or soft bins
 *   row_sums                           a row-major float matrix: the key is the row
 *   pixel_hues                         a photograph's pixels: the key is the hue
 *
 * Items may run past the input's last key into the padding to 32 bytes that
 * the stage allocates; a transform emits nothing for those keys, nor for a
 * key in no bin: every bin it emits is below its bins().
 */
#ifndef TRANSFORMS_CUH
#define TRANSFORMS_CUH

#include "even_bins.h"
#include "generalized_histogram.cuh"
#include "hsv.h"

#define MAX_BINS (1u << 24) /* u32 and f32 keys, rows: 64 MiB of 32-bit values */

/* On the GPU a product is rounded before the next add, as on the CPU:
 * nvcc would otherwise fuse (x - lo) * scale - 0.5 into one FMA, and a key
 * on a bin's edge could land in the other bin than the CPU's. */
#ifdef __CUDA_ARCH__
#define MUL(a, b) __fmul_rn(a, b)
#else
#define MUL(a, b) ((a) * (b))
#endif

/* ----------------------------------------------------------- integer keys -- */

/* n keys, in 16-byte vectors (the last one padded). */
struct keys_in {
    const uint4 *vectors;
    size_t n;
};

/* FULL: every value of the key its own bin (u8: 256, u16: 65536), channels
 * interleaved (RGBA is 4 channels of 256 bins); NARROW, WIDE: even bins
 * over [lo, hi), even_bins.h's 32- or 64-bit reciprocal. */
enum rule { FULL, NARROW, WIDE };

template <typename Key, int Rule, int Channels = 1> struct integer_keys {
    static_assert(Rule == FULL || Channels == 1, "channels take every value of a u8 key");
    static_assert(Rule != FULL || sizeof(Key) <= 2, "a u32 key has too many values for a bin each");
    typedef uint4 item_type;
    static constexpr int outputs = 16 / sizeof(Key);
    static constexpr unsigned values = sizeof(Key) == 4 ? 0 : 1u << (8 * sizeof(Key));
    static constexpr unsigned max_bins = Rule == FULL       ? Channels * values
                                         : sizeof(Key) == 4 ? MAX_BINS
                                                            : values;
    struct even_bins rule; /* NARROW and WIDE */

    __host__ __device__ unsigned bins() const
    {
        return Rule == FULL ? max_bins : rule.bins;
    }

    __device__ uint4 read(const keys_in &in, size_t i) const
    {
        return in.vectors[i];
    }

    template <typename Out>
    __device__ void operator()(const keys_in &in, const uint4 &item, size_t i, Out &out) const
    {
        Key key[outputs];
        memcpy(key, &item, sizeof item);
        size_t first = i * outputs;
        /* key j's channel, for 3 channels: a vector starts at channel first % 3 */
        unsigned channel = Channels == 3 ? (unsigned)(first % 3) : 0;
        if (first + outputs <= in.n) { /* every item but the last: no test per key */
            /* 2- and 4-byte keys all one: one add (per-block and halves lanes share counters,
             * and 8 adds to one would wait on each other); per-lane u8 counts never wait */
            if (sizeof(Key) > 1 && Channels == 1 && item.x == item.y && item.x == item.z &&
                item.x == item.w && (sizeof(Key) == 4 || item.x >> 16 == (item.x & 0xffff)))
                return count(key[0], 0, out, outputs);
#pragma unroll
            for (int j = 0; j < outputs; j++)
                count(key[j], Channels == 3 ? channel++ % 3 : j % Channels, out);
        } else {
            for (int j = 0; j < outputs && first + j < in.n; j++)
                count(key[j], Channels == 3 ? channel++ % 3 : j % Channels, out);
        }
    }

    template <typename Out>
    __device__ void count(Key key, unsigned channel, Out &out, unsigned n = 1) const
    {
        uint32_t d = (uint32_t)key - rule.lo; /* a key below lo wraps past the last */
        if (Rule == FULL)
            out(channel * values + key, n);
        else if (d <= rule.last)
            out(Rule == NARROW ? even_bins_narrow(&rule, d) : even_bins_wide(&rule, d), n);
    }
};

/* ------------------------------------------------------------- float keys -- */

/* The even bins of f32 keys, by CUB's rule (so that CUB's bins are the same):
 * a key in [lo, hi) is in bin (x - lo) x scale, scale = bins / (hi - lo) in
 * float, rounded down; a product that rounds up to bins goes in the last. */
struct float_bins {
    float lo, hi, scale;
    unsigned bins;
};

__host__ __device__ inline unsigned float_bin(const struct float_bins &r, float x)
{
    if (!(x >= r.lo && x < r.hi)) /* NaNs too */
        return NO_BIN;
    unsigned bin = (unsigned)MUL(x - r.lo, r.scale);
    return bin < r.bins ? bin : r.bins - 1;
}

/* n keys and, for every Emit but COUNT and SOFT, n weights beside them. */
struct floats_in {
    const float4 *keys, *weights;
    size_t n;
};

/* What a float key emits: a count; its weight (a sum, min or max, as the
 * combine says); its weight's moments; or soft binning: its 1 split between
 * the two bins whose centres are nearest, in proportion to how near. */
enum emit { COUNT, WEIGHT, MOMENTS, SOFT };

/* The moments of a bin's weights: mean sum / count, variance sum_sq / count
 * - mean^2. Three parts, each summed on its own. */
struct moments {
    unsigned count;
    float sum, sum_sq;
};
typedef gh_parts<moments, GH_ADD_U32, GH_ADD_F32, GH_ADD_F32> sum_moments;
typedef gh_parts<float, GH_ADD_F32> sum_floats;
typedef gh_parts<float, GH_MIN_F32> min_floats;
typedef gh_parts<float, GH_MAX_F32> max_floats;

template <int Emit> struct float_keys {
    struct weighted {
        float4 keys, weights;
    };
    static constexpr bool has_weights = Emit == WEIGHT || Emit == MOMENTS;
    typedef typename std::conditional<has_weights, weighted, float4>::type item_type;
    static constexpr int outputs = Emit == SOFT ? 8 : 4;
    static constexpr unsigned max_bins = MAX_BINS;
    struct float_bins rule;

    __host__ __device__ unsigned bins() const
    {
        return rule.bins;
    }

    __device__ item_type read(const floats_in &in, size_t i) const
    {
        if constexpr (has_weights)
            return {in.keys[i], in.weights[i]};
        else
            return in.keys[i];
    }

    template <typename Out>
    __device__ void operator()(const floats_in &in, const item_type &item, size_t i, Out &out) const
    {
        float key[4], weight[4] = {0, 0, 0, 0};
        if constexpr (has_weights) {
            memcpy(key, &item.keys, sizeof key);
            memcpy(weight, &item.weights, sizeof weight);
        } else {
            memcpy(key, &item, sizeof key);
        }
        int count = 4 * i + 4 <= in.n ? 4 : (int)(in.n - 4 * i);
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (j < count)
                emit_one(key[j], weight[j], out);
    }

    template <typename Out> __device__ void emit_one(float key, float weight, Out &out) const
    {
        unsigned bin = float_bin(rule, key);
        if (bin == NO_BIN)
            return;
        if constexpr (Emit == COUNT) {
            out(bin);
        } else if constexpr (Emit == WEIGHT) {
            out(bin, weight);
        } else if constexpr (Emit == MOMENTS) {
            out(bin, moments{1, weight, MUL(weight, weight)});
        } else {
            /* its place in bin widths from bin 0's centre */
            float place = MUL(key - rule.lo, rule.scale) - 0.5f;
            float below = floorf(place), share = place - below;
            int left = (int)below;
            out(left < 0 ? 0u : (unsigned)left, 1.0f - share);
            out(left + 1 >= (int)rule.bins ? rule.bins - 1 : (unsigned)(left + 1), share);
        }
    }
};

/* -------------------------------------------------------------- row sums -- */

/* A matrix of rows x cols floats, row by row: element e is in row e / cols,
 * by even_bins.h's rows_rule, with no divide per element. */
struct matrix_in {
    const float4 *values; /* padded to 32 bytes */
    size_t n;             /* rows x cols, at most 2^32 */
};

struct row_sums {
    struct eight {
        float4 a, b;
    };
    typedef eight item_type; /* 8 floats, two loads: one output an item, nearly always */
    static constexpr int outputs = 8;
    static constexpr bool runs = true; /* a row's outputs come one after another */
    static constexpr unsigned max_bins = MAX_BINS;
    struct rows_rule rule;
    unsigned rows;

    __host__ __device__ unsigned bins() const
    {
        return rows;
    }

    __device__ eight read(const matrix_in &in, size_t i) const
    {
        return {in.values[2 * i], in.values[2 * i + 1]};
    }

    template <typename Out>
    __device__ void operator()(const matrix_in &in, const eight &item, size_t i, Out &out) const
    {
        const float value[8] = {item.a.x, item.a.y, item.a.z, item.a.w,
                                item.b.x, item.b.y, item.b.z, item.b.w};
        uint32_t first = (uint32_t)(8 * i);
        unsigned row = row_of(&rule, first);
        if (first + 8 <= in.n && row_of(&rule, first + 7) == row) { /* one row: one output */
            float sum = 0;
            for (int j = 0; j < 8; j++)
                sum += value[j];
            out(row, sum);
            return;
        }
        for (int j = 0; j < 8 && first + j < in.n; j++)
            out(row_of(&rule, first + j), value[j]);
    }
};

/* ---------------------------------------------------------------- pixels -- */

/* A photograph's pixels, 3 bytes each: R, G, B. Each pixel's hue bin and
 * saturation: hsv_of (hsv.h). */
struct pixels_in {
    const unsigned char *rgb;
    size_t n;
};

/* Per hue bin, what a plain histogram cannot give: how many pixels, their
 * saturations' sum (the mean is sum / count) and the brightest value. */
struct hue_stats {
    unsigned count, saturation_sum, brightest;
};
typedef gh_parts<hue_stats, GH_ADD_U32, GH_ADD_U32, GH_MAX_U32> combine_hue_stats;

/* Per hue bin, the most saturated pixel, and on a tie the first: a value of
 * two parts that must change together, so no one atomic does it. The
 * library takes the combine's own operator, in a compare-and-swap loop. */
struct pick {
    unsigned saturation, pixel;
};
struct most_saturated : gh_cas<pick> {
    __host__ __device__ static pick identity()
    {
        return {0, 0xffffffffu};
    }
    __host__ __device__ pick operator()(pick a, pick b) const
    {
        if (a.saturation != b.saturation)
            return a.saturation > b.saturation ? a : b;
        return a.pixel < b.pixel ? a : b;
    }
};

template <bool Pick> struct pixel_hues {
    struct rgb {
        unsigned char r, g, b;
    };
    typedef rgb item_type;
    static constexpr int outputs = 1;
    static constexpr unsigned max_bins = 360;
    unsigned hue_bins;

    __host__ __device__ unsigned bins() const
    {
        return hue_bins;
    }

    __device__ rgb read(const pixels_in &in, size_t i) const
    {
        return {in.rgb[3 * i], in.rgb[3 * i + 1], in.rgb[3 * i + 2]};
    }

    template <typename Out>
    __device__ void operator()(const pixels_in &, const rgb &p, size_t i, Out &out) const
    {
        struct hsv c = hsv_of(p.r, p.g, p.b, hue_bins);
        if (c.hue_bin == NO_BIN) /* grey: no hue */
            return;
        if constexpr (Pick)
            out(c.hue_bin, pick{c.saturation, (unsigned)i});
        else
            out(c.hue_bin, hue_stats{1, c.saturation, c.value});
    }
};

#endif /* TRANSFORMS_CUH */
