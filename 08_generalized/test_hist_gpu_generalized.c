/*
 * test_hist_gpu_generalized.c - 08_generalized against references computed
 * here, in plain C, by the rules the stage documents. With no GPU: its pieces
 * (even_bins.h's bins and rows against exact division, float_order.h on every
 * float), its refusals of bad usage (exit 2, one line, before any GPU), and
 * the checks below rejecting wrong values. With a GPU: every kind of case
 * (integer keys and channels, f32 keys counted, weighted, min, max, mean and
 * soft, row sums, a photograph's hues) by every way that holds its bins, on
 * every data kind, at sizes around the 16-byte items, at bin counts around
 * each placement's limit; every printed bin compared with the reference, the
 * report verified, and a way refused only where it cannot hold the bins.
 */
#include "command_checks.h" /* run_command, output_of, one_line */
#include "stage_checks.h"

#include "even_bins.h"
#include "float_order.h"
#include "hsv.h"

#include <ctype.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAGE "08_generalized"

/* ====================================================== the pieces (CPU) == */

/* ----------------------------------------------------------- even_bins.h -- */

static uint32_t exact_bin(uint64_t lo, uint64_t width, uint64_t bins, uint32_t key)
{
    uint64_t d = (uint32_t)(key - (uint32_t)lo);
    return d < width ? (uint32_t)(d * bins / width) : NO_BIN;
}

static struct even_bins made(uint64_t lo, uint64_t hi, uint64_t bins)
{
    struct even_bins r;
    char why[256] = "";
    ck_assert_msg(even_bins_make(&r, lo, hi, bins, why, sizeof why) == 0,
                  "[%llu, %llu) in %llu: %s", (unsigned long long)lo, (unsigned long long)hi,
                  (unsigned long long)bins, why);
    return r;
}

