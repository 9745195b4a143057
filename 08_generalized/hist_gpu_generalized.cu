/*
 * 08_generalized - beyond the book: a histogram of anything, as a small
 * library (generalized_histogram.cuh). Stages 01-07 counted keys into bins.
 * Here a transform turns each input item into (bin, value) pairs, and a
 * combine (associative and commutative) says how a bin's values meet: counts,
 * float sums, minima, maxima, moments, soft bins, row sums of a matrix, the
 * hue statistics of a photograph. The library compiles each pair into its own
 * kernels and places the bins as stage 07 taught; this program drives it and
 * checks every result against a plain CPU loop (chapter 08).
 *
 *   ./hist_gpu_generalized                                    u8 keys, 256 bins
 *   ./hist_gpu_generalized --keys u8 --channels 4             RGBA: 4 x 256 bins
 *   ./hist_gpu_generalized --keys u16 --bins 3000 --range 100:60000
 *   ./hist_gpu_generalized --keys f32 --bins 1000 --weights --op max
 *   ./hist_gpu_generalized --keys f32 --bins 100 --soft       each key split between two bins
 *   ./hist_gpu_generalized --rows 500x100000                  a matrix's row sums
 *   ./hist_gpu_generalized --image data/chelsea.bmp --hue 36  per hue: pixels, saturation, brightest
 *   ./hist_gpu_generalized --sweep --size 1G --csv            the chapter's cases, kernel only
 */
#include "book.h"
#include "harness_cuda.h"
#include "read_kernel.cuh" /* the yardstick: a kernel that only reads the same bytes */
#include "transforms.cuh"
#include "cases.h" /* the options' case, its input, and the CPU's answer it is checked against */

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

/* --------------------------------------------------------- one way to count -- */

/* The library's placements (gh_strategy), as --variant names them. */
static const char *const placements[] = {"auto", "per-lane", "per-block", "per-block-halves",
                                         "global"};

/* A row of the report: the library with one placement, or CUB. Its scratch
 * and CUB's are allocated when the row is planned, outside both times. */
struct way {
    const struct job *job;
    char name[64];
    histo_launcher launch;
    unsigned char transform[sizeof(struct even_bins) + 16]; /* the instantiation's T, by value */
    gh_strategy strategy;
    void *scratch; /* the library's temp, or CUB's */
    size_t scratch_bytes;
    void *levels, *keys_out; /* CUB: HistogramRange's levels, ReduceByKey's keys and count */
    dim3 launched;           /* the library's grid (x) and block (y); CUB's: none */
    /* the library's: its other promises checked (check_library) */
    long (*check)(const struct way *w, const unsigned char *dev, const struct expected *want);
};

/* The input a transform reads, on the GPU: the job's buffer at dev. */
static keys_in input_of(keys_in *, const struct job *j, const unsigned char *dev)
{
    return {(const uint4 *)dev, j->n};
}
static floats_in input_of(floats_in *, const struct job *j, const unsigned char *dev)
{
    return {(const float4 *)dev, (const float4 *)(dev + j->weights_at), j->n};
}
static matrix_in input_of(matrix_in *, const struct job *j, const unsigned char *dev)
{
    return {(const float4 *)dev, j->n};
}
static pixels_in input_of(pixels_in *, const struct job *j, const unsigned char *dev)
{
    return {dev, j->n};
}

/* The library's call, as a histo_launcher: the harness times it, out on the GPU. */
template <typename C, typename T, typename In>
static void launch_library(void *context, const unsigned char *dev, size_t, unsigned *out,
                           struct launch)
{
    struct way *w = (struct way *)context;
    const T &t = *(const T *)w->transform;
    gh_call call = {0, false, false, w->scratch, w->scratch_bytes, w->strategy, &w->launched};
    HANDLE_ERROR(gh_histogram(input_of((In *)NULL, w->job, dev), t, C(), 0, w->job->items,
                              w->job->total, (typename C::value_type *)out, call));
}

/* The library's other promises, on this way's placement: out in host
 * memory, a stream and scratch of its own, the first half of the items and
 * then the rest accumulated onto it; the whole must match the CPU. And two
 * calls it must refuse (no bins; an end before the first item). Returns the
 * wrong bins. */
