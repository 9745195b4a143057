/*
 * test_hist_opencl.c - 04_opencl_port gives the reference histogram on every
 * size, data kind and work-group size from 32 to 1024, on whichever OpenCL
 * device it picks (PoCL's CPU device in CI), and so does its second variant,
 * stage 02's global atomics, on every size and kind; finds its kernel file from any
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

/* What the device takes, found in main before the checks are registered: a
 * device may allow smaller work-groups for this kernel than for others. */
static int allowed_groups[GROUPS], allowed_count;
static size_t past_2_gib; /* a size past 2 GiB that the device's buffers take; 0: none */

START_TEST(test_every_size_kind_and_work_group_size_matches_reference)
{
    int group = _i % allowed_count, kind = matrix_value(_i, KINDS, allowed_count);
    int size = matrix_value(_i, SIZES, allowed_count * KINDS);
    char args[64];
    snprintf(args, sizeof args, "--threads %d", allowed_groups[group]);
    check_matches_reference(sizes[size], (enum data_kind)kind, 300 + (uint64_t)_i, args);
}
END_TEST

/* --variant global-atomics: stage 02's kernel, every size and data kind */
START_TEST(test_global_atomics_match_reference_on_every_size_and_kind)
{
    int kind = _i % KINDS, size = matrix_value(_i, SIZES, KINDS);
    check_matches_reference(sizes[size], (enum data_kind)kind, 700 + (uint64_t)_i,
                            "--variant global-atomics");
}
END_TEST

/* Each variant names itself in the report and the CSV: a lab's rows of the
 * two must not be mixed up. */
START_TEST(test_each_variant_names_its_rows)
{
    struct stage_output o;
    run_stage("--size 1000 --reps 1 --csv --variant global-atomics", &o);
    ck_assert_int_eq(o.exit_status, 0);
    ck_assert_msg(strstr(o.out, ",opencl-global-atomics,") && !strstr(o.out, "local-atomics"), "%s",
                  o.out);
    run_stage("--size 1000 --reps 1 --csv", &o);
    ck_assert_int_eq(o.exit_status, 0);
    ck_assert_msg(strstr(o.out, ",opencl-local-atomics,") && !strstr(o.out, "global-atomics"), "%s",
                  o.out);
}
END_TEST

START_TEST(test_one_work_group_covers_the_whole_input)
{
    check_matches_reference(1000003, DATA_SKEWED, 5, "--blocks 1 --threads 64");
}
END_TEST

/* An int index overflows as it steps past 2^31 - 1: at 2 GiB + 5 bytes, or at
 * exactly 2 GiB where the device's buffers stop there (PoCL's often do). */
START_TEST(test_indexing_past_2_gib)
{
    check_matches_reference(past_2_gib, DATA_UNIFORM, 9, "");
}
END_TEST

