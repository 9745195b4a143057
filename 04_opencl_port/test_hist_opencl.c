/*
 * test_hist_opencl.c - 04_opencl_port gives the reference histogram on every
 * size, data kind and work-group size from 32 to 1024, on whichever OpenCL
 * device it picks (PoCL's CPU device in CI); finds its kernel file from any
 * working directory; and says why when the kernel is missing or broken.
 * Without any OpenCL device these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const size_t sizes[] = {0, 1, 255, 256, 257, 1000003};
static const int work_group_sizes[] = {32, 64, 128, 256, 512, 1024};
#define SIZES  6
#define GROUPS 6
#define KINDS  4

START_TEST(test_every_size_kind_and_work_group_size_matches_reference)
{
    int group = _i % GROUPS, kind = _i / GROUPS % KINDS, size = _i / GROUPS / KINDS;
    char args[64];
    snprintf(args, sizeof args, "--threads %d", work_group_sizes[group]);
    check_matches_reference(sizes[size], (enum data_kind)kind, 300 + (uint64_t)_i, args);
}
END_TEST

START_TEST(test_one_work_group_covers_the_whole_input)
{
    check_matches_reference(1000003, DATA_SKEWED, 5, "--blocks 1 --threads 64");
}
END_TEST

/* PoCL's CPU device takes buffers of at most 2 GiB: there the program must say
 * so, and exactly 2 GiB (where an int index overflows as it steps past the
 * end) must still be counted right. */
START_TEST(test_indexing_past_2_gib)
{
    const size_t past = ((size_t)1 << 31) + 5;
    struct stage_output o;
    run_stage("--size 2147483653 --reps 1", &o);
    if (o.exit_status == EXIT_FAILED && strstr(o.err, "larger than the largest buffer")) {
        printf("note: %s", o.err);
        check_matches_reference((size_t)1 << 31, DATA_UNIFORM, 9, "");
    } else {
        check_matches_reference(past, DATA_UNIFORM, 9, "");
    }
}
END_TEST

START_TEST(test_list_names_every_device_with_its_options)
{
    struct stage_output o;
    run_stage("--list", &o);
    ck_assert_int_eq(o.exit_status, 0);
    ck_assert_msg(strstr(o.out, "platform 0: ") && strstr(o.out, "--platform 0 --device 0: "), "%s",
                  o.out);
}
END_TEST

START_TEST(test_a_platform_past_the_list_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--platform 99", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--platform 99: there are"), "%s", o.err);
    run_stage("--platform 0 --device 99", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--device 99: platform 0 has"), "%s", o.err);
}
END_TEST

/* Copies the program into a fresh directory, with kernel_source as its
 * histogram.cl (NULL: none), and runs it from a third directory. */
static void run_copy(const char *kernel_source, struct stage_output *o)
{
    char dir[] = "/tmp/opencl_stage_XXXXXX", command[2048];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command, "cp '%s' '%s/'", stage_program(), dir);
    ck_assert_int_eq(system(command), 0);
    if (kernel_source) {
        snprintf(command, sizeof command, "%s/histogram.cl", dir);
        FILE *f = fopen(command, "w");
        ck_assert(f != NULL);
        fputs(kernel_source, f);
        fclose(f);
    }
    char program[PATH_MAX + 64];
    snprintf(program, sizeof program, "%s/hist_opencl", dir);
    set_stage_program(program);
    run_stage("--size 1000 --reps 1", o);
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

START_TEST(test_finds_its_kernel_from_another_directory)
{
    struct stage_output o;
    run_stage_in("/", "--size 1000 --reps 1", &o); /* where no histogram.cl is */
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_a_missing_kernel_file_is_named)
{
    struct stage_output o;
    run_copy(NULL, &o);
    ck_assert_int_eq(o.exit_status, EXIT_FAILED);
    ck_assert_msg(strstr(o.err, "histogram.cl") && strstr(o.err, "cannot open"), "%s", o.err);
}
END_TEST

START_TEST(test_a_kernel_that_does_not_compile_prints_the_build_log)
{
    struct stage_output o;
    run_copy("__kernel void histo_kernel(__global uint *histo) { undeclared_name = 1; }\n", &o);
    ck_assert_int_eq(o.exit_status, EXIT_FAILED);
    ck_assert_msg(strstr(o.err, "does not compile") && strstr(o.err, "undeclared_name"),
                  "stderr: %s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("04_opencl_port", argc, argv);
    Suite *suite = suite_create("04_opencl_port");
    int usage_checks = 0, output_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    add_if_runnable(suite, output_tcase(&output_checks), output_checks);

    TCase *device = tcase_create("device");
    tcase_set_timeout(device, 600);
    tcase_add_loop_test(device, test_every_size_kind_and_work_group_size_matches_reference, 0,
                        SIZES * KINDS * GROUPS);
    tcase_add_test(device, test_one_work_group_covers_the_whole_input);
    tcase_add_test(device, test_indexing_past_2_gib);
    tcase_add_test(device, test_list_names_every_device_with_its_options);
    tcase_add_test(device, test_a_platform_past_the_list_is_a_usage_error);
    tcase_add_test(device, test_finds_its_kernel_from_another_directory);
    tcase_add_test(device, test_a_missing_kernel_file_is_named);
    tcase_add_test(device, test_a_kernel_that_does_not_compile_prints_the_build_log);
    add_if_runnable(suite, device, SIZES * KINDS * GROUPS + 7);
    return run_suite(suite);
}
