/*
 * cases.h - the host side of stage 08's cases: what the options ask for (a
 * job), its input, and the CPU's answer every GPU result is checked against,
 * each by a plain loop that shares no code with the transforms but the
 * definitions of a float's bin (CUB's rule) and of a pixel's hue. Counts,
 * minima and maxima must match exactly. A float sum may differ from the
 * CPU's double sum by (k + 2) x 2^-24 x the sum of its k terms' magnitudes:
 * float additions in any order stay within (k - 1) x 2^-24 of it, to first
 * order (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 4.2), and three roundings more are a margin.
 */
#ifndef CASES_H
#define CASES_H

#include "harness.h"
#include "transforms.cuh"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

enum {
    OPT_KEYS,
    OPT_BINS,
    OPT_RANGE,
    OPT_CHANNELS,
    OPT_WEIGHTS,
    OPT_OP,
    OPT_SOFT,
    OPT_ROWS,
    OPT_HUE,
    OPT_CHART,
    OPT_SWEEP
};
/* --op; OP_NONE: not given (a sum, where there are weights) */
enum op { OP_NONE, OP_SUM, OP_MIN, OP_MAX, OP_MEAN };
static const char *const op_names[] = {"", "sum", "min", "max", "mean"};

/* What one case asks for: the options, or a case of --sweep. */
struct request {
    int key_bytes;  /* 1, 2 or 4; 0: f32 keys */
    long long bins; /* per channel; 0: the default */
    const char *range;
    int channels;
    bool weights, soft;
    int op;
    unsigned rows, cols, hue;
    bool picks, image;
};

/* --sweep: the cases of chapter 08's targets, each on the options' input. */
#define SWEEP_CASES 11
static struct request sweep_case(int c)
{
    static const struct request cases[SWEEP_CASES] = {
        {1, 0, NULL, 4},                         /* RGBA */
        {1},                                     /* u8 keys, 256 bins */
        {0, 1000},                               /* f32 keys, 1000 bins */
        {0, 1000, NULL, 1, true},                /* ... weighted */
        {2},                                     /* u16 keys, 65536 bins */
        {2, 3000, "100:60000"},                  /* u16 keys, 3000 bins of 59900 values */
        {0, 1000, NULL, 1, true, false, OP_MIN}, /* the least weight per bin */
        {0, 1000, NULL, 1, true, false, OP_MAX},
        {0, 0, NULL, 1, false, false, 0, 50, 1000000}, /* the design document's row sums */
        {0, 0, NULL, 1, false, false, 0, 500, 100000},
        {0, 0, NULL, 1, false, false, 0, 5000, 10000}};
    return cases[c];
}

