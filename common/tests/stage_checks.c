/*
 * stage_checks.c - running a stage's program and checking what it prints.
 */
#include "stage_checks.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *stage_dir = "";
static char program[4096];
static int skipped_checks;
static char skip_reason[512];
static int runnable = -1; /* -1: not probed yet */

void set_stage(const char *dir, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PROGRAM (the %s program to test)\n", argv[0], dir);
        exit(EXIT_FAILED);
    }
    stage_dir = dir;
    /* Absolute, so that the program can be run from any directory. */
    if (!realpath(argv[1], program)) {
        fprintf(stderr, "%s: cannot find %s\n", argv[0], argv[1]);
        exit(EXIT_FAILED);
    }
}

const char *stage_program(void)
{
    return program;
}

void set_stage_program(const char *path)
{
    snprintf(program, sizeof program, "%s", path);
}

void run_stage(const char *args, struct stage_output *o)
{
    run_stage_in(".", args, o);
}

void run_stage_in(const char *dir, const char *args, struct stage_output *o)
{
    memset(o, 0, sizeof *o);
    char err_path[] = "/tmp/stage_err_XXXXXX";
    o->exit_status = -1; /* what the checks see if the program cannot be run at all */
    int err_fd = mkstemp(err_path);
    if (err_fd < 0) {
        snprintf(o->err, sizeof o->err, "mkstemp failed");
        return;
    }
    close(err_fd);

    char command[8192];
    snprintf(command, sizeof command, "cd '%s' && '%s' %s 2>'%s'", dir, program, args, err_path);
    FILE *p = popen(command, "r");
    if (!p) {
        snprintf(o->err, sizeof o->err, "cannot run %.1000s", command);
        unlink(err_path);
        return;
    }
    char line[512];
    size_t used = 0;
    while (fgets(line, sizeof line, p)) {
        size_t len = strlen(line);
        if (used + len < sizeof o->out) {
            memcpy(o->out + used, line, len + 1);
            used += len;
        }
        unsigned bin, count;
        unsigned long long sum;
        char tail;
        if (sscanf(line, "%u: %u%c", &bin, &count, &tail) == 3 && tail == '\n' && bin < BINS) {
            o->bins[bin] = count;
            o->bins_printed++;
        } else if (sscanf(line, "Histogram Sum: %llu", &sum) == 1) {
            o->has_sum = true;
            o->sum = sum;
        } else if (strncmp(line, "verified:   yes", 15) == 0) {
            o->says_verified = true;
        }
    }
    int status = pclose(p);
    o->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

    FILE *err = fopen(err_path, "r");
    if (err) {
        size_t got = fread(o->err, 1, sizeof o->err - 1, err);
        o->err[got] = '\0';
        fclose(err);
    }
    unlink(err_path);
}

void check_matches_reference(size_t size, enum data_kind kind, uint64_t seed,
                             const char *extra_args)
{
    unsigned char *buffer = malloc(size ? size : 1);
    ck_assert_msg(buffer != NULL, "out of memory for %zu bytes", size);
    fill_input(kind, buffer, size, seed);
    unsigned int expected[BINS];
    cpu_histogram(buffer, size, expected);
    free(buffer);

    char args[512];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %llu --reps 1 --bins %s", size,
             data_kind_name(kind), (unsigned long long)seed, extra_args);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s %s: exit %d, stderr: %s", program, args, o.exit_status,
                  o.err);
    ck_assert_msg(o.bins_printed == BINS, "%s %s: printed %d bins", program, args, o.bins_printed);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(o.bins[bin] == expected[bin], "%s %s: bin %d is %u, expected %u", program,
                      args, bin, o.bins[bin], expected[bin]);
    ck_assert_msg(o.has_sum && o.sum == size, "%s %s: Histogram Sum missing or not %zu", program,
                  args, size);
    ck_assert_msg(o.says_verified, "%s %s: no 'verified: yes' line", program, args);
}

/* Around the powers of two where vector and tail code break, and a prime. */
static const size_t matrix_sizes[MATRIX_SIZES] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003};

void check_matrix_case(int i, const char *extra_args)
{
    size_t size = matrix_sizes[i / 4];
    enum data_kind kind = (enum data_kind)(i % 4);
    check_matches_reference(size, kind, 1000 + (uint64_t)i, extra_args);
}

/* ------------------------------------------------------------ usage checks -- */

struct bad_usage {
    const char *args;
    const char *reason; /* what the one-line reason must contain */
};

static const struct bad_usage bad_usages[] = {
    {"--size abc", "--size: 'abc' is not a size"},
    {"--size -5", "--size: '-5' is not a size"},
    {"--size 10X", "--size: '10X' is not a size"},
    {"--size 4G", "too large"},
    {"--size", "--size needs a value"},
    {"--data photo", "--data: 'photo'"},
    {"--reps 0", "--reps: 0 is out of range"},
    {"--threads 5000", "--threads: 5000 is out of range"},
    {"--seed 1e3", "--seed: '1e3'"},
    {"--frobnicate", "unknown option '--frobnicate'"},
    {"leftover", "unexpected argument 'leftover'"},
    {"--file /nonexistent/histogram-input", "cannot open '/nonexistent/histogram-input'"},
    {"--file /tmp --reps 1", "is a directory"},
    /* the shared --bins flag; a stage whose --bins takes a number says so */
    {"--bins --csv", "cannot be combined|--bins needs a value"},
};
#define BAD_USAGES ((int)(sizeof bad_usages / sizeof bad_usages[0]))

