/*
 * Exercise 17 - stage 08's library with types of your own: a transform that
 * splits each f32 key's count of 1 among the three nearest bins (quadratic
 * spline binning), and two combines the library runs in a compare-and-swap
 * loop: per hue bin, the pixel whose hue is nearest the bin's centre, and the
 * darkest value. The library combines a bin's values in any order and any
 * grouping, so the program first checks your combines' laws and your
 * transform's outputs on the host (--laws, no GPU needed), then runs the
 * library with them and checks every bin against the CPU. Yours:
 * generalized_yours.cuh.
 *
 *   make run ARGS=--laws                         the host checks, on any machine
 *   make run                                     spline bins of the book's 100 MiB as f32 keys
 *   make run ARGS='--size 1M --bins 10 --range 0.25:0.75 --print-bins'
 *   make run ARGS='--image ../../data/chelsea.bmp --bins 36 --print-bins'
 *                                                per hue bin: the nearest pixel, the darkest value
 */
#include "book.h"
#include "harness_cuda.h"
#include "generalized_histogram.cuh" /* stage 08's library: read its header's first lines */
#include "hsv.h"                     /* stage 08's hue of a pixel */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ what your types work on -- */

/* n f32 keys, padded with zeros to whole 16-byte items. */
struct keys_in {
    const float4 *keys;
    size_t n;
};

/* Even bins over [lo, hi): scale = bins / (hi - lo), worked out in float. */
struct key_range {
    float lo, hi, scale;
    unsigned bins;
};

static key_range key_range_of(float lo, float hi, unsigned bins)
{
    return {lo, hi, (float)bins / (hi - lo), bins};
}

/* How far a pixel's hue lies from its hue bin's centre (in thousandths of a
 * bin width: 0 to 500, so that many pixels tie) and which pixel it is: 8 bytes. */
struct pick {
    unsigned distance, pixel;
};

/* Yours: spline_bins, nearest_hue and darkest. */
#include "generalized_yours.cuh"

/* The task's two combines run in the library's compare-and-swap loop: a
 * derivation from another part (the hardware's own atomicMin, say) may give
 * the same minimum, but it is not the combine the task asks you to write. */
static_assert(std::is_base_of<gh_cas<pick>, nearest_hue>::value,
              "nearest_hue must derive from gh_cas<pick> (the README's task 2)");
static_assert(std::is_base_of<gh_cas<unsigned>, darkest>::value,
              "darkest must derive from gh_cas<unsigned> (the README's task 3)");

/* The spline bins' combine: a float sum per bin, the hardware's atomicAdd. */
typedef gh_parts<float, GH_ADD_F32> spline_sums;

/* ---------------------------------------------------- spline binning, exact -- */

/* What key x should give, worked out here in double, not from yours, as a
 * definition: x's place p, in bin widths from bin 0's centre; c, the bin
 * whose centre is nearest (held to a bin), and d = p - c; bins c - 1, c and
 * c + 1 take 0.5 (0.5 - d)^2, 0.75 - d^2 and 0.5 (0.5 + d)^2, and a share
 * for a bin before the first or past the last goes to that end bin. Returns
 * the bins that take a share, each once (1 to 3; 0 outside [lo, hi) and for
 * NaN), with how many of the key's three shares each holds, and c. */
static int exact_split(const key_range &r, float x, unsigned bin[3], double weight[3],
                       int shares[3], long *centre)
{
    if (!(x >= r.lo && x < r.hi))
        return 0;
    double p = ((double)x - r.lo) * r.bins / ((double)r.hi - r.lo) - 0.5;
    long c = (long)floor(p + 0.5), last = (long)r.bins - 1;
    c = c < 0 ? 0 : c > last ? last : c;
    double d = p - c;
    const double share[3] = {0.5 * (0.5 - d) * (0.5 - d), 0.75 - d * d,
                             0.5 * (0.5 + d) * (0.5 + d)};
    int pairs = 0;
    for (int k = 0; k < 3; k++) {
        long b = c - 1 + k;
        unsigned held = (unsigned)(b < 0 ? 0 : b > last ? last : b);
        int at = 0;
        while (at < pairs && bin[at] != held)
            at++;
        if (at == pairs)
            bin[pairs] = held, weight[pairs] = 0, shares[pairs++] = 0;
        weight[at] += share[k], shares[at]++;
    }
    *centre = c;
    return pairs;
}

/* How far a weight worked out in float may be from the exact one: p is a few
 * roundings of a number up to bins, each within 2^-24 of it, and a weight
 * moves by at most as much as p. */
