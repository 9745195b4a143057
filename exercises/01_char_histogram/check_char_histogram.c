/*
 * check_char_histogram.c - exercise 01 counts every byte: the book's phrase,
 * and any input of any size, exactly as the CPU reference does.
 */
#include "stage_checks.h"

#include <string.h>

START_TEST(test_counts_the_books_phrase)
{
    check_matches_reference(23 * 10, DATA_TEXT, 1, "");
}
END_TEST

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

START_TEST(test_draws_a_bar_for_each_character_of_the_phrase)
{
    struct stage_output o;
    run_stage("--data text --size 23 --reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    int bars = 0;
    for (const char *line = o.out; (line = strstr(line, "\n  '")); line++)
        bars++;
    ck_assert_int_eq(bars, 16); /* "Programming with CUDA C" has 16 different characters */
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("01_char_histogram", argc, argv);
    Suite *suite = suite_create("exercise 01: character histogram");
    TCase *tc = tcase_create("counting");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_counts_the_books_phrase);
    tcase_add_loop_test(tc, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_test(tc, test_draws_a_bar_for_each_character_of_the_phrase);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
