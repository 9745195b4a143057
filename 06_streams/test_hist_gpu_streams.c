/*
 * test_hist_gpu_streams.c - every way of 06_streams (pageable, pinned,
 * streams with any number of chunks) brings back the reference histogram, on
 * every size and data kind and past 2 GiB. Skipped without a CUDA device.
 */
#include "stage_checks.h"

#include <string.h>

static const char *const ways[] = {"--variant pageable",
                                   "--variant pinned",
                                   "--variant streams",
                                   "--variant streams --blocks 1",
                                   "--variant streams --blocks 3",
                                   "--variant streams --blocks 1024"};
static const size_t sizes[] = {0, 1, 17, 1000, 1000003};
#define WAYS  6
#define SIZES 5

START_TEST(test_every_way_matches_reference)
{
    int way = _i % WAYS, kind = _i / WAYS % 4, size = _i / WAYS / 4;
    check_matches_reference(sizes[size], (enum data_kind)kind, 600 + (uint64_t)_i, ways[way]);
}
END_TEST

START_TEST(test_threads_are_refused_since_cub_launches)
{
    struct stage_output o;
    run_stage("--threads 64", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "CUB chooses its own launch"), "%s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_streams", argc, argv);
    Suite *suite = suite_create("06_streams");
    int usage_checks = 0, output_checks = 0, matrix_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    add_if_runnable(suite, output_tcase(&output_checks), output_checks);
    TCase *ways_tc = matrix_tcase(&matrix_checks);
    tcase_add_loop_test(ways_tc, test_every_way_matches_reference, 0, WAYS * 4 * SIZES);
    tcase_add_test(ways_tc, test_threads_are_refused_since_cub_launches);
    add_if_runnable(suite, ways_tc, matrix_checks + WAYS * 4 * SIZES + 1);
    return run_suite(suite);
}
