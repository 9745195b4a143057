/*
 * check_bin_edges.c - exercise 14 puts int32 keys in even bins over [lo, hi):
 * whole histograms of generated keys, then one key at a time (--key) at the
 * edges (lo, hi - 1, hi, just outside), over ranges that cross zero, span
 * every int32 but INT32_MAX, or hold more bins than keys, each against the
 * bin computed here. The exact bin lives only here: the student's program
 * holds no reference it could return.
 */
#include "stage_checks.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The bin by its definition, floor((key - lo) x bins / (hi - lo)), in 128-bit
 * integers: below 2^57, nothing overflows, and the division rounds down. */
static long expected_bin(int64_t lo, int64_t hi, long bins, int64_t key)
{
    if (key < lo || key >= hi)
        return -1;
    return (long)((__int128)(key - lo) * bins / (hi - lo));
}

/* ------------------------------------------------------- whole histograms -- */

struct histogram_case {
    const char *range; /* the program's arguments */
    int64_t lo, hi;
    long bins;
    size_t keys;
    enum data_kind kind;
};

static const struct histogram_case histograms[] = {
    {"", INT32_MIN, INT32_MAX, 256, 100003, DATA_UNIFORM},
    {"--lo -1073741824 --hi 1073741824 --bins 1000", -1073741824, 1073741824, 1000, 100003,
     DATA_UNIFORM},
    {"--lo 0 --hi 2147483647 --bins 7", 0, INT32_MAX, 7, 65537, DATA_SKEWED},
    {"--lo -2000000000 --hi 2000000000 --bins 65536", -2000000000, 2000000000, 65536, 250000,
     DATA_UNIFORM},
    {"--bins 3", INT32_MIN, INT32_MAX, 3, 1001, DATA_CONSTANT},
    {"--lo 1684300900 --hi 1684300901 --bins 5", 1684300900, 1684300901, 5, 77, DATA_TEXT},
};
#define HISTOGRAMS ((int)(sizeof histograms / sizeof histograms[0]))

/* What the program printed for a histogram: got[bin] for each '<bin>: <count>' line. */
struct histogram {
    int exit_status;
    bool crashed;
    long printed;
    size_t outside;
    size_t sum; /* the 'Histogram Sum:' line's */
    char err[1024];
};

static struct histogram run_histogram(const char *args, long bins, unsigned int *got)
{
    struct histogram r = {.outside = SIZE_MAX, .sum = SIZE_MAX};
    char command[1024], err_path[] = "/tmp/bin_edges_err_XXXXXX", line[512];
    int fd = mkstemp(err_path);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(command, sizeof command, "'%s' %s 2>'%s'", stage_program(), args, err_path);
    FILE *p = popen(command, "r");
    ck_assert(p != NULL);
    while (fgets(line, sizeof line, p)) {
        long bin;
        unsigned count;
        if (sscanf(line, "%ld: %u", &bin, &count) == 2 && bin >= 0 && bin < bins)
            got[bin] = count, r.printed++;
        sscanf(line, "outside: %zu", &r.outside);
        sscanf(line, "Histogram Sum: %zu", &r.sum);
    }
    int status = pclose(p);
    FILE *e = fopen(err_path, "r");
    if (e) {
        r.err[fread(r.err, 1, sizeof r.err - 1, e)] = '\0';
        fclose(e);
    }
    unlink(err_path);
    r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.crashed = WIFSIGNALED(status);
    return r;
}

START_TEST(test_histograms_of_generated_keys_match_the_definition)
{
    const struct histogram_case *h = &histograms[_i];
    size_t size = 4 * h->keys;
    unsigned char *bytes = malloc(size);
    unsigned int *expected = calloc((size_t)h->bins, sizeof *expected);
    unsigned int *got = calloc((size_t)h->bins, sizeof *got);
    ck_assert(bytes && expected && got);
    fill_input(h->kind, bytes, size, 300 + (uint64_t)_i);
    size_t outside = 0;
    for (size_t i = 0; i < h->keys; i++) {
        int32_t key;
        memcpy(&key, bytes + 4 * i, 4);
        long bin = expected_bin(h->lo, h->hi, h->bins, key);
        if (bin < 0)
            outside++;
        else
            expected[bin]++;
    }
    char args[512];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %d --reps 1 --print-bins %s", size,
             data_kind_name(h->kind), 300 + _i, h->range);
    struct histogram r = run_histogram(args, h->bins, got);
    ck_assert_msg(r.exit_status == 0, "%s: exit %d%s, stderr: %s", args, r.exit_status,
                  r.crashed ? " (crashed)" : "", r.err);
    ck_assert_msg(r.printed == h->bins, "%s: printed %ld bins, expected %ld", args, r.printed,
                  h->bins);
    for (long bin = 0; bin < h->bins; bin++)
        ck_assert_msg(got[bin] == expected[bin], "%s: bin %ld holds %u, expected %u", args, bin,
                      got[bin], expected[bin]);
    ck_assert_msg(r.outside == outside, "%s: 'outside: %zu', expected %zu keys in no bin", args,
                  r.outside, outside);
    ck_assert_msg(r.sum == h->keys - outside,
                  "%s: 'Histogram Sum: %zu', expected %zu (the keys in a bin)", args, r.sum,
                  h->keys - outside);
    free(bytes);
    free(expected);
    free(got);
}
END_TEST

