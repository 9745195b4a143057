/*
 * test_hist_gpu_streams.c - every way of 06_streams brings back the reference
 * histogram: from page-locked memory (pinned, streams with any number of
 * chunks) and from the user's malloc'd buffer (pageable, pinned-staged,
 * alloc-staged, registered, streams-staged), on sizes around the chunks' and
 * a page's edges, with every data kind, and past 2 GiB. Each way runs alone,
 * so that a staging buffer holds only what that way's own copies put there.
 * Skipped without a CUDA device.
 */
#include "stage_checks.h"

#include <string.h>

static const char *const ways[] = {"--variant pageable",
                                   "--variant pinned",
                                   "--variant streams",
                                   "--variant streams --chunks 1",
                                   "--variant streams --chunks 3",
                                   "--variant streams --chunks 1024",
                                   "--variant pinned-staged",
                                   "--variant alloc-staged",
                                   "--variant registered",
                                   "--variant streams-staged",
                                   "--variant streams-staged --chunks 1",
                                   "--variant streams-staged --chunks 3",
                                   "--variant streams-staged --chunks 1024"};
/* 0: nothing to copy or pin; 1, 9, 17: 8 chunks with empty ones at the end
 * (9: four of 2 bytes, one of 1, three empty); 1000: 1024 chunks of 1 byte or
 * none; 4097: one byte into a second page; 1000003: a prime, and a buffer that
 * malloc maps on its own. */
static const size_t sizes[] = {0, 1, 9, 17, 1000, 4097, 1000003};
#define WAYS  ((int)(sizeof ways / sizeof ways[0]))
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_every_way_matches_reference)
{
    int way = _i % WAYS, kind = matrix_value(_i, 4, WAYS), size = matrix_value(_i, SIZES, WAYS * 4);
    check_matches_reference(sizes[size], (enum data_kind)kind, 600 + (uint64_t)_i, ways[way]);
}
END_TEST

/* The ways that start from the user's buffer index it, the staging buffer and
 * the chunks with size_t: past 2 GiB, alone (the matrix runs them all at once). */
static const char *const ways_from_malloc[] = {"--variant pinned-staged", "--variant alloc-staged",
                                               "--variant registered", "--variant streams-staged"};
#define WAYS_FROM_MALLOC ((int)(sizeof ways_from_malloc / sizeof ways_from_malloc[0]))

START_TEST(test_ways_from_malloc_index_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, ways_from_malloc[_i]);
}
END_TEST

/* cudaHostRegister gets the input's buffer as malloc returned it, which is not
 * on a page boundary: glibc's 16-byte header comes first, so a buffer mapped on
 * its own starts 16 bytes into a page, and one from the heap wherever there is
 * room; the sizes are a byte, a page, a byte either side of one, and 64 KiB + 1.
 * CUDA 4.0 refused such ranges; the program must not. */
START_TEST(test_registered_takes_buffers_that_are_not_page_aligned)
{
    const size_t unaligned[] = {1, 4095, 4096, 4097, 65537};
    for (int i = 0; i < 5; i++)
        check_matches_reference(unaligned[i], DATA_SKEWED, 40 + (uint64_t)i,
                                "--variant registered");
}
END_TEST

/* A zero-byte range cannot be registered; an empty input has nothing to pin. */
START_TEST(test_registered_pins_nothing_for_an_empty_input)
{
    struct stage_output o;
    run_stage("--size 0 --reps 2 --variant registered", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.has_sum && o.sum == 0, "sum: %s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_a_launch_is_refused_since_cub_launches)
{
    static const char *const launches[] = {"--threads 64", "--blocks 16", "--blocks-per-sm 2"};
    for (int i = 0; i < 3; i++) {
        struct stage_output o;
        run_stage(launches[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s", launches[i], exit_meaning(&o));
        ck_assert_msg(strstr(o.err, "CUB chooses its own launch"), "%s: %s", launches[i], o.err);
    }
    /* and --help does not offer them: it lists --chunks, and says why below the options */
    struct stage_output help;
    run_stage("--help", &help);
    const char *own = strstr(help.out, "In hist_gpu_streams:");
    ck_assert_msg(help.exit_status == 0 && own && strstr(help.out, "--chunks N"), "%s", help.out);
    for (int i = 0; i < 3; i++) {
        char option[32];
        snprintf(option, sizeof option, "%.*s ", (int)strcspn(launches[i], " "), launches[i]);
        const char *listed = strstr(help.out, option);
        ck_assert_msg(!listed || listed > own, "--help lists %s: %s", option, help.out);
    }
}
END_TEST

/* --chunks N: 1 to 1024 chunks, and nothing else. */
START_TEST(test_chunks_out_of_range_are_refused)
{
    static const char *const bad[] = {"--chunks 0", "--chunks 1025", "--chunks many", "--chunks"};
    static const char *const reasons[] = {
        "--chunks: 0 is out of range (1 to 1024)", "--chunks: 1025 is out of range (1 to 1024)",
        "--chunks: 'many' is not a whole number", "--chunks needs a value"};
    for (int i = 0; i < 4; i++) {
        struct stage_output o;
        run_stage(bad[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s", bad[i], exit_meaning(&o));
        ck_assert_msg(strstr(o.err, reasons[i]), "%s: %s", bad[i], o.err);
    }
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_streams", argc, argv);
    Suite *suite = suite_create("06_streams");
    int usage_checks = 0, output_checks = 0, matrix_checks = 0;
    TCase *usage_tc = usage_tcase(true, &usage_checks);
    tcase_add_test(usage_tc, test_a_launch_is_refused_since_cub_launches);
    tcase_add_test(usage_tc, test_chunks_out_of_range_are_refused);
    add_tcase(suite, usage_tc, usage_checks + 2);
    TCase *output_tc = output_tcase(&output_checks); /* before add_if_runnable reads the count */
    add_if_runnable(suite, output_tc, output_checks);
    TCase *ways_tc = matrix_tcase(&matrix_checks);
    /* make test: each way once, the data kinds and sizes in turn */
    int matrix = cases(WAYS * 4 * SIZES, WAYS);
    tcase_add_loop_test(ways_tc, test_every_way_matches_reference, 0, matrix);
    int past_2_gib = cases(WAYS_FROM_MALLOC, 0);
    tcase_add_loop_test(ways_tc, test_ways_from_malloc_index_past_2_gib, 0, past_2_gib);
    tcase_add_test(ways_tc, test_registered_takes_buffers_that_are_not_page_aligned);
    tcase_add_test(ways_tc, test_registered_pins_nothing_for_an_empty_input);
    add_if_runnable(suite, ways_tc, matrix_checks + matrix + past_2_gib + 2);
    return run_suite(suite);
}