static double split_tolerance(unsigned bins)
{
    return 8.0 * (bins + 1) * 0x1p-24;
}

/* -------------------------------------------------------------- the pixels -- */

/* A pixel's hue bin and brightness (its largest channel): stage 08's hsv_of,
 * in hsv.h. A grey pixel has no hue (NO_BIN). */

/* How far the hue of a pixel in hue bin `bin` lies from the bin's centre, in
 * thousandths of a bin width: the thousandth of its bin that its hue falls in
 * (stage 08's hue bin of 1000 times the bins, exact), counted from the
 * bin's middle one, 0 to 500. */
__host__ __device__ static unsigned hue_distance(unsigned r, unsigned g, unsigned b, unsigned bins,
                                                 unsigned bin)
{
    int from = (int)(hsv_of(r, g, b, 1000 * bins).hue_bin - 1000 * bin) - 500;
    return (unsigned)(from < 0 ? -from : from);
}

/* n pixels, 3 bytes each: R, G, B. */
struct pixels_in {
    const unsigned char *rgb;
    size_t n;
};

/* The given transform: each pixel with a hue emits once, in its hue bin, a
 * pick (for nearest_hue) or its brightness alone (for darkest). */
template <typename C> struct pixel_hues {
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
        if (c.hue_bin == NO_BIN)
            return;
        if constexpr (std::is_same<typename C::value_type, pick>::value)
            out(c.hue_bin, pick{hue_distance(p.r, p.g, p.b, hue_bins, c.hue_bin), (unsigned)i});
        else
            out(c.hue_bin, c.value);
    }
};

/* --laws: your types on the host, before any GPU is touched. */
#include "laws.cuh"

/* -------------------------------------------------------- the CPU's answer -- */

/* The CPU's values and how the GPU's are checked against them: spline bins
 * within a tolerance, picks and minima bit for bit. */
struct expected {
    unsigned bins, words; /* words a bin: 1, or 2 for a pick */
    unsigned *exact;      /* picks, minima */
    double *sums, *tolerance;
    char sum[160];
    struct values check;
};

/* A float sum of k terms, in any order, is within (k - 1) 2^-24 times their
 * magnitudes' sum of the exact one (Higham, Accuracy and Stability of
 * Numerical Algorithms, 4.2); each GPU term is a float split, within
 * split_tolerance of the exact one. */
static void cpu_spline(const float *keys, size_t n, const key_range &r, expected *e)
{
    unsigned *terms = (unsigned *)calloc(r.bins, sizeof *terms);
    e->sums = (double *)calloc(r.bins, sizeof(double));
    e->tolerance = (double *)calloc(r.bins, sizeof(double));
    if (!terms || !e->sums || !e->tolerance)
        fail("out of host memory for %u bins", r.bins);
    size_t inside = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned bin[3];
        double weight[3];
        int shares[3];
        long centre;
        int pairs = exact_split(r, keys[i], bin, weight, shares, &centre);
        for (int k = 0; k < pairs; k++) /* the GPU adds each of a key's shares on its own */
            e->sums[bin[k]] += weight[k], e->tolerance[bin[k]] += weight[k],
                terms[bin[k]] += shares[k];
        inside += pairs > 0;
    }
    for (unsigned b = 0; b < r.bins; b++)
        e->tolerance[b] =
            (terms[b] + 2) * e->tolerance[b] * 0x1p-24 + terms[b] * split_tolerance(r.bins);
    free(terms);
    snprintf(e->sum, sizeof e->sum,
             "Sum:        %zu (of %zu keys, those in [%g, %g): each adds 1 in all)", inside, n,
             r.lo, r.hi);
}

/* Per hue bin, the pixel whose hue is nearest the bin's centre (of two as
 * near, the first) and the least brightness, by one loop in pixel order. An
 * empty bin holds what the library starts each bin at, the combine's
 * identity: a pick that every pixel beats, and a value that every brightness
 * is below. */
static void cpu_pixels(const unsigned char *rgb, size_t n, unsigned bins, expected *picks,
                       expected *minima)
{
    for (unsigned b = 0; b < bins; b++) {
        picks->exact[2 * b] = 0xffffffffu, picks->exact[2 * b + 1] = 0xffffffffu;
        minima->exact[b] = 0xffffffffu;
    }
    size_t hued = 0;
    for (size_t p = 0; p < n; p++) {
        const unsigned char *px = rgb + 3 * p;
        struct hsv c = hsv_of(px[0], px[1], px[2], bins);
        unsigned bin = c.hue_bin, v = c.value;
        if (bin == NO_BIN)
            continue;
        hued++;
        unsigned distance = hue_distance(px[0], px[1], px[2], bins, bin);
        if (distance < picks->exact[2 * bin])
            picks->exact[2 * bin] = distance, picks->exact[2 * bin + 1] = (unsigned)p;
        if (v < minima->exact[bin])
            minima->exact[bin] = v;
    }
    snprintf(picks->sum, sizeof picks->sum,
             "Pixels:     %zu of %zu have a hue; checked bit for bit", hued, n);
    snprintf(minima->sum, sizeof minima->sum, "%s", picks->sum);
}