template <typename C, typename T, typename In>
static long check_library(const struct way *w, const unsigned char *dev,
                          const struct expected *want)
{
    const struct job *j = w->job;
    In in = input_of((In *)NULL, j, dev);
    const T &t = *(const T *)w->transform;
    typename C::value_type *out = (typename C::value_type *)checked_malloc(j->total * sizeof *out);
    gh_call call = {0, true, false, NULL, 0, w->strategy, NULL};
    HANDLE_ERROR(cudaStreamCreate(&call.stream));
    HANDLE_ERROR(gh_histogram(in, t, C(), 0, j->items / 2, j->total, out, call));
    call.accumulate = true;
    HANDLE_ERROR(gh_histogram(in, t, C(), j->items / 2, j->items, j->total, out, call));
    if (gh_histogram(in, t, C(), 0, j->items, 0, out, call) != cudaErrorInvalidValue ||
        gh_histogram(in, t, C(), 1, 0, j->total, out, call) != cudaErrorInvalidValue)
        fail("gh_histogram did a call it must refuse (no bins, or end before first)");
    HANDLE_ERROR(cudaStreamDestroy(call.stream));
    const char *what = "library (host memory, halves accumulated)";
    long wrong = want->values
                     ? want->values->wrong(want, (unsigned *)out, what, stderr)
                     : count_wrong_bins((unsigned *)out, want->words, j->total, what, stderr);
    free(out);
    return wrong;
}

/* CUB on the same buffer, where it counts the same thing: HistogramEven (one
 * channel) or MultiHistogramEven (interleaved channels) of even bins, and
 * HistogramRange of the same bins as levels; a matrix's row sums by
 * DeviceSegmentedReduce (one segment a row) or DeviceReduce::ReduceByKey
 * (each element's key its row, worked out as it is read). The first call
 * with no scratch asks how much it needs. */
enum cub_way { CUB_EVEN, CUB_RANGE, CUB_SEGMENTED, CUB_BY_KEY };

struct row_key { /* ReduceByKey's key: element e's row */
    unsigned cols;
    __host__ __device__ unsigned operator()(unsigned e) const
    {
        return e / cols;
    }
};

template <typename Key, typename Level, int Channels, cub_way Way>
static void launch_cub(void *context, const unsigned char *dev, size_t, unsigned *out,
                       struct launch)
{
    struct way *w = (struct way *)context;
    const struct job *j = w->job;
    size_t &bytes = w->scratch_bytes;
    void *scratch = w->scratch;
    Level lo = (Level)j->lo, hi = (Level)j->hi;
    if constexpr (Way == CUB_RANGE) {
        HANDLE_ERROR(cub::DeviceHistogram::HistogramRange(scratch, bytes, (const Key *)dev, out,
                                                          (int)j->bins + 1,
                                                          (const Level *)w->levels, (int64_t)j->n));
    } else if constexpr (Way == CUB_SEGMENTED) {
        const unsigned *offsets = (const unsigned *)w->levels;
        HANDLE_ERROR(cub::DeviceSegmentedReduce::Sum(scratch, bytes, (const float *)dev,
                                                     (float *)out, (int64_t)j->bins, offsets,
                                                     offsets + 1));
    } else if constexpr (Way == CUB_BY_KEY) {
        auto rows = thrust::make_transform_iterator(thrust::counting_iterator<unsigned>(0),
                                                    row_key{j->cols});
        unsigned *keys_out = (unsigned *)w->keys_out;
        HANDLE_ERROR(cub::DeviceReduce::ReduceByKey(
            scratch, bytes, rows, keys_out, (const float *)dev, (float *)out, keys_out + j->bins,
            cuda::std::plus<>(), (int64_t)j->n));
    } else if constexpr (Channels == 1) {
        HANDLE_ERROR(cub::DeviceHistogram::HistogramEven(scratch, bytes, (const Key *)dev, out,
                                                         (int)j->bins + 1, lo, hi, (int64_t)j->n));
    } else {
        cuda::std::array<unsigned *, Channels> outs;
        cuda::std::array<int, Channels> levels;
        cuda::std::array<Level, Channels> los, his;
        for (int c = 0; c < Channels; c++)
            outs[c] = out + (size_t)c * j->bins, levels[c] = (int)j->bins + 1, los[c] = lo,
            his[c] = hi;
        HANDLE_ERROR((cub::DeviceHistogram::MultiHistogramEven<Channels, Channels>(
            scratch, bytes, (const Key *)dev, outs, levels, los, his, (int64_t)(j->n / Channels))));
    }
}