static uint64_t state = 12345;
static uint32_t random32(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

/* Keys whose bin differs from the exact rule: how many, and the first.
 * Counted in plain C and asserted once: a Check assertion per key costs a
 * system call, and these loops take tens of millions of keys. */
struct tally {
    uint64_t wrong, lo, width, bins;
    uint32_t key, got, want;
};

static void tally_key(struct tally *t, const struct even_bins *r, uint64_t lo, uint64_t width,
                      uint64_t bins, uint32_t key)
{
    uint32_t got = even_bins_of(r, key), want = exact_bin(lo, width, bins, key);
    if (got != want && t->wrong++ == 0)
        *t = (struct tally){1, lo, width, bins, key, got, want};
}

static void assert_no_wrong_key(const struct tally *t)
{
    ck_assert_msg(t->wrong == 0,
                  "%llu keys in the wrong bin; the first: [%llu, +%llu) in %llu: "
                  "key %u is in %u, not %u",
                  (unsigned long long)t->wrong, (unsigned long long)t->lo,
                  (unsigned long long)t->width, (unsigned long long)t->bins, t->key, t->got,
                  t->want);
}

/* Every key of [lo, lo + width) and a few around it, for every bins. */
START_TEST(test_every_key_of_small_ranges)
{
    uint64_t width = 1 + (uint64_t)_i;
    const uint64_t los[] = {0, 7, ((uint64_t)1 << 32) - width};
    struct tally t = {0};
    for (int l = 0; l < 3; l++)
        for (uint64_t bins = 1; bins <= width; bins++) {
            struct even_bins r = made(los[l], los[l] + width, bins);
            for (int64_t k = (int64_t)los[l] - 2; k < (int64_t)(los[l] + width + 2); k++)
                if (k >= 0 && k <= UINT32_MAX)
                    tally_key(&t, &r, los[l], width, bins, (uint32_t)k);
        }
    assert_no_wrong_key(&t);
}
END_TEST

/* Ranges of u16 size: every key, at bin counts that divide and do not. */
START_TEST(test_every_key_of_u16_ranges)
{
    const uint64_t widths[] = {65536, 65535, 59900, 40000, 32768, 257};
    const uint64_t bins_of[] = {3000, 65535, 1000, 7, 32767, 256, 1, 2};
    uint64_t width = widths[_i % 6], bins = bins_of[_i % 8];
    if (bins > width)
        bins = width;
    struct even_bins r = made(100, 100 + width, bins);
    ck_assert_msg(!r.wide, "a u16 range needs no 64-bit rule");
    struct tally t = {0};
    for (uint32_t key = 0; key < 100 + width + 5; key++)
        tally_key(&t, &r, 100, width, bins, key);
    assert_no_wrong_key(&t);
}
END_TEST

/* Wide ranges: every bin's first key and the key before it, the ends, and
 * keys at random. */
START_TEST(test_edges_of_wide_ranges)
{
    const uint64_t widths[] = {(uint64_t)1 << 32, ((uint64_t)1 << 32) - 1,
                               3000000007ull,     ((uint64_t)1 << 31) + 1,
                               1000003,           65537};
    const uint64_t bins_of[] = {1, 2, 3, 7, 1000, 3000, 65536, 99991, 1048576};
    uint64_t width = widths[_i % 6], bins = bins_of[_i / 6];
    if (bins > width)
        bins = width - 1; /* the most a range holds but one: its reciprocal is the hardest */
    uint64_t lo = width == (uint64_t)1 << 32 ? 0 : 1;
    struct even_bins r = made(lo, lo + width, bins);
    struct tally t = {0};
    for (uint64_t b = 0; b < bins; b++) {
        uint64_t first = (b * width + bins - 1) / bins;
        tally_key(&t, &r, lo, width, bins, (uint32_t)(lo + first));
        if (first > 0)
            tally_key(&t, &r, lo, width, bins, (uint32_t)(lo + first - 1));
    }
    for (int i = 0; i < 100000; i++)
        tally_key(&t, &r, lo, width, bins, random32());
    assert_no_wrong_key(&t);
}
END_TEST

/* The check that chooses the rule can fail: over 2^32 - 1 values in 3 bins
 * the 32-bit reciprocal puts an edge key in the wrong bin, so the 64-bit one
 * is taken, and is right there. A bin per value is the 32-bit rule with
 * m = 2^32 (m_hi 1); 2^20 bins of every u32 key are narrow. */
START_TEST(test_a_range_the_32_bit_rule_gets_wrong_takes_the_64_bit_one)
{
    uint64_t width = ((uint64_t)1 << 32) - 1;
    struct even_bins narrow = {0, width, (uint32_t)(width - 1),
                               3, false, (uint32_t)even_bins_reciprocal(3, width, 32),
                               0, 0};
    ck_assert(!even_bins_edges_exact(&narrow));
    struct even_bins r = made(0, width, 3);
    ck_assert(r.wide);
    ck_assert(even_bins_edges_exact(&r));
    struct even_bins every = made(0, 256, 256);
    ck_assert(!every.wide);
    ck_assert_uint_eq(every.m_lo, 0);
    ck_assert_uint_eq(every.m_hi, 1);
    ck_assert(!made(0, (uint64_t)1 << 32, 1048576).wide);
}
END_TEST

/* last is the largest offset in the range: the last key is in the last bin,
 * the one after it in none, and every key of [0, 2^32) is in some bin. */
START_TEST(test_last_is_the_range_s_largest_offset)
{
    const uint64_t ranges[][3] = {{0, 256, 7},         {10, 250, 7},
                                  {100, 60000, 3000},  {0, (uint64_t)1 << 32, 65536},
                                  {0, 4294967295u, 3}, {4294960000u, (uint64_t)1 << 32, 1000},
                                  {255, 256, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        uint64_t lo = ranges[i][0], hi = ranges[i][1], bins = ranges[i][2];
        struct even_bins r = made(lo, hi, bins);
        ck_assert_uint_eq(r.last, hi - lo - 1);
        ck_assert_uint_eq(even_bins_of(&r, (uint32_t)(hi - 1)), bins - 1);
        ck_assert_uint_eq(even_bins_of(&r, (uint32_t)lo), 0);
        if (hi < (uint64_t)1 << 32)
            ck_assert_uint_eq(even_bins_of(&r, (uint32_t)hi), NO_BIN);
        if (lo > 0)
            ck_assert_uint_eq(even_bins_of(&r, (uint32_t)(lo - 1)), NO_BIN);
    }
}
END_TEST

START_TEST(test_bad_ranges_are_refused_with_a_reason)
{
    struct even_bins r;
    char why[256];
    ck_assert_int_eq(even_bins_make(&r, 5, 5, 1, why, sizeof why), 2);
    ck_assert_msg(strstr(why, "holds no 32-bit key"), "%s", why);
    ck_assert_int_eq(even_bins_make(&r, 0, ((uint64_t)1 << 32) + 1, 1, why, sizeof why), 2);
    ck_assert_int_eq(even_bins_make(&r, 0, 10, 11, why, sizeof why), 2);
    ck_assert_msg(strstr(why, "at most one bin per value"), "%s", why);
    ck_assert_int_eq(even_bins_make(&r, 0, 10, 0, why, sizeof why), 2);
}
END_TEST

/* -------------------------------------------------------------- row_of -- */

/* Column counts: the small ones, round ones, primes (13, 65521, 1000003,
 * 4294967291: the largest below 2^32) and the largest; then each power of
 * two from 2^3 to 2^31 and its neighbours (7, 65537, 2^31 - 1 among them). */
static const uint32_t column_counts[] = {
    1,     2,      3,       4,     5,       10,          13,          1000,
    10000, 100000, 1000000, 65521, 1000003, 4294967291u, 4294967294u, 4294967295u};
#define COLUMN_LISTED ((int)(sizeof column_counts / sizeof column_counts[0]))
#define COLUMN_CASES  (COLUMN_LISTED + 3 * 29)

static uint32_t columns_of(int i)
{
    if (i < COLUMN_LISTED)
        return column_counts[i];
    i -= COLUMN_LISTED;
    return (uint32_t)((UINT64_C(8) << i / 3) + i % 3 - 1); /* 2^k - 1, 2^k, 2^k + 1 */
}

/* Whether row is element e's row: row x cols <= e < (row + 1) x cols, a
 * test with no divide, so that 2^32 of them take seconds. */
static bool is_row_of(uint32_t row, uint64_t e, uint32_t cols)
{
    uint64_t first = (uint64_t)row * cols;
    return first <= e && e - first < cols;
}

/* row_of is e / cols for every element of the form k x cols - 1, k x cols
 * and k x cols + 1 below 2^32 (for three columns or fewer, every element),
 * for the 100000 largest elements, and for elements at random. */
START_TEST(test_row_of_is_e_over_cols)
{
    uint32_t cols = columns_of(_i);
    struct rows_rule r = rows_rule_for(cols);
    ck_assert_uint_eq(r.cols, cols);
    ck_assert_uint_eq(r.m_hi, cols == 1);
    uint64_t wrong = 0, first_wrong = 0, checked = 0;
    if (cols <= 3) {
        for (uint64_t e = 0; e <= UINT32_MAX; e++)
            if (!is_row_of(row_of(&r, (uint32_t)e), e, cols) && wrong++ == 0)
                first_wrong = e;
        checked = (uint64_t)UINT32_MAX + 1;
    } else {
        for (uint64_t k = 0; k * cols <= (uint64_t)UINT32_MAX + 1; k++)
            for (uint64_t e = k ? k * cols - 1 : 0; e <= k * cols + 1 && e <= UINT32_MAX; e++) {
                if (!is_row_of(row_of(&r, (uint32_t)e), e, cols) && wrong++ == 0)
                    first_wrong = e;
                checked++;
            }
    }
    ck_assert_msg(wrong == 0, "%u columns: %llu elements in the wrong row, the first %llu", cols,
                  (unsigned long long)wrong, (unsigned long long)first_wrong);
    ck_assert_msg(checked > (uint64_t)UINT32_MAX / cols, "%u columns: %llu checked", cols,
                  (unsigned long long)checked);
    for (int n = 0; n < 1100000; n++) {
        uint32_t e = n < 100000 ? UINT32_MAX - (uint32_t)n : random32();
        if (row_of(&r, e) != e / cols && wrong++ == 0)
            first_wrong = e;
    }
    ck_assert_msg(wrong == 0,
                  "%u columns: %llu elements in the wrong row, the first %llu "
                  "(by division)",
                  cols, (unsigned long long)wrong, (unsigned long long)first_wrong);
}
END_TEST

/* ---------------------------------------------------------- float_order -- */

START_TEST(test_every_bit_pattern_comes_back)
{
    /* a plain test in the loop, one check after it: 2^32 Check calls are slow */
    uint32_t bits = 0, wrong = 0, first_wrong = 0;
    do {
        float f, back;
        memcpy(&f, &bits, sizeof f);
        back = float_from_order(float_order(f));
        uint32_t back_bits;
        memcpy(&back_bits, &back, sizeof back_bits);
        if (back_bits != bits && wrong++ == 0)
            first_wrong = bits;
    } while (++bits != 0);
    ck_assert_msg(wrong == 0, "%u patterns do not come back, the first 0x%08x", wrong, first_wrong);
}
END_TEST

static float float_of(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

/* Every float in increasing order: the negatives from -infinity (0xff800000)
 * down to -0 (0x80000000) in their bits, then +0 up to +infinity. Each one's
 * order is above the one before, and the float itself is not below it (-0
 * and +0 are equal as floats, and -0 is ordered first). */
START_TEST(test_orders_rise_with_the_floats)
{
    uint32_t previous = FLOAT_ORDER_MAX_START, wrong = 0, first_wrong = 0;
    float previous_float = -INFINITY;
    uint64_t steps = 0;
    for (uint32_t bits = 0xff800000u;; bits--) {
        uint32_t order = float_order(float_of(bits));
        if ((order <= previous || float_of(bits) < previous_float) && wrong++ == 0)
            first_wrong = bits;
        previous = order, previous_float = float_of(bits), steps++;
        if (bits == 0x80000000u)
            break;
    }
    for (uint32_t bits = 0; bits <= 0x7f800000u; bits++) {
        uint32_t order = float_order(float_of(bits));
        if ((order <= previous || float_of(bits) < previous_float) && wrong++ == 0)
            first_wrong = bits;
        previous = order, previous_float = float_of(bits), steps++;
    }
    ck_assert_msg(wrong == 0, "%u floats out of order, the first 0x%08x", wrong, first_wrong);
    ck_assert_uint_lt(previous, FLOAT_ORDER_MIN_START);
    ck_assert_uint_eq(steps, 2 * (uint64_t)0x7f800001u); /* every float but the NaNs */
}
END_TEST

/* ============================================ the stage's rules, copied == */

/* cases.h's unit_float: a 32-bit word of generated bytes as a float key in
 * [0, 1), its top 24 bits over 2^24. */
static float unit_float(const unsigned char *bytes)
{
    uint32_t word;
    memcpy(&word, bytes, 4);
    return (float)(word >> 8) * (1.0f / 16777216.0f);
}

/* cases.h's key_weight: key i's weight in [0, 1), from the seed (splitmix64). */
static float key_weight(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (float)((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
}

/* transforms.cuh's float_bin (CUB's rule): a key in [lo, hi) is in bin
 * (x - lo) x scale, rounded down, scale = bins / (hi - lo) in float; a
 * product that rounds up to bins goes in the last. NaNs are in none. */
static unsigned float_bin(float lo, float hi, float scale, unsigned bins, float x)
{
    if (!(x >= lo && x < hi))
        return NO_BIN;
    unsigned bin = (unsigned)((x - lo) * scale);
    return bin < bins ? bin : bins - 1;
}

/* hsv.h's hsv_of, the stage's rule on the GPU and in its CPU answer, and the
 * suite's for the hues it expects, against the textbook formula in doubles
 * on every 24-bit colour:
 * hue = 60 x ((g - b) / c mod 6), (b - r) / c + 2 or (r - g) / c + 4 for the
 * largest channel r, g or b, c = largest - smallest. A bin's edge is a
 * fraction whose denominator is at most 255 x 360 x 6, so a double within
 * 1e-9 of an integer is on the edge, and the integer is the bin. */
static unsigned textbook_hue_bin(unsigned r, unsigned g, unsigned b, unsigned bins)
{
    double high = fmax(r, fmax(g, b)), c = high - fmin(r, fmin(g, b)), h;
    if (c == 0)
        return NO_BIN;
    if (high == r)
        h = 60 * fmod(((double)g - b) / c + 6, 6);
    else if (high == g)
        h = 60 * (((double)b - r) / c + 2);
    else
        h = 60 * (((double)r - g) / c + 4);
    double x = h * bins / 360, nearest = round(x);
    return fabs(x - nearest) < 1e-9 ? (unsigned)nearest % bins : (unsigned)floor(x);
}

START_TEST(test_hues_match_the_textbook_formula_on_every_colour)
{
    const unsigned bins[] = {1, 7, 36, 360};
    unsigned wrong = 0, first[3] = {0, 0, 0}, which = 0;
    for (unsigned rgb = 0; rgb < 1u << 24; rgb++) {
        unsigned r = rgb >> 16, g = rgb >> 8 & 255, b = rgb & 255;
        unsigned high = r > g ? (r > b ? r : b) : (g > b ? g : b);
        unsigned low = r < g ? (r < b ? r : b) : (g < b ? g : b);
        for (int k = 0; k < 4; k++) {
            struct hsv got = hsv_of(r, g, b, bins[k]);
            bool ok = got.hue_bin == textbook_hue_bin(r, g, b, bins[k]) && got.value == high &&
                      got.saturation == (high ? 255 * (high - low) / high : 0);
            if (!ok && wrong++ == 0)
                first[0] = r, first[1] = g, first[2] = b, which = bins[k];
        }
    }
    ck_assert_msg(wrong == 0, "%u colours and bins disagree, first (%u, %u, %u) in %u bins", wrong,
                  first[0], first[1], first[2], which);
}
END_TEST

/* ================================================ what a bin must print == */

/* What a case's bins hold, and so how each is printed and checked. */
enum holds { COUNTS, SUMS, MINIMA, MAXIMA, MOMENTS, HUE_STATS, PICKS };

/* A float sum as the CPU has it: in double, with its terms' magnitudes and
 * their number, for cases.h's bound on any order of float additions. */
struct float_sum {
    double sum, magnitude;
    unsigned terms;
};

static void add_term(struct float_sum *s, float term)
{
    s->sum += term, s->magnitude += fabsf(term), s->terms++;
}

/* How far a float sum may be from the CPU's: (k + 2) x 2^-24 x the sum of
 * its k terms' magnitudes (cases.h says why). */
static double sum_bound(const struct float_sum *s)
{
    return (s->terms + 2) * ldexp(s->magnitude, -24);
}

/* How far a printed value may be from the one printed: %.9g (a sum) to 9
 * significant digits, within 5 x 10^-9 of it relative; %.6f (a mean, a
 * variance) within half its last place. (A hair more, for the decimal's own
 * conversion back to double.) */
#define PRINTED_9_DIGITS 1e-8
#define PRINTED_6_PLACES 0.5000001e-6

struct bin_want {
    unsigned count; /* COUNTS; MOMENTS: keys; HUE_STATS: pixels; PICKS: the saturation */
    unsigned more;  /* HUE_STATS: the saturations' sum; PICKS: the pixel */
    unsigned most;  /* HUE_STATS: the brightest value */
    float extreme;  /* MINIMA, MAXIMA: the least or greatest weight, +-infinity when none */
    struct float_sum sum, squares; /* SUMS; MOMENTS: the weights, and their squares */
};

/* The reference of one report: what each of its bins must print. */
struct expect {
    enum holds holds;
    size_t bins;
    struct bin_want *bin;
};

static struct expect expect_of(enum holds holds, size_t bins)
{
    struct expect e = {holds, bins, calloc(bins ? bins : 1, sizeof(struct bin_want))};
    ck_assert(e.bin != NULL);
    for (size_t b = 0; b < bins; b++) {
        e.bin[b].extreme = holds == MINIMA ? INFINITY : -INFINITY;
        e.bin[b].more = holds == PICKS ? UINT32_MAX : 0;
    }
    return e;
}

static void free_expect(struct expect *e)
{
    free(e->bin);
    e->bin = NULL;
}

/* A whole unsigned 32-bit number and nothing else (sscanf's %u would take
 * " 5", "-5" and "5x"). */
static bool whole_number(const char *text, unsigned *value)
{
    if (!isdigit((unsigned char)text[0]) || strlen(text) > 10)
        return false;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    *value = (unsigned)v;
    return *end == '\0' && v <= UINT32_MAX;
}

/* The bounds on --op mean's printed mean and variance, from those on the
 * GPU's sums S' and Q' of n weights and their squares (|S' - S| <= tS,
 * |Q' - Q| <= tQ). The program works them out in float: m = S' / n and
 * Q' / n, each rounded (and n itself past 2^24), within 2u relative (u =
 * 2^-24); m x m, rounded; their difference, rounded; then prints 6 places. */
static void moment_bounds(const struct bin_want *w, double *mean_bound, double *variance_bound)
{
    const double u = ldexp(1, -24), n = w->count;
    double s = w->sum.sum / n, ts = sum_bound(&w->sum) / n;
    double q = w->squares.sum / n, tq = sum_bound(&w->squares) / n;
    double mean_error = ts + 2 * u * (s + ts);
    double q_error = tq + 2 * u * (q + tq);
    double high = s + mean_error;
    double square_error = mean_error * (2 * s + mean_error) + u * high * high;
    double difference_error = u * (q + q_error + high * high);
    *mean_bound = mean_error + PRINTED_6_PLACES;
    *variance_bound = q_error + square_error + difference_error + PRINTED_6_PLACES;
}

/* Whether text, what the program printed after "B: ", is bin b of e; if
 * not, why, in one line. Counts, minima, maxima, pixels and picks exactly;
 * float sums within their bound; a mean and a variance within theirs. */
static bool bin_matches(const struct expect *e, size_t b, const char *text, char *why, size_t len)
{
    const struct bin_want *w = &e->bin[b];
    unsigned count, more, most;
    int end = -1;
    char *stop;
    switch (e->holds) {
    case COUNTS:
        if (whole_number(text, &count) && count == w->count)
            return true;
        snprintf(why, len, "bin %zu: '%s', the CPU counts %u", b, text, w->count);
        return false;
    case SUMS: {
        double got = strtod(text, &stop);
        double bound = sum_bound(&w->sum) + PRINTED_9_DIGITS * fabs(got);
        if (stop != text && *stop == '\0' && fabs(got - w->sum.sum) <= bound)
            return true;
        snprintf(why, len, "bin %zu: '%s', the CPU's sum is %.9g, within %.3g", b, text, w->sum.sum,
                 bound);
        return false;
    }
    case MINIMA:
    case MAXIMA: {
        /* %.9g gives a float back bit for bit */
        float got = strtof(text, &stop);
        if (stop != text && *stop == '\0' && bits_of(got) == bits_of(w->extreme))
            return true;
        snprintf(why, len, "bin %zu: '%s', the CPU's %s is %.9g", b, text,
                 e->holds == MINIMA ? "least" : "greatest", w->extreme);
        return false;
    }
    case MOMENTS: {
        double mean, variance, mean_bound = 0, variance_bound = 0, want_mean = 0, want_var = 0;
        if (sscanf(text, "%u keys, mean %lf, variance %lf%n", &count, &mean, &variance, &end) !=
                3 ||
            text[end] != '\0' || count != w->count) {
            snprintf(why, len, "bin %zu: '%s', the CPU has %u keys", b, text, w->count);
            return false;
        }
        if (count) {
            moment_bounds(w, &mean_bound, &variance_bound);
            want_mean = w->sum.sum / count;
            want_var = w->squares.sum / count - want_mean * want_mean;
        }
        if (fabs(mean - want_mean) <= mean_bound && fabs(variance - want_var) <= variance_bound)
            return true;
        snprintf(why, len,
                 "bin %zu: '%s', the CPU's mean is %.9f (within %.2g), variance %.9f "
                 "(within %.2g)",
                 b, text, want_mean, mean_bound, want_var, variance_bound);
        return false;
    }
    case HUE_STATS: {
        /* the mean as the program prints it, from the CPU's exact sum */
        char mean[32], want_mean[32];
        snprintf(want_mean, sizeof want_mean, "%.2f", w->count ? (double)w->more / w->count : 0.0);
        if (sscanf(text, "%u pixels, mean saturation %31[0-9.], brightest %u%n", &count, mean,
                   &most, &end) == 3 &&
            text[end] == '\0' && count == w->count && strcmp(mean, want_mean) == 0 &&
            most == w->most)
            return true;
        snprintf(why, len, "bin %zu: '%s', the CPU has %u pixels, mean saturation %s, brightest %u",
                 b, text, w->count, want_mean, w->most);
        return false;
    }
    case PICKS:
        if (sscanf(text, "saturation %u, pixel %u%n", &count, &more, &end) == 2 &&
            text[end] == '\0' && count == w->count && more == w->more)
            return true;
        snprintf(why, len, "bin %zu: '%s', the CPU picks saturation %u, pixel %u", b, text,
                 w->count, w->more);
        return false;
    }
    return false;
}

/* How many of the printed bins differ from e; the first one's reason in why. */
static long wrong_bins(const struct expect *e, char *const *printed, char *why, size_t len)
{
    long wrong = 0;
    char reason[512];
    for (size_t b = 0; b < e->bins; b++)
        if (!bin_matches(e, b, printed[b], reason, sizeof reason) && wrong++ == 0)
            snprintf(why, len, "%s", reason);
    return wrong;
}

/* ------------------------------------------- the checks reject wrong bins -- */

/* A check that cannot fail proves nothing: each comparison above, shown a
 * value one step wrong, rejects it, and takes the right one. */

START_TEST(test_the_count_check_rejects_one_wrong_bin)
{
    struct expect e = expect_of(COUNTS, 3);
    e.bin[0].count = 5, e.bin[2].count = UINT32_MAX;
    char *right[] = {"5", "0", "4294967295"};
    char why[512] = "";
    ck_assert_msg(wrong_bins(&e, right, why, sizeof why) == 0, "%s", why);
    char *one_off[] = {"5", "1", "4294967295"};
    ck_assert_int_eq(wrong_bins(&e, one_off, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "bin 1: '1'"), "%s", why);
    const char *malformed[] = {"6", "4", "5x", " 5", "-5", "", "4294967301", "5.0"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        ck_assert_msg(!bin_matches(&e, 0, malformed[i], why, sizeof why), "took '%s'",
                      malformed[i]);
    free_expect(&e);
}
END_TEST

START_TEST(test_the_sum_check_takes_any_order_and_rejects_past_its_bound)
{
    struct expect e = expect_of(SUMS, 2);
    float forward = 0, backward = 0;
    float terms[1000];
    for (int i = 0; i < 1000; i++) {
        terms[i] = key_weight(3, (uint64_t)i) - 0.25f; /* of either sign */
        add_term(&e.bin[0].sum, terms[i]);
        forward += terms[i];
    }
    for (int i = 999; i >= 0; i--)
        backward += terms[i];
    char text[64], why[512] = "";
    double bound = sum_bound(&e.bin[0].sum);
    const double sums[] = {forward, backward, e.bin[0].sum.sum, e.bin[0].sum.sum + 0.9 * bound};
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, "%.9g", (float)sums[i]);
        ck_assert_msg(bin_matches(&e, 0, text, why, sizeof why), "%s", why);
    }
    snprintf(text, sizeof text, "%.9g", e.bin[0].sum.sum + 2 * bound + 1e-6);
    ck_assert_msg(!bin_matches(&e, 0, text, why, sizeof why), "took %s", text);
    snprintf(text, sizeof text, "%.9g", e.bin[0].sum.sum - 2 * bound - 1e-6);
    ck_assert_msg(!bin_matches(&e, 0, text, why, sizeof why), "took %s", text);
    /* an empty bin has no room at all */
    ck_assert(bin_matches(&e, 1, "0", why, sizeof why));
    ck_assert(!bin_matches(&e, 1, "1e-30", why, sizeof why));
    ck_assert(!bin_matches(&e, 1, "0x", why, sizeof why));
    free_expect(&e);
}
END_TEST

START_TEST(test_the_min_and_max_checks_reject_one_ulp)
{
    struct expect low = expect_of(MINIMA, 2), high = expect_of(MAXIMA, 2);
    low.bin[0].extreme = high.bin[0].extreme = 0.3f;
    char text[64], why[512];
    snprintf(text, sizeof text, "%.9g", 0.3f);
    ck_assert_msg(bin_matches(&low, 0, text, why, sizeof why), "%s", why);
    ck_assert_msg(bin_matches(&high, 0, text, why, sizeof why), "%s", why);
    snprintf(text, sizeof text, "%.9g", nextafterf(0.3f, 1));
    ck_assert_msg(!bin_matches(&low, 0, text, why, sizeof why), "took %s", text);
    snprintf(text, sizeof text, "%.9g", nextafterf(0.3f, 0));
    ck_assert_msg(!bin_matches(&high, 0, text, why, sizeof why), "took %s", text);
    /* an empty bin holds the combine's identity: +infinity for a minimum */
    ck_assert(bin_matches(&low, 1, "inf", why, sizeof why));
    ck_assert(!bin_matches(&low, 1, "-inf", why, sizeof why));
    ck_assert(!bin_matches(&low, 1, "3.40282347e+38", why, sizeof why));
    ck_assert(bin_matches(&high, 1, "-inf", why, sizeof why));
    free_expect(&low), free_expect(&high);
}
END_TEST

/* The mean and variance as the program prints them, in float from float
 * sums, are taken; a count one off, or a mean or variance 10^-5 off, not
 * (a bin of 100 keys, as in the GPU checks: the bound grows with a bin's
 * keys, as cases.h's does). */
START_TEST(test_the_moments_check_rejects_a_wrong_count_mean_or_variance)
{
    struct expect e = expect_of(MOMENTS, 1);
    float sum = 0, squares = 0;
    for (int i = 0; i < 100; i++) {
        float w = key_weight(9, (uint64_t)i), square = w * w;
        e.bin[0].count++;
        add_term(&e.bin[0].sum, w), add_term(&e.bin[0].squares, square);
        sum += w, squares += square;
    }
    float n = 100, mean = sum / n, variance = squares / n - mean * mean;
    const char *format = "%u keys, mean %.6f, variance %.6f";
    char text[128], why[512] = "";
    snprintf(text, sizeof text, format, 100, mean, variance);
    ck_assert_msg(bin_matches(&e, 0, text, why, sizeof why), "%s", why);
    const double off[][3] = {{99, 0, 0},      {101, 0, 0},    {100, 1e-5, 0},
                             {100, -1e-5, 0}, {100, 0, 1e-5}, {100, 0, -1e-5}};
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, format, (unsigned)off[i][0], mean + off[i][1],
                 variance + off[i][2]);
        ck_assert_msg(!bin_matches(&e, 0, text, why, sizeof why), "took %s", text);
    }
    free_expect(&e);
}
END_TEST

START_TEST(test_the_hue_and_pick_checks_reject_one_off)
{
    struct expect stats = expect_of(HUE_STATS, 2), picks = expect_of(PICKS, 2);
    stats.bin[0] = (struct bin_want){.count = 3, .more = 100, .most = 200};
    picks.bin[0] = (struct bin_want){.count = 90, .more = 1234};
    char why[512] = "";
    ck_assert_msg(
        bin_matches(&stats, 0, "3 pixels, mean saturation 33.33, brightest 200", why, sizeof why),
        "%s", why);
    ck_assert(
        bin_matches(&stats, 1, "0 pixels, mean saturation 0.00, brightest 0", why, sizeof why));
    const char *wrong_stats[] = {"3 pixels, mean saturation 33.34, brightest 200",
                                 "3 pixels, mean saturation 33.33, brightest 199",
                                 "4 pixels, mean saturation 33.33, brightest 200"};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(!bin_matches(&stats, 0, wrong_stats[i], why, sizeof why), "took %s",
                      wrong_stats[i]);
    ck_assert(bin_matches(&picks, 0, "saturation 90, pixel 1234", why, sizeof why));
    ck_assert(bin_matches(&picks, 1, "saturation 0, pixel 4294967295", why, sizeof why));
    ck_assert(!bin_matches(&picks, 0, "saturation 90, pixel 1235", why, sizeof why));
    ck_assert(!bin_matches(&picks, 0, "saturation 91, pixel 1234", why, sizeof why));
    free_expect(&stats), free_expect(&picks);
}
END_TEST

/* ============================================== running the program (GPU) == */

/* One report of a run: the way whose bins --print-bins printed (the first
 * after the floor), whether it says verified, and each bin's text. */
struct report {
    char way[128];
    bool verified;
    char **bin;
    size_t bins, room;
};

#define MOST_REPORTS 2 /* --hue: its statistics, then its picks */

struct run {
    char command[1024];
    int status;
    char *out, *err;
    int reports;
    struct report report[MOST_REPORTS];
};

/* Runs the program with args and reads its reports. The lines of out are
 * cut in place: each bin's text points into it. */
static void run_program(const char *args, struct run *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->command, sizeof r->command, "'%s' %s", stage_program(), args);
    struct ran ran = run_command(r->command);
    r->status = ran.status, r->out = ran.out, r->err = ran.err;
    struct report *now = NULL;
    bool in_table = false;
    for (char *line = r->out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, STAGE ": ", strlen(STAGE) + 2) == 0) { /* a report starts */
            ck_assert_msg(r->reports < MOST_REPORTS, "%s: more than %d reports", args,
                          MOST_REPORTS);
            now = &r->report[r->reports++];
            in_table = false;
        } else if (!now) {
            continue;
        } else if (strncmp(line, "impl ", 5) == 0) {
            in_table = true;
        } else if (strncmp(line, "verified:   ", 12) == 0) {
            now->verified = strncmp(line + 12, "yes", 3) == 0;
            in_table = false;
        } else if (in_table) {
            if (!now->way[0] && strncmp(line, "read-bandwidth/", 15) != 0)
                snprintf(now->way, sizeof now->way, "%.*s", (int)strcspn(line, " "), line);
        } else if (isdigit((unsigned char)line[0])) {
            char *colon;
            unsigned long bin = strtoul(line, &colon, 10);
            ck_assert_msg(colon[0] == ':' && colon[1] == ' ' && bin == now->bins,
                          "%s: bin %zu printed as '%.80s'", args, now->bins, line);
            if (now->bins == now->room) {
                now->room = now->room ? 2 * now->room : 1024;
                now->bin = realloc(now->bin, now->room * sizeof *now->bin);
                ck_assert(now->bin != NULL);
            }
            now->bin[now->bins++] = colon + 2;
        }
    }
}

