/*
 * check_local_histogram.c - exercise 13 puts back what its kernel needs, and
 * no more than that shows: the histogram matches the CPU's on PoCL (which
 * runs a work-group's items one after another, and so hides a lost local
 * increment), Oclgrind sees no data race on launches of one and several
 * work-groups of 1 to 1024 work-items, the private
 * histogram is still in local memory (the program prints how much its kernel
 * declares) and is where every byte is counted, with one atomic add (Oclgrind
 * counts what the kernel executes). Without an OpenCL device these checks are
 * reported as skipped; without Oclgrind, its six groups are. Past 2 GiB and
 * near 4 GiB, past 2^24 work-groups, and to see which work-items merge and
 * zero, the check runs the kernel under Oclgrind from a host of its own
 * (check_local_histogram_quick.c).
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

/* Past 2^24 bytes a float no longer holds every byte position: a share of the
 * input worked out in float rounds, and the bytes at the end go uncounted.
 * 2^24 + 1 bytes on 1024 work-items (a power of two) loses the last one; the
 * size is this large because the mistake needs it, and takes PoCL a second. */
static const size_t large_sizes[] = {16777217, 33554467};
static const char *const large_launches[] = {"--blocks 4 --threads 256", "--threads 64"};
#define LARGE_SIZES ((int)(sizeof large_sizes / sizeof large_sizes[0]))

START_TEST(test_matches_reference_past_2_to_the_24)
{
    check_matches_reference(large_sizes[_i], DATA_UNIFORM, 1350 + (uint64_t)_i, large_launches[_i]);
}
END_TEST

/* A work-group of one item, one that is no power of two, one of 512 (more
 * work-items than bins), one of 256, one work-group for the whole input, and
 * many; and 1024, the largest the program takes (three quarters of its
 * work-items have no bin to zero or merge). */
static const char *const launches[] = {"--threads 1",
                                       "--threads 33",
                                       "--threads 512",
                                       "--blocks 1 --threads 256",
                                       "--blocks 1 --threads 64",
                                       "--blocks 1000 --threads 32",
                                       "--threads 4",
                                       "--threads 1024"};
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

/* Oclgrind counts every instruction the kernel executes: on 30000 bytes,
 * every byte is loaded once and counted with one atomic add into the local
 * histogram, and the global bins take only the merge's atomics, 256 per
 * work-group. A local histogram that is zeroed and merged but not counted
 * into, and an atomic load then store (which Oclgrind's race detector does
 * not flag: both halves are atomics), each miss one of these. The counts are
 * taken on four launches, so that a kernel that counts in local memory only
 * on some launch shapes (a power of two, at most 256 work-items, the 2 x 64
 * of a single counted launch) and straight into the global bins on the
 * others is seen: two work-groups of 64, three of 33 (no power of two), four
 * of 256, two of 1024 (the largest work-group the program takes). */
#define COUNTED_BYTES 30000
static const unsigned counted_launches[][2] = {{2, 64}, {3, 33}, {4, 256}, {2, 1024}};
#define COUNTED_LAUNCHES ((int)(sizeof counted_launches / sizeof counted_launches[0]))

START_TEST(test_every_byte_counted_with_one_local_atomic_add)
{
    const unsigned groups = counted_launches[_i][0], items = counted_launches[_i][1];
    char args[256];
    snprintf(args, sizeof args, "--size %d --reps 1 --blocks %u --threads %u", COUNTED_BYTES,
             groups, items);
    struct kernel_counts k;
    count_kernel("", args, &k);
    ck_assert_msg(k.found, "oclgrind --inst-counts ./local_histogram %s: no instruction counts",
                  args);
    ck_assert_msg(k.local_exchanges == 0,
                  "oclgrind --inst-counts ./local_histogram %s: %llu atomic exchanges (or stores) "
                  "on local memory: a count read, then written back, loses the increments that "
                  "other work-items make in between; a count needs one atomic add",
                  args, k.local_exchanges);
    ck_assert_msg(k.local_adds == COUNTED_BYTES,
                  "oclgrind --inst-counts ./local_histogram %s: %llu atomic adds on local memory "
                  "for %d bytes, expected %d: each byte counted once, atomically, into the "
                  "work-group's local histogram, whatever the launch's shape",
                  args, k.local_adds, COUNTED_BYTES, COUNTED_BYTES);
    ck_assert_msg(k.global_atomics <= (unsigned long long)BINS * groups,
                  "oclgrind --inst-counts ./local_histogram %s: %llu atomics on the global bins, "
                  "expected at most %u (the merge: 256 per work-group); the counting belongs in "
                  "local memory, whatever the launch's shape",
                  args, k.global_atomics, BINS * groups);
    ck_assert_msg(k.global_load_bytes == COUNTED_BYTES,
                  "oclgrind --inst-counts ./local_histogram %s: the kernel loads %llu bytes of "
                  "global memory for %d bytes of input, expected each byte once and nothing else "
                  "(the merge reads no global bin: it adds to it with an atomic)",
                  args, k.global_load_bytes, COUNTED_BYTES);
}
END_TEST

