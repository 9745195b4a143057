/*
 * hsv.h - a pixel's hue, saturation and value (HSV), in integers: the value
 * is its largest channel, the saturation 255 x (largest - smallest) /
 * largest, and the hue an angle on the colour wheel, red at 0 degrees. A
 * grey pixel (largest == smallest) has no hue. C, for the host and, under
 * nvcc, the GPU: stage 08's transform and CPU answer, its suite (which checks
 * it against the textbook formula on every colour) and exercise 17 share it.
 */
#ifndef HSV_H
#define HSV_H

#include "even_bins.h" /* NO_BIN */

#ifdef __CUDACC__
#define HSV_FN __host__ __device__ static inline
#else
#define HSV_FN static inline
#endif

/* hue_bin: the hue's even bin of bins over 360 degrees, or NO_BIN for grey,
 * worked out exactly: the hue is a fraction of 60 degrees x (largest - smallest). */
struct hsv {
    unsigned hue_bin, saturation, value;
};

HSV_FN struct hsv hsv_of(unsigned r, unsigned g, unsigned b, unsigned bins)
{
    unsigned high = r > g ? (r > b ? r : b) : (g > b ? g : b);
    unsigned low = r < g ? (r < b ? r : b) : (g < b ? g : b), chroma = high - low;
    struct hsv p = {NO_BIN, high ? 255 * chroma / high : 0, high};
    if (chroma == 0)
        return p;
    /* the hue in degrees times chroma: 60 x (sector x chroma + offset), in [0, 360 x chroma) */
    long long h = high == r   ? 60LL * ((long long)g - b)
                  : high == g ? 60LL * (2 * chroma + b - (long long)r)
                              : 60LL * (4 * chroma + r - (long long)g);
    if (h < 0)
        h += 360LL * chroma;
    p.hue_bin = (unsigned)(h * bins / (360LL * chroma));
    return p;
}

#endif /* HSV_H */