/* ------------------------------------------------------- one key at a time -- */

struct probe {
    int64_t lo, hi;
    long bins;
    int64_t key;
};

/* What a failure adds about the program under test (the long double build). */
static const char *probe_note = "";

/* Runs --key and asserts the bin it prints (or "no bin") and exit 0. */
static void check_probe(const struct probe *q)
{
    char args[256];
    snprintf(args, sizeof args, "--lo %" PRId64 " --hi %" PRId64 " --bins %ld --key %" PRId64,
             q->lo, q->hi, q->bins, q->key);
    struct stage_output o;
    run_stage(args, &o);
    long want = expected_bin(q->lo, q->hi, q->bins, q->key), got = -2;
    const char *colon = strstr(o.out, "): ");
    if (colon && strncmp(colon + 3, "no bin", 6) == 0)
        got = -1;
    else if (!colon || sscanf(colon + 3, "bin %ld", &got) != 1)
        got = -2;
    char want_text[32];
    snprintf(want_text, sizeof want_text, want < 0 ? "no bin" : "bin %ld", want);
    ck_assert_msg(got != -2 || o.exit_status != 0, "%s: %s, stderr: %s", args, exit_meaning(&o),
                  o.err);
    ck_assert_msg(got == want,
                  "%s%s: key %" PRId64 " in %ld bins over [%" PRId64 ", %" PRId64
                  "): expected %s, got: %.200s",
                  args, probe_note, q->key, q->bins, q->lo, q->hi, want_text, o.out);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
}

/* Small ranges: every key from just below lo to just past hi. */
static const struct probe small_ranges[] = {{-5, 5, 3, 0},       {0, 10, 10, 0}, {10, 13, 7, 0},
                                            {-3, 4, 1, 0},       {-7, -2, 2, 0}, {100, 101, 1, 0},
                                            {-1, 1, 16777216, 0}};
#define SMALL_RANGES ((int)(sizeof small_ranges / sizeof small_ranges[0]))

START_TEST(test_every_key_near_a_small_range)
{
    struct probe q = small_ranges[_i];
    for (q.key = q.lo - 2; q.key <= q.hi + 1; q.key++)
        check_probe(&q);
}
END_TEST

#define MIN INT32_MIN
#define MAX INT32_MAX
#define M24 16777216L

/* Wide ranges: key - lo past int32 (crossing zero), (key - lo) x bins past
 * 32 bits, bins far apart from the width, and keys where a float or double
 * product lands on the wrong side of an edge. */
static const struct probe wide[] = {
    {MIN, MAX, M24, MIN},
    {MIN, MAX, M24, MIN + 1},
    {MIN, MAX, M24, -1},
    {MIN, MAX, M24, 0},
    {MIN, MAX, M24, 255},
    {MIN, MAX, M24, 256},
    {MIN, MAX, M24, MAX - 1},
    {MIN, MAX, M24, MAX},
    {MIN, MAX, 1, MAX - 1},
    {MIN, MAX, 256, 0},
    {MIN, MAX, 3, 715827882},
    {MIN, MAX, 3, -715827884},
    {-2000000000, 2000000000, 65536, 1999999999},
    {-2000000000, 2000000000, 65536, 2000000000},
    {-2000000000, 2000000000, 7, 1428571428},
    {-2000000000, 2000000000, 7, 1428571429},
    {-2000000000, 2000000000, M24, -1999999999},
    {0, 1000000, 65536, 999999},
    {0, 1000000, 65536, 65537},
    {-1, MAX, M24, MAX - 1},
    {MIN, 0, M24, -1},
    {MIN, MIN + 1, M24, MIN},
    {MIN, MIN + 1, M24, MIN + 1},
    {MAX - 1, MAX, 2, MAX - 1},
    {MAX - 1, MAX, 2, MAX},
    /* narrow ranges with many bins: (key - lo) x bins passes 32 bits though
     * the range holds 65536 keys or fewer */
    {0, 4096, M24, 4095},
    {0, 257, M24, 256}, /* 256 x 2^24 is 2^32 exactly */
    {0, 500, M24, 499},
    {-32768, 32768, M24, 32767},
    {-32768, 32768, 65537, 32767},
    /* (key - lo) x bins one to three below a multiple of hi - lo: the exact
     * quotient is a hair under the next bin, and a double rounds it up */
    {MIN, MAX, M24, 2147483391},
    {MIN, MAX, M24, 2147483135},
    {MIN, MAX, 16777213, 1021944630}};
#define WIDE ((int)(sizeof wide / sizeof wide[0]))

START_TEST(test_keys_in_wide_ranges_and_many_bins)
{
    check_probe(&wide[_i]);
}
END_TEST

