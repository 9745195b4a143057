/*
 * test_hist_gpu_shmem_atomics.c - 03_shared_atomics gives the reference histogram on every size and
 * data kind, with the book's launch and with any other shape, and past 2 GiB;
 * bad usage exits 2. The checks live in common/tests/stage_checks.c, shared by
 * every GPU stage; without a CUDA device the GPU checks are reported as skipped.
 * Here, besides: both variants, interleaved (the book's kernel) and contiguous,
 * on sizes around the grid's thread count and on every data kind, and the
 * contiguous slices themselves, checked on the CPU, which runs everywhere.
 */
#include "contiguous_slice.h"
#include "stage_checks.h"

#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------- the slices, on the CPU -- */

/* The slices of threads threads must tile [0, size) in thread order: the first
 * starts at 0, each starts where the one before ended, the last ends at size.
 * And they must share the work out: every slice that stops short of the end is
 * ceil(size / threads) long (worked out here another way), so that no thread
 * is left with more than its share. */
static void check_slices_tile(size_t size, size_t threads)
{
    size_t share = size / threads + (size % threads ? 1 : 0), next = 0;
    for (size_t t = 0; t < threads; t++) {
        struct slice s = contiguous_slice(size, threads, t);
        /* Millions of slices: Check's asserts, which log every pass, only on a failure. */
        if (s.first != next || s.end < s.first || s.end > size ||
            (s.end != size && s.end - s.first != share))
            ck_abort_msg("size %zu, %zu threads: thread %zu has [%zu, %zu); want it to start at "
                         "%zu, end by %zu, and hold %zu bytes unless it ends the input",
                         size, threads, t, s.first, s.end, next, size, share);
        next = s.end;
    }
    ck_assert_msg(next == size, "size %zu, %zu threads: the slices end at %zu", size, threads,
                  next);
}

/* Grids a student will launch: one thread, a warp and a bit, odd block sizes,
 * the book's launch and 8 blocks per SM on a 132-SM GPU (264 x 256, 1056 x 256),
 * and 100000 blocks of 32. */
static const size_t slice_threads[] = {1,   2,   3,    31,   32,    33,     99,     255,
                                       256, 257, 1000, 1024, 67584, 270336, 3200000};
#define SLICE_THREADS ((int)(sizeof slice_threads / sizeof slice_threads[0]))

/* Around powers of two, a prime, the book's 100 MiB, and past 2^31 up to the
 * largest input a program takes, where t * length no longer fits an int. */
#define TWO_GIB ((size_t)1 << 31)
static const size_t slice_sizes[] = {
    0,   1,       31,           32,          33,      255,         256,
    257, 1000003, DEFAULT_SIZE, TWO_GIB - 1, TWO_GIB, TWO_GIB + 5, MAX_INPUT_BYTES};
#define SLICE_SIZES ((int)(sizeof slice_sizes / sizeof slice_sizes[0]))

START_TEST(test_contiguous_slices_tile_the_input_exactly)
{
    size_t threads = slice_threads[_i];
    for (int i = 0; i < SLICE_SIZES; i++)
        check_slices_tile(slice_sizes[i], threads);
    /* One byte a thread and two, give or take one (below one: threads with
     * nothing to do), and a multiple of the grid near the largest input. */
    for (size_t per_thread = 1; per_thread <= 2; per_thread++)
        for (size_t size = per_thread * threads - 1; size <= per_thread * threads + 1; size++)
            check_slices_tile(size, threads);
    check_slices_tile(MAX_INPUT_BYTES / threads * threads, threads);
}
END_TEST

/* ------------------------------------------------------------- the variants -- */

