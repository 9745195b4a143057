/*
 * generalized_yours.cuh - exercise 17, the part you write: three types for
 * stage 08's library. spline_bins, a transform that splits each f32 key's
 * count of 1 among the three bins whose centres are nearest; nearest_hue and
 * darkest, two combines the library runs in a compare-and-swap loop.
 * generalized.cu includes this file, checks your types on the host (--laws),
 * then runs the library with them on the GPU. Look for TODO.
 */

/* --------------------------------------------------------- spline binning -- */

/* Each item is 4 keys, one 16-byte load. */
struct spline_bins {
    typedef float4 item_type;
    /* TODO: the most outputs one item emits: count them once split is written. */
    static constexpr int outputs = 4;
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

    /* One key's outputs, out(bin, weight), each bin below bins(). */
    template <typename Out> __host__ __device__ void split(float, Out &) const
    {
        /* TODO: nothing for a key outside [lo, hi), NaN or infinite. Else
         * split the key's 1 among the three bins whose centres are nearest,
         * with the weights the README gives; a share for a bin before the
         * first or past the last stays in that end bin. range.lo, range.hi,
         * range.bins and range.scale (bins / (hi - lo)) describe the bins.
         * This emits nothing. */
    }
};

/* --------------------------------------------------------------- combines -- */

/* The pick whose hue is nearer its bin's centre (the smaller distance); of
 * two as near, the one with the smaller pixel index. */
struct nearest_hue : gh_cas<pick> {
    /* TODO: the pick that leaves every pick the type can hold as it is:
     * combine(identity(), a) == a. */
    __host__ __device__ static pick identity()
    {
        return {0, 0};
    }
    /* TODO: the nearer of a and b; of two as near, the smaller pixel index.
     * This keeps the first it is given. */
    __host__ __device__ pick operator()(pick a, pick) const
    {
        return a;
    }
};

/* The smaller value, written by hand. */
struct darkest : gh_cas<unsigned> {
    /* TODO: the value v that leaves every value as it is: combine(v, a) == a. */
    __host__ __device__ static unsigned identity()
    {
        return 0;
    }
    /* TODO: the smaller of a and b. This keeps the first it is given. */
    __host__ __device__ unsigned operator()(unsigned a, unsigned) const
    {
        return a;
    }
};