/* ------------------------------------------------------ every bin edge -- */

/* Bin b's first key: the least key with (key - lo) x bins >= b x (hi - lo). */
static int64_t edge_key(int64_t lo, int64_t hi, long bins, long b)
{
    __int128 width = hi - lo;
    return lo + (int64_t)(((__int128)b * width + bins - 1) / bins);
}

/* Ranges of several widths, most of them not powers of two, each with every
 * bin's first key, the key before it and the key after it, and the keys
 * around lo and hi: written to a file of int32 keys, whose histogram the
 * program must get exactly. */
static const struct probe edge_ranges[] = {{-1000, 1000, 7, 0},
                                           {-5, 1234567, 1000, 0},
                                           {-1, INT32_MAX, 3, 0},
                                           {INT32_MIN + 1, 99999989, 65535, 0},
                                           {-2000000000, 2000000000, 65521, 0},
                                           {INT32_MIN, INT32_MAX, 65536, 0},
                                           {-7, 16777210, 16384, 0},
                                           {0, 1000000, 999999, 0},
                                           {-30000, 35536, 999983, 0},
                                           /* 65535 to 65538 keys: offsets reach 2^16, where a
                                            * rounded-up 32-bit reciprocal stops being exact.
                                            * 65537 keys in 1, 65538, 131075 or 16711936 bins
                                            * (one past a multiple of 65537): there hi - 1
                                            * lands one bin high through such a reciprocal. */
                                           {0, 65535, 1, 0},
                                           {-40000, 25535, 65536, 0},
                                           {100, 65636, 1, 0},
                                           {-65536, 0, 65537, 0},
                                           {0, 65537, 1, 0},
                                           {-32768, 32769, 65538, 0},
                                           {-1000000, -934463, 131075, 0},
                                           {1000, 66537, 16711936, 0},
                                           {-65538, 0, 65539, 0},
                                           {7, 65545, 3, 0}};
#define EDGE_RANGES ((int)(sizeof edge_ranges / sizeof edge_ranges[0]))

/* The program's histogram of n keys, given in a file (--file): the keys are
 * written to a temporary file, removed once read; args gets the arguments. */
static struct histogram histogram_of_keys(const int32_t *keys, size_t n, int64_t lo, int64_t hi,
                                          long bins, unsigned int *got, char *args,
                                          size_t args_size)
{
    char path[] = "/tmp/bin_edges_keys_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot make a file in /tmp");
    FILE *file = fdopen(fd, "wb");
    ck_assert(file != NULL);
    ck_assert_msg(fwrite(keys, sizeof *keys, n, file) == n && fclose(file) == 0, "cannot write %s",
                  path);
    snprintf(args, args_size,
             "--file %s --reps 1 --print-bins --lo %" PRId64 " --hi %" PRId64 " --bins %ld", path,
             lo, hi, bins);
    struct histogram h = run_histogram(args, bins, got);
    unlink(path);
    return h;
}

START_TEST(test_every_bin_edge_of_ranges_of_several_widths)
{
    const struct probe *q = &edge_ranges[_i];
    size_t cap = 3 * (size_t)q->bins + 6, n = 0;
    int32_t *keys = malloc(cap * sizeof *keys);
    unsigned int *expected = calloc((size_t)q->bins, sizeof *expected);
    unsigned int *got = calloc((size_t)q->bins, sizeof *got);
    ck_assert(keys && expected && got);
    for (long b = 0; b <= q->bins; b++) /* edge bins is hi itself */
        for (int64_t d = -1; d <= 1; d++) {
            int64_t key = edge_key(q->lo, q->hi, q->bins, b) + d;
            if (key >= INT32_MIN && key <= INT32_MAX && (n == 0 || keys[n - 1] < key))
                keys[n++] = (int32_t)key;
        }
    size_t outside = 0;
    for (size_t i = 0; i < n; i++) {
        long bin = expected_bin(q->lo, q->hi, q->bins, keys[i]);
        if (bin < 0)
            outside++;
        else
            expected[bin]++;
    }
    char args[256];
    struct histogram h = histogram_of_keys(keys, n, q->lo, q->hi, q->bins, got, args, sizeof args);
    ck_assert_msg(h.printed == q->bins || h.exit_status != 0, "%s: printed %ld bins, expected %ld",
                  args, h.printed, q->bins);
    for (long bin = 0; bin < q->bins; bin++)
        if (got[bin] != expected[bin]) {
            /* Which key is in the wrong bin: ask for the keys at this bin's edges one by one. */
            for (long b = bin; b <= bin + 1; b++)
                for (int64_t d = -1; d <= 0; d++) {
                    struct probe one = *q;
                    one.key = edge_key(q->lo, q->hi, q->bins, b) + d;
                    if (one.key >= INT32_MIN && one.key <= INT32_MAX)
                        check_probe(&one);
                }
            ck_assert_msg(false,
                          "%s (a file of %zu keys at every bin edge): bin %ld holds %u, "
                          "expected %u",
                          args, n, bin, got[bin], expected[bin]);
        }
    ck_assert_msg(h.outside == outside, "%s: 'outside: %zu', expected %zu keys in no bin", args,
                  h.outside, outside);
    ck_assert_msg(h.exit_status == 0, "%s: exit %d, stderr: %s", args, h.exit_status, h.err);
    free(keys);
    free(expected);
    free(got);
}
END_TEST