/* Small inputs: Oclgrind simulates every work-item. One work-group and
 * several; a work-group of 1, of 64 (zeroing and merging in four strides),
 * of 32 and 16 (a plain ++ in groups "small enough to run in lockstep" is a
 * race too: nothing makes a work-group a warp), of 256, of 512 (half its
 * work-items have no bin: a barrier behind "if (get_local_id(0) < BINS)" is
 * reached by half the group); sizes 0, 1 and 257, and work-groups with no
 * byte at all; and 1024, the largest. */
static const char *const race_launches[] = {
    "--size 3000 --reps 1 --blocks 1 --threads 64", "--size 3000 --reps 1 --blocks 3 --threads 64",
    "--size 3000 --reps 1 --blocks 2 --threads 32", "--size 3000 --reps 1 --blocks 3 --threads 16",
    "--size 257 --reps 1 --blocks 2 --threads 256", "--size 257 --reps 1 --blocks 2 --threads 1",
    "--size 1 --reps 1 --blocks 2 --threads 64", "--size 0 --reps 1 --blocks 2 --threads 64",
    "--size 3000 --reps 1 --blocks 2 --threads 512",
    /* groups narrower than a SIMD vector: no lockstep is promised there either */
    "--size 3000 --reps 1 --blocks 3 --threads 8", "--size 3000 --reps 1 --blocks 2 --threads 2",
    /* the largest work-group the program takes: 768 of its items have no bin */
    "--size 3000 --reps 1 --blocks 2 --threads 1024"};
#define RACE_LAUNCHES ((int)(sizeof race_launches / sizeof race_launches[0]))

START_TEST(test_no_races_under_oclgrind)
{
    check_no_races(race_launches[_i]);
}
END_TEST

/* ----------------------------------- the check's own host, under Oclgrind -- */

/* The bytes the starter's loop (work-item g of G counts bytes g, g + G, ...)
 * gives the first and the last work-group, which `oclgrind --quick` runs. */
static unsigned long long first_and_last_groups_bytes(unsigned long long size,
                                                      unsigned long long groups,
                                                      unsigned long long items)
{
    const unsigned long long global = groups * items;
    unsigned long long bytes = 0;
    for (unsigned long long g = 0; g < global; g = g + 1 == items ? global - items : g + 1)
        bytes += g < size ? (size - g + global - 1) / global : 0;
    return bytes;
}

enum { COUNTED, MOST }; /* its counts: the bytes counted; the most merge atomics by one work-item */

static char quick_program[4096]; /* check_local_histogram_quick.c, built beside the check */

/* The check's own host under Oclgrind (run_quick_host, common/tests), on the
 * kernel beside the program. */
static void run_quick(const char *oclgrind_flags, unsigned long long size,
                      unsigned long long groups, unsigned long long items, bool watch,
                      struct quick_run *q)
{
    static const char *const labels[] = {"counted", "most merge atomics by one work-item:"};
    run_quick_host(quick_program, oclgrind_flags, size, groups, items, watch, labels, 1 + watch, q);
}

/* Past 2^31 bytes an int no longer holds every byte position, and near 4 GiB
 * (the largest input the program takes is 4 GiB - 1 bytes) i + stride on a
 * work-item's last step passes 2^32: a 32-bit unsigned index wraps to a
 * small number, still below the size, and the walk starts over. A whole run
 * near 4 GiB takes PoCL a minute, so the check runs the kernel under
 * `oclgrind --quick`, which runs only the first and the last work-group, on
 * 4 GiB - 8 MiB bytes in 65408 work-groups of 256 (2^24 - 2^15 work-items,
 * each with exactly 256 bytes): the last step of every work-item from 2^23
 * on passes 2^32, the last work-group's all. The size is this large because
 * the mistakes need it: Oclgrind's buffer costs a few seconds. The kernel
 * keeps the starter's loop, where work-item g counts bytes g, g + G, g + 2G,
 * ... for G work-items in all; so the two work-groups must count exactly the
 * bytes that loop gives them, each once, up to the end of the input. */
