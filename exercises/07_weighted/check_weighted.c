/*
 * check_weighted.c - exercise 07 sums every byte's weight into its bin: on
 * every size, kind and launch shape, each of the 256 float bins is within the
 * tolerance of an exact sum computed here, in double, from the same bytes.
 * Without a GPU these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The program's weights, rebuilt: 1 + (i mod 256) / 256, exact in a double. */
static void reference_bins(const unsigned char *buffer, size_t size, double exact[BINS])
{
    for (int bin = 0; bin < BINS; bin++)
        exact[bin] = 0.0;
    for (size_t i = 0; i < size; i++)
        exact[buffer[i]] += 1.0 + (double)(i % 256) / 256.0;
}

/* The tolerance, recomputed from the launch the program reports rather than
 * read from its output: 2 d 2^-24 for a float sum whose terms go through at
 * most d additions, a block's share of the input and one per block. */
static double tolerance(size_t size, long blocks, int threads)
{
    double d = ceil((double)size / ((double)blocks * threads)) * threads + (double)blocks;
    return 2.0 * d * 0x1p-24;
}

/* Finds a line of the report by its label and returns the text after it. */
static const char *field(const char *out, const char *label)
{
    const char *line = strstr(out, label);
    ck_assert_msg(line != NULL, "no '%s' line in: %s", label, out);
    return line + strlen(label);
}

static void check_weighted(size_t size, enum data_kind kind, uint64_t seed, const char *extra)
{
    unsigned char *buffer = malloc(size ? size : 1);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    double exact[BINS];
    reference_bins(buffer, size, exact);
    free(buffer);

    char args[512];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %" PRIu64 " --reps 1 --bins %s", size,
             data_kind_name(kind), seed, extra);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d, stderr: %s", args, o.exit_status, o.err);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
    long blocks;
    int threads;
    ck_assert_msg(sscanf(field(o.out, "\nlaunch:"), "%ld blocks x %d threads", &blocks, &threads) ==
                      2,
                  "%s: cannot read the launch", args);
    double tol = tolerance(size, blocks, threads);

    /* The bins follow the report, one "<bin>: <sum>" line each, in order. */
    const char *line = strstr(o.out, "\n0: ");
    ck_assert_msg(line != NULL, "%s: no bins in: %s", args, o.out);
    for (int bin = 0; bin < BINS; bin++) {
        int got_bin, used = 0;
        double sum;
        ck_assert_msg(line && sscanf(line, " %d: %lf%n", &got_bin, &sum, &used) == 2 &&
                          got_bin == bin,
                      "%s: bin %d missing", args, bin);
        double error = exact[bin] > 0 ? fabs(sum - exact[bin]) / exact[bin] : fabs(sum);
        ck_assert_msg(error <= tol, "%s: bin %d is %.9g, not within %.3g of %.17g", args, bin, sum,
                      tol, exact[bin]);
        line += used;
    }
}

/* Around the powers of two where the tail and a block's share break, and a prime. */
static const size_t sizes[] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_every_bin_matches_reference_for_every_size_and_kind)
{
    check_weighted(sizes[_i / 4], (enum data_kind)(_i % 4), 1000 + (uint64_t)_i, "");
}
END_TEST

/* The shapes a student will try: block sizes below 256 and not powers of two
 * break a merge that assumes 256 threads; one block must still cover the input. */
static const char *const launches[] = {"--blocks 1",         "--threads 32",
                                       "--threads 33",       "--threads 1000",
                                       "--threads 1024",     "--blocks 1 --threads 1024",
                                       "--blocks-per-sm 16", "--blocks 100000 --threads 32"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_weighted(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_weighted(1000003, DATA_CONSTANT, 8, launches[_i]); /* one bin takes every weight */
}
END_TEST

START_TEST(test_default_is_the_books_100_mib)
{
    struct stage_output o;
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, "uniform, 104857600 bytes"), "%s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "07_weighted,mine,", 17) == 0, "row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
}
END_TEST

START_TEST(test_too_few_blocks_for_a_float_bound_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--size 20M --blocks 1 --reps 1", &o); /* past 2^23 additions into one bin */
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "too few blocks"), "%s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("07_weighted", argc, argv);
    Suite *suite = suite_create("exercise 07: weighted histogram");
    TCase *tc = tcase_create("weighted");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_every_bin_matches_reference_for_every_size_and_kind, 0, SIZES * 4);
    tcase_add_loop_test(tc, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(tc, test_default_is_the_books_100_mib);
    tcase_add_test(tc, test_csv_prints_header_and_a_verified_row);
    tcase_add_test(tc, test_too_few_blocks_for_a_float_bound_is_a_usage_error);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, SIZES * 4 + LAUNCHES + 3);
    return run_suite(suite);
}