static void free_run(struct run *r)
{
    for (int i = 0; i < r->reports; i++)
        free(r->report[i].bin);
    free(r->out);
    free(r->err);
}

/* The first line of what the program said on stderr, cut there. */
static const char *first_line(struct run *r)
{
    r->err[strcspn(r->err, "\n")] = '\0';
    return r->err;
}

/* Every printed bin of report i against e, and the report verified. */
static void check_report(const struct run *r, int i, const struct expect *e)
{
    const struct report *rep = &r->report[i];
    ck_assert_msg(rep->verified, "%s: report %d does not say 'verified:   yes'", r->command, i + 1);
    ck_assert_msg(rep->bins == e->bins, "%s: report %d printed %zu bins, want %zu", r->command,
                  i + 1, rep->bins, e->bins);
    char why[512] = "";
    long wrong = wrong_bins(e, rep->bin, why, sizeof why);
    ck_assert_msg(wrong == 0, "%s (%s): %ld bins wrong; %s", r->command, rep->way, wrong, why);
}

/* The library's contract, as the compiler holds it: gh_count's out(bin, n)
 * takes a whole number (a float would be cut, 0.5 to 0), and out(bin) counts,
 * so a value's combine has none. The same transform with out(b, 2u) compiles,
 * so what fails is the misuse, not the test's code. nvcc: $NVCC (make's). */