/* Plans a CUB row: its scratch (asked with none), and its levels or offsets. */
static void plan_cub(struct way *w, cub_way kind)
{
    const struct job *j = w->job;
    if (kind == CUB_RANGE) { /* the even bins' edges: bin b starts at lo + ceil(b x width / bins) */
        long long *edges = (long long *)checked_malloc(((size_t)j->bins + 1) * sizeof *edges);
        for (uint64_t b = 0; b <= j->bins; b++)
            edges[b] = (long long)(j->lo + (b * (j->hi - j->lo) + j->bins - 1) / j->bins);
        HANDLE_ERROR(cudaMalloc(&w->levels, ((size_t)j->bins + 1) * sizeof *edges));
        HANDLE_ERROR(cudaMemcpy(w->levels, edges, ((size_t)j->bins + 1) * sizeof *edges,
                                cudaMemcpyHostToDevice));
        free(edges);
    } else if (kind == CUB_SEGMENTED) { /* row r is [r x cols, (r + 1) x cols) */
        unsigned *offsets = (unsigned *)checked_malloc(((size_t)j->bins + 1) * sizeof *offsets);
        for (unsigned r = 0; r <= j->bins; r++)
            offsets[r] = r * j->cols;
        HANDLE_ERROR(cudaMalloc(&w->levels, ((size_t)j->bins + 1) * sizeof *offsets));
        HANDLE_ERROR(cudaMemcpy(w->levels, offsets, ((size_t)j->bins + 1) * sizeof *offsets,
                                cudaMemcpyHostToDevice));
        free(offsets);
    } else if (kind == CUB_BY_KEY) {
        HANDLE_ERROR(cudaMalloc(&w->keys_out, ((size_t)j->bins + 1) * sizeof(unsigned)));
    }
    w->scratch = NULL, w->scratch_bytes = 0;
    w->launch(w, NULL, 0, NULL, {0, 0}); /* no scratch: CUB says how much it wants */
    HANDLE_ERROR(cudaMalloc(&w->scratch, w->scratch_bytes ? w->scratch_bytes : 1));
}

/* ------------------------------------------------------- the instantiations -- */

/* Calls f.operator()<C, T, In>(t) with the combine, transform and input
 * that count job j, and t made from the job: the one table of what this
 * program instantiates, each its own kernels (and CUB's beside it). */
template <typename F> static void with_types(const struct job *j, F &&f)
{
    auto keys = [&]<typename Key, int Rule, int Channels>() {
        integer_keys<Key, Rule, Channels> t{j->range};
        f.template operator()<gh_count, decltype(t), keys_in>(t);
    };
    auto floats = [&]<typename C, int Emit>() {
        float_keys<Emit> t{j->frange};
        f.template operator()<C, decltype(t), floats_in>(t);
    };
    switch (j->kind) {
    case KEYS:
        if (j->key_bytes == 1 && j->rule == FULL)
            switch (j->channels) {
            case 1:
                return keys.template operator()<uint8_t, FULL, 1>();
            case 2:
                return keys.template operator()<uint8_t, FULL, 2>();
            case 3:
                return keys.template operator()<uint8_t, FULL, 3>();
            default:
                return keys.template operator()<uint8_t, FULL, 4>();
            }
        if (j->key_bytes == 1)
            return keys.template operator()<uint8_t, NARROW, 1>();
        if (j->key_bytes == 2)
            return j->rule == FULL ? keys.template operator()<uint16_t, FULL, 1>()
                                   : keys.template operator()<uint16_t, NARROW, 1>();
        return j->rule == WIDE ? keys.template operator()<uint32_t, WIDE, 1>()
                               : keys.template operator()<uint32_t, NARROW, 1>();
    case FLOATS:
        switch (j->emit) {
        case COUNT:
            return floats.template operator()<gh_count, COUNT>();
        case MOMENTS:
            return floats.template operator()<sum_moments, MOMENTS>();
        case SOFT:
            return floats.template operator()<sum_floats, SOFT>();
        default:
            return j->op == OP_MIN   ? floats.template operator()<min_floats, WEIGHT>()
                   : j->op == OP_MAX ? floats.template operator()<max_floats, WEIGHT>()
                                     : floats.template operator()<sum_floats, WEIGHT>();
        }
    case ROWS:
        return f.template operator()<sum_floats, row_sums, matrix_in>(row_sums{j->rows, j->bins});
    case HUES:
        return f.template operator()<combine_hue_stats, pixel_hues<false>, pixels_in>(
            pixel_hues<false>{j->bins});
    default:
        return f.template operator()<most_saturated, pixel_hues<true>, pixels_in>(
            pixel_hues<true>{j->bins});
    }
}