static struct request request_from(const struct stage *stage, const struct options *opt)
{
    const char *const *v = opt->stage_values;
    struct request r = {4};
    const char *keys = v[OPT_KEYS] ? v[OPT_KEYS] : "u8";
    const char *const key_names[] = {"f32", "u8", "u16", "", "u32"};
    r.key_bytes = -1;
    for (int k = 0; k <= 4; k++)
        r.key_bytes = strcmp(keys, key_names[k]) ? r.key_bytes : k;
    if (r.key_bytes < 0 || !keys[0])
        usage_error(stage, "--keys must be u8, u16, u32 or f32");
    r.bins = stage_option_number(stage, opt, OPT_BINS, 1, MAX_BINS, 0);
    r.range = v[OPT_RANGE];
    r.channels = (int)stage_option_number(stage, opt, OPT_CHANNELS, 1, 4, 0);
    r.weights = v[OPT_WEIGHTS], r.soft = v[OPT_SOFT];
    for (int o = OP_SUM; o <= OP_MEAN && v[OPT_OP]; o++)
        r.op = strcmp(v[OPT_OP], op_names[o]) ? r.op : o;
    if (v[OPT_OP] && r.op == OP_NONE)
        usage_error(stage, "--op must be sum, min, max or mean");
    r.hue = (unsigned)stage_option_number(stage, opt, OPT_HUE, 1, 360, 0);
    r.image = opt->data == DATA_IMAGE;
    int used = 0;
    if (v[OPT_ROWS] && (sscanf(v[OPT_ROWS], "%ux%u%n", &r.rows, &r.cols, &used) != 2 ||
                        v[OPT_ROWS][used] || !r.rows || !r.cols ||
                        (uint64_t)r.rows * r.cols > MAX_INPUT_BYTES / 4 || r.rows > MAX_BINS))
        usage_error(stage, "--rows takes RxC, e.g. 500x100000: R rows (at most 2^24) of C floats, "
                           "at most 4 GiB in all");
    if (v[OPT_ROWS] && opt->size_given)
        usage_error(stage, "--rows makes its own input, R x C floats: leave out --size");
    int cases = !!v[OPT_ROWS] + r.image + !!v[OPT_SWEEP];
    bool keys_asked =
        v[OPT_KEYS] || v[OPT_BINS] || v[OPT_RANGE] || r.weights || r.soft || v[OPT_OP];
    if (cases > 1 || (cases && keys_asked) || (v[OPT_CHANNELS] && (v[OPT_ROWS] || v[OPT_SWEEP])))
        usage_error(stage, "--rows, --image and --sweep each make their own input: one of them, "
                           "without --keys, --bins, --range, --weights, --soft or --op");
    if ((r.hue || v[OPT_CHART]) && !r.image)
        usage_error(stage, "--hue and --chart take a photograph: --image FILE");
    if (v[OPT_CHART] && !r.hue)
        usage_error(stage, "--chart writes the hue table: give --hue N");
    if (r.hue && v[OPT_CHANNELS])
        usage_error(stage, "--hue counts pixels, not channels: leave out --channels");
    if (r.image && !r.hue)
        r.key_bytes = 1, r.channels = r.channels ? r.channels : 4;
    if (r.image && r.channels && r.channels < 3)
        usage_error(stage, "--image counts 3 (RGB) or 4 (RGBA) channels");
    return r;
}

/* ------------------------------------------------------------------- jobs -- */

enum kind { KEYS, FLOATS, ROWS, HUES, PICKS };

/* What a case counts, checked and worked out once. */
struct job {
    enum kind kind;
    char name[48]; /* the impl column's case, after the way: "u8x4/256" */
    int key_bytes, rule, channels, emit, op;
    struct even_bins range; /* KEYS: NARROW, WIDE */
    struct float_bins frange;
    struct rows_rule rows;
    double lo, hi;        /* the range, for CUB's levels */
    unsigned bins, total; /* per channel, and in all (bins x channels) */
    unsigned cols;
    size_t n, items;   /* keys (elements, pixels), and the transform's items */
    size_t weights_at; /* the weights' offset in the buffer, a multiple of 16 */
    unsigned words;    /* 32-bit words a bin's value takes */
};

/* Every array the GPU reads is padded to 32 bytes: a transform's item (a
 * matrix's 8 floats) may run past the last key, never past the buffer. */
static size_t round32(size_t bytes)
{
    return (bytes + 31) / 32 * 32;
}