/* Files whose first keys repeat one key: a program that remembers the last
 * key's bin, to skip the rule on runs of one key, must not start from a key
 * it never read (key 0 in bin 0, say). Each range puts 0, -1, 1, INT32_MIN
 * and INT32_MAX somewhere other than bin 0 (another bin, or none), and each
 * file starts with five of one of them, then a key in another bin, the first
 * key again, and hi - 1. */
static const struct probe first_key_ranges[] = {
    {INT32_MIN, INT32_MAX, 256, 0}, {1, 1000, 10, 0}, {-1000, 0, 10, 0}, {-7, 9, 4, 0}};
#define FIRST_KEY_RANGES ((int)(sizeof first_key_ranges / sizeof first_key_ranges[0]))

START_TEST(test_runs_of_one_key_from_the_first_key_on)
{
    const struct probe *q = &first_key_ranges[_i];
    static const int32_t firsts[] = {0, -1, 1, INT32_MIN, INT32_MAX};
    for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
        int32_t k = firsts[f], other = (int32_t)(q->lo + (q->hi - q->lo) / 2),
                last = (int32_t)(q->hi - 1);
        if (expected_bin(q->lo, q->hi, q->bins, other) == expected_bin(q->lo, q->hi, q->bins, k))
            other = (int32_t)q->lo;
        const int32_t keys[] = {k, k, k, k, k, other, k, last};
        const size_t n = sizeof keys / sizeof keys[0];
        unsigned int expected[256] = {0}, got[256] = {0};
        size_t outside = 0;
        for (size_t i = 0; i < n; i++) {
            long bin = expected_bin(q->lo, q->hi, q->bins, keys[i]);
            if (bin < 0)
                outside++;
            else
                expected[bin]++;
        }
        char args[256];
        struct histogram h =
            histogram_of_keys(keys, n, q->lo, q->hi, q->bins, got, args, sizeof args);
        ck_assert_msg(h.exit_status == 0 && h.printed == q->bins,
                      "%s: exit %d, printed %ld bins, expected %ld, stderr: %s", args,
                      h.exit_status, h.printed, q->bins, h.err);
        long first_bin = expected_bin(q->lo, q->hi, q->bins, k);
        char where[32];
        snprintf(where, sizeof where, first_bin < 0 ? "no bin" : "bin %ld", first_bin);
        for (long bin = 0; bin < q->bins; bin++)
            ck_assert_msg(got[bin] == expected[bin],
                          "%s (a file of the keys %" PRId32 " five times, %" PRId32 ", %" PRId32
                          ", %" PRId32 "): bin %ld holds %u, expected %u (key %" PRId32
                          " is in %s): the first key's bin comes from the rule, as every other "
                          "key's does",
                          args, k, other, k, last, bin, got[bin], expected[bin], k, where);
        ck_assert_msg(h.outside == outside, "%s: 'outside: %zu', expected %zu keys in no bin", args,
                      h.outside, outside);
    }
}
END_TEST

/* Every key of a range of a million in 16777213 bins, more bins than keys:
 * each bin holds one key or none, so a key one bin off shows. A quotient
 * estimated in float and corrected by one step is off by two for a few of
 * these keys (865152 of them, for one), and ends one bin high. */
START_TEST(test_every_key_of_a_range_in_more_bins_than_keys)
{
    const int64_t lo = -1000, hi = 999003;
    const long bins = 16777213;
    size_t n = (size_t)(hi - lo);
    int32_t *keys = malloc(n * sizeof *keys);
    unsigned int *got = calloc((size_t)bins, sizeof *got);
    ck_assert(keys && got);
    for (size_t i = 0; i < n; i++)
        keys[i] = (int32_t)(lo + (int64_t)i);
    char args[256];
    struct histogram h = histogram_of_keys(keys, n, lo, hi, bins, got, args, sizeof args);
    ck_assert_msg(h.exit_status == 0 && h.printed == bins, "%s: exit %d, printed %ld bins: %s",
                  args, h.exit_status, h.printed, h.err);
    for (size_t i = 0; i < n; i++) {
        long bin = expected_bin(lo, hi, bins, keys[i]);
        ck_assert_msg(got[bin] == 1,
                      "%s (every key of the range, one file): bin %ld holds %u keys, expected 1 "
                      "(key %" PRId32 "): run --key %" PRId32
                      " with the same range to see where it "
                      "went",
                      args, bin, got[bin], keys[i], keys[i]);
    }
    free(keys);
    free(got);
}
END_TEST

/* ---------------------------------------- where a double rounds, and long double -- */