/* The CUB rows that count what job j counts, if any (name, launcher, kind). */
static int cub_ways(const struct job *j, struct way *ways)
{
    int count = 0;
    auto add = [&](const char *name, histo_launcher launch, cub_way kind) {
        ways[count] = {j};
        snprintf(ways[count].name, sizeof ways[count].name, "%s", name);
        ways[count].launch = launch;
        plan_cub(&ways[count++], kind);
    };
    if (j->kind == ROWS) {
        add("cub-segmented", launch_cub<float, float, 1, CUB_SEGMENTED>, CUB_SEGMENTED);
        add("cub-by-key", launch_cub<float, float, 1, CUB_BY_KEY>, CUB_BY_KEY);
    } else if (j->kind == FLOATS && j->emit == COUNT) {
        add("cub-even", launch_cub<float, float, 1, CUB_EVEN>, CUB_EVEN);
    } else if (j->kind == KEYS && j->key_bytes == 1) {
        const histo_launcher multi[] = {
            launch_cub<uint8_t, int, 1, CUB_EVEN>, launch_cub<uint8_t, int, 2, CUB_EVEN>,
            launch_cub<uint8_t, int, 3, CUB_EVEN>, launch_cub<uint8_t, int, 4, CUB_EVEN>};
        add(j->channels > 1 ? "cub-multi-even" : "cub-even", multi[j->channels - 1], CUB_EVEN);
    } else if (j->kind == KEYS && j->key_bytes == 2) {
        add("cub-even", launch_cub<uint16_t, int, 1, CUB_EVEN>, CUB_EVEN);
        add("cub-range", launch_cub<uint16_t, long long, 1, CUB_RANGE>, CUB_RANGE);
    } else if (j->kind == KEYS) { /* levels in 64 bits: the last may be 2^32 */
        add("cub-even", launch_cub<uint32_t, long long, 1, CUB_EVEN>, CUB_EVEN);
    }
    return count;
}

/* The rows of the report for job j on this GPU: auto, then every placement
 * compiled for its types that holds its bins, then CUB's. */
static int plan_ways(const struct job *j, const struct stage *stage, const struct options *opt,
                     struct way *ways)
{
    int count = 0;
    with_types(j, [&]<typename C, typename T, typename In>(const T &t) {
        static_assert(sizeof t <= sizeof ways[0].transform, "a transform fits in struct way");
        for (int s = GH_AUTO; s <= GH_GLOBAL; s++) {
            gh_strategy chosen = s == GH_AUTO ? gh_choose<C, T>(j->total) : (gh_strategy)s;
            if (!variant_wants(stage, opt, placements[s]) || !gh_fits<C, T>(chosen, j->total))
                continue;
            struct way *w = &ways[count++];
            *w = {j, "", launch_library<C, T, In>};
            w->check = check_library<C, T, In>;
            memcpy(w->transform, &t, sizeof t);
            w->strategy = chosen;
            snprintf(w->name, sizeof w->name, "%s%s", s == GH_AUTO ? "auto:" : "",
                     placements[chosen]);
            w->scratch_bytes = gh_temp_bytes<C>(j->total, false);
            HANDLE_ERROR(cudaMalloc(&w->scratch, w->scratch_bytes ? w->scratch_bytes : 1));
        }
    });
    if (variant_wants(stage, opt, "cub"))
        count += cub_ways(j, ways + count);
    return count;
}

