/*
 * check_split_work.c - exercise 10 counts every part of the input once: on every
 * size and kind, for 1 part and for many (more parts than bytes included), the
 * sum of the parts' histograms matches the CPU reference, and the program says
 * how it split the work.
 */
#include "stage_checks.h"

#include <string.h>

/* One part (nothing to add up), two, a prime number of them, and more parts
 * than the small inputs have bytes. */
static const char *const splits[] = {"--blocks 1",
                                     "--blocks 2",
                                     "--blocks 3",
                                     "--blocks 7",
                                     "--blocks 64",
                                     "--blocks 5 --threads 33",
                                     "--blocks 9 --threads 1024"};
#define SPLITS ((int)(sizeof splits / sizeof splits[0]))

START_TEST(test_every_part_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, splits[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, splits[_i]); /* one bin for all */
    check_matches_reference(17, DATA_SKEWED, 9, splits[_i]);
    check_matches_reference(1, DATA_TEXT, 10, splits[_i]);
    check_matches_reference(0, DATA_UNIFORM, 11, splits[_i]);
}
END_TEST

START_TEST(test_splits_into_at_least_two_parts_by_default)
{
    struct stage_output o;
    run_stage("--size 1000003 --reps 2", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    int parts = 0, devices = 0;
    const char *line = strstr(o.out, "split:");
    ck_assert_msg(line && sscanf(line, "split: %d parts over %d GPU", &parts, &devices) == 2,
                  "no 'split:' line: %s", o.out);
    ck_assert_msg(parts >= 2 && parts >= devices, "%d parts over %d GPUs", parts, devices);
    ck_assert_msg(strstr(o.out, devices > 1 ? "\nsplit-over-gpus " : "\nsplit-over-streams "),
                  "the row does not say how the work was split: %s", o.out);
    ck_assert_msg(strstr(o.out, "\npinned-copy "), "no pinned-copy row: %s", o.out);
    ck_assert_msg(o.has_sum && o.sum == 1000003, "sum: %s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_csv_prints_header_and_two_verified_rows)
{
    struct stage_output o;
    run_stage("--size 4097 --data skewed --reps 2 --blocks 3 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "10_split_work,pinned-copy,", 26) == 0, "first row: %s", row);
    row = strchr(row, '\n') + 1;
    ck_assert_msg(strncmp(row, "10_split_work,split-over-", 25) == 0, "second row: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4097,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
}
END_TEST

START_TEST(test_blocks_per_sm_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--blocks-per-sm 2", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--blocks sets the number of parts"), "stderr: %s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("10_split_work", argc, argv);
    Suite *suite = suite_create("exercise 10: one histogram split over GPUs or streams");
    int checks = 0;
    /* Every size of the stages' matrix (0, 1, 17, 1000003, ...) and kind, and past 2 GiB. */
    TCase *tc = matrix_tcase(&checks);
    tcase_add_loop_test(tc, test_every_part_count_matches_reference, 0, SPLITS);
    tcase_add_test(tc, test_splits_into_at_least_two_parts_by_default);
    tcase_add_test(tc, test_csv_prints_header_and_two_verified_rows);
    tcase_add_test(tc, test_blocks_per_sm_is_a_usage_error);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, checks + SPLITS + 3);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    return run_suite(suite);
}