START_TEST(test_bytes_past_2_gib_counted_by_the_first_and_last_work_groups)
{
    const unsigned long long size = (1ull << 32) - (1ull << 23), groups = 65408, items = 256;
    const unsigned long long expected = first_and_last_groups_bytes(size, groups, items);
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick --global-mem-size 4294967295", size, groups, items, false, q);
    ck_assert_msg(q->count[COUNTED] == expected,
                  "%s: the first and the last work-group counted %llu bytes, expected %llu, the "
                  "bytes the starter's loop gives them, each once, up to the end of the input "
                  "(an index that cannot hold every position stops past 2^31, or wraps past "
                  "2^32 and starts over)%s%s",
                  q->command, q->count[COUNTED], expected, *q->said ? "; Oclgrind says: " : "",
                  q->said);
    free(q);
}
END_TEST

/* More than 2^24 work-groups: 2^24 + 1 of one work-item each, on 2^24 + 2
 * bytes, under `oclgrind --quick`. With the starter's loop (work-item g of
 * G counts bytes g, g + G, ...), the first work-group counts bytes 0 and
 * 2^24 + 1 and the last one byte 2^24: 3 bytes. The check's host builds the
 * kernel with mad24 and mul24 that keep the low 24 bits of each factor, as a
 * device with 24-bit multipliers does: a work-item number or a grid size
 * worked out with them gives the last work-group number 0 and a stride of 1,
 * and the two work-groups count every byte, 2 x (2^24 + 2) = 33554436.
 * Then 2^24 + 1 work-groups of 256, 2^32 + 256 work-items (the program takes
 * --blocks up to 2^31 - 1 of up to 1024), on 300 bytes: the first work-group
 * counts bytes 0 to 255, once each, and the last none. A work-item number or
 * a stride kept in 32 bits wraps there: item 2^32 + g starts at byte g, which
 * item g counts too, or the stride becomes 256 and the walk goes on. */
static const unsigned long long many_launches[][3] = {
    {(1ull << 24) + 1, 1, (1ull << 24) + 2}, /* work-groups, work-items in each, bytes */
    {(1ull << 24) + 1, 256, 300}};
#define MANY_LAUNCHES ((int)(sizeof many_launches / sizeof many_launches[0]))

START_TEST(test_more_than_2_to_the_24_work_groups_count_their_own_bytes)
{
    const unsigned long long groups = many_launches[_i][0], items = many_launches[_i][1],
                             size = many_launches[_i][2];
    const unsigned long long expected = first_and_last_groups_bytes(size, groups, items);
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick", size, groups, items, false, q);
    ck_assert_msg(q->count[COUNTED] == expected,
                  "%s: the first and the last of %llu work-groups of %llu counted %llu bytes, "
                  "expected %llu, the bytes the starter's loop gives them (a work-item's number "
                  "or the grid's size worked out with mad24 or mul24, exact only below 2^24, is "
                  "wrong past 2^24 work-groups on a device that multiplies 24 bits; one kept in "
                  "32 bits wraps past 2^32 work-items)%s%s",
                  q->command, groups, items, q->count[COUNTED], expected,
                  *q->said ? "; Oclgrind says: " : "", q->said);
    free(q);
}
END_TEST

/* The starter's merge is shared by the work-group, each work-item adding
 * every get_local_size(0)-th bin: it has no race and needs nothing new. A
 * merge done by fewer work-items gives the same bins, one after another. The
 * check's host counts the global atomics of each work-item (its watch). */
static const unsigned long long merge_items[] = {64, 33};
#define MERGE_LAUNCHES ((int)(sizeof merge_items / sizeof merge_items[0]))

