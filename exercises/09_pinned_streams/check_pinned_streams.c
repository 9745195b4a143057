/*
 * check_pinned_streams.c - exercise 09 counts every byte of every chunk: on every
 * size and kind, for chunk counts that divide the input and counts that do not
 * (more chunks than bytes included), its bins match the CPU reference, and it
 * reports itself beside the plain pinned copy.
 */
#include "stage_checks.h"

#include <string.h>

/* 1 chunk, chunks that leave a remainder, a prime number of them, more chunks
 * than streams, and more chunks than the small inputs have bytes. */
static const char *const chunkings[] = {"--blocks 1",
                                        "--blocks 2",
                                        "--blocks 3",
                                        "--blocks 7",
                                        "--blocks 64",
                                        "--blocks 1000",
                                        "--blocks 5 --threads 33",
                                        "--blocks 9 --threads 1024"};
#define CHUNKINGS ((int)(sizeof chunkings / sizeof chunkings[0]))

START_TEST(test_every_chunk_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, chunkings[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, chunkings[_i]); /* one bin for all */
    check_matches_reference(17, DATA_SKEWED, 9, chunkings[_i]);
    check_matches_reference(1, DATA_TEXT, 10, chunkings[_i]);
    check_matches_reference(0, DATA_UNIFORM, 11, chunkings[_i]);
}
END_TEST

START_TEST(test_reports_the_streams_beside_the_pinned_copy)
{
    struct stage_output o;
    run_stage("--size 1000003 --reps 2", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, "\npinned-copy "), "no pinned-copy row: %s", o.out);
    ck_assert_msg(strstr(o.out, "\npinned-streams "), "no pinned-streams row: %s", o.out);
    ck_assert_msg(strstr(o.out, "8 chunks"), "not 8 chunks by default: %s", o.out);
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
    ck_assert_msg(strncmp(row, "09_pinned_streams,pinned-copy,", 30) == 0, "first row: %s", row);
    row = strchr(row, '\n') + 1;
    ck_assert_msg(strncmp(row, "09_pinned_streams,pinned-streams,", 33) == 0, "second row: %s",
                  row);
    ck_assert_msg(strstr(row, ",skewed,4097,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
}
END_TEST

START_TEST(test_blocks_per_sm_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--blocks-per-sm 2", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--blocks sets the number of chunks"), "stderr: %s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("09_pinned_streams", argc, argv);
    Suite *suite = suite_create("exercise 09: page-locked memory and streams");
    int checks = 0;
    /* Every size of the stages' matrix (0, 1, 17, 1000003, ...) and kind, and past 2 GiB. */
    TCase *tc = matrix_tcase(&checks);
    tcase_add_loop_test(tc, test_every_chunk_count_matches_reference, 0, CHUNKINGS);
    tcase_add_test(tc, test_reports_the_streams_beside_the_pinned_copy);
    tcase_add_test(tc, test_csv_prints_header_and_two_verified_rows);
    tcase_add_test(tc, test_blocks_per_sm_is_a_usage_error);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, checks + CHUNKINGS + 3);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    return run_suite(suite);
}
