/*
 * generalized_yours.cuh - exercise 17, the part you write: three types for
 * stage 08's library. soft_bins, a transform that splits each f32 key's count
 * of 1 between the two bins whose centres are nearest; brightest and darkest,
 * two combines the library runs in a compare-and-swap loop. The reference
 * solution.
 */

/* ----------------------------------------------------------- soft binning -- */

/* Each item is 4 keys, one 16-byte load; each key emits two outputs. */
struct soft_bins {
    typedef float4 item_type;
    static constexpr int outputs = 8; /* 4 keys, two bins each */
    static constexpr unsigned max_bins = 65536;
    struct soft_range range; /* the only member: the program makes one as soft_bins{range} */

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

    /* One key's two outputs, out(bin, weight), each bin below bins(). */
    template <typename Out> __host__ __device__ void split(float key, Out &out) const
    {
        if (!(key >= range.lo && key < range.hi)) /* a NaN fails every comparison */
            return;
        /* its place in bin widths from bin 0's centre: bin b's centre is at b */
        float place = (key - range.lo) * range.scale - 0.5f;
        float below = floorf(place), share = place - below; /* floor, not a cast: -0.25 is in -1 */
        int left = (int)below;                              /* -1 in bin 0's first half */
        out(left < 0 ? 0u : (unsigned)left, 1.0f - share);
        out(left + 1 >= (int)range.bins ? range.bins - 1 : (unsigned)(left + 1), share);
    }
};

/* --------------------------------------------------------------- combines -- */

/* The brighter pick; of two as bright, the smaller pixel index: a total order,
 * so that any order and grouping of the picks gives the same one. */
struct brightest : gh_cas<pick> {
    /* the least pick of that order: no real pick loses to it */
    __host__ __device__ static pick identity()
    {
        return {0, 0xffffffffu};
    }
    __host__ __device__ pick operator()(pick a, pick b) const
    {
        if (a.brightness != b.brightness)
            return a.brightness > b.brightness ? a : b;
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