/* A bin's value as the report prints it (--print-bins), and as a wrong one is told. */
static void print_value(const void *context, FILE *out, const unsigned *got, unsigned bin)
{
    const expected *e = (const expected *)context;
    float f;
    memcpy(&f, &got[bin], 4);
    if (e->sums)
        fprintf(out, "%.9g", f);
    else if (e->words == 2)
        fprintf(out, "distance %u, pixel %u", got[2 * bin], got[2 * bin + 1]);
    else
        fprintf(out, "darkest %u", got[bin]);
}

static long wrong_values(const void *context, const unsigned *got, const char *what, FILE *report)
{
    const expected *e = (const expected *)context;
    long wrong = 0;
    for (unsigned b = 0; b < e->bins; b++) {
        float f;
        memcpy(&f, &got[b], 4);
        if (e->sums ? fabs(f - e->sums[b]) <= e->tolerance[b]
                    : memcmp(&got[e->words * b], &e->exact[e->words * b], 4 * e->words) == 0)
            continue;
        if (wrong++ < 8) {
            fprintf(report, "%s: %s: bin %u holds ", program_name, what, b);
            print_value(e, report, got, b);
            if (e->sums)
                fprintf(report, ", the CPU has %.9g (tolerance %.3g)\n", e->sums[b],
                        e->tolerance[b]);
            else {
                fprintf(report, ", the CPU has ");
                print_value(e, report, e->exact, b);
                fputc('\n', report);
            }
        }
    }
    if (wrong > 8)
        fprintf(report, "%s: %s: and %ld more bins differ\n", program_name, what, wrong - 8);
    return wrong;
}

static void expect(expected *e, unsigned bins, unsigned words, bool sums)
{
    *e = {bins, words};
    if (!sums)
        e->exact = (unsigned *)checked_malloc((size_t)bins * words * sizeof *e->exact);
    e->check = {words, wrong_values, print_value, e->sum, e};
}

static void free_expected(expected *e)
{
    free(e->exact), free(e->sums), free(e->tolerance);
}

/* ---------------------------------------------------------------- the GPU -- */

/* One row of the report: the library with one placement of its bins. */
struct way {
    const void *transform;
    size_t n, items;
    gh_strategy strategy;
    dim3 launched; /* the grid (x) and block (y) the library chose */
};

static keys_in input_at(keys_in *, const unsigned char *dev, size_t n)
{
    return {(const float4 *)dev, n};
}
static pixels_in input_at(pixels_in *, const unsigned char *dev, size_t n)
{
    return {dev, n};
}

/* The library's call, as the harness times it: out on the GPU, from the identity. */
template <typename C, typename T, typename In>
static void launch_library(void *context, const unsigned char *dev, size_t, unsigned *out,
                           struct launch)
{
    struct way *w = (struct way *)context;
    const T &t = *(const T *)w->transform;
    gh_call call = {}; /* the default stream, out on the GPU, starting at the identity */
    call.strategy = w->strategy, call.launched = &w->launched;
    HANDLE_ERROR(gh_histogram(input_at((In *)NULL, dev, w->n), t, C(), 0, w->items, t.bins(),
                              (typename C::value_type *)out, call));
}

/* The placements of a combine's values (halves are for counts): where the
 * bins live as they grow, and so how a bin's values are grouped. */
struct placement {
    gh_strategy strategy;
    const char *name;
};
#define PLACEMENTS 4
static const placement placements[PLACEMENTS] = {{GH_AUTO, "auto"},
                                                 {GH_PER_LANE, "per-lane"},
                                                 {GH_PER_BLOCK, "per-block"},
                                                 {GH_GLOBAL, "global"}};

/* Runs the library with combine C and transform t on the input, once for its
 * own choice of placement and once for each other that holds the bins here
 * (a different grouping of the same values each), and reports every row
 * against the CPU's answer. */