START_TEST(test_misused_outs_do_not_compile)
{
    static const struct {
        const char *combine, *out, *error;
    } uses[] = {{"gh_count", "out(b, 2u)", NULL},
                {"gh_count", "out(b, 0.5f)", "n a whole number"},
                {"gh_parts<float, GH_ADD_F32>", "out(b)", "no instance of overloaded function"}};
    char dir[] = "/tmp/generalized_api_XXXXXX", command[4096];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command, "%s/use.cu", dir);
    FILE *f = fopen(command, "w");
    ck_assert(f != NULL);
    fprintf(f,
            "#include \"generalized_histogram.cuh\"\n"
            "typedef %s combine;\n"
            "struct floats { const float *keys; };\n"
            "struct transform {\n"
            "    typedef float item_type;\n"
            "    static constexpr int outputs = 1;\n"
            "    static constexpr unsigned max_bins = 100;\n"
            "    __host__ __device__ unsigned bins() const { return 100; }\n"
            "    __device__ float read(const floats &in, size_t i) const { return in.keys[i]; }\n"
            "    template <typename Out>\n"
            "    __device__ void operator()(const floats &, float x, size_t, Out &out) const\n"
            "    {\n"
            "        unsigned b = (unsigned)x %% 100;\n"
            "        %s;\n"
            "    }\n"
            "};\n"
            "cudaError_t use(combine::value_type *out)\n"
            "{\n"
            "    return gh_histogram(floats{0}, transform{}, combine{}, 0, 10, 100, out, "
            "gh_call{});\n"
            "}\n",
            uses[_i].combine, uses[_i].out);
    fclose(f);
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "nvcc";
    char program[1024]; /* the library beside the stage's program */
    snprintf(program, sizeof program, "%s", stage_program());
    snprintf(command, sizeof command, "'%s' -std=c++20 -arch=sm_90 -I'%s' -c %s/use.cu -o %s/use.o",
             nvcc, dirname(program), dir, dir);
    struct ran r = run_command(command);
    remove_tree(dir);
    if (uses[_i].error)
        ck_assert_msg(r.status != 0 && strstr(r.err, uses[_i].error),
                      "%s with %s: compiled, or not for its reason (status %d): %s",
                      uses[_i].combine, uses[_i].out, r.status, r.err);
    else
        ck_assert_msg(r.status == 0, "%s with %s does not compile (status %d): %s",
                      uses[_i].combine, uses[_i].out, r.status, r.err);
    free_ran(&r);
}
END_TEST

/* ========================================================= the cases == */

/* One case of the program: its options, as a user gives them. */
struct gcase {
    const char *keys;  /* u8, u16, u32 or f32; NULL: --rows or --image */
    unsigned bins;     /* --bins, or 0: the default */
    const char *range; /* --range, or NULL: every value, or [0, 1) */
    int channels;      /* --channels, or 0 */
    enum holds holds;  /* f32 keys: COUNTS, SUMS (--weights), MINIMA, MAXIMA, MOMENTS or --soft */
    bool soft;
    unsigned rows, cols; /* --rows RxC */
    bool image;          /* --image (RGBA, or --channels 3: RGB), or with --hue N its hues */
    unsigned hue;
    const char *probes; /* the placement whose limit the case's bins sit at: make test runs it */
};

#define MAX_BINS (1u << 24)

/* Keys of every type and what a bin holds; bin counts at each placement's
 * limit on an H100 (a lane's copy of 4-byte bins holds 1816, a block's
 * 58112, 16-bit halves 116224; a third of those for --op mean's 3 words),
 * and ranges that need even_bins' 64-bit rule or wrap past its last key. */
static const struct gcase key_cases[] = {
    {.keys = "u8"},
    {.keys = "u8", .channels = 2},
    {.keys = "u8", .channels = 3},
    {.keys = "u8", .channels = 4},
    {.keys = "u8", .bins = 7, .range = "10:250"},
    {.keys = "u8", .bins = 1, .range = "255:256"},
    {.keys = "u16"},
    {.keys = "u16", .bins = 3000, .range = "100:60000"},
    {.keys = "u16", .bins = 1816, .probes = "per-lane"},
    {.keys = "u16", .bins = 1817, .probes = "per-lane"},
    {.keys = "u32"},
    {.keys = "u32", .bins = 3, .range = "0:4294967295"},
    {.keys = "u32", .bins = 1000, .range = "4294960000:4294967296"},
    {.keys = "u32", .bins = 58112, .probes = "per-block"},
    {.keys = "u32", .bins = 58113, .probes = "per-block"},
    {.keys = "u32", .bins = 116224, .probes = "per-block-halves"},
    {.keys = "u32", .bins = 116225, .probes = "per-block-halves"},
    {.keys = "f32"},
    {.keys = "f32", .bins = 1000, .holds = SUMS},
    {.keys = "f32", .bins = 7, .range = "0.25:0.75"},
    {.keys = "f32", .bins = 100000, .range = "-0.5:1.5"},
    {.keys = "f32", .bins = 1817, .range = "0.125:0.875", .holds = SUMS, .probes = "per-lane"},
    {.keys = "f32", .bins = 1000, .holds = MINIMA},
    {.keys = "f32", .bins = 1000, .holds = MAXIMA},
    {.keys = "f32", .bins = 58113, .holds = MAXIMA, .probes = "per-block"},
    {.keys = "f32", .bins = 1000, .holds = MOMENTS},
    {.keys = "f32", .bins = 605, .holds = MOMENTS, .probes = "per-lane"},
    {.keys = "f32", .bins = 606, .holds = MOMENTS, .probes = "per-lane"},
    {.keys = "f32", .bins = 19370, .holds = MOMENTS, .probes = "per-block"},
    {.keys = "f32", .bins = 19371, .holds = MOMENTS, .probes = "per-block"},
    {.keys = "f32", .bins = 100, .holds = SUMS, .soft = true},
    {.keys = "f32", .bins = 1, .range = "0.25:0.75", .holds = SUMS, .soft = true},
};
#define KEY_CASES ((int)(sizeof key_cases / sizeof key_cases[0]))

/* Row sums: rows of one element and of many, around an item of 8 floats,
 * rows that start inside an item, a few MB, and rows at the placements'
 * limits. */
static const struct gcase row_cases[] = {
    {.rows = 1, .cols = 1},
    {.rows = 1, .cols = 7},
    {.rows = 1, .cols = 8},
    {.rows = 1, .cols = 9},
    {.rows = 9, .cols = 1},
    {.rows = 3, .cols = 5},
    {.rows = 7, .cols = 3},
    {.rows = 13, .cols = 17},
    {.rows = 50, .cols = 1000},
    {.rows = 1000, .cols = 50},
    {.rows = 3, .cols = 349529},
    {.rows = 1816, .cols = 7, .probes = "per-lane"},
    {.rows = 1817, .cols = 7, .probes = "per-lane"},
    {.rows = 58113, .cols = 2, .probes = "per-block"},
};
#define ROW_CASES ((int)(sizeof row_cases / sizeof row_cases[0]))

/* The photograph: its hues in 36, 360 and 1 bin; its RGBA and its RGB. */
static const struct gcase image_cases[] = {
    {.image = true, .hue = 36},     {.image = true, .hue = 360},
    {.image = true, .hue = 1},      {.image = true},
    {.image = true, .channels = 3},
};
#define IMAGE_CASES ((int)(sizeof image_cases / sizeof image_cases[0]))

/* --variant's ways: the library's placements (gh_strategy's order), and CUB. */
static const char *const ways[] = {"auto",   "per-lane", "per-block", "per-block-halves",
                                   "global", "cub"};
enum { AUTO, PER_LANE, PER_BLOCK, HALVES, GLOBAL, CUB, WAYS };

static const enum data_kind kinds[] = {DATA_UNIFORM, DATA_SKEWED, DATA_CONSTANT, DATA_TEXT};

/* The photograph, beside the program: its folder's ../data. */
static const char *image_path(void)
{
    static char path[4200];
    snprintf(path, sizeof path, "%.*s/../data/chelsea.bmp",
             (int)(strrchr(stage_program(), '/') - stage_program()), stage_program());
    return path;
}

static void append(char *text, size_t len, const char *format, ...)
{
    size_t used = strlen(text);
    va_list args;
    va_start(args, format);
    vsnprintf(text + used, len - used, format, args);
    va_end(args);
}

/* The options that make case c. */
static void case_args(const struct gcase *c, char *args, size_t len)
{
    static const char *const ops[] = {"", "", " --op min", " --op max", " --op mean"};
    args[0] = '\0';
    if (c->keys)
        append(args, len, "--keys %s", c->keys);
    if (c->bins)
        append(args, len, " --bins %u", c->bins);
    if (c->range)
        append(args, len, " --range %s", c->range);
    if (c->keys && c->holds != COUNTS)
        append(args, len, c->soft ? " --soft" : " --weights%s", ops[c->holds]);
    if (c->rows)
        append(args, len, "--rows %ux%u", c->rows, c->cols);
    if (c->image)
        append(args, len, "--image '%s'", image_path());
    if (c->hue)
        append(args, len, " --hue %u", c->hue);
    if (c->channels)
        append(args, len, " --channels %d", c->channels);
}