static void free_way(struct way *w)
{
    void *memory[] = {w->scratch, w->levels, w->keys_out};
    for (void *m : memory)
        HANDLE_ERROR(cudaFree(m));
}

/* --------------------------------------------------------------- one case -- */

#define MAX_WAYS 8

/* Counts job j every way asked for on its input, and reports: the floor (a
 * kernel that only reads the same bytes), then each way's times and check.
 * Every kernel-only time first, then every whole trip (chapter 07 says why). */
static int run_job(const struct stage *stage, const struct options *opt, const struct job *j,
                   const struct input *in, const struct gpu *gpu, bool sweep)
{
    struct expected want;
    cpu_reference(j, in->buffer, &want);
    struct way ways[MAX_WAYS];
    int count = plan_ways(j, stage, opt, ways);
    if (count == 0)
        usage_error(stage, "--variant: no such way holds these bins here");
    require_gpu_memory(stage, 2 * in->size + 2 * want.bytes);
    unsigned char *dev;
    HANDLE_ERROR(cudaMalloc((void **)&dev, in->size ? in->size : 1));
    HANDLE_ERROR(cudaMemcpy(dev, in->buffer, in->size, cudaMemcpyHostToDevice));

    struct result results[MAX_WAYS + 1];
    char names[MAX_WAYS + 1][96];
    unsigned *kernel_out[MAX_WAYS], *trip_out[MAX_WAYS];
    unsigned xor_kernel, xor_total = 0;
    struct launch read_launch = {read_blocks(gpu, in->size, 256), 256};
    snprintf(names[0], sizeof names[0], "read-bandwidth/%s", j->name);
    results[0] = {names[0], gpu->name, read_launch.blocks, read_launch.threads};
    results[0].kernel_ms =
        time_kernel_only(opt, in, dev, read_launch, launch_read, NULL, 1, &xor_kernel);
    if (!sweep)
        results[0].total_ms =
            time_end_to_end(opt, in, read_launch, launch_read, NULL, 1, &xor_total);
    if (xor_kernel != cpu_xor(in->buffer, in->size) || (!sweep && xor_total != xor_kernel))
        fail("the read-bandwidth kernel did not read every byte (its XOR is wrong)");
    unsigned words = j->total * j->words;
    for (int i = 0; i < count; i++) {
        kernel_out[i] = (unsigned *)checked_malloc((size_t)words * 4);
        trip_out[i] = (unsigned *)checked_malloc((size_t)words * 4);
        snprintf(names[i + 1], sizeof names[i + 1], "%s/%s", ways[i].name, j->name);
        struct result *r = &results[i + 1];
        *r = {names[i + 1], gpu->name};
        r->histo = r->kernel_histo = kernel_out[i]; /* until a whole trip's replaces it */
        r->bins = j->total, r->expected = want.words, r->values = want.values;
        r->kernel_ms =
            time_kernel_only(opt, in, dev, {0, 0}, ways[i].launch, &ways[i], words, kernel_out[i]);
        r->blocks = ways[i].launched.x, r->threads = ways[i].launched.y; /* CUB's: none */
    }
    long library_wrong = !sweep && ways[0].check ? ways[0].check(&ways[0], dev, &want) : 0;
    HANDLE_ERROR(cudaFree(dev)); /* so that the whole trips have the memory */
    for (int i = 0; i < count && !sweep; i++) {
        results[i + 1].total_ms =
            time_end_to_end(opt, in, {0, 0}, ways[i].launch, &ways[i], words, trip_out[i]);
        results[i + 1].histo = trip_out[i];
    }
    int status = report_results(stage, opt, in, results, count + 1);
    if (!sweep && ways[0].check && !opt->csv)
        printf("library:    %s: out in host memory, on a stream of its own, half the items and "
               "then the rest accumulated: %s\n",
               ways[0].name, library_wrong ? "WRONG" : "as the CPU says");
    status = library_wrong ? EXIT_FAILED : status;
    for (int i = 0; i < count; i++) {
        free_way(&ways[i]);
        free(kernel_out[i]);
        free(trip_out[i]);
    }
    free_expected(&want);
    return status;
}