/* The ranges of 2^24, 16777213 and 2^24 - 1 bins over all of int32, and in
 * each the keys just under or at an edge where a double computation of the
 * bin (the product first, the quotient first, or a scale factor) rounds to
 * the wrong side: (key - lo) x bins passes 2^53 there. Past 2^53 the double
 * product itself can round up or down, so the wrong bin may be one too high
 * or one too low: with 2^24 - 1 bins some of these keys land one bin low, so
 * a rule that only steps back from a bin rounded up fails there. Found here
 * by trying every edge (a second or so per range). */
static const struct probe rounding_ranges[] = {{INT32_MIN, INT32_MAX, 16777216, 0},
                                               {INT32_MIN, INT32_MAX, 16777213, 0},
                                               {INT32_MIN, INT32_MAX, 16777215, 0},
                                               /* 2^28 to 2^29 keys wide, 2^23 to 2^24 bins:
                                                * the product stays under 2^53 and is exact,
                                                * but a scale (bins / width) or a quotient
                                                * first still rounds, at rare edges. Found
                                                * by trying such ranges at random. */
                                               {-122588493, 303407508, 15357303, 0},
                                               {-933990620, -455741150, 16328800, 0},
                                               {-929468273, -518926704, 10145696, 0},
                                               /* 2^30 to 2^31 keys wide, up to INT32_MAX
                                                * (key - lo and hi - lo still fit an int32),
                                                * 12 to 16 million bins: the product passes
                                                * 2^53 and a double rounds it, though every
                                                * number going in is exact. */
                                               {0, INT32_MAX, 16777216, 0},
                                               {-534592111, 1091357400, 12803357, 0}};
#define ROUNDING_RANGES ((int)(sizeof rounding_ranges / sizeof rounding_ranges[0]))

static void check_keys_where_a_double_rounds(const struct probe *range)
{
    uint64_t width = (uint64_t)(range->hi - range->lo);
    int found = 0;
    for (long b = 1; b < range->bins; b++)
        for (int64_t d = -1; d <= 0; d++) {
            struct probe q = *range;
            q.key = edge_key(range->lo, range->hi, range->bins, b) + d;
            uint64_t offset = (uint64_t)(q.key - range->lo);
            double bins = (double)range->bins;
            long exact = expected_bin(q.lo, q.hi, q.bins, q.key);
            if ((long)((double)offset * bins / (double)width) != exact ||
                (long)((double)offset / (double)width * bins) != exact ||
                (long)((double)offset * (bins / (double)width)) != exact) {
                check_probe(&q);
                found++;
            }
        }
    ck_assert_msg(found > 0, "a fault in the check: no key where a double rounds");
}

START_TEST(test_keys_where_a_double_rounds)
{
    check_keys_where_a_double_rounds(&rounding_ranges[_i]);
}
END_TEST

/* The program built with -mlong-double-64 (the Makefile), where long double
 * is a 64-bit double, as on MSVC and 32-bit ARM. */
static char long_double_64[4096];

START_TEST(test_keys_where_a_double_rounds_with_a_64_bit_long_double)
{
    set_stage_program(long_double_64);
    probe_note = " (the program built with -mlong-double-64: long double is a 64-bit double "
                 "there, as on MSVC and 32-bit ARM; integer arithmetic is exact everywhere)";
    check_keys_where_a_double_rounds(&rounding_ranges[_i]);
}
END_TEST

/* The program built with -m32 (the Makefile), where long is 32 bits, as on
 * Windows and 32-bit ARM: the wide keys again. */
static char build_32[4096];

START_TEST(test_keys_in_wide_ranges_with_a_32_bit_long)
{
    set_stage_program(build_32);
    probe_note = " (the program built with -m32: long is 32 bits there, as on Windows and "
                 "32-bit ARM; int64_t and uint64_t are 64 bits everywhere)";
    check_probe(&wide[_i]);
}
END_TEST

/* Beside the check, a program the Makefile built: its path, from the check's own. */
static void program_beside_check(char *path, size_t size, const char *check, const char *name)
{
    snprintf(path, size, "%s", check);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, size - (size_t)(slash ? slash + 1 - path : 0), "%s", name);
}

/* Where the -mlong-double-64 or the -m32 build is missing, the program's
 * preprocessed source (the Makefile's bin_edges.i): its own lines, those of
 * bin_edges.c after the preprocessor's line markers, must name none of the
 * types some compilers lack. Comments are gone there, and macros expanded. */
static char preprocessed[4096];