/* The bytes a key (or pixel) of case c takes. */
static size_t unit_bytes(const struct gcase *c)
{
    int channels = c->channels ? c->channels : 1;
    return strcmp(c->keys, "u8") == 0 ? (size_t)channels : strcmp(c->keys, "u16") == 0 ? 2 : 4;
}

/* ------------------------------------------ which ways hold the bins -- */

/* What a case's bins take, for generalized_histogram.cuh's placements: a
 * copy per lane takes 32 x their bytes of a block's shared memory, a copy
 * per block their bytes, 16-bit halves (counts only) 2 bytes a bin, each
 * rounded up to 16 bytes; global memory none. A transform whose most bins
 * fit 48 KiB is not compiled for halves or global at all (gh_compiled). */
struct footprint {
    size_t bins;      /* in all: per channel x channels */
    size_t bytes;     /* a bin's value: a count 4; a pick 8; moments, hue statistics 12 */
    size_t most_bins; /* the most the transform can name */
    bool counts;      /* gh_count: halves can hold them */
    bool cub;         /* CUB counts the same thing */
};

static struct footprint footprint_of(const struct gcase *c)
{
    if (c->hue) /* the statistics, 3 words, hold more than the picks */
        return (struct footprint){c->hue, 12, 360, false, false};
    if (c->rows)
        return (struct footprint){c->rows, 4, MAX_BINS, false, true};
    const char *keys = c->image ? "u8" : c->keys;
    int channels = c->image && !c->channels ? 4 : c->channels ? c->channels : 1;
    if (strcmp(keys, "u8") == 0)
        return (struct footprint){(size_t)(c->bins ? c->bins : 256) * channels, 4,
                                  256 * (size_t)channels, true, true};
    if (strcmp(keys, "u16") == 0)
        return (struct footprint){c->bins ? c->bins : 65536, 4, 65536, true, true};
    if (strcmp(keys, "u32") == 0)
        return (struct footprint){c->bins ? c->bins : 65536, 4, MAX_BINS, true, true};
    bool counts = c->holds == COUNTS;
    return (struct footprint){c->bins ? c->bins : 1000, c->holds == MOMENTS ? 12 : 4, MAX_BINS,
                              counts, counts};
}

/* A block's shared memory: 227 KiB on an H100 or H200 (sm_90), the most any
 * GPU gives; 48 KiB every GPU gives. main asks the program which GPU this
 * is; on another, the suite only knows that a placement holds bins of 48
 * KiB and cannot hold more than 227 KiB. */
#define SHARED_MOST  232448
#define SHARED_LEAST 49152
static size_t block_shared; /* 0: not known */

static size_t shared_need(const struct footprint *f, int way)
{
    size_t bytes = way == PER_LANE    ? 32 * f->bins * f->bytes
                   : way == PER_BLOCK ? f->bins * f->bytes
                   : way == HALVES    ? (f->bins + 1) / 2 * 4
                                      : 0;
    return (bytes + 15) / 16 * 16;
}

static bool compiled(const struct footprint *f, int way)
{
    bool small = f->most_bins * f->bytes <= 48 * 1024;
    return way == HALVES ? f->counts && !small : way == GLOBAL ? !small : true;
}

enum outcome { HOLDS, CANNOT, EITHER };

/* Whether way must hold the bins here, cannot, or may do either (a GPU
 * whose shared memory the suite does not know). Which placement auto
 * takes is the library's policy, not checked here: it holds the bins. */
static enum outcome outcome_of(const struct footprint *f, int way)
{
    if (way == AUTO)
        return HOLDS;
    if (way == CUB)
        return f->cub ? HOLDS : CANNOT;
    size_t need = shared_need(f, way);
    if (!compiled(f, way) || need > SHARED_MOST)
        return CANNOT;
    if (block_shared)
        return need <= block_shared ? HOLDS : CANNOT;
    return need <= SHARED_LEAST ? HOLDS : EITHER;
}

/* ---------------------------------------------------- the references -- */

/* Integer keys in even bins by the exact rule floor((key - lo) x bins /
 * (hi - lo)) in 64 bits; key i in channel i mod C, whose bins come C-th. */
static struct expect integer_reference(const struct gcase *c, const unsigned char *bytes,
                                       size_t size)
{
    int key_bytes = strcmp(c->keys, "u8") == 0 ? 1 : strcmp(c->keys, "u16") == 0 ? 2 : 4;
    int channels = c->channels ? c->channels : 1;
    uint64_t values = (uint64_t)1 << (8 * key_bytes), lo = 0, hi = values;
    if (c->range)
        ck_assert(sscanf(c->range, "%" SCNu64 ":%" SCNu64, &lo, &hi) == 2);
    uint64_t bins = c->bins ? c->bins : values < 65536 ? values : 65536, width = hi - lo;
    struct expect e = expect_of(COUNTS, bins * channels);
    for (size_t i = 0; i < size / key_bytes; i++) {
        uint64_t key = 0;
        for (int k = 0; k < key_bytes; k++) /* little-endian */
            key |= (uint64_t)bytes[i * key_bytes + k] << (8 * k);
        if (key >= lo && key < hi)
            e.bin[i % channels * bins + (key - lo) * bins / width].count++;
    }
    return e;
}

/* f32 keys: from the input's bytes as unit_float makes them (or a file's
 * floats as they are), each in its float_bin, with key_weight's weight;
 * --soft splits each key's 1 as float_keys<SOFT> does. */
static struct expect float_reference(const struct gcase *c, const unsigned char *bytes, size_t size,
                                     uint64_t seed, bool raw)
{
    unsigned bins = c->bins ? c->bins : 1000;
    float lo = 0, hi = 1;
    if (c->range) {
        char *colon;
        lo = strtof(c->range, &colon);
        hi = strtof(colon + 1, NULL);
    }
    float scale = (float)bins / (hi - lo); /* in float, as the program works it out */
    struct expect e = expect_of(c->holds, bins);
    for (size_t i = 0; i < size / 4; i++) {
        float x, w = key_weight(seed, i);
        if (raw)
            memcpy(&x, bytes + 4 * i, 4);
        else
            x = unit_float(bytes + 4 * i);
        unsigned bin = float_bin(lo, hi, scale, bins, x);
        if (bin == NO_BIN)
            continue;
        struct bin_want *to = &e.bin[bin];
        if (c->soft) {
            /* its place in bin widths from bin 0's centre; each step rounded */
            float scaled = (x - lo) * scale;
            float place = scaled - 0.5f;
            float below = floorf(place), share = place - below;
            int left = (int)below;
            add_term(&e.bin[left < 0 ? 0 : left].sum, 1.0f - share);
            add_term(&e.bin[left + 1 >= (int)bins ? (int)bins - 1 : left + 1].sum, share);
        } else if (c->holds == COUNTS) {
            to->count++;
        } else if (c->holds == SUMS) {
            add_term(&to->sum, w);
        } else if (c->holds == MOMENTS) {
            float square = w * w; /* rounded to float, as the GPU's term is */
            to->count++;
            add_term(&to->sum, w), add_term(&to->squares, square);
        } else if (c->holds == MINIMA ? w < to->extreme : w > to->extreme) {
            to->extreme = w;
        }
    }
    return e;
}

/* Row sums: element e of the R x C matrix, unit_float's of the input (or a
 * file's floats), adds to row e / C. */
static struct expect rows_reference(const struct gcase *c, const unsigned char *bytes, bool raw)
{
    struct expect e = expect_of(SUMS, c->rows);
    for (size_t i = 0; i < (size_t)c->rows * c->cols; i++) {
        float x;
        if (raw)
            memcpy(&x, bytes + 4 * i, 4);
        else
            x = unit_float(bytes + 4 * i);
        add_term(&e.bin[i / c->cols].sum, x);
    }
    return e;
}

/* The photograph: with --hue, per hue bin its pixels, their saturations'
 * sum and the brightest value, and the most saturated pixel (the first on a
 * tie); else its R, G, B (and alpha, 255) bytes as channels of u8 keys. */
static int image_reference(const struct gcase *c, struct expect *e)
{
    struct image img;
    char why[512];
    ck_assert_msg(read_bmp(image_path(), &img, why, sizeof why) == EXIT_OK, "%s", why);
    size_t pixels = (size_t)img.width * img.height;
    int reports = 1;
    if (c->hue) {
        e[0] = expect_of(HUE_STATS, c->hue), e[1] = expect_of(PICKS, c->hue), reports = 2;
        for (size_t p = 0; p < pixels; p++) {
            const unsigned char *px = img.rgb + 3 * p;
            struct hsv h = hsv_of(px[0], px[1], px[2], c->hue);
            if (h.hue_bin == NO_BIN)
                continue;
            struct bin_want *stats = &e[0].bin[h.hue_bin], *pick = &e[1].bin[h.hue_bin];
            stats->count++, stats->more += h.saturation;
            stats->most = h.value > stats->most ? h.value : stats->most;
            if (h.saturation > pick->count || (h.saturation == pick->count && p < pick->more))
                pick->count = h.saturation, pick->more = (unsigned)p;
        }
    } else {
        int channels = c->channels ? c->channels : 4;
        e[0] = expect_of(COUNTS, 256 * (size_t)channels);
        for (size_t p = 0; p < pixels; p++)
            for (int ch = 0; ch < channels; ch++)
                e[0].bin[256 * ch + (ch < 3 ? img.rgb[3 * p + ch] : 255)].count++;
    }
    free_image(&img);
    return reports;
}

/* The references of case c's reports on the input its options make. */
static int reference(const struct gcase *c, enum data_kind kind, size_t size, uint64_t seed,
                     struct expect *e)
{
    if (c->image)
        return image_reference(c, e);
    if (c->rows)
        size = (size_t)c->rows * c->cols * 4;
    unsigned char *bytes = malloc(size ? size : 1);
    ck_assert(bytes != NULL);
    fill_input(kind, bytes, size, seed);
    e[0] = c->rows                       ? rows_reference(c, bytes, false)
           : strcmp(c->keys, "f32") == 0 ? float_reference(c, bytes, size, seed, false)
                                         : integer_reference(c, bytes, size);
    free(bytes);
    return 1;
}

/* ----------------------------------------------------- checking a run -- */

/* Runs case c by one way on one input, and checks what it printed: a way
 * that cannot hold the bins refuses them (exit 2, and why); any other
 * exits 0 with every report verified, the way asked for first (the floor,
 * a kernel that only reads, is no histogram), and every bin the reference's. */
