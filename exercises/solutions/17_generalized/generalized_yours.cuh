/*
 * generalized_yours.cuh - exercise 17, the part you write: three types for
 * stage 08's library. spline_bins, a transform that splits each f32 key's
 * count of 1 among the three bins whose centres are nearest; nearest_hue and
 * darkest, two combines the library runs in a compare-and-swap loop. The
 * reference solution.
 */

/* --------------------------------------------------------- spline binning -- */

/* Each item is 4 keys, one 16-byte load; each key emits three outputs. */
struct spline_bins {
    typedef float4 item_type;
    static constexpr int outputs = 12; /* 4 keys, three bins each */
    static constexpr unsigned max_bins = 65536;
    struct key_range range; /* the only member: the program makes one as spline_bins{range} */

    __host__ __device__ unsigned bins() const
    {
        return range.bins;
    }

    __device__ float4 read(const keys_in &in, size_t i) const
    {
        return in.keys[i];
    }

    /* Item i holds keys 4i to 4i + 3; in the last item, those from n on are padding. */
    template <typename Out>
    __host__ __device__ void operator()(const keys_in &in, const float4 &item, size_t i,
                                        Out &out) const
    {
        const float key[4] = {item.x, item.y, item.z, item.w};
        for (int j = 0; j < 4 && 4 * i + j < in.n; j++)
            split(key[j], out);
    }

    /* One key's three outputs, out(bin, weight), each bin below bins(). */
    template <typename Out> __host__ __device__ void split(float key, Out &out) const
    {
        if (!(key >= range.lo && key < range.hi)) /* a NaN fails every comparison */
            return;
        /* its place in bin widths from bin 0's centre: bin b's centre is at b */
        float place = (key - range.lo) * range.scale - 0.5f;
        /* the bin before the nearest centre: floor, not a cast, as it is -1 in bin 0 */
        float before = floorf(place - 0.5f);
        float d = place - before - 1.0f; /* from the nearest centre: -0.5 to 0.5 */
        const float share[3] = {0.5f * (0.5f - d) * (0.5f - d), 0.75f - d * d,
                                0.5f * (0.5f + d) * (0.5f + d)};
        int first = (int)before, last = (int)range.bins - 1;
        for (int k = 0; k < 3; k++) { /* a bin past either end: its share stays in the end bin */
            int b = first + k;
            out((unsigned)(b < 0 ? 0 : b > last ? last : b), share[k]);
        }
    }
};

/* --------------------------------------------------------------- combines -- */

/* The pick whose hue is nearer its bin's centre; of two as near, the one with
 * the smaller pixel index: a total order, so that any order and grouping of
 * the picks gives the same one. */
struct nearest_hue : gh_cas<pick> {
    /* the greatest pick of that order: every real pick beats it */
    __host__ __device__ static pick identity()
    {
        return {0xffffffffu, 0xffffffffu};
    }
    __host__ __device__ pick operator()(pick a, pick b) const
    {
        if (a.distance != b.distance)
            return a.distance < b.distance ? a : b;
        return a.pixel < b.pixel ? a : b;
    }
};

/* The smaller value. */
struct darkest : gh_cas<unsigned> {
    /* the largest unsigned: the minimum of it and v is v, for every v */
    __host__ __device__ static unsigned identity()
    {
        return 0xffffffffu;
    }
    __host__ __device__ unsigned operator()(unsigned a, unsigned b) const
    {
        return a < b ? a : b;
    }
};