START_TEST(test_a_bad_variant_name_exits_2_with_a_one_line_reason)
{
    struct stage_output o;
    run_stage("--variant diagonal", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    char *first_newline = strchr(o.err, '\n');
    ck_assert_msg(first_newline != NULL, "nothing on stderr");
    *first_newline = '\0';
    ck_assert_msg(strstr(o.err, "--variant: 'diagonal' is not a variant of hist_gpu_shmem_atomics"),
                  "reason: %s", o.err);
    ck_assert_msg(strstr(first_newline + 1, "usage:"), "no usage after the reason");
    ck_assert_msg(o.out[0] == '\0', "printed on stdout: %s", o.out);
}
END_TEST

START_TEST(test_help_names_the_variants_and_the_default)
{
    struct stage_output o;
    run_stage("--help", &o);
    ck_assert_int_eq(o.exit_status, 0);
    ck_assert_msg(strstr(o.out, "interleaved (default), contiguous, all"), "help: %s", o.out);
}
END_TEST

static const char *const variants[] = {"interleaved", "contiguous"};
#define VARIANTS 2
#define SIZES    12

/* The threads of the program's default grid (blocks x threads), which
 * main reads from the program before the suite runs: sizes around it are
 * where a contiguous slice rounds differently. */
static size_t grid_threads;

START_TEST(test_each_variant_matches_reference_around_the_grid)
{
    size_t t = grid_threads;
    const size_t sizes[SIZES] = {0, 1, 31, 32, 33, 255, 256, 257, t - 1, t, t + 1, 1000003};
    int variant = _i % VARIANTS, kind = matrix_value(_i, 4, VARIANTS);
    int size = matrix_value(_i, SIZES, VARIANTS * 4);
    char args[64];
    snprintf(args, sizeof args, "--variant %s", variants[variant]);
    check_matches_reference(sizes[size], (enum data_kind)kind, 300 + (uint64_t)_i, args);
}
END_TEST

/* Grids that change the slices: one block (long slices), 33 threads a block
 * (warps that straddle blocks), more threads than bytes (most slices empty). */
static const char *const contiguous_launches[] = {
    /* make test takes the first three */
    "--variant contiguous --blocks 1",
    "--variant contiguous --threads 33",
    "--variant contiguous --blocks 100000 --threads 32",
    "--variant contiguous --threads 1000",
    "--variant contiguous --blocks 1 --threads 1024",
    "--variant contiguous --blocks-per-sm 16",
};
#define CONTIGUOUS_LAUNCHES ((int)(sizeof contiguous_launches / sizeof contiguous_launches[0]))

START_TEST(test_contiguous_matches_reference_on_other_grids)
{
    check_matches_reference(1000003, DATA_UNIFORM, 27, contiguous_launches[_i]);
    check_matches_reference(257, DATA_CONSTANT, 28, contiguous_launches[_i]);
}
END_TEST

/* A grid of 3 x 33 = 99 threads, and sizes on either side of 1 and 2 bytes each. */
START_TEST(test_contiguous_matches_reference_around_a_small_grid)
{
    const size_t sizes[] = {50, 98, 99, 100, 197, 198, 199};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_matches_reference(sizes[i], DATA_SKEWED, 40 + i,
                                "--variant contiguous --blocks 3 --threads 33");
}
END_TEST

/* Whether the CSV line that starts after row (a newline) ends in ",yes". */
static bool row_verified(const char *row)
{
    const char *end = strchr(row + 1, '\n');
    return end && end - row > 4 && strncmp(end - 4, ",yes", 4) == 0;
}

/* The default is the book's kernel alone, reported as before the variants
 * came (one report, one CSV row, under the name every recorded result gives
 * it); all prints a row per kernel, each verified. */
START_TEST(test_default_is_the_books_kernel_and_all_runs_both)
{
    struct stage_output o;
    run_stage("--size 4096 --reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, "\nimpl:       shared-atomics\n"), "%s", o.out);
    run_stage("--size 4096 --reps 1 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    const char *row = strstr(o.out, "\n03_shared_atomics,shared-atomics,");
    ck_assert_msg(row && row_verified(row) && !strchr(strchr(row + 1, '\n') + 1, '\n'),
                  "want the header and one verified row: %s", o.out);

    run_stage("--size 4096 --reps 1 --csv --variant all", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    const char *book = strstr(o.out, "\n03_shared_atomics,shared-atomics,");
    const char *contiguous = strstr(o.out, "\n03_shared_atomics,contiguous,");
    ck_assert_msg(book && contiguous && book < contiguous, "rows: %s", o.out);
    ck_assert_msg(row_verified(book) && row_verified(contiguous), "not verified: %s", o.out);

    check_matches_reference(1000003, DATA_SKEWED, 31, "--variant all");
}
END_TEST

/* Thread t * slice length passes 2^31 here: size_t, or a wrong histogram. */
START_TEST(test_contiguous_indexing_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 19, "--variant contiguous");
}
END_TEST

/* The default grid's thread count, from the report's launch line. */
static size_t read_grid_threads(void)
{
    struct stage_output o;
    run_stage("--size 1 --reps 1", &o);
    const char *launch = strstr(o.out, "launch:");
    long blocks = 0;
    int threads = 0;
    if (!launch || sscanf(launch, "launch: %ld blocks x %d threads", &blocks, &threads) != 2 ||
        blocks < 1 || threads < 1) {
        fprintf(stderr, "cannot read the default launch from: %s%s", o.out, o.err);
        exit(EXIT_FAILED);
    }
    return (size_t)blocks * (size_t)threads;
}

int main(int argc, char **argv)
{
    set_stage("03_shared_atomics", argc, argv);
    Suite *suite = gpu_stage_suite();

    TCase *everywhere = tcase_create("slices and variant names");
    tcase_add_loop_test(everywhere, test_contiguous_slices_tile_the_input_exactly, 0,
                        SLICE_THREADS);
    tcase_add_test(everywhere, test_a_bad_variant_name_exits_2_with_a_one_line_reason);
    tcase_add_test(everywhere, test_help_names_the_variants_and_the_default);
    suite_add_tcase(suite, everywhere);

    TCase *variants_tc = tcase_create("variants");
    tcase_set_timeout(variants_tc, 600);
    /* make test: every size once, the variants and kinds in turn; three grids;
     * past 2 GiB (the shared matrix has it for the book's kernel) in test-full */
    int around = cases(VARIANTS * 4 * SIZES, SIZES);
    tcase_add_loop_test(variants_tc, test_each_variant_matches_reference_around_the_grid, 0,
                        around);
    int grids = cases(CONTIGUOUS_LAUNCHES, 3);
    tcase_add_loop_test(variants_tc, test_contiguous_matches_reference_on_other_grids, 0, grids);
    tcase_add_test(variants_tc, test_contiguous_matches_reference_around_a_small_grid);
    tcase_add_test(variants_tc, test_default_is_the_books_kernel_and_all_runs_both);
    int past_2_gib = cases(1, 0);
    if (past_2_gib)
        tcase_add_test(variants_tc, test_contiguous_indexing_past_2_gib);
    int checks = around + grids + 2 + past_2_gib;
    if (can_run_stage())
        grid_threads = read_grid_threads();
    add_if_runnable(suite, variants_tc, checks);
    return run_suite(suite);
}