static void check_case(const struct gcase *c, int way, enum data_kind kind, size_t size,
                       uint64_t seed)
{
    char args[1024];
    case_args(c, args, sizeof args);
    if (c->keys)
        append(args, sizeof args, " --size %zu", size);
    if (!c->image)
        append(args, sizeof args, " --data %s --seed %llu", data_kind_name(kind),
               (unsigned long long)seed);
    append(args, sizeof args, " --variant %s --reps 1 --print-bins", ways[way]);
    struct footprint f = footprint_of(c);
    enum outcome outcome = outcome_of(&f, way);
    struct run r;
    run_program(args, &r);
    if (r.status == EXIT_USAGE && outcome != HOLDS) {
        ck_assert_msg(strstr(first_line(&r), "--variant: no such way holds these bins here"),
                      "%s: refused: %s", r.command, r.err);
        free_run(&r);
        return;
    }
    ck_assert_msg(r.status == EXIT_OK, "%s: exit %d: %s", r.command, r.status, r.err);
    ck_assert_msg(outcome != CANNOT,
                  "%s: ran, but %zu bins of %zu bytes need %zu bytes of shared memory here (%s)",
                  r.command, f.bins, f.bytes, shared_need(&f, way),
                  compiled(&f, way) ? "more than a block has" : "a placement not compiled");
    struct expect e[MOST_REPORTS];
    int reports = reference(c, kind, size, seed, e);
    ck_assert_msg(r.reports == reports, "%s: %d reports, want %d", r.command, r.reports, reports);
    /* the way's name: auto:PLACEMENT/case, cub-KIND/case, or PLACEMENT/case */
    char first[64];
    snprintf(first, sizeof first, "%s%s", ways[way], way == AUTO ? ":" : way == CUB ? "-" : "/");
    for (int i = 0; i < reports; i++) {
        ck_assert_msg(strncmp(r.report[i].way, first, strlen(first)) == 0,
                      "%s: report %d's first way is '%s', not %s...", r.command, i + 1,
                      r.report[i].way, first);
        check_report(&r, i, &e[i]);
        free_expect(&e[i]);
    }
    free_run(&r);
}

/* The ways that hold case c's bins here, for make test's turn among them. */
static int holding_ways(const struct gcase *c, int *list)
{
    struct footprint f = footprint_of(c);
    int count = 0;
    for (int way = 0; way < WAYS; way++)
        if (outcome_of(&f, way) == HOLDS)
            list[count++] = way;
    return count;
}

/* The way case i of a matrix runs: in make test-full, each in turn (every
 * stride cases); in make test, the placement whose limit it probes, else
 * one of those that hold its bins, in turn. */
static int way_of(const struct gcase *c, int i, int stride)
{
    if (full_tests())
        return i / stride % WAYS;
    for (int way = 0; c->probes && way < WAYS; way++)
        if (strcmp(c->probes, ways[way]) == 0)
            return way;
    int list[WAYS], count = holding_ways(c, list);
    return list[i % count];
}

/* ------------------------------------------------------------ GPU checks -- */

#define MIDDLE_KEYS 100003 /* a prime */

/* Every case of keys by every way, on every data kind: make test-full runs
 * them all (cases x ways x kinds); make test each case once, by the way it
 * probes or one that holds its bins, the kinds in turn (f32 sums on uniform
 * keys, about 100 a bin, where the bound on a sum is tight). */
START_TEST(test_every_case_by_every_way_on_every_data_kind)
{
    int c = full_tests() ? _i / (WAYS * 4) : _i;
    const struct gcase *k = &key_cases[c];
    check_case(k, way_of(k, _i, 4), kinds[_i % 4], MIDDLE_KEYS * unit_bytes(k),
               2000 + (uint64_t)_i);
}
END_TEST

/* Keys (pixels, for channels) around the 16-byte items: none, one, an
 * item's less one, an item, one more; a prime number; and a few MB. */
#define SIZES 7
static size_t keys_at(int s, size_t unit)
{
    size_t item = 16 / unit;
    const size_t keys[SIZES] = {0, 1, item - 1, item, item + 1, 1000003, (4 << 20) / unit + 1};
    return keys[s];
}

/* Every case at every size (make test: each size once, the cases and the
 * data kinds turning, from f32 keys with weights on an empty input); the
 * way turns among those that hold its bins. */
START_TEST(test_every_case_at_every_size)
{
    int weighted = 0;
    while (key_cases[weighted].holds != SUMS || key_cases[weighted].soft)
        weighted++;
    int c = full_tests() ? _i / SIZES : (_i * 5 + weighted) % KEY_CASES, s = _i % SIZES;
    const struct gcase *k = &key_cases[c];
    int list[WAYS], count = holding_ways(k, list);
    check_case(k, list[_i % count], kinds[_i % 4], keys_at(s, unit_bytes(k)) * unit_bytes(k),
               3000 + (uint64_t)_i);
}
END_TEST

/* Row sums of every shape, by every way, on every data kind. */
START_TEST(test_row_sums_by_every_way_on_every_data_kind)
{
    int c = full_tests() ? _i / (WAYS * 4) : _i;
    check_case(&row_cases[c], way_of(&row_cases[c], _i, 4), kinds[_i % 4], 0, 4000 + (uint64_t)_i);
}
END_TEST

/* The photograph, every case by every way. */
START_TEST(test_the_photograph_by_every_way)
{
    int c = full_tests() ? _i / WAYS : _i;
    check_case(&image_cases[c], way_of(&image_cases[c], _i, 1), DATA_IMAGE, 0, 0);
}
END_TEST

/* 16-bit halves move a block's counts to the global bins between rounds,
 * each of at most 61440 outputs to a half: constant keys, all in one bin,
 * fill a half as fast as anything can, and 64 MiB of u16 keys is several
 * rounds. make test-full adds skewed keys, and halves at their most bins. */
START_TEST(test_halves_carry_one_bin_over_many_rounds)
{
    static const struct gcase every_value = {.keys = "u16"}, most = {.keys = "u32", .bins = 116224};
    static const struct {
        const struct gcase *c;
        enum data_kind kind;
    } runs[] = {{&every_value, DATA_CONSTANT}, {&every_value, DATA_SKEWED}, {&most, DATA_CONSTANT}};
    check_case(runs[_i].c, HALVES, runs[_i].kind, (size_t)64 << 20, 5000 + (uint64_t)_i);
}
END_TEST

static char *temporary_file(const void *bytes, size_t size)
{
    static char path[] = "/tmp/generalized_XXXXXX";
    strcpy(path, "/tmp/generalized_XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, bytes, size), (ssize_t)size);
    close(fd);
    return path;
}

/* Case c run on a file of these bytes by the given way, its printed bins
 * against e, the reference the caller worked out from the same bytes. */
static void check_file(const struct gcase *c, const void *bytes, size_t size, const char *way,
                       struct expect *e)
{
    char *path = temporary_file(bytes, size);
    char args[1024];
    case_args(c, args, sizeof args);
    append(args, sizeof args, " --file %s --reps 1 --print-bins --variant %s", path, way);
    struct run r;
    run_program(args, &r);
    unlink(path);
    ck_assert_msg(r.status == EXIT_OK, "%s: exit %d: %s", r.command, r.status, r.err);
    check_report(&r, 0, e);
    free_expect(e);
    free_run(&r);
}

/* A file's floats are the keys as they are: NaNs, infinities, -0, keys on
 * the edges of bins and of the range, and past it, counted and weighted. */
START_TEST(test_f32_keys_from_a_file_with_nans_infinities_and_edges)
{
    float keys[4099] = {NAN,   -NAN,        INFINITY,    -INFINITY, -0.0f,   0.0f,
                        -1.0f, 1.0f,        -0.8f,       -0.6f,     0.2f,    0.6f,
                        0.8f,  0.99999994f, -1.0000001f, 1e-45f,    -1e-45f, 3e38f};
    for (int i = 18; i < 4099; i++) /* the rest: on and beside bin edges, in and past the range */
        keys[i] = nextafterf(-1.25f + 2.5f * (float)(i % 41) / 40, i % 3 ? INFINITY : -INFINITY);
    const struct gcase cases[] = {
        {.keys = "f32", .bins = 10, .range = "-1:1"},
        {.keys = "f32", .bins = 10, .range = "-1:1", .holds = MAXIMA},
        {.keys = "f32", .bins = 7, .range = "-1:1", .holds = MOMENTS},
        {.keys = "f32", .bins = 10, .range = "-1:1", .holds = SUMS, .soft = true}};
    const struct gcase *c = &cases[_i];
    struct expect e =
        float_reference(c, (const unsigned char *)keys, sizeof keys, DEFAULT_SEED, true);
    check_file(c, keys, sizeof keys, "auto", &e);
}
END_TEST

/* A file's row sums, of either sign and of magnitudes far apart: the bound
 * is on the terms' magnitudes, not on the sum, which cancels. */
START_TEST(test_row_sums_of_a_file_that_cancels)
{
    static float values[37 * 1001];
    for (int i = 0; i < 37 * 1001; i++)
        values[i] = (i % 2 ? -1.0f : 1.0f) * ldexpf(1.0f + (float)(i % 7) / 8, i % 29 - 14);
    const struct gcase c = {.rows = 37, .cols = 1001};
    struct expect e = rows_reference(&c, (const unsigned char *)values, true);
    check_file(&c, values, sizeof values, _i ? "cub" : "auto", &e);
}
END_TEST

/* Items of 16 bytes that are nearly one key, cycling: all one key; all one but
 * key j, for each j; words alike but their halves not (a, b, a, b, ...); and
 * pairs of words alike. The transform counts an item of one key in one add, so
 * a test of fewer than all its bytes would count these wrong. By every way
 * (--variant all: the program checks each), the printed bins against the
 * reference; u16 in halves and one copy a block, u32 in halves and per block. */
START_TEST(test_items_nearly_one_key_are_counted_key_by_key)
{
    static const struct gcase cases[] = {{.keys = "u16"},
                                         {.keys = "u16", .bins = 3000, .range = "100:60000"},
                                         {.keys = "u32", .bins = 116224, .range = "0:1000000"},
                                         {.keys = "u32", .bins = 1000, .range = "0:1000000"}};
    const struct gcase *c = &cases[_i];
    bool u16 = strcmp(c->keys, "u16") == 0;
    int per_item = u16 ? 8 : 4;
    static uint32_t words[4 * 4096];
    for (int t = 0; t < 4096; t++) {
        uint32_t a = (uint32_t)t * 7919 % 59000 + 200, b = a + 1, key[8];
        int pattern = t % 12;
        for (int k = 0; k < per_item; k++)
            key[k] = pattern == 9    ? (k % 2 ? b : a)     /* words alike, halves not */
                     : pattern == 10 ? (k / 2 % 2 ? b : a) /* pairs of words alike */
                     : pattern >= 1 && pattern <= 8 && k == pattern - 1 ? b
                                                                        : a;
        for (int w = 0; w < 4; w++)
            words[4 * t + w] = u16 ? key[2 * w] | key[2 * w + 1] << 16 : key[w];
    }
    struct expect e = integer_reference(c, (const unsigned char *)words, sizeof words);
    check_file(c, words, sizeof words, "all", &e);
}
END_TEST

/* --chart writes the table chapter 08 draws: per hue bin its degrees, its
 * pixels, their mean saturation, the brightest value and the most saturated
 * pixel's colour, each line the reference's. */
START_TEST(test_the_chart_is_the_photograph_s_hues)
{
    char path[] = "/tmp/generalized_chart_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    const struct gcase c = {.image = true, .hue = 36};
    char args[1024], command[2048];
    case_args(&c, args, sizeof args);
    snprintf(command, sizeof command, "'%s' %s --reps 1 --chart %s >/dev/null", stage_program(),
             args, path);
    ck_assert_int_eq(shell(command), 0);
    char *chart = read_text(path);
    unlink(path);
    struct expect e[MOST_REPORTS];
    image_reference(&c, e);
    struct image img;
    char why[512];
    ck_assert_msg(read_bmp(image_path(), &img, why, sizeof why) == EXIT_OK, "%s", why);
    char *line = strtok(chart, "\n");
    ck_assert_str_eq(line, "# bin from_degrees to_degrees pixels mean_saturation brightest r g b");
    for (unsigned b = 0; b < c.hue; b++) {
        const struct bin_want *s = &e[0].bin[b];
        const unsigned char *rgb =
            s->count ? img.rgb + 3 * (size_t)e[1].bin[b].more : (const unsigned char *)"\0\0";
        char want[256];
        snprintf(want, sizeof want, "%u %.2f %.2f %u %.2f %u %u %u %u", b, 360.0 * b / c.hue,
                 360.0 * (b + 1) / c.hue, s->count, s->count ? (double)s->more / s->count : 0.0,
                 s->most, rgb[0], rgb[1], rgb[2]);
        line = strtok(NULL, "\n");
        ck_assert_msg(line && strcmp(line, want) == 0, "chart line %u: '%s', want '%s'", b,
                      line ? line : "(none)", want);
    }
    ck_assert_msg(strtok(NULL, "\n") == NULL, "the chart has more than %u bins", c.hue);
    free_image(&img);
    free_expect(&e[0]), free_expect(&e[1]);
    free(chart);
}
END_TEST

/* The CSV rows of a run that must succeed: one header however many
 * reports, every row this stage's and verified; the rows' impl columns. */
static int csv_ways(const char *args, char impl[][128], int most)
{
    char command[2048];
    snprintf(command, sizeof command, "'%s' %s --csv", stage_program(), args);
    char *csv = output_of(command);
    int headers = 0, rows = 0;
    for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, CSV_HEADER) == 0) {
            headers++;
            continue;
        }
        size_t len = strlen(line);
        ck_assert_msg(strncmp(line, STAGE ",", strlen(STAGE) + 1) == 0, "%s: %s", args, line);
        ck_assert_msg(len > 4 && strcmp(line + len - 4, ",yes") == 0, "%s: not verified: %s", args,
                      line);
        ck_assert_msg(rows < most, "%s: more than %d rows", args, most);
        const char *name = line + strlen(STAGE) + 1;
        snprintf(impl[rows++], 128, "%.*s", (int)strcspn(name, ","), name);
    }
    ck_assert_msg(headers == 1, "%s: %d CSV headers", args, headers);
    free(csv);
    return rows;
}