template <typename C, typename T, typename In>
static int run_library(const char *name, const struct stage *stage, const struct options *opt,
                       const struct input *in, const struct gpu *gpu, const T &t, size_t n,
                       size_t items, const expected *want)
{
    struct way ways[PLACEMENTS];
    struct result results[PLACEMENTS];
    char impl[PLACEMENTS][64];
    unsigned *kernel_out[PLACEMENTS], *trip_out[PLACEMENTS], words = t.bins() * want->words;
    require_gpu_memory(stage, 2 * in->size + 2 * (size_t)words * 4);
    unsigned char *dev;
    HANDLE_ERROR(cudaMalloc((void **)&dev, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev, in->buffer, in->size, cudaMemcpyHostToDevice));
    int count = 0;
    for (int p = 0; p < PLACEMENTS; p++) {
        gh_strategy s = placements[p].strategy;
        gh_strategy chosen = s == GH_AUTO ? gh_choose<C, T>(t.bins()) : s;
        if (!variant_wants(stage, opt, placements[p].name) || !gh_fits<C, T>(chosen, t.bins()))
            continue;
        const char *chosen_name = "?";
        for (int q = 1; q < PLACEMENTS; q++)
            chosen_name = placements[q].strategy == chosen ? placements[q].name : chosen_name;
        ways[count] = {&t, n, items, chosen};
        snprintf(impl[count], sizeof impl[count], "%s/%s%s", name, s == GH_AUTO ? "auto:" : "",
                 chosen_name);
        kernel_out[count] = (unsigned *)checked_malloc((size_t)words * 4);
        trip_out[count] = (unsigned *)checked_malloc((size_t)words * 4);
        struct result *r = &results[count];
        *r = {impl[count], gpu->name};
        r->bins = t.bins(), r->values = &want->check;
        r->histo = r->kernel_histo = kernel_out[count]; /* until the whole trip's replaces it */
        r->kernel_ms = time_kernel_only(opt, in, dev, {0, 0}, launch_library<C, T, In>,
                                        &ways[count], words, kernel_out[count]);
        r->blocks = ways[count].launched.x, r->threads = ways[count].launched.y;
        count++;
    }
    HANDLE_ERROR(cudaFree(dev)); /* so that the whole trips have the memory */
    if (count == 0)
        usage_error(stage, "--variant: that placement does not hold these bins here");
    for (int i = 0; i < count; i++) {
        results[i].total_ms = time_end_to_end(opt, in, {0, 0}, launch_library<C, T, In>, &ways[i],
                                              words, trip_out[i]);
        results[i].histo = trip_out[i];
    }
    int status = report_results(stage, opt, in, results, count);
    for (int i = 0; i < count; i++)
        free(kernel_out[i]), free(trip_out[i]);
    return status;
}

/* ------------------------------------------------------------------- main -- */

/* The input, as the library reads it: f32 keys (generated bytes made keys in
 * [0, 1), 4 bytes' top 24 bits over 2^24, as stage 08 makes them; a file's
 * floats as they are) or pixels (a photograph's, or any bytes, 3 a pixel),
 * padded with zeros to a whole 16-byte item. */
static struct input input_for(const struct stage *stage, const struct options *opt, bool pixels,
                              size_t *n)
{
    struct input in = {NULL, 0, data_kind_name(opt->data)};
    size_t size = opt->size, per = pixels ? 3 : 4;
    unsigned char *bytes;
    char why[512];
    if (opt->image) {
        struct image img;
        if (read_bmp(opt->image, &img, why, sizeof why) != EXIT_OK)
            usage_error(stage, why);
        bytes = img.rgb, size = (size_t)img.width * img.height * 3;
        in.name = opt->image, in.width = img.width, in.height = img.height;
    } else if (opt->file) {
        if (read_file(opt->file, &bytes, &size, why, sizeof why) != EXIT_OK)
            usage_error(stage, why);
        in.name = opt->file;
    } else {
        size -= opt->size_given ? 0 : size % per; /* the default 100 MiB: whole pixels */
        bytes = (unsigned char *)checked_malloc(size ? size : 1);
        fill_input(opt->data, bytes, size, opt->seed);
        for (size_t i = 0; !pixels && i + 4 <= size; i += 4) {
            uint32_t word;
            memcpy(&word, bytes + i, 4);
            float key = (float)(word >> 8) * 0x1p-24f;
            memcpy(bytes + i, &key, 4);
        }
    }
    if (size % per) {
        snprintf(why, sizeof why, "%zu bytes is not a whole number of %s", size,
                 pixels ? "3-byte pixels" : "4-byte f32 keys");
        usage_error(stage, why);
    }
    in.size = (size + 15) / 16 * 16;
    in.buffer = (unsigned char *)realloc(bytes, in.size ? in.size : 1);
    if (!in.buffer)
        fail("out of host memory for %zu bytes", in.size);
    memset(in.buffer + size, 0, in.size - size);
    *n = size / per;
    return in;
}