START_TEST(test_no_type_some_compilers_lack)
{
    static const char *const words[] = {"long double", "__int128",  "__float80",
                                        "__float128",  "_Float64x", "_Float128"};
    FILE *file = fopen(preprocessed, "r");
    ck_assert_msg(file != NULL, "cannot open %s (make check makes it)", preprocessed);
    char line[4096];
    bool own = false;
    int number = 0;
    while (fgets(line, sizeof line, file)) {
        if (line[0] == '#') { /* # N "file": the lines that follow come from that file */
            const char *quote = strchr(line, '"');
            own = quote && strstr(quote, "bin_edges.c\"") != NULL;
            if (own)
                number = atoi(line + 1) - 1;
            continue;
        }
        number += own;
        for (size_t w = 0; own && w < sizeof words / sizeof words[0]; w++) {
            const char *at = strstr(line, words[w]);
            /* a whole word: not the end of a longer name */
            bool whole =
                at && (at == line || !(isalnum((unsigned char)at[-1]) || at[-1] == '_')) &&
                !(isalnum((unsigned char)at[strlen(words[w])]) || at[strlen(words[w])] == '_');
            if (whole) {
                fclose(file);
                ck_assert_msg(false,
                              "bin_edges.c, line %d (after the preprocessor): %s is a type that "
                              "only some compilers have, or only some make wider than a double or "
                              "64 bits (MSVC, 32-bit ARM); integer arithmetic in int64_t and "
                              "uint64_t is exact everywhere. (The builds that would show it, "
                              "-mlong-double-64 or -m32, cannot be made here, so the check reads "
                              "your source instead.)",
                              number, words[w]);
            }
        }
    }
    fclose(file);
}
END_TEST

/* ------------------------------------------------------------------ usage -- */

START_TEST(test_bad_ranges_and_bins_are_usage_errors)
{
    static const char *const bad[] = {
        "--bins 0",         "--bins 16777217", "--lo 5 --hi 5",
        "--lo 6 --hi 5",    "--hi 2147483648", "--lo -2147483649",
        "--key 2147483648", "--size 6",        "--image ../../data/chelsea.bmp"};
    struct stage_output o;
    run_stage(bad[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)", bad[_i],
                  exit_meaning(&o));
}
END_TEST

/* A file is a run of whole 4-byte keys: one of 5 bytes is refused, not
 * read as one key with its last byte dropped. */
START_TEST(test_a_file_of_part_keys_is_a_usage_error)
{
    char path[] = "/tmp/bin_edges-5-bytes-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot make a file in /tmp");
    ck_assert(write(fd, "\1\0\0\0\2", 5) == 5);
    close(fd);
    char args[128];
    snprintf(args, sizeof args, "--file %s", path);
    struct stage_output o;
    run_stage(args, &o);
    unlink(path);
    ck_assert_msg(o.exit_status == EXIT_USAGE,
                  "%s (a file of 5 bytes: one key and one byte more): %s, expected exit 2 (bad "
                  "usage: the file is not a whole number of 4-byte keys)",
                  args, exit_meaning(&o));
}
END_TEST

/* ------------------------------------------------- under UBSan, and the contract -- */

/* The program built with -fsanitize=undefined (the Makefile): a signed
 * subtraction that overflows (key - lo or hi - lo in int32) stops it there,
 * where the -O2 build may wrap into the right bin. The wide keys again. */
static char ubsan_build[4096];

START_TEST(test_keys_in_wide_ranges_under_ubsan)
{
    set_stage_program(ubsan_build);
    probe_note = " (the program built with -fsanitize=undefined: an int32 subtraction or "
                 "product that overflows is undefined in C, and stops the program here)";
    check_probe(&wide[_i]);
}
END_TEST

/* One line of out that starts with prefix, or NULL. */
static const char *line_starting(const char *out, const char *prefix)
{
    for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p;
    return NULL;
}

/* With no options: 256 bins over [INT32_MIN, INT32_MAX), the book's 100 MiB
 * of uniform keys (seed 1), every report line, the sum and the keys in no bin
 * those of the exact bins; and --print-bins alone prints the exact bins of
 * that default input. */
START_TEST(test_the_defaults)
{
    size_t size = DEFAULT_SIZE, n = size / 4;
    unsigned char *bytes = malloc(size);
    unsigned int expected[256] = {0}, got[256] = {0};
    ck_assert(bytes);
    fill_input(DATA_UNIFORM, bytes, size, DEFAULT_SEED);
    size_t outside = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t key;
        memcpy(&key, bytes + 4 * i, 4);
        long bin = expected_bin(INT32_MIN, INT32_MAX, 256, key);
        if (bin < 0)
            outside++;
        else
            expected[bin]++;
    }
    free(bytes);
    struct stage_output o;
    run_stage("", &o);
    ck_assert_msg(o.exit_status == 0, "no options: %s, stderr: %s", exit_meaning(&o), o.err);
    char want[5][160];
    snprintf(want[0], sizeof want[0], "input:      uniform, %zu bytes: %zu int32 keys\n", size, n);
    snprintf(want[1], sizeof want[1], "bins:       256 over [-2147483648, 2147483647)\n");
    snprintf(want[2], sizeof want[2], "outside:    %zu keys in no bin\n", outside);
    snprintf(want[3], sizeof want[3], "Histogram Sum: %zu\n", n - outside);
    snprintf(want[4], sizeof want[4], "verified:   ");
    for (int w = 0; w < 5; w++)
        ck_assert_msg(strstr(o.out, want[w]) != NULL,
                      "no options (the defaults: 256 bins over [-2^31, 2^31 - 1), 100 MiB of "
                      "uniform keys, seed 1): expected the line '%.*s', got:\n%.600s",
                      (int)strcspn(want[w], "\n"), want[w], o.out);
    ck_assert_msg(line_starting(o.out, "kernel only:") != NULL,
                  "no options: no 'kernel only:' line (the time), got:\n%.600s", o.out);
    char args[] = "--print-bins --reps 1";
    struct histogram h = run_histogram(args, 256, got);
    ck_assert_msg(h.exit_status == 0 && h.printed == 256,
                  "%s: exit %d, printed %ld bins, expected 256 (the default), stderr: %s", args,
                  h.exit_status, h.printed, h.err);
    for (long bin = 0; bin < 256; bin++)
        ck_assert_msg(got[bin] == expected[bin],
                      "%s (the default range and input): bin %ld holds %u, expected %u", args, bin,
                      got[bin], expected[bin]);
}
END_TEST

