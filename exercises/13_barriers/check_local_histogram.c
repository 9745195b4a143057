/*
 * check_local_histogram.c - exercise 13 puts back what its kernel needs, and
 * no more than that shows: the histogram matches the CPU's on PoCL (which
 * runs a work-group's items one after another, and so hides a lost local
 * increment), Oclgrind sees no data race on launches of one and several
 * work-groups of 1, 64 and 256 work-items, and the private histogram is still
 * in local memory (the program prints how much its kernel declares). Without
 * an OpenCL device these checks are reported as skipped; without Oclgrind,
 * its group is.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* 0 and 1 byte; 257, one past a bin per value; a size no launch divides. */
static const size_t sizes[] = {0, 1, 257, 3000, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define KINDS 3 /* uniform, constant (every item on the same bin), skewed */

START_TEST(test_matches_reference_on_every_size)
{
    static const enum data_kind kinds[KINDS] = {DATA_UNIFORM, DATA_CONSTANT, DATA_SKEWED};
    check_matches_reference(sizes[_i / KINDS], kinds[_i % KINDS], 1300 + (uint64_t)_i, "");
}
END_TEST

/* A work-group of one item, one that is no power of two, one of 256, one
 * work-group for the whole input, and many. */
static const char *const launches[] = {"--threads 1", "--threads 33", "--blocks 1 --threads 256",
                                       "--blocks 1 --threads 64", "--blocks 1000 --threads 32"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_matches_reference(300007, DATA_UNIFORM, 13, launches[_i]);
    check_matches_reference(257, DATA_CONSTANT, 14, launches[_i]);
}
END_TEST

/* 256 four-byte bins per work-group: what the compiler reports for the
 * kernel's __local arrays. A kernel that counts straight into the global bins
 * has no race and the right answer, and no private histogram. */
START_TEST(test_the_private_histogram_is_in_local_memory)
{
    const char *args = "--size 3000 --reps 1";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "./local_histogram %s: %s (expected exit 0), stderr: %s",
                  args, exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "local memory: ");
    ck_assert_msg(line != NULL, "./local_histogram %s: no 'local memory: N bytes' line", args);
    unsigned long long bytes = strtoull(line + strlen("local memory: "), NULL, 10);
    ck_assert_msg(
        bytes >= BINS * sizeof(unsigned int),
        "./local_histogram %s: the kernel declares %llu bytes of local memory per "
        "work-group, expected at least %zu: a private histogram of 256 uint bins (counting "
        "straight into the global bins skips the lesson)",
        args, bytes, BINS * sizeof(unsigned int));
}
END_TEST

/* Small inputs: Oclgrind simulates every work-item. One work-group and
 * several; a work-group of 1, of 64 (zeroing and merging in four strides),
 * of 256; sizes 0, 1 and 257. */
static const char *const race_launches[] = {
    "--size 3000 --reps 1 --blocks 1 --threads 64", "--size 3000 --reps 1 --blocks 3 --threads 64",
    "--size 257 --reps 1 --blocks 2 --threads 256", "--size 257 --reps 1 --blocks 2 --threads 1",
    "--size 1 --reps 1 --blocks 2 --threads 64",    "--size 0 --reps 1 --blocks 2 --threads 64"};
#define RACE_LAUNCHES ((int)(sizeof race_launches / sizeof race_launches[0]))

START_TEST(test_no_races_under_oclgrind)
{
    check_no_races(race_launches[_i]);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("13_barriers", argc, argv);
    Suite *suite = suite_create("exercise 13: barriers and local atomics, found with Oclgrind");
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    TCase *counts = exercise_tcase("the right histogram on this device", 1);
    tcase_set_timeout(counts, 120);
    tcase_add_loop_test(counts, test_matches_reference_on_every_size, 0, SIZES * KINDS);
    add_if_runnable(suite, counts, SIZES * KINDS);

    TCase *local = exercise_tcase("the private histogram in local memory", 3);
    tcase_add_test(local, test_the_private_histogram_is_in_local_memory);
    add_if_runnable(suite, local, 1);

    TCase *races = exercise_tcase("no races, under Oclgrind", 2);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_races_under_oclgrind, 0, RACE_LAUNCHES);
    if (have_oclgrind())
        add_if_runnable(suite, races, RACE_LAUNCHES);
    else
        add_skipped(RACE_LAUNCHES);

    TCase *sizes_tc = exercise_tcase("every work-group size", 3);
    tcase_set_timeout(sizes_tc, 120);
    tcase_add_loop_test(sizes_tc, test_every_launch_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, sizes_tc, LAUNCHES);
    return run_exercise(suite);
}
