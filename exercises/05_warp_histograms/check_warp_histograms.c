/*
 * check_warp_histograms.c - exercise 05 counts every byte with a copy of the
 * bins per warp: every bin matches the CPU reference on every size and kind,
 * for one warp per block and for 32, on one block and on many; with
 * --show-copies, each warp's copy, taken before the merge, holds exactly the
 * bytes that warp's lanes read (so warps that share one copy are caught even
 * when the total is right); block sizes that are not whole warps are refused.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* One warp per block: one copy, so only the count within a warp can be wrong
 * (lanes that read the same byte value at once: constant data). */
static const char *const one_warp[] = {"--threads 32", "--blocks 1 --threads 32",
                                       "--blocks 100000 --threads 32"};
#define ONE_WARP ((int)(sizeof one_warp / sizeof one_warp[0]))

START_TEST(test_one_warp_per_block_counts_right)
{
    check_matches_reference(1000003, DATA_CONSTANT, 8, one_warp[_i]); /* lanes collide */
    check_matches_reference(1000003, DATA_UNIFORM, 7, one_warp[_i]);
    check_matches_reference(257, DATA_SKEWED, 9, one_warp[_i]);
}
END_TEST

/* 2, 3, 8 and 32 warps per block: a merge that forgets a copy, or reads one
 * before its warp has finished, shows up as soon as there is more than one
 * warp; one block must still cover the whole input, and 100 blocks of 1024
 * threads leave each warp few rounds, so warps finish at different times. */
static const char *const launches[] = {
    "--threads 64",
    "--threads 96",
    "--threads 256",
    "--threads 1024",
    "--blocks 1",
    "--blocks 1 --threads 1024",
    "--blocks 100 --threads 1024",
};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_warp_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]); /* lanes collide */
    check_matches_reference(257, DATA_SKEWED, 9, launches[_i]);
}
END_TEST

/* --show-copies on one block of threads: the program prints "copy <w>: <256
 * counts>" for every warp w, taken after the count and before the merge. With
 * one block, thread t reads bytes t, t + threads, t + 2 threads, ..., so warp
 * w's copy must be the histogram of the bytes whose position mod threads lies
 * in [32 w, 32 w + 32). */
#define MOST_WARPS 32
static unsigned int expected_copies[MOST_WARPS][BINS], got_copies[MOST_WARPS][BINS];

static void check_copies(size_t size, enum data_kind kind, uint64_t seed, int threads)
{
    int warps = threads / 32;
    unsigned char *bytes = malloc(size ? size : 1);
    ck_assert(bytes != NULL);
    fill_input(kind, bytes, size, seed);
    memset(expected_copies, 0, sizeof expected_copies);
    for (size_t i = 0; i < size; i++)
        expected_copies[(i % (size_t)threads) / 32][bytes[i]]++;
    free(bytes);

    char args[256], command[4096 + 512];
    snprintf(args, sizeof args,
             "--size %zu --data %s --seed %" PRIu64 " --reps 1 --threads %d --show-copies", size,
             data_kind_name(kind), seed, threads);
    snprintf(command, sizeof command, "'%s' %s 2>/dev/null", stage_program(), args);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    memset(got_copies, 0, sizeof got_copies);
    bool seen[MOST_WARPS] = {false};
    char *line = NULL;
    size_t line_size = 0;
    while (getline(&line, &line_size, p) > 0) {
        int w, used;
        if (sscanf(line, "copy %d:%n", &w, &used) != 1 || w < 0 || w >= warps)
            continue;
        seen[w] = true;
        char *at = line + used;
        for (int bin = 0; bin < BINS; bin++)
            got_copies[w][bin] = (unsigned int)strtoul(at, &at, 10);
    }
    free(line);
    int status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s: did not exit 0 (run it to see why)", args);
    for (int w = 0; w < warps; w++) {
        ck_assert_msg(seen[w], "%s: no 'copy %d:' line", args, w);
        uint64_t want = 0, got = 0;
        for (int bin = 0; bin < BINS; bin++) {
            want += expected_copies[w][bin];
            got += got_copies[w][bin];
        }
        ck_assert_msg(got == want,
                      "%s: warp %d's copy holds %" PRIu64 " counts before the merge; its 32 lanes "
                      "read %" PRIu64 " bytes (a copy shared by several warps holds more, one "
                      "nobody counts into holds 0, a racy ++ loses some)",
                      args, w, got, want);
        for (int bin = 0; bin < BINS; bin++)
            ck_assert_msg(got_copies[w][bin] == expected_copies[w][bin],
                          "%s: warp %d's copy has %u in bin %d; its lanes read %u such bytes", args,
                          w, got_copies[w][bin], bin, expected_copies[w][bin]);
    }
}

START_TEST(test_each_warp_counts_into_its_own_copy)
{
    check_copies(100003, DATA_UNIFORM, 11, 256);
    check_copies(30011, DATA_CONSTANT, 12, 64); /* every lane of a warp on one bin at once */
    check_copies(1000003, DATA_SKEWED, 13, 96);
    check_copies(257, DATA_UNIFORM, 14, 1024); /* warps 9 to 31 read nothing */
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
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, want exit 2", partial_warps[_i],
                  exit_meaning(&o));
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
    ck_assert_msg(o.exit_status == 0,
                  "--size 4096 --data skewed --reps 2 --threads 128 --csv: %s: %s",
                  exit_meaning(&o), o.err);
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

    TCase *warp = exercise_tcase("one warp per block: the count within a warp", 2);
    tcase_set_timeout(warp, 300);
    tcase_add_loop_test(warp, test_one_warp_per_block_counts_right, 0, ONE_WARP);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, warp, ONE_WARP);

    TCase *counts = exercise_tcase("every bin right, for every size, kind and block size", 3);
    tcase_set_timeout(counts, 600);
    tcase_add_loop_test(counts, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_loop_test(counts, test_every_warp_count_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, counts, MATRIX_CASES + LAUNCHES);

    TCase *copies = exercise_tcase("each warp counts into its own copy (--show-copies)", 1);
    tcase_set_timeout(copies, 300);
    tcase_add_test(copies, test_each_warp_counts_into_its_own_copy);
    add_if_runnable(suite, copies, 1);

    TCase *edges = exercise_tcase("block sizes that are not whole warps, and the CSV row", 0);
    tcase_add_loop_test(edges, test_threads_that_are_not_whole_warps_are_usage_errors, 0,
                        PARTIAL_WARPS);
    tcase_add_test(edges, test_csv_prints_header_and_a_verified_row);
    add_if_runnable(suite, edges, PARTIAL_WARPS + 1);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);

    TCase *big = exercise_tcase("past 2 GiB of input", 0);
    tcase_set_timeout(big, 600);
    tcase_add_test(big, test_indexing_past_2_gib);
    add_if_runnable(suite, big, 1);
    return run_exercise(suite);
}
