/*
 * check_race.c - exercise 02 loses no increment: every bin matches the CPU
 * reference on every size and kind, on the input where all threads collide
 * and on every launch shape, and the program says "lost: 0".
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Reads "lost: N of M increments" from the program's report. */
static void read_lost(const struct stage_output *o, int64_t *lost, uint64_t *of)
{
    const char *line = strstr(o->out, "\nlost:");
    ck_assert_msg(line != NULL, "no 'lost:' line in: %s", o->out);
    ck_assert_msg(sscanf(line, "\nlost: %" SCNd64 " of %" SCNu64 " increments", lost, of) == 2,
                  "cannot read the 'lost:' line: %.80s", line + 1);
}

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* Every byte the same: every thread of the grid increments the same bin, the
 * input where a plain ++ loses the most. */
static const char *const crowded_launches[] = {"", "--blocks-per-sm 16", "--threads 1024",
                                               "--threads 33"};

START_TEST(test_loses_nothing_when_every_thread_hits_one_bin)
{
    char args[256];
    snprintf(args, sizeof args, "--data constant --size 16M --reps 2 %s", crowded_launches[_i]);
    struct stage_output o;
    run_stage(args, &o);
    int64_t lost;
    uint64_t of;
    read_lost(&o, &lost, &of);
    ck_assert_msg(lost == 0, "%s: lost %" PRId64 " of %" PRIu64 " increments", args, lost, of);
    ck_assert_uint_eq(of, 16u << 20);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s: exit %d: %s", args, o.exit_status,
                  o.err);
}
END_TEST

/* The shapes a student will try: one block, odd and large blocks, many small ones. */
static const char *const launches[] = {"--blocks 1", "--threads 64", "--threads 1000",
                                       "--blocks 1 --threads 1024", "--blocks 100000 --threads 32"};

START_TEST(test_every_launch_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]);
}
END_TEST

/* The count the lesson rests on: the CPU's total minus the GPU's, whatever the kernel does. */
START_TEST(test_lost_is_the_input_minus_the_histogram_sum)
{
    struct stage_output o;
    run_stage("--data constant --size 1M --reps 1", &o);
    ck_assert_msg(o.exit_status == 0 || o.exit_status == 1, "exit %d: %s", o.exit_status, o.err);
    int64_t lost;
    uint64_t of;
    read_lost(&o, &lost, &of);
    ck_assert_msg(o.has_sum, "no Histogram Sum: %s", o.out);
    ck_assert_uint_eq(of, 1u << 20);
    ck_assert_msg(lost == (int64_t)(of - o.sum), "lost %" PRId64 ", but the sum is %" PRIu64, lost,
                  o.sum);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("02_race", argc, argv);
    Suite *suite = suite_create("exercise 02: a race made visible");
    TCase *tc = tcase_create("no lost increments");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    int crowded = (int)(sizeof crowded_launches / sizeof crowded_launches[0]);
    tcase_add_loop_test(tc, test_loses_nothing_when_every_thread_hits_one_bin, 0, crowded);
    int shapes = (int)(sizeof launches / sizeof launches[0]);
    tcase_add_loop_test(tc, test_every_launch_matches_reference, 0, shapes);
    tcase_add_test(tc, test_lost_is_the_input_minus_the_histogram_sum);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, MATRIX_CASES + crowded + shapes + 1);
    return run_suite(suite);
}