/* --bins with K or M, powers of 1024, as the README's --bins 16M: the same
 * bins as the number written out. */
static const struct {
    const char *bins;
    long value;
} suffixed[] = {{"16M", 16777216}, {"4K", 4096}, {"1k", 1024}, {"3m", 3145728}};
#define SUFFIXED ((int)(sizeof suffixed / sizeof suffixed[0]))

START_TEST(test_bins_with_a_suffix)
{
    static const int64_t keys[] = {INT32_MIN, -1, 0, 1, 715827882, 2147483391, INT32_MAX - 1};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char args[128];
        snprintf(args, sizeof args, "--bins %s --key %" PRId64, suffixed[_i].bins, keys[k]);
        struct stage_output o;
        run_stage(args, &o);
        long want = expected_bin(INT32_MIN, INT32_MAX, suffixed[_i].value, keys[k]);
        char text[96];
        snprintf(text, sizeof text, "in %ld bins over [-2147483648, 2147483647): bin %ld\n",
                 suffixed[_i].value, want);
        ck_assert_msg(o.exit_status == 0 && strstr(o.out, text),
                      "%s (--bins %s is %ld bins): %s, expected '... %.*s', got: %.200s", args,
                      suffixed[_i].bins, suffixed[_i].value, exit_meaning(&o),
                      (int)strlen(text) - 1, text, o.out);
    }
    if (_i == 0) { /* the README's own run, on 1 MiB of keys */
        struct stage_output o;
        run_stage("--bins 16M --size 1M --reps 1", &o);
        ck_assert_msg(o.exit_status == 0 && strstr(o.out, "bins:       16777216 over "),
                      "--bins 16M --size 1M --reps 1: %s, expected exit 0 and 'bins:       "
                      "16777216 over ...', got: %.300s",
                      exit_meaning(&o), o.out);
    }
}
END_TEST

/* Each refused value exits 2 and says why in a first line that names the option. */
static const struct {
    const char *args, *option;
} refusals[] = {{"--csv", "--csv"},
                {"--threads 2", "--threads"},
                {"--threads 1", "--threads"},
                {"--bins 17M", "--bins"},
                {"--bins 16G", "--bins"},
                {"--bins 12x", "--bins"},
                {"--bins -1", "--bins"},
                {"--bins 0K", "--bins"},
                {"--lo 1.5", "--lo"},
                {"--lo 2K --hi 5", "--lo"},
                {"--hi ten", "--hi"},
                {"--hi 2147483648", "--hi"},
                {"--key 99999999999", "--key"},
                {"--key 1e3", "--key"}};
#define REFUSALS ((int)(sizeof refusals / sizeof refusals[0]))