/* ------------------------------------------------------------------ main -- */

static const struct stage_option own_options[] = {
    {"--keys", "TYPE", "u8 (default), u16, u32 or f32: the input's bytes read as keys"},
    {"--bins", "N",
     "even bins per channel (default: every u8 or u16 value; 65536 for u32, 1000 for f32)"},
    {"--range", "LO:HI", "the keys' range (default: every value; [0, 1) for f32)"},
    {"--channels", "C", "1 to 4 interleaved channels of u8 keys, 256 bins each (4: RGBA)"},
    {"--weights", NULL,
     "f32: a weight in [0, 1) per key, from the seed; --op says what a bin keeps"},
    {"--op", "OP", "with --weights: sum (default), min, max, or mean (mean and variance)"},
    {"--soft", NULL, "f32: each key's 1 split between the two bins whose centres are nearest"},
    {"--rows", "RxC", "the row sums of an R x C float matrix made from the input (R bins)"},
    {"--hue", "N", "with --image: per hue bin (N of 360 degrees), pixels, saturation, brightest"},
    {"--chart", "FILE", "with --hue: write the table chapter 08 draws"},
    {"--sweep", NULL,
     "the chapter's cases in turn (RGBA, u8, u16, f32, weights, min, max, rows), kernel only"},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    static const char *const variants[] = {
        "all", "auto", "per-lane", "per-block", "per-block-halves", "global", "cub", NULL};
    const struct stage stage = {
        .dir = "08_generalized",
        .program = "hist_gpu_generalized",
        .summary = "a histogram of anything: a transform and a combine, compiled",
        .gpu = true,
        .variants = variants,
        .help = "all (the default) runs the library's own choice (auto), each placement that "
                "holds the bins, and CUB where it counts the same thing. Every value is checked "
                "against the CPU: counts, minima and maxima exactly, float sums within the bound "
                "of any order of float additions (cases.h).",
        .options = own_options,
        .launch_default = "the library's: as many blocks as fit at once, of 512 or 1024 threads",
        .image_means =
            "a photograph: its RGBA (or --channels 3: RGB) bytes, or with --hue its hues"};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.blocks || opt.blocks_per_sm || opt.threads)
        usage_error(&stage, "the library chooses its own launch: leave out --blocks, "
                            "--blocks-per-sm and --threads");
    /* every case checked, and a single case's input read, before the GPU is
     * touched: bad usage exits 2 on any machine */
    bool sweep = opt.stage_values[OPT_SWEEP] != NULL;
    struct request asked = request_from(&stage, &opt);
    int cases = sweep ? SWEEP_CASES : asked.hue ? 2 : 1;
    struct job jobs[SWEEP_CASES];
    for (int c = 0; c < cases; c++) {
        struct request r = sweep ? sweep_case(c) : asked;
        r.picks = asked.hue && c == 1; /* --hue: its statistics, then its picks */
        jobs[c] = job_from(&stage, &opt, &r);
    }
    struct input in = {};
    if (!sweep)
        in = input_for(&stage, &opt, &jobs[0]);
    jobs[cases - 1].n = jobs[0].n,
                 jobs[cases - 1].items = jobs[0].items; /* --hue: one photograph */
    struct gpu gpu = open_gpu(&stage);

    int status = EXIT_OK;
    for (int c = 0; c < cases; c++) {
        if (sweep)
            in = input_for(&stage, &opt, &jobs[c]);
        status |= run_job(&stage, &opt, &jobs[c], &in, &gpu, sweep);
        if (sweep)
            free_input(&in);
        fputs(!opt.csv && c + 1 < cases ? "\n" : "", stdout);
    }
    if (opt.stage_values[OPT_CHART])
        write_chart(&stage, opt.stage_values[OPT_CHART], &jobs[1], in.buffer);
    if (!sweep)
        free_input(&in);

    return status;
}