static bool has_row(char impl[][128], int rows, const char *name)
{
    for (int i = 0; i < rows; i++)
        if (strcmp(impl[i], name) == 0)
            return true;
    return false;
}

/* The default, every way: the floor, auto, each placement that holds the
 * bins (and none that cannot), CUB's where it counts the same; with --hue,
 * the statistics' rows and the picks'. */
START_TEST(test_csv_has_one_header_and_a_verified_row_per_way)
{
    static const struct gcase c = {.keys = "u16", .bins = 3000, .range = "100:60000"};
    struct footprint f = footprint_of(&c);
    char impl[64][128], name[160], args[1024];
    case_args(&c, args, sizeof args);
    append(args, sizeof args, " --size 1M --reps 1");
    int rows = csv_ways(args, impl, 64), autos = 0;
    for (int i = 0; i < rows; i++)
        autos += strncmp(impl[i], "auto:", 5) == 0 && strstr(impl[i], "/u16/3000/100-60000");
    ck_assert_msg(autos == 1, "%s: %d rows of auto", args, autos);
    ck_assert_msg(has_row(impl, rows, "read-bandwidth/u16/3000/100-60000"), "%s: no floor", args);
    for (int way = PER_LANE; way <= CUB + 1; way++) {
        enum outcome o = way < CUB ? outcome_of(&f, way) : HOLDS;
        snprintf(name, sizeof name, "%s/u16/3000/100-60000",
                 way < CUB    ? ways[way]
                 : way == CUB ? "cub-even"
                              : "cub-range");
        ck_assert_msg(o == EITHER || has_row(impl, rows, name) == (o == HOLDS), "%s: row %s %s",
                      args, name, o == HOLDS ? "missing" : "where it cannot hold the bins");
    }

    snprintf(args, sizeof args, "--image '%s' --hue 36 --reps 1", image_path());
    rows = csv_ways(args, impl, 64);
    const char *hue_rows[] = {"read-bandwidth/hue/36",  "per-block/hue/36",  "per-lane/hue/36",
                              "read-bandwidth/pick/36", "per-block/pick/36", "per-lane/pick/36"};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(has_row(impl, rows, hue_rows[i]), "no row %s", hue_rows[i]);
    ck_assert_int_eq(rows, 8); /* and auto's of each */
}
END_TEST

/* --sweep: the chapter's eleven cases, kernel only, in one CSV. */
START_TEST(test_sweep_has_one_header_and_every_case)
{
    char impl[256][128];
    int rows = csv_ways("--sweep --size 1M --reps 1", impl, 256), floors = 0;
    for (int i = 0; i < rows; i++)
        floors += strncmp(impl[i], "read-bandwidth/", 15) == 0;
    ck_assert_int_eq(floors, 11);
}
END_TEST

/* ============================================================ bad usage == */

/* IMAGE stands for the photograph's path. Each reason names its option. */
static const struct {
    const char *args, *reason;
} bad_usages[] = {
    {"--keys u64", "--keys must be u8, u16, u32 or f32"},
    {"--keys U8 --size 16", "--keys must be u8, u16, u32 or f32"},
    {"--keys u16 --channels 2 --size 16", "--channels takes u8 keys, every value its own bin"},
    {"--channels 2 --range 0:128 --bins 128 --size 16",
     "--channels takes u8 keys, every value its own bin"},
    {"--channels 4 --bins 100 --size 16", "--channels takes u8 keys, every value its own bin"},
    {"--keys f32 --channels 2 --size 16", "--channels takes u8 keys"},
    {"--channels 5", "--channels: 5 is out of range (1 to 4)"},
    {"--channels 0", "--channels: 0 is out of range (1 to 4)"},
    {"--weights --size 16", "--weights, --soft and --op take f32 keys"},
    {"--keys u16 --soft --size 16", "--weights, --soft and --op take f32 keys"},
    {"--keys u32 --op max --size 16", "--weights, --soft and --op take f32 keys"},
    {"--keys f32 --op max --size 16", "--op says what a bin keeps of its weights: give --weights"},
    {"--keys f32 --op mean --size 16", "--op says what a bin keeps of its weights: give --weights"},
    {"--keys f32 --weights --op median --size 16", "--op must be sum, min, max or mean"},
    {"--keys f32 --weights --soft --size 16", "--soft splits a key's count: leave out --weights"},
    {"--range 0:257 --size 16", "--range: u8 keys need LO:HI with 0 <= LO < HI <= 256"},
    {"--range 5:5 --size 16", "--range: u8 keys need LO:HI"},
    {"--range 9:5 --size 16", "--range: u8 keys need LO:HI"},
    {"--range abc --size 16", "--range: u8 keys need LO:HI"},
    {"--range 5 --size 16", "--range: u8 keys need LO:HI"},
    {"--range -1:5 --size 16", "--range: u8 keys need LO:HI"},
    {"--keys u16 --range 0:65537 --size 16",
     "--range: u16 keys need LO:HI with 0 <= LO < HI <= 65536"},
    {"--keys u16 --range 1:x --size 16", "--range: u16 keys need LO:HI"},
    {"--keys u32 --range 0:4294967297 --size 16",
     "--range: u32 keys need LO:HI with 0 <= LO < HI <= 4294967296"},
    {"--keys u32 --range 4294967296:4294967296 --size 16", "--range: u32 keys need LO:HI"},
    {"--keys f32 --range 1:1 --size 16", "--range: f32 keys need finite LO:HI with LO < HI"},
    {"--keys f32 --range 2:1 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range abc --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0:1x --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0:inf --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range nan:1 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0:1e39 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range -3e38:3e38 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range :1 --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0: --size 16", "--range: f32 keys need finite LO:HI"},
    {"--keys f32 --range 0:1e-40 --size 16", "and bins / (HI - LO) a finite float"},
    {"--range 0:256x --size 16", "--range: u8 keys need LO:HI"},
    {"--keys u16 --range 0:10:20 --size 16", "--range: u16 keys need LO:HI"},
    {"--keys u8 --op sum --size 16", "--weights, --soft and --op take f32 keys"},
    {"--keys f32 --op sum --size 16", "--op says what a bin keeps of its weights: give --weights"},
    /* the bins past the range's values: the reason names the bins and the range */
    {"--bins 257 --size 16",
     "--bins: 257 bins for the 256 values of [0, 256): at most one bin per value"},
    {"--keys u16 --bins 11 --range 0:10 --size 16", "11 bins for the 10 values of [0, 10)"},
    {"--keys u32 --bins 5 --range 7:11 --size 16", "5 bins for the 4 values of [7, 11)"},
    {"--keys u32 --bins 16777217 --size 16", "--bins: 16777217 is out of range (1 to 16777216)"},
    {"--keys f32 --bins 16777217 --size 16", "--bins: 16777217 is out of range (1 to 16777216)"},
    {"--bins 0 --size 16", "--bins: 0 is out of range"},
    {"--bins 12x --size 16", "--bins: '12x' is not a whole number"},
    {"--keys u16 --size 15", "--size 15 is not a whole number of 2-byte keys"},
    {"--keys u32 --size 18", "--size 18 is not a whole number of 4-byte keys"},
    {"--keys f32 --size 6", "--size 6 is not a whole number of 4-byte keys"},
    {"--keys f32 --weights --size 2", "--size 2 is not a whole number of 4-byte keys"},
    {"--channels 3 --size 16", "--size 16 is not a whole number of 3-byte pixels"},
    {"--channels 4 --size 6", "--size 6 is not a whole number of 4-byte pixels"},
    {"--channels 2 --size 1", "--size 1 is not a whole number of 2-byte pixels"},
    {"--rows 5", "--rows takes RxC"},
    {"--rows 5x", "--rows takes RxC"},
    {"--rows x5", "--rows takes RxC"},
    {"--rows 0x5", "--rows takes RxC"},
    {"--rows 5x0", "--rows takes RxC"},
    {"--rows axb", "--rows takes RxC"},
    {"--rows 5x3x", "--rows takes RxC"},
    {"--rows 32768x32768", "--rows takes RxC"}, /* 4 GiB of floats */
    {"--rows 16777217x1", "--rows takes RxC"},  /* past 2^24 rows */
    {"--rows 1x4294967295", "--rows takes RxC"},
    {"--rows 5x3 --size 60", "--rows makes its own input, R x C floats: leave out --size"},
    {"--rows 5x3 --keys f32", "--rows, --image and --sweep each make their own input"},
    {"--rows 5x3 --bins 5", "--rows, --image and --sweep each make their own input"},
    {"--rows 5x3 --weights", "--rows, --image and --sweep each make their own input"},
    {"--rows 5x3 --channels 2", "--rows, --image and --sweep each make their own input"},
    {"--rows 5x3 --sweep", "--rows, --image and --sweep each make their own input"},
    {"--sweep --keys u16", "--rows, --image and --sweep each make their own input"},
    {"--sweep --range 0:5", "--rows, --image and --sweep each make their own input"},
    {"--sweep --op max", "--rows, --image and --sweep each make their own input"},
    {"--sweep --soft", "--rows, --image and --sweep each make their own input"},
    {"--sweep --channels 4", "--rows, --image and --sweep each make their own input"},
    {"--sweep --size 6", "--size 6 is not a whole number of 4-byte pixels"},
    {"--sweep --image IMAGE", "--rows, --image and --sweep each make their own input"},
    {"--image IMAGE --keys u8", "--rows, --image and --sweep each make their own input"},
    {"--image IMAGE --rows 2x2", "--rows, --image and --sweep each make their own input"},
    {"--image IMAGE --size 16", "--image sets the data and its size"},
    {"--image IMAGE --channels 2", "--image counts 3 (RGB) or 4 (RGBA) channels"},
    {"--image IMAGE --hue 36 --channels 3", "--hue counts pixels, not channels"},
    {"--hue 36 --size 16", "--hue and --chart take a photograph: --image FILE"},
    {"--chart /tmp/generalized_no_chart --size 16", "--hue and --chart take a photograph"},
    {"--image IMAGE --chart /tmp/generalized_no_chart", "--chart writes the hue table: give --hue"},
    {"--image IMAGE --hue 0", "--hue: 0 is out of range (1 to 360)"},
    {"--image IMAGE --hue 361", "--hue: 361 is out of range (1 to 360)"},
    {"--image IMAGE --hue x", "--hue: 'x' is not a whole number"},
    {"--threads 256 --size 16", "the library chooses its own launch: leave out --blocks, "
                                "--blocks-per-sm and --threads"},
    {"--blocks 10 --size 16", "the library chooses its own launch"},
    {"--blocks-per-sm 2 --size 16", "the library chooses its own launch"},
    {"--variant per-warp", "--variant: 'per-warp' is not a variant"},
};
#define BAD_USAGES ((int)(sizeof bad_usages / sizeof bad_usages[0]))