START_TEST(test_the_merge_is_shared_by_the_work_group)
{
    const unsigned long long groups = 2, items = merge_items[_i];
    const unsigned long long share = (BINS + items - 1) / items; /* bins per work-item */
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("", 3000, groups, items, true, q);
    ck_assert_msg(q->count[COUNTED] == 3000, "%s: counted %llu bytes of 3000", q->command,
                  q->count[COUNTED]);
    ck_assert_msg(q->count[MOST] <= groups * share,
                  "%s: one work-item made %llu atomic adds on the global bins in %llu "
                  "work-groups of %llu, expected at most %llu per work-group (%d bins shared by "
                  "%llu work-items): the starter's merge, shared by the whole work-group, had "
                  "no race and needed nothing new (hint 2)",
                  q->command, q->count[MOST], groups, items, share, BINS, items);
    free(q);
}
END_TEST

/* The starter's zeroing is shared by the work-group too, each work-item
 * zeroing the bins it merges (every get_local_size(0)-th from its own id): it
 * had no race and needed nothing new. A zeroing done by fewer work-items
 * gives the same bins, after 256 stores by one of them. The check's host
 * builds the kernel with every barrier made into nothing (its
 * CHECK_WITHOUT_BARRIERS) and runs one work-group on 0 bytes under
 * `oclgrind --data-races`: then each local bin is touched only where it is
 * zeroed and where it is merged, and Oclgrind reports a bin zeroed by one
 * work-item and merged by another, with no barrier between them. */
static const unsigned long long zeroing_items[] = {256, 64, 33};
#define ZEROING_LAUNCHES ((int)(sizeof zeroing_items / sizeof zeroing_items[0]))

START_TEST(test_the_zeroing_is_shared_by_the_work_group)
{
    const unsigned long long items = zeroing_items[_i];
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--data-races --max-errors 4 --build-options -DCHECK_WITHOUT_BARRIERS", 0, 1, items,
              false, q);
    ck_assert_msg(!strstr(q->said, "data race"),
                  "%s: with every barrier taken out, on 0 bytes in one work-group of %llu, a "
                  "local bin is zeroed by one work-item and merged by another: the starter's "
                  "zeroing, shared by the work-group as its merge is (each work-item the bins "
                  "from its own id on, every %llu-th), had no race and needed nothing new "
                  "(hint 2); Oclgrind says:\n%s",
                  q->command, items, items, q->said);
    free(q);
}
END_TEST

/* ----------------------------------------- the given program's contract -- */

/* With no option but --size, the program runs what --help says: uniform data
 * of seed 1, the median of 10 runs, and the book's launch, two work-groups
 * per compute unit (what --blocks-per-sm 2 asks for) of 256 work-items; with
 * no --size either, 100 MiB (one run, to save the time of ten). */
