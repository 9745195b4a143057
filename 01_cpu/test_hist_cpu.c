/*
 * test_hist_cpu.c - 01_cpu's variants give the reference histogram on every
 * size and data kind, alone and split over threads.
 */
#include "stage_checks.h"

#include <string.h>

START_TEST(test_book_loop_matches_reference)
{
    check_matrix_case(matrix_case(_i), "");
}
END_TEST

START_TEST(test_sub4_matches_reference_on_odd_sizes)
{
    check_matrix_case(matrix_case(_i), "--variant sub4");
}
END_TEST

START_TEST(test_threads_match_reference)
{
    check_matrix_case(matrix_case(_i), "--threads 3");
}
END_TEST

START_TEST(test_threads_with_sub4_match_reference)
{
    check_matrix_case(matrix_case(_i), "--threads 4 --variant sub4");
}
END_TEST

START_TEST(test_more_threads_than_bytes)
{
    check_matches_reference(5, DATA_TEXT, 1, "--threads 16");
}
END_TEST

/* --bins N is the number of bins in every program: here 256, one per byte
 * value, so any other number is refused; --print-bins prints them. */
START_TEST(test_bins_is_the_number_of_bins_and_here_it_is_256)
{
    check_matches_reference(1000, DATA_TEXT, 2, "--bins 256");
    struct stage_output o;
    run_stage("--bins 4096 --size 1K", &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(o.err, "--bins: hist_cpu counts 256 bins"),
                  "%s: %s", exit_meaning(&o), o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("01_cpu", argc, argv);
    Suite *suite = suite_create("01_cpu");
    int checks = 0;
    suite_add_tcase(suite, usage_tcase(false, &checks));
    suite_add_tcase(suite, output_tcase(&checks));

    TCase *variants = tcase_create("variants");
    tcase_set_timeout(variants, 60);
    int matrix = cases(MATRIX_CASES, MATRIX_SIZES);
    tcase_add_loop_test(variants, test_book_loop_matches_reference, 0, matrix);
    matrix = cases(MATRIX_CASES, MATRIX_SIZES);
    tcase_add_loop_test(variants, test_sub4_matches_reference_on_odd_sizes, 0, matrix);
    matrix = cases(MATRIX_CASES, MATRIX_SIZES);
    tcase_add_loop_test(variants, test_threads_match_reference, 0, matrix);
    matrix = cases(MATRIX_CASES, MATRIX_SIZES);
    tcase_add_loop_test(variants, test_threads_with_sub4_match_reference, 0, matrix);
    tcase_add_test(variants, test_more_threads_than_bytes);
    tcase_add_test(variants, test_bins_is_the_number_of_bins_and_here_it_is_256);
    suite_add_tcase(suite, variants);
    return run_suite(suite);
}