/* Runs the program on bad args, IMAGE standing for the photograph; checks it
 * exits 2 with "PROGRAM: reason" on stderr's first line, the usage after it
 * and nothing on stdout. On a machine with no GPU, exit 2 (not 77) also says
 * it refused them before it touched one. */
static void check_refused(const char *bad_args, const char *reason)
{
    char args[1024] = "";
    const char *image = strstr(bad_args, "IMAGE");
    if (image)
        snprintf(args, sizeof args, "%.*s'%s'%s", (int)(image - bad_args), bad_args, image_path(),
                 image + 5);
    else
        snprintf(args, sizeof args, "%s", bad_args);
    struct run r;
    run_program(args, &r);
    ck_assert_msg(r.status == EXIT_USAGE, "%s: exit %d, want 2: %s", bad_args, r.status, r.err);
    ck_assert_msg(r.out[0] == '\0', "%s: printed on stdout: %.200s", bad_args, r.out);
    const char *after = strchr(r.err, '\n');
    ck_assert_msg(after && strstr(after, "usage:"), "%s: no usage after the reason", bad_args);
    const char *line = first_line(&r);
    ck_assert_msg(strncmp(line, "hist_gpu_generalized: ", 22) == 0 && strstr(line, reason),
                  "%s: '%s' lacks '%s'", bad_args, line, reason);
    free_run(&r);
}

START_TEST(test_bad_usage_exits_2_with_a_one_line_reason_before_the_gpu)
{
    check_refused(bad_usages[_i].args, bad_usages[_i].reason);
}
END_TEST

/* A file's size must be whole keys (whole pixels, R x C floats) too. */
START_TEST(test_a_file_of_the_wrong_size_is_refused)
{
    char *path = temporary_file("123456789abcd", 5);
    static const struct {
        const char *args, *reason;
    } files[] = {{"--keys u16", "5 bytes is not a whole number of 2-byte keys"},
                 {"--keys f32", "5 bytes is not a whole number of 4-byte keys"},
                 {"--channels 2", "--file: 5 bytes is not a whole number of 2-byte pixels"},
                 {"--rows 1x1", "5 bytes is not a whole number of 4-byte keys"}};
    char args[256];
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, "%s --file %s", files[i].args, path);
        check_refused(args, files[i].reason);
    }
    unlink(path);
    path = temporary_file("123456789abc", 12);
    snprintf(args, sizeof args, "--rows 2x2 --file %s", path);
    check_refused(args, "--rows: the file does not hold R x C floats");
    unlink(path);
}
END_TEST

START_TEST(test_without_a_gpu_it_exits_77_with_its_reason)
{
    struct run r;
    run_program("--size 16 --reps 1", &r);
    ck_assert_msg(r.status == EXIT_CANNOT_RUN, "exit %d", r.status);
    ck_assert_msg(strstr(r.err, "cannot run here") != NULL, "%s", r.err);
    free_run(&r);
}
END_TEST

/* ================================================================= main == */

/* Which GPU the program runs on, from one small run's report: on an H100 or
 * H200 the suite knows a block's shared memory, 227 KiB. */
static void learn_the_gpu(void)
{
    char command[4200];
    snprintf(command, sizeof command, "'%s' --size 16 --reps 1 --variant auto 2>/dev/null",
             stage_program());
    FILE *p = popen(command, "r");
    char line[512];
    while (p && fgets(line, sizeof line, p))
        if (strncmp(line, "device:", 7) == 0 && (strstr(line, "H100") || strstr(line, "H200")))
            block_shared = SHARED_MOST;
    if (p)
        pclose(p);
    if (!block_shared)
        printf("%s: not an H100 or H200: a placement may refuse bins past 48 KiB\n", STAGE);
}

/* A group of checks that may take this long: a loop over 2^32 values, or a
 * matrix of program runs. */
static TCase *tcase_of(const char *name, int seconds)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, seconds);
    return tc;
}

int main(int argc, char **argv)
{
    set_stage(STAGE, argc, argv);
    Suite *suite = suite_create(STAGE);
    int checks = 0;
    TCase *shared_usage = usage_tcase(true, &checks);
    add_tcase(suite, shared_usage, checks);

    TCase *usage = tcase_of("own usage", 300);
    tcase_add_loop_test(usage, test_bad_usage_exits_2_with_a_one_line_reason_before_the_gpu, 0,
                        BAD_USAGES);
    tcase_add_test(usage, test_a_file_of_the_wrong_size_is_refused);
    add_tcase(suite, usage, BAD_USAGES + 1);

    TCase *api = tcase_of("the library's contract, compiled", 300);
    tcase_add_loop_test(api, test_misused_outs_do_not_compile, 0, 3);
    add_tcase(suite, api, 3);

    TCase *checks_fail = tcase_of("the checks reject wrong values", 60);
    tcase_add_test(checks_fail, test_the_count_check_rejects_one_wrong_bin);
    tcase_add_test(checks_fail, test_the_sum_check_takes_any_order_and_rejects_past_its_bound);
    tcase_add_test(checks_fail, test_the_min_and_max_checks_reject_one_ulp);
    tcase_add_test(checks_fail, test_the_moments_check_rejects_a_wrong_count_mean_or_variance);
    tcase_add_test(checks_fail, test_the_hue_and_pick_checks_reject_one_off);
    add_tcase(suite, checks_fail, 5);

    TCase *bins = tcase_of("even bins and rows", 300);
    tcase_add_loop_test(bins, test_every_key_of_small_ranges, 0, 300);
    tcase_add_loop_test(bins, test_every_key_of_u16_ranges, 0, 48);
    tcase_add_loop_test(bins, test_edges_of_wide_ranges, 0, 54);
    tcase_add_test(bins, test_a_range_the_32_bit_rule_gets_wrong_takes_the_64_bit_one);
    tcase_add_test(bins, test_last_is_the_range_s_largest_offset);
    tcase_add_test(bins, test_bad_ranges_are_refused_with_a_reason);
    tcase_add_loop_test(bins, test_row_of_is_e_over_cols, 0, COLUMN_CASES);
    add_tcase(suite, bins, 300 + 48 + 54 + 3 + COLUMN_CASES);

    TCase *order = tcase_of("float order", 300);
    tcase_add_test(order, test_every_bit_pattern_comes_back);
    tcase_add_test(order, test_orders_rise_with_the_floats);
    add_tcase(suite, order, 2);

    TCase *hues = tcase_of("hues", 60);
    tcase_add_test(hues, test_hues_match_the_textbook_formula_on_every_colour);
    add_tcase(suite, hues, 1);

    TCase *no_gpu = tcase_of("no gpu", 60);
    tcase_add_test(no_gpu, test_without_a_gpu_it_exits_77_with_its_reason);
    if (!can_run_stage())
        add_tcase(suite, no_gpu, 1);
    else
        learn_the_gpu();

    /* make test: each case once; make test-full: every case by every way on
     * every data kind, and at every size. Each group can run alone:
     * CK_RUN_CASE="gpu keys" make test */
    TCase *keys = tcase_of("gpu keys", 3600);
    int key_runs = cases(KEY_CASES * WAYS * 4, KEY_CASES);
    tcase_add_loop_test(keys, test_every_case_by_every_way_on_every_data_kind, 0, key_runs);
    add_if_runnable(suite, keys, key_runs);

    TCase *sizes = tcase_of("gpu sizes", 3600);
    int size_runs = cases(KEY_CASES * SIZES, SIZES);
    tcase_add_loop_test(sizes, test_every_case_at_every_size, 0, size_runs);
    add_if_runnable(suite, sizes, size_runs);

    TCase *rows = tcase_of("gpu rows", 3600);
    int row_runs = cases(ROW_CASES * WAYS * 4, ROW_CASES);
    tcase_add_loop_test(rows, test_row_sums_by_every_way_on_every_data_kind, 0, row_runs);
    tcase_add_loop_test(rows, test_row_sums_of_a_file_that_cancels, 0, 2);
    add_if_runnable(suite, rows, row_runs + 2);

    TCase *photo = tcase_of("gpu photograph", 1200);
    int image_runs = cases(IMAGE_CASES * WAYS, IMAGE_CASES);
    tcase_add_loop_test(photo, test_the_photograph_by_every_way, 0, image_runs);
    tcase_add_test(photo, test_the_chart_is_the_photograph_s_hues);
    add_if_runnable(suite, photo, image_runs + 1);

    TCase *more = tcase_of("gpu halves, files and csv", 1200);
    int carry_runs = cases(3, 1);
    tcase_add_loop_test(more, test_halves_carry_one_bin_over_many_rounds, 0, carry_runs);
    tcase_add_loop_test(more, test_f32_keys_from_a_file_with_nans_infinities_and_edges, 0, 4);
    tcase_add_loop_test(more, test_items_nearly_one_key_are_counted_key_by_key, 0, 4);
    tcase_add_test(more, test_csv_has_one_header_and_a_verified_row_per_way);
    int sweep_runs = cases(1, 0);
    tcase_add_loop_test(more, test_sweep_has_one_header_and_every_case, 0, sweep_runs);
    add_if_runnable(suite, more, carry_runs + 4 + 4 + 1 + sweep_runs);
    return run_suite(suite);
}