START_TEST(test_refusals_name_the_option)
{
    struct stage_output o;
    run_stage(refusals[_i].args, &o);
    size_t first = strcspn(o.err, "\n");
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(first < 500 ? first : 500), o.err);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(line, refusals[_i].option),
                  "%s: %s, expected exit 2 (bad usage) and a first line of stderr that names "
                  "%s; it was: '%s'",
                  refusals[_i].args, exit_meaning(&o), refusals[_i].option, line);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("14_bin_edges", argc, argv);
    Suite *suite = suite_create("exercise 14: bin edges of int32 keys");
    TCase *whole = exercise_tcase("whole histograms of generated keys", 1);
    tcase_set_timeout(whole, 120);
    tcase_add_loop_test(whole, test_histograms_of_generated_keys_match_the_definition, 0,
                        HISTOGRAMS);
    add_tcase(suite, whole, HISTOGRAMS);
    TCase *edges = exercise_tcase("the edges: lo, hi - 1, hi and just outside, small ranges", 2);
    tcase_set_timeout(edges, 120);
    tcase_add_loop_test(edges, test_every_key_near_a_small_range, 0, SMALL_RANGES);
    add_tcase(suite, edges, SMALL_RANGES);
    TCase *large = exercise_tcase("wide ranges and many bins: no overflow, no rounding", 3);
    tcase_set_timeout(large, 120);
    tcase_add_loop_test(large, test_keys_in_wide_ranges_and_many_bins, 0, WIDE);
    add_tcase(suite, large, WIDE);
    TCase *every_edge = exercise_tcase("every bin edge, ranges of several widths", 2);
    tcase_set_timeout(every_edge, 120);
    tcase_add_loop_test(every_edge, test_every_bin_edge_of_ranges_of_several_widths, 0,
                        EDGE_RANGES);
    tcase_add_test(every_edge, test_every_key_of_a_range_in_more_bins_than_keys);
    add_tcase(suite, every_edge, EDGE_RANGES + 1);
    TCase *runs = exercise_tcase("a file's first keys, in runs of one key", 0);
    tcase_set_timeout(runs, 120);
    tcase_add_loop_test(runs, test_runs_of_one_key_from_the_first_key_on, 0, FIRST_KEY_RANGES);
    add_tcase(suite, runs, FIRST_KEY_RANGES);
    TCase *rounding = exercise_tcase("keys where a double rounds into a neighbouring bin", 3);
    tcase_set_timeout(rounding, 120);
    tcase_add_loop_test(rounding, test_keys_where_a_double_rounds, 0, ROUNDING_RANGES);
    add_tcase(suite, rounding, ROUNDING_RANGES);
    /* Beside this check, the Makefile builds the program with -mlong-double-64 where the
     * compiler has it. */
    program_beside_check(long_double_64, sizeof long_double_64, argv[0],
                         "bin_edges-long-double-64");
    TCase *long_double = exercise_tcase("the same keys where long double is a 64-bit double", 3);
    tcase_set_timeout(long_double, 120);
    tcase_add_loop_test(long_double, test_keys_where_a_double_rounds_with_a_64_bit_long_double, 0,
                        ROUNDING_RANGES);
    if (access(long_double_64, X_OK) == 0)
        add_tcase(suite, long_double, ROUNDING_RANGES);
    else {
        printf("%s: not run here: this compiler has no -mlong-double-64\n", long_double_64);
        add_skipped(ROUNDING_RANGES);
    }
    /* And with -m32 where the compiler can build a 32-bit program. */
    program_beside_check(build_32, sizeof build_32, argv[0], "bin_edges-32");
    TCase *long_32 = exercise_tcase("the wide keys where long is 32 bits", 3);
    tcase_set_timeout(long_32, 120);
    tcase_add_loop_test(long_32, test_keys_in_wide_ranges_with_a_32_bit_long, 0, WIDE);
    if (access(build_32, X_OK) == 0)
        add_tcase(suite, long_32, WIDE);
    else {
        printf("%s: not run here: this compiler cannot build a 32-bit program (-m32; on Debian "
               "the package gcc-multilib)\n",
               build_32);
        add_skipped(WIDE);
    }
    /* Where either build is missing, the preprocessed source instead. */
    program_beside_check(preprocessed, sizeof preprocessed, argv[0], "bin_edges.i");
    if (access(long_double_64, X_OK) != 0 || access(build_32, X_OK) != 0) {
        TCase *types = exercise_tcase("no type some compilers lack, read in your source", 3);
        tcase_add_test(types, test_no_type_some_compilers_lack);
        if (access(preprocessed, R_OK) == 0)
            add_tcase(suite, types, 1);
        else {
            printf("%s: not run here: no preprocessed source\n", preprocessed);
            add_skipped(1);
        }
    }
    /* And with -fsanitize=undefined where the compiler has it. */
    program_beside_check(ubsan_build, sizeof ubsan_build, argv[0], "bin_edges-ubsan");
    TCase *ubsan = exercise_tcase("the wide keys under UndefinedBehaviorSanitizer", 3);
    tcase_set_timeout(ubsan, 120);
    tcase_add_loop_test(ubsan, test_keys_in_wide_ranges_under_ubsan, 0, WIDE);
    if (access(ubsan_build, X_OK) == 0)
        add_tcase(suite, ubsan, WIDE);
    else {
        printf("%s: not run here: this compiler has no -fsanitize=undefined\n", ubsan_build);
        add_skipped(WIDE);
    }
    TCase *defaults = exercise_tcase("the defaults, --bins with K or M", 0);
    tcase_set_timeout(defaults, 120);
    tcase_add_test(defaults, test_the_defaults);
    tcase_add_loop_test(defaults, test_bins_with_a_suffix, 0, SUFFIXED);
    add_tcase(suite, defaults, 1 + SUFFIXED);
    TCase *usage = exercise_tcase("bad ranges and bins are refused (exit 2)", 0);
    tcase_add_loop_test(usage, test_bad_ranges_and_bins_are_usage_errors, 0, 9);
    tcase_add_test(usage, test_a_file_of_part_keys_is_a_usage_error);
    tcase_add_loop_test(usage, test_refusals_name_the_option, 0, REFUSALS);
    add_tcase(suite, usage, 10 + REFUSALS);
    return run_exercise(suite);
}