START_TEST(test_a_buffer_too_large_for_the_device_is_refused_clearly)
{
    struct stage_output o;
    /* PoCL's CPU device lets a buffer be a quarter of the host's memory, 4 GiB
     * on a 16 GiB machine, where the run below would count 4 GiB on the CPU for
     * minutes; POCL_MEMORY_LIMIT (gigabytes) caps it at 256 MiB, so that the
     * refusal is tested in a moment. Other platforms ignore the variable. */
    setenv("POCL_MEMORY_LIMIT", "1", 1);
    run_stage("--size 4294967295 --reps 1", &o); /* the most any stage takes */
    unsetenv("POCL_MEMORY_LIMIT");
    if (o.exit_status == EXIT_OK) /* this device's buffers hold 4 GiB: nothing to refuse */
        return;
    ck_assert_int_eq(o.exit_status, EXIT_FAILED);
    ck_assert_msg(strstr(o.err, "is larger than the largest buffer"), "%s", o.err);
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
    ck_assert_msg(strstr(o.err, "--platform 99: there"), "%s", o.err);
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

/* Probes the device with quick runs; what it cannot take is skipped, with the reason. */
static void probe_device(int *skipped)
{
    struct stage_output o;
    for (int g = 0; g < GROUPS; g++) {
        char args[64];
        snprintf(args, sizeof args, "--size 1 --reps 1 --threads %d", work_group_sizes[g]);
        run_stage(args, &o);
        if (o.exit_status == EXIT_USAGE && strstr(o.err, "work-items per work-group")) {
            int per_group = full_tests() ? SIZES * KINDS : 1; /* the sample takes about one */
            printf("note: skipping %d check%s with --threads %d: %s", per_group,
                   per_group == 1 ? "" : "s", work_group_sizes[g], o.err);
            *skipped += per_group;
        } else {
            allowed_groups[allowed_count++] = work_group_sizes[g];
        }
    }
    /* The program refuses a too-large buffer before it makes any input (the
     * probe runs the whole size where it fits: make test-full only). */
    const size_t candidates[] = {((size_t)1 << 31) + 5, (size_t)1 << 31};
    for (int c = 0; c < 2 && !past_2_gib && full_tests(); c++) {
        char args[64];
        snprintf(args, sizeof args, "--size %zu --reps 1 --csv", candidates[c]);
        run_stage(args, &o);
        if (!(o.exit_status == EXIT_FAILED && strstr(o.err, "larger than the largest buffer")))
            past_2_gib = candidates[c];
    }
    if (!past_2_gib && full_tests()) {
        printf("note: skipping 1 check past 2 GiB: %s", o.err);
        *skipped += 1;
    }
    fflush(stdout); /* before Check forks, or each child prints these again */
}

int main(int argc, char **argv)
{
    set_stage("04_opencl_port", argc, argv);
    Suite *suite = suite_create("04_opencl_port");
    int usage_checks = 0, output_checks = 0, skipped = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    /* output_tcase counts its checks: call it before their number is read
     * (C leaves the order of a call's arguments unspecified) */
    TCase *output = output_tcase(&output_checks);
    add_if_runnable(suite, output, output_checks);

    TCase *device = tcase_create("device");
    tcase_set_timeout(device, 600);
    int device_checks = 7;
    if (can_run_stage()) {
        probe_device(&skipped);
        add_skipped(skipped);
    } else {
        allowed_count = GROUPS; /* counted as skipped below */
    }
    /* make test: every size once, the kinds and work-group sizes in turn */
    int matrix = cases(SIZES * KINDS * allowed_count, SIZES);
    tcase_add_loop_test(device, test_every_size_kind_and_work_group_size_matches_reference, 0,
                        matrix);
    device_checks += matrix;
    int global_matrix = cases(SIZES * KINDS, SIZES); /* make test: every size, the kinds in turn */
    tcase_add_loop_test(device, test_global_atomics_match_reference_on_every_size_and_kind, 0,
                        global_matrix);
    device_checks += global_matrix + 1;
    tcase_add_test(device, test_each_variant_names_its_rows);
    tcase_add_test(device, test_one_work_group_covers_the_whole_input);
    if (past_2_gib) {
        tcase_add_test(device, test_indexing_past_2_gib);
        device_checks++;
    } else if (!full_tests()) {
        cases(1, 0); /* past 2 GiB: make test-full */
    }
    tcase_add_test(device, test_a_buffer_too_large_for_the_device_is_refused_clearly);
    tcase_add_test(device, test_list_names_every_device_with_its_options);
    tcase_add_test(device, test_a_platform_past_the_list_is_a_usage_error);
    tcase_add_test(device, test_finds_its_kernel_from_another_directory);
    tcase_add_test(device, test_a_missing_kernel_file_is_named);
    tcase_add_test(device, test_a_kernel_that_does_not_compile_prints_the_build_log);
    add_if_runnable(suite, device, device_checks);
    return run_suite(suite);
}