static struct job job_from(const struct stage *stage, const struct options *opt,
                           const struct request *r)
{
    struct job j = {};
    char why[256];
    j.channels = r->channels ? r->channels : 1, j.words = 1, j.emit = COUNT;
    j.op = r->op == OP_NONE ? OP_SUM : r->op;
    if (r->rows) {
        j.kind = ROWS, j.bins = r->rows, j.cols = r->cols, j.rows = rows_rule_for(r->cols);
        snprintf(j.name, sizeof j.name, "rows/%ux%u", r->rows, r->cols);
    } else if (r->hue) {
        j.kind = r->picks ? PICKS : HUES, j.bins = r->hue, j.words = r->picks ? 2 : 3;
        snprintf(j.name, sizeof j.name, "%s/%u", r->picks ? "pick" : "hue", r->hue);
    } else if (r->key_bytes) {
        j.kind = KEYS, j.key_bytes = r->key_bytes;
        uint64_t values = (uint64_t)1 << (8 * r->key_bytes), lo = 0, hi = values;
        int used = 0;
        if (r->range && (sscanf(r->range, "%" SCNu64 ":%" SCNu64 "%n", &lo, &hi, &used) != 2 ||
                         r->range[used] || lo >= hi || hi > values)) {
            snprintf(why, sizeof why, "--range: u%d keys need LO:HI with 0 <= LO < HI <= %" PRIu64,
                     8 * r->key_bytes, values);
            usage_error(stage, why);
        }
        j.bins = (unsigned)(r->bins ? r->bins : values < 65536 ? values : 65536);
        if (r->weights || r->soft || r->op)
            usage_error(stage, "--weights, --soft and --op take f32 keys");
        char bins_why[280];
        if (even_bins_make(&j.range, lo, hi, j.bins, why, sizeof why)) {
            snprintf(bins_why, sizeof bins_why, "--bins: %s", why);
            usage_error(stage, bins_why);
        }
        j.rule = lo == 0 && hi == values && j.bins == values && values <= 65536 ? FULL
                 : j.range.wide                                                 ? WIDE
                                                                                : NARROW;
        if (j.channels > 1 && (r->key_bytes != 1 || j.rule != FULL))
            usage_error(stage, "--channels takes u8 keys, every value its own bin (256 a channel)");
        j.lo = (double)lo, j.hi = (double)hi;
        snprintf(j.name, sizeof j.name, "u%d%s%.0d/%u", 8 * r->key_bytes, j.channels > 1 ? "x" : "",
                 j.channels > 1 ? j.channels : 0, j.bins);
        if (r->range)
            snprintf(j.name + strlen(j.name), sizeof j.name - strlen(j.name),
                     "/%" PRIu64 "-%" PRIu64, lo, hi);
    } else {
        j.kind = FLOATS, j.bins = (unsigned)(r->bins ? r->bins : 1000);
        float lo = 0, hi = 1;
        char *end = NULL;
        if (r->range) { /* LO, ':', HI, nothing more */
            lo = strtof(r->range, &end);
            bool no_lo = end == r->range || *end != ':';
            const char *at = end + 1;
            hi = no_lo ? NAN : strtof(at, &end);
            hi = end == at ? NAN : hi;
        }
        if (r->range && (*end || !isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo) || lo >= hi ||
                         !isfinite((float)j.bins / (hi - lo))))
            usage_error(stage, "--range: f32 keys need finite LO:HI with LO < HI, e.g. -1.5:2.5 "
                               "(and bins / (HI - LO) a finite float)");
        if (r->weights && r->soft)
            usage_error(stage, "--soft splits a key's count: leave out --weights");
        if (r->op && !r->weights)
            usage_error(stage, "--op says what a bin keeps of its weights: give --weights");
        if (j.channels > 1)
            usage_error(stage, "--channels takes u8 keys");
        j.frange = {lo, hi, (float)j.bins / (hi - lo), j.bins}; /* in float, as CUB works it out */
        j.emit = r->soft ? SOFT : !r->weights ? COUNT : r->op == OP_MEAN ? MOMENTS : WEIGHT;
        j.words = j.emit == MOMENTS ? 3 : 1, j.lo = lo, j.hi = hi;
        snprintf(j.name, sizeof j.name, "f32/%u%s%s", j.bins, r->soft || r->weights ? "/" : "",
                 r->soft      ? "soft"
                 : r->weights ? op_names[j.op]
                              : "");
    }
    j.total = j.bins * j.channels;
    size_t key = j.kind == KEYS ? (size_t)j.key_bytes * j.channels : 4;
    bool generated = opt->data != DATA_FILE && opt->data != DATA_IMAGE;
    if (generated && j.kind != ROWS && opt->size % key) {
        snprintf(why, sizeof why, "--size %zu is not a whole number of %zu-byte %s", opt->size, key,
                 j.channels > 1 ? "pixels" : "keys");
        usage_error(stage, why);
    }
    return j;
}

/* ------------------------------------------------------------------ inputs -- */

/* A 32-bit word of generated bytes as a float key in [0, 1): its top 24 bits
 * over 2^24, so that uniform, skewed and constant bytes make such keys. */
static float unit_float(const unsigned char *bytes)
{
    uint32_t word;
    memcpy(&word, bytes, 4);
    return (float)(word >> 8) * (1.0f / 16777216.0f);
}

