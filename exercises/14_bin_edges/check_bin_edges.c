/*
 * check_bin_edges.c - exercise 14 puts int32 keys in even bins over [lo, hi):
 * whole histograms of generated keys, then one key at a time (--key) at the
 * edges (lo, hi - 1, hi, just outside), over ranges that cross zero, span all
 * of int32, or hold more bins than keys, each against the bin computed here.
 */
#include "stage_checks.h"

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
    char args[512], command[1024], err_path[] = "/tmp/bin_edges_err_XXXXXX", line[512];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %d --reps 1 --print-bins %s", size,
             data_kind_name(h->kind), 300 + _i, h->range);
    int fd = mkstemp(err_path);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(command, sizeof command, "'%s' %s 2>'%s'", stage_program(), args, err_path);
    FILE *p = popen(command, "r");
    ck_assert(p != NULL);
    long printed = 0;
    size_t said_outside = SIZE_MAX;
    bool verified = false;
    while (fgets(line, sizeof line, p)) {
        long bin;
        unsigned count;
        if (sscanf(line, "%ld: %u", &bin, &count) == 2 && bin >= 0 && bin < h->bins)
            got[bin] = count, printed++;
        sscanf(line, "outside: %zu", &said_outside);
        verified = verified || strncmp(line, "verified:   yes", 15) == 0;
    }
    int status = pclose(p);
    char err[1024] = "";
    FILE *e = fopen(err_path, "r");
    if (e) {
        err[fread(err, 1, sizeof err - 1, e)] = '\0';
        fclose(e);
    }
    unlink(err_path);
    int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ck_assert_msg(exit_status == 0, "%s: exit %d%s, stderr: %s", args, exit_status,
                  WIFSIGNALED(status) ? " (crashed)" : "", err);
    ck_assert_msg(printed == h->bins, "%s: printed %ld bins, expected %ld", args, printed, h->bins);
    for (long bin = 0; bin < h->bins; bin++)
        ck_assert_msg(got[bin] == expected[bin], "%s: bin %ld holds %u, expected %u", args, bin,
                      got[bin], expected[bin]);
    ck_assert_msg(said_outside == outside, "%s: 'outside: %zu', expected %zu keys in no bin", args,
                  said_outside, outside);
    ck_assert_msg(verified, "%s: no 'verified: yes' line", args);
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
                  "%s: key %" PRId64 " in %ld bins over [%" PRId64 ", %" PRId64
                  "): expected %s, got: %.200s",
                  args, q->key, q->bins, q->lo, q->hi, want_text, o.out);
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

/* ------------------------------------------------------------------ usage -- */

START_TEST(test_bad_ranges_and_bins_are_usage_errors)
{
    static const char *const bad[] = {"--bins 0",         "--bins 16777217", "--lo 5 --hi 5",
                                      "--lo 6 --hi 5",    "--hi 2147483648", "--lo -2147483649",
                                      "--key 2147483648", "--size 6"};
    struct stage_output o;
    run_stage(bad[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)", bad[_i],
                  exit_meaning(&o));
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
    TCase *usage = exercise_tcase("bad ranges and bins are refused (exit 2)", 0);
    tcase_add_loop_test(usage, test_bad_ranges_and_bins_are_usage_errors, 0, 8);
    add_tcase(suite, usage, 8);
    return run_exercise(suite);
}