START_TEST(test_bad_usage_exits_2_with_a_one_line_reason)
{
    struct stage_output o;
    run_stage(bad_usages[_i].args, &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d, want 2", bad_usages[_i].args,
                  o.exit_status);
    char *first_newline = strchr(o.err, '\n');
    ck_assert_msg(first_newline != NULL, "%s: nothing on stderr", bad_usages[_i].args);
    *first_newline = '\0'; /* the reason is the first line; the usage follows */
    bool found = false; /* the reason, or one of its '|'-separated forms */
    char reasons[128];
    snprintf(reasons, sizeof reasons, "%s", bad_usages[_i].reason);
    for (char *r = strtok(reasons, "|"); r && !found; r = strtok(NULL, "|"))
        found = strstr(o.err, r) != NULL;
    ck_assert_msg(found, "%s: reason '%s' lacks '%s'", bad_usages[_i].args, o.err,
                  bad_usages[_i].reason);
    ck_assert_msg(strstr(first_newline + 1, "usage:") != NULL, "%s: no usage after the reason",
                  bad_usages[_i].args);
    ck_assert_msg(o.out[0] == '\0', "%s: printed on stdout: %s", bad_usages[_i].args, o.out);
}
END_TEST

START_TEST(test_help_prints_usage_and_exits_0)
{
    struct stage_output o;
    run_stage("--help", &o);
    ck_assert_int_eq(o.exit_status, 0);
    ck_assert_msg(strstr(o.out, "usage:") && strstr(o.out, "--size"), "help: %s", o.out);
}
END_TEST

START_TEST(test_grid_options_exist_only_on_gpu_stages)
{
    struct stage_output o;
    run_stage("--blocks 0", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    run_stage("--blocks 4 --blocks-per-sm 2", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
}
END_TEST

START_TEST(test_grid_options_are_rejected_on_cpu_stages)
{
    struct stage_output o;
    run_stage("--blocks 4", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "unknown option '--blocks'"), "stderr: %s", o.err);
}
END_TEST

TCase *usage_tcase(bool gpu_stage, int *checks)
{
    TCase *tc = tcase_create("usage");
    tcase_add_loop_test(tc, test_bad_usage_exits_2_with_a_one_line_reason, 0, BAD_USAGES);
    tcase_add_test(tc, test_help_prints_usage_and_exits_0);
    if (gpu_stage)
        tcase_add_test(tc, test_grid_options_exist_only_on_gpu_stages);
    else
        tcase_add_test(tc, test_grid_options_are_rejected_on_cpu_stages);
    *checks += BAD_USAGES + 2;
    return tc;
}

/* ----------------------------------------------------------- output checks -- */

START_TEST(test_csv_prints_header_and_verified_rows)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --csv", &o);
    ck_assert_int_eq(o.exit_status, 0);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s,", stage_dir);
    int rows = 0; /* one, or one per variant */
    for (char *end; (end = strchr(row, '\n')); row = end + 1, rows++) {
        *end = '\0';
        ck_assert_msg(strncmp(row, prefix, strlen(prefix)) == 0, "row starts wrong: %s", row);
        ck_assert_msg(strstr(row, ",skewed,4096,") != NULL, "data and bytes: %s", row);
        ck_assert_msg(strcmp(end - 4, ",yes") == 0, "not verified: %s", row);
    }
    ck_assert_msg(rows >= 1 && *row == '\0', "rows: %d, then '%s'", rows, row);
}
END_TEST