/* A weight in [0, 1) for key i, from the seed: reproducible, no table (splitmix64). */
static float key_weight(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (float)((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
}

/* The job's buffer, as the GPU reads it: the keys (or elements, or pixels),
 * padded to 32 bytes, and the weights after them; its size is the bytes
 * read, the floor's too. j->n and j->items are set here. */
static struct input input_for(const struct stage *stage, const struct options *opt, struct job *j)
{
    struct input in = {NULL, 0, data_kind_name(opt->data)};
    unsigned char *bytes = NULL;
    size_t size = j->kind == ROWS ? (size_t)j->bins * j->cols * 4 : opt->size;
    char why[512];
    if (opt->data == DATA_IMAGE) {
        struct image img;
        if (read_bmp(opt->image, &img, why, sizeof why) != EXIT_OK)
            usage_error(stage, why);
        size_t pixels = (size_t)img.width * img.height, per = j->kind == KEYS ? j->channels : 3;
        bytes = (unsigned char *)checked_malloc(round32(pixels * per) + 32);
        for (size_t p = 0; p < pixels; p++) {
            memcpy(bytes + p * per, img.rgb + 3 * p, 3);
            if (per == 4)
                bytes[4 * p + 3] = 255; /* RGBA: an opaque photograph */
        }
        size = pixels * per, in.name = opt->image, in.width = img.width, in.height = img.height;
        free_image(&img);
    } else if (opt->data == DATA_FILE) {
        if (read_file(opt->file, &bytes, &size, why, sizeof why) != EXIT_OK)
            usage_error(stage, why);
        in.name = opt->file;
        if (!(bytes = (unsigned char *)realloc(bytes, round32(size) + 32)))
            fail("out of host memory for %zu bytes of %s", size, opt->file);
    } else {
        bytes = (unsigned char *)checked_malloc(round32(size) + 32);
        fill_input(opt->data, bytes, size, opt->seed);
    }
    size_t key = j->kind == KEYS ? (size_t)j->key_bytes : j->kind >= HUES ? 3 : 4;
    size_t whole = key * (j->kind == KEYS ? j->channels : 1); /* a key, or a pixel's */
    if (size % whole) {
        snprintf(why, sizeof why, "--file: %zu bytes is not a whole number of %zu-byte %s", size,
                 whole, j->channels > 1 ? "pixels" : "keys");
        usage_error(stage, why);
    }
    j->n = size / key;
    j->items = j->kind >= HUES ? j->n : j->kind == ROWS ? (j->n + 7) / 8 : (j->n * key + 15) / 16;
    if (j->kind == ROWS && j->n != (size_t)j->bins * j->cols)
        usage_error(stage, "--rows: the file does not hold R x C floats");
    if ((j->kind == FLOATS || j->kind == ROWS) && opt->data != DATA_FILE)
        for (size_t i = 0; i < j->n; i++) {
            float f = unit_float(bytes + 4 * i);
            memcpy(bytes + 4 * i, &f, 4);
        }
    memset(bytes + size, 0, round32(size) - size);
    in.size = round32(size);
    if (j->kind == FLOATS && (j->emit == WEIGHT || j->emit == MOMENTS)) {
        j->weights_at = in.size, in.size += round32(j->n * 4);
        if (!(bytes = (unsigned char *)realloc(bytes, in.size + 32)))
            fail("out of host memory for %zu weights", j->n);
        for (size_t i = 0; i < j->n; i++) {
            float w = key_weight(opt->seed, i);
            memcpy(bytes + j->weights_at + 4 * i, &w, 4);
        }
    }
    in.buffer = bytes;
    return in;
}

/* ------------------------------------------------------- the CPU's answer -- */

/* The CPU's values, bin by bin, word by word, and how each is checked. */
struct expected {
    unsigned *words;          /* exact words: counts, minima, maxima, picks */
    double *sums, *tolerance; /* float sums: the CPU's sum, and how far the GPU's may be */
    unsigned float_sums;      /* bit p: part p is a float sum */
    size_t bytes;
    const struct job *job;
    char sum[160];
    struct values check;
    const struct values *values; /* &check, or NULL: counts, which the report checks itself */
};

static long wrong_values(const void *context, const unsigned *got, const char *what, FILE *report)
{
    const struct expected *e = (const struct expected *)context;
    long wrong = 0;
    for (size_t w = 0; w < (size_t)e->job->total * e->job->words; w++) {
        float f;
        memcpy(&f, &got[w], 4);
        bool sum = e->float_sums >> (w % e->job->words) & 1;
        if (sum ? fabs(f - e->sums[w]) <= e->tolerance[w] : got[w] == e->words[w])
            continue;
        if (wrong++ < 8)
            fprintf(report, "%s: %s: bin %zu part %zu holds %.9g (0x%08x), the CPU has %.9g\n",
                    program_name, what, w / e->job->words, w % e->job->words, f, got[w],
                    sum ? e->sums[w] : (double)e->words[w]);
    }
    if (wrong > 8)
        fprintf(report, "%s: %s: and %ld more values differ\n", program_name, what, wrong - 8);
    return wrong;
}

static void print_value(const void *context, FILE *out, const unsigned *got, unsigned bin)
{
    const struct job *j = ((const struct expected *)context)->job;
    const unsigned *v = got + (size_t)bin * j->words;
    float f[3];
    memcpy(f, v, 4 * j->words);
    if (j->kind == HUES)
        fprintf(out, "%u pixels, mean saturation %.2f, brightest %u", v[0],
                v[0] ? (double)v[1] / v[0] : 0.0, v[2]);
    else if (j->kind == PICKS)
        fprintf(out, "saturation %u, pixel %u", v[0], v[1]);
    else if (j->emit == MOMENTS)
        fprintf(out, "%u keys, mean %.6f, variance %.6f", v[0], v[0] ? f[1] / v[0] : 0.0,
                v[0] ? f[2] / v[0] - (f[1] / v[0]) * (f[1] / v[0]) : 0.0);
    else
        fprintf(out, "%.9g", f[0]);
}

/* A float term into a bin's sum, its magnitude into the bound. */
static void add_term(struct expected *e, size_t w, float term, unsigned *terms)
{
    e->sums[w] += term, e->tolerance[w] += fabs(term), terms[w]++;
}

/* Fills e with the CPU's answer to job j on the job's buffer. */
static void cpu_reference(const struct job *j, const unsigned char *buffer, struct expected *e)
{
    size_t words = (size_t)j->total * j->words;
    *e = {};
    e->job = j, e->bytes = words * 4;
    e->words = (unsigned *)calloc(words, 4);
    unsigned *terms = (unsigned *)calloc(words, 4);
    e->sums = (double *)calloc(words, sizeof(double)), e->tolerance = (double *)calloc(words, 8);
    if (!e->words || !terms || !e->sums || !e->tolerance)
        fail("out of host memory for the CPU's %zu values", words);
    /* the bins start where the combine's identity is: no pixel, +-infinity */
    float empty = j->op == OP_MIN ? INFINITY : -INFINITY;
    for (size_t w = 0; w < words; w++)
        if (j->kind == PICKS && w % 2)
            e->words[w] = 0xffffffffu;
        else if (j->kind == FLOATS && j->emit == WEIGHT && j->op != OP_SUM)
            memcpy(&e->words[w], &empty, 4);
    const float *f = (const float *)buffer, *weights = (const float *)(buffer + j->weights_at);
    uint64_t sum = 0, width = (uint64_t)(j->hi - j->lo);
    if (j->kind == KEYS)
        for (size_t i = 0; i < j->n; i++) {
            uint32_t key = j->key_bytes == 1   ? buffer[i]
                           : j->key_bytes == 2 ? ((const uint16_t *)buffer)[i]
                                               : ((const uint32_t *)buffer)[i];
            uint64_t d = (uint64_t)key - (uint64_t)j->lo;
            if (key >= j->lo && d < width)
                e->words[(i % j->channels) * j->bins + d * j->bins / width]++, sum++;
        }
    else if (j->kind == ROWS)
        for (size_t i = 0; i < j->n; i++)
            add_term(e, i / j->cols, f[i], terms);
    else if (j->kind == HUES || j->kind == PICKS)
        for (size_t p = 0; p < j->n; p++) {
            const unsigned char *px = buffer + 3 * p;
            struct hsv c = hsv_of(px[0], px[1], px[2], j->bins);
            unsigned *v = e->words + (size_t)c.hue_bin * j->words;
            if (c.hue_bin == NO_BIN)
                continue;
            if (j->kind == HUES)
                v[0]++, v[1] += c.saturation, v[2] = v[2] > c.value ? v[2] : c.value, sum++;
            else if (c.saturation > v[0] || (c.saturation == v[0] && p < v[1]))
                v[0] = c.saturation, v[1] = (unsigned)p;
        }
    else
        for (size_t i = 0; i < j->n; i++) {
            unsigned bin = float_bin(j->frange, f[i]);
            float w = j->emit == COUNT || j->emit == SOFT ? 1.0f : weights[i];
            if (j->emit == SOFT && bin != NO_BIN) { /* as float_keys<SOFT> splits it */
                float place = (f[i] - j->frange.lo) * j->frange.scale - 0.5f;
                float below = floorf(place), share = place - below;
                int left = (int)below;
                add_term(e, left < 0 ? 0 : left, 1.0f - share, terms);
                add_term(e, left + 1 >= (int)j->bins ? j->bins - 1 : left + 1, share, terms);
            } else if (bin == NO_BIN) {
                continue;
            } else if (j->emit == COUNT) {
                e->words[bin]++, sum++;
            } else if (j->emit == MOMENTS) {
                e->words[3 * bin]++, sum++;
                add_term(e, 3 * bin + 1, w, terms), add_term(e, 3 * bin + 2, w * w, terms);
            } else if (j->op == OP_SUM) {
                add_term(e, bin, w, terms);
            } else { /* the bits of the least or greatest weight */
                float now;
                memcpy(&now, &e->words[bin], 4);
                if (j->op == OP_MIN ? w < now : w > now)
                    memcpy(&e->words[bin], &w, 4);
            }
        }
    double total = 0;
    for (size_t w = 0; w < words; w++) {
        total += e->sums[w];
        e->tolerance[w] = (terms[w] + 2) * ldexp(e->tolerance[w], -24);
    }
    free(terms);
    e->float_sums = j->kind == ROWS || j->emit == SOFT || (j->emit == WEIGHT && j->op == OP_SUM) ? 1
                    : j->emit == MOMENTS                                                         ? 6
                                         : 0;
    if (j->kind == KEYS || (j->kind == FLOATS && j->emit == COUNT))
        return; /* counts: the report checks them against e->words */
    if (e->float_sums == 1)
        snprintf(e->sum, sizeof e->sum, "Sum:       %.6f (the CPU's, in double)", total);
    else if (j->kind == PICKS || (j->op == OP_MIN || j->op == OP_MAX))
        snprintf(e->sum, sizeof e->sum, "Values:    %u bins, checked bit for bit", j->total);
    else
        snprintf(e->sum, sizeof e->sum, "Key Sum:   %" PRIu64 " (the keys in a bin)", sum);
    e->check = {j->words, wrong_values, print_value, e->sum, e};
    e->values = &e->check;
}

static void free_expected(struct expected *e)
{
    free(e->words), free(e->sums), free(e->tolerance);
}

/* The table chapter 08 draws from a photograph: per hue bin, its hues, its
 * pixels, their mean saturation, the brightest value, and the most
 * saturated pixel's colour. From the CPU's answer, which the GPU's matched. */
static void write_chart(const struct stage *stage, const char *path, const struct job *picks,
                        const unsigned char *rgb)
{
    struct job stats = *picks;
    stats.kind = HUES, stats.words = 3;
    struct expected s, p;
    cpu_reference(&stats, rgb, &s), cpu_reference(picks, rgb, &p);
    FILE *out = fopen(path, "w");
    if (!out)
        usage_error(stage, "--chart: cannot write that file");
    fprintf(out, "# bin from_degrees to_degrees pixels mean_saturation brightest r g b\n");
    for (unsigned b = 0; b < picks->bins; b++) {
        const unsigned *v = s.words + 3 * b, pixel = p.words[2 * b + 1];
        const unsigned char *c = v[0] ? rgb + 3 * (size_t)pixel : (const unsigned char *)"\0\0";
        fprintf(out, "%u %.2f %.2f %u %.2f %u %u %u %u\n", b, 360.0 * b / picks->bins,
                360.0 * (b + 1) / picks->bins, v[0], v[0] ? (double)v[1] / v[0] : 0.0, v[2], c[0],
                c[1], c[2]);
    }
    if (fclose(out))
        fail("--chart: writing %s failed", path);
    free_expected(&s), free_expected(&p);
}

#endif /* CASES_H */