enum { OPT_LAWS, OPT_PIXELS, OPT_BINS, OPT_RANGE };
static const struct stage_option own_options[] = {
    {"--laws", NULL, "check your combines' laws and spline_bins' outputs on the host: no GPU"},
    {"--pixels", NULL, "the input's pixels (3 bytes each): per hue, nearest pixel and darkest"},
    {"--bins", "N", "f32 keys: 1 to 65536 even bins (default 1000); pixels: 1 to 360 (36)"},
    {"--range", "LO:HI", "f32 keys: the bins' range (default 0:1)"},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    static const char *const variants[] = {"all", "auto", "per-lane", "per-block", "global", NULL};
    const struct stage stage = {
        .dir = "17_generalized",
        .program = "generalized",
        .summary = "exercise: your transform and combines for stage 08's library",
        .gpu = true,
        .variants = variants,
        .help = "all (the default) runs the library's own choice of placement (auto) and each "
                "other that holds the bins: each groups a bin's values differently, and each "
                "is checked against the CPU (spline bins within a tolerance, picks and minima "
                "bit for bit). --file is read as f32 keys as they are (NaN and infinities too), "
                "or with --pixels as RGB bytes. --laws runs before any GPU is touched; with "
                "--print-bins it prints what spline_bins gave each key it tried.",
        .options = own_options,
        .launch_default = "the library's own: as many blocks as fit on the GPU at once",
        .image_means = "a photograph's pixels: per hue bin, the pixel nearest its centre and "
                       "the darkest value"};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *const *v = opt.stage_values;
    bool pixels = v[OPT_PIXELS] || opt.image;
    if (opt.blocks || opt.blocks_per_sm || opt.threads)
        usage_error(&stage, "the library chooses its own launch: leave out --blocks, "
                            "--blocks-per-sm and --threads");
    if (v[OPT_LAWS] && (v[OPT_PIXELS] || v[OPT_BINS] || v[OPT_RANGE] || opt.size_given ||
                        opt.data_given || opt.file || opt.image || opt.csv))
        usage_error(&stage, "--laws tries your types on values of its own: give it only --seed "
                            "and --print-bins");
    if (v[OPT_LAWS])
        return host_checks(&stage, &opt); /* before the GPU is touched: on any machine */

    unsigned bins = (unsigned)stage_option_number(&stage, &opt, OPT_BINS, 1, pixels ? 360 : 65536,
                                                  pixels ? 36 : 1000);
    float lo = 0, hi = 1;
    if (v[OPT_RANGE]) {
        char *end;
        lo = strtof(v[OPT_RANGE], &end);
        hi = *end == ':' ? strtof(end + 1, &end) : NAN;
        if (pixels || *end || !(lo < hi) || !isfinite(hi - lo) || !isfinite(bins / (hi - lo)))
            usage_error(&stage, pixels ? "--range is for f32 keys: pixels are binned by hue"
                                       : "--range takes finite LO:HI with LO < HI, e.g. -1.5:2.5");
    }
    size_t n;
    struct input in = input_for(&stage, &opt, pixels, &n);
    struct gpu gpu = open_gpu(&stage);

    int status;
    if (!pixels) {
        expected want;
        const key_range range = key_range_of(lo, hi, bins);
        expect(&want, bins, 1, true);
        cpu_spline((const float *)in.buffer, n, range, &want);
        status = run_library<spline_sums, spline_bins, keys_in>(
            "spline", &stage, &opt, &in, &gpu, spline_bins{range}, n, (n + 3) / 4, &want);
        free_expected(&want);
    } else {
        expected picks, minima;
        expect(&picks, bins, 2, false), expect(&minima, bins, 1, false);
        cpu_pixels(in.buffer, n, bins, &picks, &minima);
        status = run_library<nearest_hue, pixel_hues<nearest_hue>, pixels_in>(
            "nearest_hue", &stage, &opt, &in, &gpu, pixel_hues<nearest_hue>{bins}, n, n, &picks);
        fputs(opt.csv ? "" : "\n", stdout);
        status |= run_library<darkest, pixel_hues<darkest>, pixels_in>(
            "darkest", &stage, &opt, &in, &gpu, pixel_hues<darkest>{bins}, n, n, &minima);
        free_expected(&picks), free_expected(&minima);
    }
    free_input(&in);
    return status;
}