START_TEST(test_size_zero_sums_to_zero)
{
    struct stage_output o;
    run_stage("--size 0 --reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.has_sum && o.sum == 0, "sum: %s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_file_input_matches_reference)
{
    char path[] = "/tmp/stage_file_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    unsigned char bytes[70001];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * i % 251 + i % 5);
    ck_assert_int_eq(write(fd, bytes, sizeof bytes), (int)sizeof bytes);
    close(fd);
    unsigned int expected[BINS];
    cpu_histogram(bytes, sizeof bytes, expected);

    char args[128];
    snprintf(args, sizeof args, "--file %s --reps 1 --bins", path);
    struct stage_output o;
    run_stage(args, &o);
    unlink(path);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_int_eq(o.bins_printed, BINS);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(o.bins[bin] == expected[bin], "bin %d: %u, expected %u", bin, o.bins[bin],
                      expected[bin]);
}
END_TEST

/* The sample photograph's brightness, as the OpenCL book's figure 4.1 counts it. */
START_TEST(test_image_input_counts_the_brightness_of_every_pixel)
{
    const char *path = "../data/chelsea.bmp"; /* make test runs in the stage directory */
    struct image img;
    char why[512];
    ck_assert_msg(read_bmp(path, &img, why, sizeof why) == EXIT_OK, "%s", why);
    unsigned int expected[BINS] = {0};
    for (int i = 0; i < img.width * img.height; i++)
        expected[luminance(img.rgb[3 * i], img.rgb[3 * i + 1], img.rgb[3 * i + 2])]++;
    free_image(&img);

    struct stage_output o;
    run_stage("--image ../data/chelsea.bmp --reps 1 --bins", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_int_eq(o.bins_printed, BINS);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(o.bins[bin] == expected[bin], "bin %d: %u, expected %u", bin, o.bins[bin],
                      expected[bin]);
    ck_assert_msg(o.has_sum && o.sum == 451 * 300, "sum: %s", o.out);
}
END_TEST

START_TEST(test_a_file_that_is_not_a_bmp_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--image ../common/book.h", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--image: '../common/book.h': not a BMP file"), "%s", o.err);
}
END_TEST

START_TEST(test_default_input_is_the_books_100_mib)
{
    struct stage_output o;
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, "Histogram Sum: 104857600\n") != NULL, "out: %s", o.out);
    ck_assert_msg((strstr(o.out, "kernel only:") && strstr(o.out, "end to end:")) ||
                      strstr(o.out, "end-to-end ms"), /* the table of a stage with variants */
                  "%s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

TCase *output_tcase(int *checks)
{
    TCase *tc = tcase_create("output");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_csv_prints_header_and_verified_rows);
    tcase_add_test(tc, test_size_zero_sums_to_zero);
    tcase_add_test(tc, test_file_input_matches_reference);
    tcase_add_test(tc, test_default_input_is_the_books_100_mib);
    tcase_add_test(tc, test_image_input_counts_the_brightness_of_every_pixel);
    tcase_add_test(tc, test_a_file_that_is_not_a_bmp_is_a_usage_error);
    *checks += 6;
    return tc;
}

/* ------------------------------------------------------------- the suite -- */

bool can_run_stage(void)
{
    if (runnable < 0) {
        struct stage_output o;
        run_stage("--size 16 --reps 1", &o); /* 16 bytes: whole keys of every type (07) */
        runnable = o.exit_status != EXIT_CANNOT_RUN;
        snprintf(skip_reason, sizeof skip_reason, "%.500s", o.err);
        skip_reason[strcspn(skip_reason, "\n")] = '\0';
    }
    return runnable;
}

void add_skipped(int checks)
{
    skipped_checks += checks;
}

void add_if_runnable(Suite *suite, TCase *tc, int checks)
{
    if (can_run_stage())
        suite_add_tcase(suite, tc);
    else
        skipped_checks += checks;
}

int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV); /* CK_VERBOSITY=verbose names every check */
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    if (skipped_checks)
        printf("SKIPPED: %d checks of %s%s%s\n", skipped_checks, stage_dir, runnable ? "" : ": ",
               runnable ? "" : skip_reason);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ------------------------------------------------------------- GPU checks -- */

START_TEST(test_gpu_matches_reference_for_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* Launch shapes a student will try; the odd thread counts break kernels that
 * assume blockDim.x == 256, and one block must still cover the whole input. */
static const char *const launch_overrides[] = {
    "--blocks 1",         "--threads 64",
    "--threads 128",      "--threads 512",
    "--threads 1024",     "--threads 33",
    "--threads 1000",     "--blocks 1 --threads 1024",
    "--blocks-per-sm 16", "--blocks 100000 --threads 32",
};
#define LAUNCH_OVERRIDES ((int)(sizeof launch_overrides / sizeof launch_overrides[0]))

START_TEST(test_launch_overrides_match_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launch_overrides[_i]);
    check_matches_reference(257, DATA_CONSTANT, 8, launch_overrides[_i]);
}
END_TEST

/* The book's int index overflows here; size_t must not. */
START_TEST(test_indexing_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, "");
}
END_TEST

TCase *matrix_tcase(int *checks)
{
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_gpu_matches_reference_for_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_test(tc, test_indexing_past_2_gib);
    *checks += MATRIX_CASES + 1;
    return tc;
}

TCase *gpu_tcase(int *checks)
{
    TCase *tc = matrix_tcase(checks);
    tcase_add_loop_test(tc, test_launch_overrides_match_reference, 0, LAUNCH_OVERRIDES);
    *checks += LAUNCH_OVERRIDES;
    return tc;
}

Suite *gpu_stage_suite(void)
{
    Suite *suite = suite_create(stage_dir);
    int usage_checks = 0, output_checks = 0, gpu_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    TCase *output = output_tcase(&output_checks);
    add_if_runnable(suite, output, output_checks);
    TCase *gpu = gpu_tcase(&gpu_checks);
    add_if_runnable(suite, gpu, gpu_checks);
    return suite;
}
