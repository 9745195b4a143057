/*
 * check_warp_histograms.c - exercise 05 counts every byte with a copy of the
 * bins per warp: every bin matches the CPU reference on every size and kind,
 * for one warp per block and for 32, on one block and on many, and block sizes
 * that are not whole warps are refused with a usage error.
 */
#include "stage_checks.h"

#include <string.h>

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* 1, 2, 3, 8 and 32 warps per block: a merge that forgets a copy, or warps
 * that share one, show up as soon as there is more than one warp; one block
 * must still cover the whole input. */
static const char *const launches[] = {
    "--threads 32",
    "--threads 64",
    "--threads 96",
    "--threads 256",
    "--threads 1024",
    "--blocks 1",
    "--blocks 1 --threads 32",
    "--blocks 1 --threads 1024",
    "--blocks 100000 --threads 32",
};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_warp_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]); /* lanes collide */
    check_matches_reference(257, DATA_SKEWED, 9, launches[_i]);
}
END_TEST

/* The book's int index overflows here; size_t must not. */
START_TEST(test_indexing_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, "");
}
END_TEST

static const char *const partial_warps[] = {"--threads 1", "--threads 16", "--threads 33",
                                            "--threads 1000"};
#define PARTIAL_WARPS ((int)(sizeof partial_warps / sizeof partial_warps[0]))

START_TEST(test_threads_that_are_not_whole_warps_are_usage_errors)
{
    struct stage_output o;
    run_stage(partial_warps[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d, want 2", partial_warps[_i],
                  o.exit_status);
    char *first_newline = strchr(o.err, '\n');
    ck_assert_msg(first_newline != NULL, "%s: nothing on stderr", partial_warps[_i]);
    *first_newline = '\0'; /* the reason is the first line; the usage follows */
    ck_assert_msg(strstr(o.err, "is not a multiple of 32"), "%s: reason: %s", partial_warps[_i],
                  o.err);
    ck_assert_msg(strstr(first_newline + 1, "usage:"), "%s: no usage", partial_warps[_i]);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --threads 128 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "05_warp_histograms,warp-histograms,", 35) == 0,
                  "row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("05_warp_histograms", argc, argv);
    Suite *suite = suite_create("exercise 05: a private histogram per warp");
    TCase *tc = tcase_create("per-warp bins");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_loop_test(tc, test_every_warp_count_matches_reference, 0, LAUNCHES);
    tcase_add_test(tc, test_indexing_past_2_gib);
    tcase_add_loop_test(tc, test_threads_that_are_not_whole_warps_are_usage_errors, 0,
                        PARTIAL_WARPS);
    tcase_add_test(tc, test_csv_prints_header_and_a_verified_row);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, MATRIX_CASES + LAUNCHES + 1 + PARTIAL_WARPS + 1);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    return run_suite(suite);
}