START_TEST(test_the_defaults_are_the_ones_help_gives)
{
    struct stage_output o, book;
    run_stage("--size 100000", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--size 100000: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    run_stage("--size 100000 --reps 1 --blocks-per-sm 2 --threads 256", &book);
    ck_assert_msg(book.exit_status == 0,
                  "--size 100000 --reps 1 --blocks-per-sm 2 --threads 256: "
                  "%s, stderr: %s",
                  exit_meaning(&book), book.err);
    char got[256], expected[256];
    report_value(o.out, "input:", got, sizeof got);
    ck_assert_msg(strcmp(got, "uniform, 100000 bytes, seed 1") == 0,
                  "--size 100000 (no --data, no --seed): the input line reads '%s', expected "
                  "'uniform, 100000 bytes, seed 1' (the defaults --help gives)",
                  got);
    report_value(o.out, "launch:", got, sizeof got);
    report_value(book.out, "launch:", expected, sizeof expected);
    ck_assert_msg(*expected && strcmp(got, expected) == 0,
                  "--size 100000 (no --blocks, no --threads): the launch line reads '%s', "
                  "expected '%s', the book's launch that --help gives (2 work-groups per compute "
                  "unit, as --blocks-per-sm 2, of 256 work-items)",
                  got, expected);
    ck_assert_msg(strstr(o.out, "(median of 10 runs") != NULL,
                  "--size 100000 (no --reps): expected the median of 10 runs, as --help says; "
                  "got: %s",
                  o.out);
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--reps 1: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    report_value(o.out, "input:", got, sizeof got);
    ck_assert_msg(strcmp(got, "uniform, 104857600 bytes, seed 1") == 0,
                  "--reps 1 (no --size): the input line reads '%s', expected 'uniform, "
                  "104857600 bytes, seed 1' (100M, the default --help gives)",
                  got);
}
END_TEST

/* --csv prints a header and one row, and nothing else: no report line. */
START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 3000 --reps 1 --csv", 2);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("13_barriers", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(quick_program, sizeof quick_program, "%s/local_histogram-quick", dirname(here));
    Suite *suite = suite_create("exercise 13: barriers and local atomics, found with Oclgrind");
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    TCase *counts = exercise_tcase("the right histogram on this device", 1);
    tcase_set_timeout(counts, 120);
    tcase_add_loop_test(counts, test_matches_reference_on_every_size, 0, SIZES * KINDS);
    tcase_add_loop_test(counts, test_matches_reference_past_2_to_the_24, 0, LARGE_SIZES);
    add_if_runnable(suite, counts, SIZES * KINDS + LARGE_SIZES);

    TCase *local = exercise_tcase("the private histogram in local memory", 3);
    tcase_add_test(local, test_the_private_histogram_is_in_local_memory);
    add_if_runnable(suite, local, 1);

    TCase *races = exercise_tcase("no races, under Oclgrind", 2);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_races_under_oclgrind, 0, RACE_LAUNCHES);
    add_if_oclgrind(suite, races, RACE_LAUNCHES, true, NULL);

    TCase *counted = exercise_tcase(
        "every byte counted with one atomic add in local memory, by Oclgrind's counts", 3);
    tcase_set_timeout(counted, 300);
    tcase_add_loop_test(counted, test_every_byte_counted_with_one_local_atomic_add, 0,
                        COUNTED_LAUNCHES);
    add_if_oclgrind(suite, counted, COUNTED_LAUNCHES, true, NULL);

    TCase *past = exercise_tcase(
        "bytes past 2 GiB and near 4 GiB, counted once by the first and last work-groups "
        "(oclgrind --quick)",
        0);
    tcase_set_timeout(past, 2 * QUICK_HOST_SECONDS);
    tcase_add_test(past, test_bytes_past_2_gib_counted_by_the_first_and_last_work_groups);
    /* Oclgrind zeroes the whole buffer: about 4 GiB of host memory at its peak */
    add_if_oclgrind(suite, past, 1, have_memory_for(0, (size_t)5 << 30), memory_missing());

    TCase *many = exercise_tcase("more than 2^24 work-groups, the first and last counting their "
                                 "own bytes (oclgrind --quick)",
                                 0);
    tcase_set_timeout(many, 2 * QUICK_HOST_SECONDS);
    tcase_add_loop_test(many, test_more_than_2_to_the_24_work_groups_count_their_own_bytes, 0,
                        MANY_LAUNCHES);
    add_if_oclgrind(suite, many, MANY_LAUNCHES, true, NULL);

    TCase *merge = exercise_tcase("the merge still shared by the work-group (watched under "
                                  "Oclgrind)",
                                  2);
    tcase_set_timeout(merge, 2 * QUICK_HOST_SECONDS);
    tcase_add_loop_test(merge, test_the_merge_is_shared_by_the_work_group, 0, MERGE_LAUNCHES);
    add_if_oclgrind(suite, merge, MERGE_LAUNCHES, true, NULL);

    TCase *zeroing = exercise_tcase("the zeroing still shared by the work-group (watched under "
                                    "Oclgrind, no barriers, 0 bytes)",
                                    2);
    tcase_set_timeout(zeroing, 2 * QUICK_HOST_SECONDS);
    tcase_add_loop_test(zeroing, test_the_zeroing_is_shared_by_the_work_group, 0, ZEROING_LAUNCHES);
    add_if_oclgrind(suite, zeroing, ZEROING_LAUNCHES, true, NULL);

    TCase *sizes_tc = exercise_tcase("every work-group size", 3);
    tcase_set_timeout(sizes_tc, 120);
    tcase_add_loop_test(sizes_tc, test_every_launch_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, sizes_tc, LAUNCHES);

    TCase *contract_tc = exercise_tcase("the given program's defaults and --csv, kept", 0);
    tcase_set_timeout(contract_tc, 60);
    tcase_add_test(contract_tc, test_the_defaults_are_the_ones_help_gives);
    tcase_add_test(contract_tc, test_csv_prints_only_csv);
    add_if_runnable(suite, contract_tc, 2);
    return run_exercise(suite);
}
