/*
 * test_read_bandwidth.c - the yardstick reads every byte: its XOR matches the
 * CPU's on every size and data kind (odd tails included), with any launch.
 * Without a CUDA device these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <string.h>

START_TEST(test_reads_every_byte_of_every_size)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003, 64 << 20};
    char args[128];
    snprintf(args, sizeof args, "--size %zu --data %s --reps 1 --csv", sizes[_i / 4],
             data_kind_name((enum data_kind)(_i % 4)));
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, ",read-bandwidth,") && strstr(o.out, ",yes\n"), "%s: %s", args,
                  o.out);
}
END_TEST

START_TEST(test_any_launch_reads_every_byte)
{
    static const char *const launches[] = {"--blocks 1 --threads 32", "--threads 1000",
                                           "--blocks-per-sm 1"};
    char args[128];
    snprintf(args, sizeof args, "--size 1000003 --reps 1 --csv %s", launches[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && strstr(o.out, ",yes\n"), "%s: %s %s", args, o.out, o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("read_bandwidth", argc, argv);
    Suite *suite = suite_create("read_bandwidth");
    int usage_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_loop_test(gpu, test_reads_every_byte_of_every_size, 0, 40);
    tcase_add_loop_test(gpu, test_any_launch_reads_every_byte, 0, 3);
    add_if_runnable(suite, gpu, 43);
    return run_suite(suite);
}
