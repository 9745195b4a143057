/*
 * stage_checks.c - running a stage's program and checking what it prints.
 */
#include "stage_checks.h"

#include <glob.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *stage_dir = "";
static char program[4096];
static int skipped_checks;
static char skip_reason[512];
static int runnable = -1;           /* -1: not probed yet */
static const char *run_prefix = ""; /* a command the program runs under (oclgrind) */
static char tool_notes[2048];       /* add_if_tool's groups left out, and why */
static int time_limit;              /* seconds a run may take (set_run_time_limit), 0: none */

static void read_cut(FILE *in, char *buf, size_t size);
static TCase *named_tcase(const char *name, int hint);
static void added(TCase *tc, int checks);

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

void set_run_time_limit(int seconds)
{
    time_limit = seconds;
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

    /* A time limit ends a program that never finishes (a loop whose index
     * wraps) with exit 124, so that the check goes on to report it. */
    char limit[64] = "";
    if (time_limit > 0)
        snprintf(limit, sizeof limit, "timeout -k 10 %d", time_limit);
    char command[8192];
    snprintf(command, sizeof command, "cd '%s' && %s %s '%s' %s 2>'%s'", dir, limit, run_prefix,
             program, args, err_path);
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

    if (WIFSIGNALED(status))
        o->signal = WTERMSIG(status);
    else if (WIFEXITED(status) && WEXITSTATUS(status) > 128) /* the shell reports a crash so */
        o->signal = WEXITSTATUS(status) - 128;
    FILE *err = fopen(err_path, "r");
    if (err) {
        read_cut(err, o->err, sizeof o->err);
        fclose(err);
    }
    unlink(err_path);
}

/* Reads a stream into buf; one too long keeps its start and its last 400
 * bytes, and says between them how many bytes were cut. */
static void read_cut(FILE *in, char *buf, size_t size)
{
    enum { TAIL = 400 };
    char tail[TAIL];
    size_t head_room = size - TAIL - 64; /* 64: the line that says what was cut */
    size_t got = fread(buf, 1, head_room, in);
    buf[got] = '\0';
    if (got < head_room)
        return;
    size_t ring = 0, cut = 0; /* the last TAIL bytes of the rest, in a ring */
    for (int c; (c = getc(in)) != EOF; cut++)
        tail[ring++ % TAIL] = (char)c;
    if (cut == 0)
        return;
    size_t kept = cut < TAIL ? cut : TAIL;
    cut -= kept;
    char *end = buf + got;
    if (cut)
        end += sprintf(end, "\n[... %zu bytes cut ...]\n", cut);
    for (size_t i = 0; i < kept; i++)
        *end++ = tail[(ring - kept + i) % TAIL];
    *end = '\0';
}

const char *exit_meaning(const struct stage_output *o)
{
    static char words[4][96]; /* a few in one message */
    static int next;
    char *w = words[next++ % 4];
    if (o->signal)
        snprintf(w, sizeof words[0], "crashed: signal %d (%s)", o->signal, strsignal(o->signal));
    else if (o->exit_status < 0)
        snprintf(w, sizeof words[0], "did not run to its end");
    else
        snprintf(w, sizeof words[0], "exit %d%s", o->exit_status,
                 o->exit_status == EXIT_OK           ? ""
                 : o->exit_status == EXIT_FAILED     ? " (an error or a wrong result)"
                 : o->exit_status == EXIT_USAGE      ? " (it refused its arguments: bad usage)"
                 : o->exit_status == EXIT_CANNOT_RUN ? " (it cannot run here)"
                 : o->exit_status == 124 && time_limit
                     ? " (stopped: it ran past the check's time limit; does a loop never end?)"
                     : "");
    return w;
}

void check_stdout_is_only_csv(const char *args, int min_lines)
{
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    int header = -1, lines = 0;
    for (const char *p = o.out; *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int commas = 0;
        for (size_t i = 0; i < len; i++)
            commas += p[i] == ',';
        if (header < 0)
            header = commas;
        ck_assert_msg(header > 0 && commas == header,
                      "%s: every line of stdout must be CSV with the header's %d commas; this "
                      "one is not: '%.*s' (a report line belongs only to the table output)",
                      args, header, (int)len, p);
        lines++;
        p = end ? end + 1 : p + len;
    }
    ck_assert_msg(lines >= min_lines, "%s: expected a header and %d row%s, got: %s", args,
                  min_lines - 1, min_lines == 2 ? "" : "s", o.out);
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
    snprintf(args, sizeof args, "--size %zu --data %s --seed %llu --reps 1 --print-bins %s", size,
             data_kind_name(kind), (unsigned long long)seed, extra_args);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s %s: %s, stderr: %s", program, args, exit_meaning(&o),
                  o.err);
    ck_assert_msg(o.bins_printed == BINS, "%s %s: printed %d bins", program, args, o.bins_printed);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(o.bins[bin] == expected[bin], "%s %s: bin %d is %u, expected %u", program,
                      args, bin, o.bins[bin], expected[bin]);
    ck_assert_msg(o.has_sum && o.sum == size, "%s %s: Histogram Sum missing or not %zu", program,
                  args, size);
    ck_assert_msg(o.says_verified, "%s %s: no 'verified: yes' line", program, args);
}

/* ------------------------------------------------------ make test, test-full -- */

static int sampled_out; /* checks that make test leaves to make test-full */

bool full_tests(void)
{
    const char *full = getenv("TEST_FULL");
    return full && *full && strcmp(full, "0") != 0;
}

int cases(int full, int sample)
{
    if (full_tests() || sample >= full)
        return full;
    sampled_out += full - sample;
    return sample;
}

/* Around the powers of two where vector and tail code break, and a prime. */
static const size_t matrix_sizes[MATRIX_SIZES] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003};

int matrix_value(int i, int values, int stride)
{
    return full_tests() ? i / stride % values : i % values;
}

int matrix_case(int k)
{
    return matrix_value(k, MATRIX_SIZES, 4) * 4 + matrix_value(k, 4, 1);
}

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
    /* one meaning per option: --print-bins prints them, --bins N is their number */
    {"--print-bins --csv", "cannot be combined"},
    {"--bins", "--bins needs a value"},
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
    bool found = false;    /* the reason, or one of its '|'-separated forms */
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
    TCase *tc = named_tcase("usage", 0);
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
    snprintf(args, sizeof args, "--file %s --reps 1 --print-bins", path);
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
    run_stage("--image ../data/chelsea.bmp --reps 1 --print-bins", &o);
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
    TCase *tc = named_tcase("output", 0);
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
    if (can_run_stage()) {
        suite_add_tcase(suite, tc);
        added(tc, checks);
    } else {
        skipped_checks += checks;
    }
}

void add_tcase(Suite *suite, TCase *tc, int checks)
{
    suite_add_tcase(suite, tc);
    added(tc, checks);
}

int run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV); /* CK_VERBOSITY=verbose names every check */
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    if (sampled_out)
        printf("sampled: make test-full runs %d more checks of %s (every case of each matrix)\n",
               sampled_out, stage_dir);
    if (skipped_checks)
        printf("SKIPPED: %d checks of %s%s%s\n", skipped_checks, stage_dir, runnable ? "" : ": ",
               runnable ? "" : skip_reason);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ------------------------------------------------------------- GPU checks -- */

START_TEST(test_gpu_matches_reference_for_every_size_and_kind)
{
    check_matrix_case(matrix_case(_i), "");
}
END_TEST

/* Launch shapes a student will try; the odd thread counts break kernels that
 * assume blockDim.x == 256, and one block must still cover the whole input.
 * make test takes the first four. */
static const char *const launch_overrides[] = {
    "--blocks 1",
    "--threads 33",
    "--blocks 100000 --threads 32",
    "--blocks 1 --threads 1024",
    "--threads 64",
    "--threads 128",
    "--threads 512",
    "--threads 1024",
    "--threads 1000",
    "--blocks-per-sm 16",
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
    TCase *tc = named_tcase("gpu", 0);
    tcase_set_timeout(tc, 600);
    int matrix = cases(MATRIX_CASES, MATRIX_SIZES);
    tcase_add_loop_test(tc, test_gpu_matches_reference_for_every_size_and_kind, 0, matrix);
    tcase_add_test(tc, test_indexing_past_2_gib);
    *checks += matrix + 1;
    return tc;
}

TCase *gpu_tcase(int *checks)
{
    TCase *tc = matrix_tcase(checks);
    int launches = cases(LAUNCH_OVERRIDES, 4);
    tcase_add_loop_test(tc, test_launch_overrides_match_reference, 0, launches);
    *checks += launches;
    return tc;
}

Suite *gpu_stage_suite(void)
{
    Suite *suite = suite_create(stage_dir);
    int usage_checks = 0, output_checks = 0, gpu_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_tcase(suite, usage, usage_checks);
    TCase *output = output_tcase(&output_checks);
    add_if_runnable(suite, output, output_checks);
    TCase *gpu = gpu_tcase(&gpu_checks);
    add_if_runnable(suite, gpu, gpu_checks);
    return suite;
}

/* -------------------------------------------------------------- exercises -- */

/* Every named group of checks, in the order it was made, and those added to
 * the suite, in the order they were added: the order run_exercise runs them. */
#define MAX_GROUPS 32
static struct group {
    TCase *tc;
    const char *name;
    int hint;
    int checks;
} groups[MAX_GROUPS];
static int group_count;
static int run_order[MAX_GROUPS], run_count;

static TCase *named_tcase(const char *name, int hint)
{
    if (group_count == MAX_GROUPS) {
        fprintf(stderr, "stage_checks: more than %d groups of checks\n", MAX_GROUPS);
        exit(EXIT_FAILED);
    }
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 600); /* a program on a busy GPU, or past 2 GiB */
    groups[group_count++] = (struct group){tc, name, hint, 0};
    return tc;
}

TCase *exercise_tcase(const char *name, int hint)
{
    return named_tcase(name, hint);
}

static const char *const *refused_arguments; /* add_usage_refusals' */
static const char *help_names;

START_TEST(test_refused_arguments_exit_2)
{
    struct stage_output o;
    run_stage(refused_arguments[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)",
                  refused_arguments[_i], exit_meaning(&o));
}
END_TEST

START_TEST(test_help_exits_0_and_names_the_options)
{
    struct stage_output o;
    run_stage("--help", &o);
    ck_assert_msg(o.exit_status == 0 && strstr(o.out, help_names),
                  "--help: %s, expected exit 0 and the options; stdout: %.300s", exit_meaning(&o),
                  o.out);
}
END_TEST

void check_refused_naming(const char *args, const char *option)
{
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)", args,
                  exit_meaning(&o));
    ck_assert_msg(o.out[0] == '\0', "%s: refused, but printed on stdout: %s", args, o.out);
    char *end = strchr(o.err, '\n');
    ck_assert_msg(end != NULL, "%s: nothing on stderr", args);
    *end = '\0'; /* the reason is the first line; the usage follows */
    ck_assert_msg(strstr(o.err, option),
                  "%s: expected a first line on stderr that names %s, got '%s'", args, option,
                  o.err);
}

void report_value(const char *out, const char *label, char *value, size_t size)
{
    *value = 0;
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, label, strlen(label)) == 0) {
            p += strlen(label);
            p += strspn(p, " ");
            snprintf(value, size, "%.*s", (int)strcspn(p, "\n"), p);
            return;
        }
}

void read_launch(const char *args, const struct stage_output *o, long *blocks, int *threads)
{
    const char *line = strncmp(o->out, "launch:", 7) == 0 ? o->out : strstr(o->out, "\nlaunch:");
    line += line && *line == '\n';
    ck_assert_msg(line && sscanf(line, "launch: %ld blocks x %d threads", blocks, threads) == 2,
                  "%s: no 'launch: B blocks x T threads' line in: %s", args, o->out);
}

void add_usage_refusals(Suite *suite, const char *const *refused, int count, const char *option)
{
    refused_arguments = refused, help_names = option;
    TCase *usage = exercise_tcase("bad usage exits 2, --help exits 0", 0);
    tcase_add_loop_test(usage, test_refused_arguments_exit_2, 0, count);
    tcase_add_test(usage, test_help_exits_0_and_names_the_options);
    add_tcase(suite, usage, count + 1);
}

static void added(TCase *tc, int checks)
{
    for (int g = 0; g < group_count; g++)
        if (groups[g].tc == tc && run_count < MAX_GROUPS) {
            groups[g].checks = checks;
            run_order[run_count++] = g;
        }
}

/* Prints at most max_lines lines of text, each indented; says if more were cut. */
static void print_lines(const char *text, int max_lines)
{
    int lines = 0;
    const char *p = text;
    while (*p && lines < max_lines) {
        size_t len = strcspn(p, "\n");
        printf("    %.*s\n", (int)(len > 300 ? 300 : len), p);
        p += len + (p[len] == '\n');
        lines++;
    }
    if (*p)
        printf("    [... cut here: the whole message is in the log named below]\n");
}

/* Check's words for a test process that ended on its own, in ours. */
static void print_failure(const char *message)
{
    int status;
    if (sscanf(message, "Early exit with return value %d", &status) == 1) {
        printf("    the check's own test process exited with status %d before it finished:\n"
               "    a fault in the check (or a file it needs), not your program's exit status\n",
               status);
    } else if (strstr(message, "Test timeout expired")) {
        printf("    the check gave up waiting (600 s): does your program hang, or loop forever?\n");
    } else if (strncmp(message, "Received signal", 15) == 0) {
        printf("    the check itself crashed (%s)\n", message);
    } else {
        print_lines(message, 8);
    }
}

static void write_result(const char *result)
{
    const char *path = getenv("CHECK_RESULT");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    const char *sum = getenv("CHECK_SOURCES_SUM");
    fprintf(f, "%s %s\n", sum && *sum ? sum : "-", result);
    fclose(f);
}

/* CHECK_REQUIRE=1 (make check CHECK_REQUIRE=1): every group must run. */
static bool require_all(void)
{
    const char *v = getenv("CHECK_REQUIRE");
    return v && *v && strcmp(v, "0") != 0;
}

int run_exercise(Suite *suite)
{
    const char *log_path = getenv("CHECK_LOG");
    FILE *log = log_path && *log_path ? fopen(log_path, "w") : NULL;
    const char *all_env = getenv("CHECK_ALL");
    bool run_all = all_env && *all_env && strcmp(all_env, "0") != 0;
    /* CHECK_ONLY=text runs only the groups whose names contain text: one
     * failing group again, without the minutes of those before it. */
    const char *only = getenv("CHECK_ONLY");
    if (only && *only) {
        int matching = 0;
        for (int k = 0; k < run_count; k++)
            matching += strstr(groups[run_order[k]].name, only) != NULL;
        if (!matching) {
            printf("%s: CHECK_ONLY='%s' names no group of checks; the groups are:\n", stage_dir,
                   only);
            for (int k = 0; k < run_count; k++)
                printf("  %s\n", groups[run_order[k]].name);
            return EXIT_USAGE;
        }
    } else {
        only = NULL;
    }

    SRunner *runner = srunner_create(suite);
    int checks_run = 0, failed_total = 0, first = -1, failed_first = 0;
    int groups_not_run = 0, checks_not_run = 0, groups_left_out = 0;
    char first_message[4096] = "", first_place[256] = "";
    for (int k = 0; k < run_count; k++) {
        struct group *g = &groups[run_order[k]];
        if (only && !strstr(g->name, only)) {
            groups_left_out++;
            continue;
        }
        if (first >= 0 && !run_all) {
            groups_not_run++;
            checks_not_run += g->checks;
            continue;
        }
        int failed_before = srunner_ntests_failed(runner);
        srunner_run(runner, NULL, g->name, CK_SILENT);
        checks_run += g->checks;
        int failed_now = srunner_ntests_failed(runner);
        if (failed_now == failed_before)
            continue;
        TestResult **results = srunner_failures(runner);
        for (int i = failed_before; i < failed_now; i++)
            if (log)
                fprintf(log, "[%s] %s:%d: %s\n\n", g->name, tr_lfile(results[i]),
                        tr_lno(results[i]), tr_msg(results[i]));
        if (first < 0) {
            first = run_order[k];
            failed_first = failed_now - failed_before;
            snprintf(first_message, sizeof first_message, "%s", tr_msg(results[failed_before]));
            snprintf(first_place, sizeof first_place, "%s:%d", tr_lfile(results[failed_before]),
                     tr_lno(results[failed_before]));
        }
        free(results);
        failed_total += failed_now - failed_before;
    }
    srunner_free(runner);
    if (log)
        fclose(log);

    char result[600];
    int status = EXIT_SUCCESS;
    if (first >= 0) {
        struct group *g = &groups[first];
        printf("%s: FAILING in \"%s\": %d of its %d checks failed. The first, %s:\n", stage_dir,
               g->name, failed_first, g->checks, first_place);
        print_failure(first_message);
        if (g->hint > 0)
            printf("  Stuck? Open hint %d in README.md.\n", g->hint);
        if (groups_not_run)
            printf("  Not run after it: %d more group%s, %d check%s (CHECK_ALL=1 runs them).\n",
                   groups_not_run, groups_not_run == 1 ? "" : "s", checks_not_run,
                   checks_not_run == 1 ? "" : "s");
        if (run_all && failed_total > failed_first)
            printf("  %d more failure%s in later groups.\n", failed_total - failed_first,
                   failed_total - failed_first == 1 ? "" : "s");
        if (log_path && *log_path)
            printf("  Every failure in full: %s\n", log_path);
        snprintf(result, sizeof result, "failing in \"%s\"", g->name);
        status = EXIT_FAILURE;
    } else if (skipped_checks && !runnable) {
        /* Skipped is not passed: the program exited 77, so what the exercise
         * teaches was not checked at all. make check shows the 77 too. */
        const char *needs = getenv("CHECK_NEEDS");
        needs = needs && *needs ? needs : "a machine where the program runs";
        printf("%s: not checked here: needs %s\n", stage_dir, needs);
        printf("  The program says: %s\n", skip_reason);
        printf("  %d checks not run%s", skipped_checks, checks_run ? "" : ".\n");
        if (checks_run)
            printf("; the %d that could run here passed, but they are not the whole task.\n",
                   checks_run);
        snprintf(result, sizeof result, "not checked here: needs %s", needs);
        status = EXIT_CANNOT_RUN;
    } else if (skipped_checks && require_all()) {
        /* CHECK_REQUIRE=1: a lab that certifies wants every group run. A
         * group left out for want of a tool or of memory is then no pass. */
        printf("%s: not checked here: %d checks not run, and CHECK_REQUIRE=1 asks for all "
               "(the %d run passed)\n%s",
               stage_dir, skipped_checks, checks_run, tool_notes);
        snprintf(result, sizeof result, "not checked here: %d checks not run (CHECK_REQUIRE=1)",
                 skipped_checks);
        status = EXIT_CANNOT_RUN;
    } else if (skipped_checks && tool_notes[0]) {
        printf("%s: %d checks passed; %d not run here, for want of a tool:\n%s", stage_dir,
               checks_run, skipped_checks, tool_notes);
        snprintf(result, sizeof result, "passed %d checks, %d not run here", checks_run,
                 skipped_checks);
    } else if (skipped_checks) {
        printf("%s: %d checks passed; %d not run here, for want of a tool (make deps "
               "installs it)\n",
               stage_dir, checks_run, skipped_checks);
        snprintf(result, sizeof result, "passed %d checks, %d not run here", checks_run,
                 skipped_checks);
    } else if (only) {
        /* not a pass of the exercise: the groups left out were not run */
        printf("%s: the %d checks of the groups matching CHECK_ONLY='%s' passed; %d groups "
               "left out\n",
               stage_dir, checks_run, only, groups_left_out);
        return status;
    } else {
        snprintf(result, sizeof result, "passed, %d checks", checks_run);
        printf("%s: passed, all %d checks\n", stage_dir, checks_run);
    }
    if (!only || status == EXIT_FAILURE) /* a partial run is never recorded as a pass */
        write_result(result);
    return status;
}

/* --------------------------------------------------------------- Oclgrind -- */

bool have_oclgrind(void)
{
    static int found = -1; /* asked once: every Oclgrind group asks */
    if (found < 0)
        found = system("oclgrind --version >/dev/null 2>&1") == 0;
    return found;
}

void add_if_oclgrind(Suite *suite, TCase *tc, int checks, bool available, const char *missing)
{
    if (have_oclgrind())
        add_if_tool(suite, tc, checks, available, missing);
    else
        add_skipped(checks);
}

void run_quick_host(const char *host, const char *oclgrind_flags, unsigned long long size,
                    unsigned long long groups, unsigned long long items, bool watch,
                    const char *const *labels, int labels_count, struct quick_run *q)
{
    ck_assert(labels_count <= (int)(sizeof q->count / sizeof q->count[0]));
    memset(q, 0, sizeof *q);
    snprintf(q->command, sizeof q->command,
             "timeout %d oclgrind %s '%s' '%s.cl' %llu %llu %llu%s 2>&1", QUICK_HOST_SECONDS,
             oclgrind_flags, host, stage_program(), size, groups, items, watch ? " watch" : "");
    FILE *p = popen(q->command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", q->command);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        bool counted = false;
        for (int l = 0; l < labels_count && !counted; l++) {
            size_t length = strlen(labels[l]);
            counted = strncmp(line, labels[l], length) == 0 &&
                      sscanf(line + length, " %llu", &q->count[l]) == 1;
        }
        if (counted)
            found++;
        else if (strlen(q->said) + strlen(line) < sizeof q->said)
            strcat(q->said, line);
    }
    int status = pclose(p);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ck_assert_msg(code != 124,
                  "%s: not finished after %d seconds (a correct run takes a few): does a "
                  "work-item's loop give it far more than its share, or never end?",
                  q->command, QUICK_HOST_SECONDS);
    ck_assert_msg(found == labels_count && code == 0, "%s: no count (exit %d): %s", q->command,
                  code, q->said);
}

/* The bytes that one vload from global memory reads (vload2 to vload16,
 * vload_half and its vectors), from its mangled name: Oclgrind runs a vload
 * as a call of a builtin, "call _Z6vload3mPU3AS1Kh()", and counts no "load
 * global" for it. The name says N (the 3 after vload), the address space of
 * the pointer (AS1: global) and its element type after the qualifiers (K:
 * const, V: volatile, r: restrict): h uchar, c char, a signed char, t
 * ushort, s short, Dh half, j uint, i int, f float, m ulong, l long, d
 * double. 0 for any other name. */
static unsigned long long vload_global_bytes(const char *name)
{
    int length, used = 0;
    if (sscanf(name, "call _Z%d%n", &length, &used) != 1 || strncmp(name + used, "vload", 5) != 0)
        return 0;
    const char *at = name + used + 5;
    if (strncmp(at, "a_half", 6) == 0)
        at += 6;
    else if (strncmp(at, "_half", 5) == 0)
        at += 5;
    unsigned long long n = strtoull(at, NULL, 10);
    const char *pointer = strstr(at, "PU3AS1");
    if (!pointer)
        return 0; /* a vload from local or private memory */
    at = pointer + strlen("PU3AS1");
    at += strspn(at, "KVr");
    static const struct {
        const char *code;
        unsigned long long bytes;
    } types[] = {{"Dh", 2}, {"h", 1}, {"c", 1}, {"a", 1}, {"t", 2}, {"s", 2},
                 {"j", 4},  {"i", 4}, {"f", 4}, {"m", 8}, {"l", 8}, {"d", 8}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strncmp(at, types[i].code, strlen(types[i].code)) == 0)
            return (n ? n : 1) * types[i].bytes;
    return 0;
}

void count_kernel(const char *flags, const char *args, struct kernel_counts *k)
{
    memset(k, 0, sizeof *k);
    char command[4096 + 512], line[512];
    snprintf(command, sizeof command, "oclgrind --inst-counts %s '%s' %s 2>/dev/null", flags,
             stage_program(), args);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    int blocks = 0; /* the count blocks seen: the first is read */
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "Instructions executed for kernel", 32) == 0) {
            blocks++;
            k->found = true;
            continue;
        }
        unsigned long long n, bytes;
        char name[256];
        if (blocks != 1 || sscanf(line, " %llu - %255[^\n]", &n, name) != 2)
            continue;
        if (sscanf(name, "load global (%llu bytes)", &bytes) == 1)
            k->global_load_bytes += bytes;
        else if ((bytes = vload_global_bytes(name)) > 0)
            k->global_load_bytes += n * bytes;
        else if (strncmp(name, "call ", 5) == 0 && strstr(name, "atom")) {
            bool adds = strstr(name, "_inc") || strstr(name, "_add");
            if (strstr(name, "AS3") && adds)
                k->local_adds += n;
            else if (strstr(name, "AS3") && (strstr(name, "xchg") || strstr(name, "store")))
                k->local_exchanges += n;
            else if (strstr(name, "AS1"))
                k->global_atomics += n;
        }
    }
    pclose(p);
}

/* Runs the program under Oclgrind with flags and args, the program's exit
 * into o. Into report (cut to size): Oclgrind's whole log, or where find is
 * given, the log's first line that holds it ("" where none does). */
static void run_under_oclgrind(const char *flags, const char *args, struct stage_output *o,
                               const char *find, char *report, size_t size)
{
    char log_path[] = "/tmp/oclgrind_log_XXXXXX";
    int fd = mkstemp(log_path);
    ck_assert_msg(fd >= 0, "mkstemp failed");
    close(fd);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "oclgrind %s --log '%s'", flags, log_path);
    run_prefix = prefix;
    run_stage(args, o);
    run_prefix = "";
    report[0] = '\0';
    FILE *log = fopen(log_path, "r");
    if (log && !find)
        read_cut(log, report, size);
    char line[1024];
    while (log && find && fgets(line, sizeof line, log))
        if (strstr(line, find)) {
            snprintf(report, size, "%s", line);
            break;
        }
    if (log)
        fclose(log);
    unlink(log_path);
}

void check_no_races(const char *args)
{
    char report[2048];
    struct stage_output o;
    /* --uniform-writes: Oclgrind otherwise keeps quiet about work-items that
     * write the same value to one place with no barrier between (every item
     * zeroing every bin): still a race by OpenCL's rules, and needless work */
    run_under_oclgrind("--data-races --uniform-writes --max-errors 4", args, &o, NULL, report,
                       sizeof report);
    /* Oclgrind's report first: a race can also make the count wrong */
    ck_assert_msg(report[strspn(report, " \t\n")] == '\0', "under Oclgrind (%s), a data race:\n%s",
                  args, report);
    ck_assert_msg(o.exit_status == 0, "under Oclgrind (%s): %s, stderr: %s", args, exit_meaning(&o),
                  o.err);
    /* Then a count added to local memory that nothing set first: local memory
     * starts undefined in every work-group, even where a device hands out
     * zeros. Only local memory: Oclgrind takes the host's fill of a global
     * buffer (clEnqueueFillBuffer) for no write, and reports every bin of it,
     * hence no limit on the errors it reports. */
    run_under_oclgrind("--uninitialized --max-errors 1000000", args, &o, "local memory", report,
                       sizeof report);
    ck_assert_msg(report[0] == '\0',
                  "under Oclgrind --uninitialized (%s): %s(a bin counted into before anything "
                  "set it: local memory starts undefined in every work-group)",
                  args, report);
}

/* -------------------------------------------------- inside a CUDA program -- */

static bool executable(const char *path)
{
    return path[0] && access(path, X_OK) == 0;
}

/* name in one of PATH's folders, into out. */
static bool find_on_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    char folders[8192];
    snprintf(folders, sizeof folders, "%s", path ? path : "");
    char *save = NULL;
    for (char *dir = strtok_r(folders, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", dir, name);
        if (executable(out))
            return true;
    }
    out[0] = '\0';
    return false;
}

/* An NVIDIA tool (compute-sanitizer, ncu) where the toolkit puts it: on
 * PATH, beside the nvcc on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin;
 * ncu also in the newest /opt/nvidia/nsight-compute/VERSION/. */
static bool find_cuda_tool(const char *name, char *out, size_t size)
{
    if (find_on_path(name, out, size))
        return true;
    char nvcc[4096], real[4096];
    if (find_on_path("nvcc", nvcc, sizeof nvcc) && realpath(nvcc, real)) {
        *strrchr(real, '/') = '\0';
        if (snprintf(out, size, "%s/%s", real, name) < (int)size && executable(out))
            return true;
    }
    const char *home = getenv("CUDA_HOME");
    const char *homes[] = {home && *home ? home : "/usr/local/cuda", "/usr/local/cuda"};
    for (int i = 0; i < 2; i++) {
        snprintf(out, size, "%s/bin/%s", homes[i], name);
        if (executable(out))
            return true;
    }
    glob_t found;
    if (strcmp(name, "ncu") == 0 &&
        glob("/opt/nvidia/nsight-compute/*/ncu", 0, NULL, &found) == 0) {
        /* glob sorts; the versions are YEAR.N.N, so the newest is last */
        for (size_t i = found.gl_pathc; i-- > 0;)
            if (executable(found.gl_pathv[i])) {
                snprintf(out, size, "%s", found.gl_pathv[i]);
                globfree(&found);
                return true;
            }
        globfree(&found);
    }
    out[0] = '\0';
    return false;
}

/* A temporary file's path, made empty; false if it cannot be made. */
static bool temp_path(char *path, size_t size, const char *what)
{
    snprintf(path, size, "/tmp/%s_XXXXXX", what);
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

/* A file's text, cut as read_cut cuts it, into buf ("" if unreadable). */
static void read_file_cut(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        read_cut(f, buf, size);
        fclose(f);
    }
}

/* The line that holds text at, and at most lines - 1 lines after it. */
static void lines_from(const char *text, const char *at, int lines, char *out, size_t size)
{
    while (at > text && at[-1] != '\n')
        at--;
    const char *end = at;
    for (int n = 0; n < lines && *end; n++)
        end += strcspn(end, "\n") + (end[strcspn(end, "\n")] == '\n');
    snprintf(out, size, "%.*s", (int)(end - at), at);
}

bool have_compute_sanitizer(void)
{
    char path[4096];
    return find_cuda_tool("compute-sanitizer", path, sizeof path);
}

/* compute-sanitizer's exit when it found a hazard: none of the program's own. */
#define RACECHECK_FOUND 99

void check_no_gpu_races(const char *args)
{
    char sanitizer[4096], log_path[64];
    ck_assert_msg(find_cuda_tool("compute-sanitizer", sanitizer, sizeof sanitizer),
                  "no compute-sanitizer here (a check that needs it is added with add_if_tool)");
    ck_assert_msg(temp_path(log_path, sizeof log_path, "racecheck_log"), "mkstemp failed");
    /* hazard: each hazard with both threads and the source lines (-lineinfo) */
    char prefix[4096 + 256];
    snprintf(prefix, sizeof prefix,
             "'%s' --tool racecheck --racecheck-report hazard --print-limit 8 "
             "--error-exitcode %d --log-file '%s'",
             sanitizer, RACECHECK_FOUND, log_path);
    run_prefix = prefix;
    struct stage_output o;
    run_stage(args, &o);
    run_prefix = "";
    char log[16384];
    read_file_cut(log_path, log, sizeof log);
    unlink(log_path);

    /* "RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)" */
    int errors = 0, warnings = 0;
    const char *summary = strstr(log, "RACECHECK SUMMARY:");
    const char *counts = summary ? strchr(summary, '(') : NULL;
    if (counts && sscanf(counts, "(%d", &errors) == 1 && strchr(counts, ','))
        sscanf(strchr(counts, ',') + 1, "%d", &warnings);
    const char *first = strstr(log, "hazard detected");
    if (!first)
        first = strstr(log, "Race reported");
    if (!first)
        first = summary ? summary : log;
    char report[1600];
    lines_from(log, first, 7, report, sizeof report);
    ck_assert_msg(errors == 0 && warnings == 0 && o.exit_status != RACECHECK_FOUND,
                  "compute-sanitizer's racecheck (%s) found shared-memory hazards (%d errors, "
                  "%d warnings): two threads touch one shared address, one of them writing, "
                  "with no atomic or barrier between. Its first report:\n%s",
                  args, errors, warnings, report);
    ck_assert_msg(o.exit_status == 0,
                  "under compute-sanitizer's racecheck (%s): %s, stderr: %s\n%s", args,
                  exit_meaning(&o), o.err, report);
}

static int profilable = -1; /* -1: not tried yet */
static char profile_missing[640];
static char ncu[4096];
static int launches_profiled;

const char *profile_tool_missing(void)
{
    can_profile();
    return profile_missing;
}

int profile_launches(void)
{
    return launches_profiled;
}

/* One CSV line's fields (ncu quotes each), in place; returns how many. */
static int csv_fields(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        bool quoted = *p == '"';
        if (quoted)
            p++;
        fields[n++] = p;
        char *out = p;
        while (*p && (quoted ? *p != '"' || p[1] == '"' : *p != ',' && *p != '\n')) {
            if (quoted && *p == '"')
                p++; /* "" inside quotes is one " */
            *out++ = *p++;
        }
        if (quoted && *p == '"')
            p++;
        bool more = *p == ',';
        *out = '\0';
        if (!more)
            break;
        p++;
    }
    return n;
}

/* A number as ncu prints it, thousands separated by commas ("7,444,528",
 * "56,397.94"); false when it is none ("n/a", ""). */
static bool ncu_number(const char *text, double *value)
{
    char digits[128];
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof digits; p++)
        if (*p != ',')
            digits[n++] = *p;
    digits[n] = '\0';
    char *end;
    *value = strtod(digits, &end);
    return n > 0 && *end == '\0';
}

/* Runs ncu over the program; its CSV goes to log_path, its own stderr to
 * err_path. Returns the exit status, -1 if it did not end normally. */
static int run_ncu(const char *args, const char *kernel_regex, const char *metrics,
                   const char *log_path, const char *err_path)
{
    char filter[600] = "";
    if (kernel_regex && *kernel_regex)
        snprintf(filter, sizeof filter, "--kernel-name 'regex:%s'", kernel_regex);
    /* ncu profiles one program at a time on a machine (a second one exits
     * 9), so checks run side by side take turns, where flock is there */
    char flock[4096], turn[4200] = "";
    if (find_on_path("flock", flock, sizeof flock))
        snprintf(turn, sizeof turn, "'%s' /tmp/histogram-workbook-ncu.lock ", flock);
    char command[16384];
    snprintf(command, sizeof command,
             "%s'%s' --csv --page raw --print-units base %s --metrics '%s' --log-file '%s' '%s' "
             "%s >/dev/null 2>'%s'",
             turn, ncu, filter, metrics, log_path, stage_program(), args, err_path);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The metrics' sums over the data rows of an ncu --csv --page raw log, into
 * values; returns the rows (launches), or -1 with why when a metric has no
 * column or a value is not a number. */
static int sum_ncu_rows(const char *log_path, const char *const *metrics, int count, double *values,
                        char *why, size_t why_size)
{
    enum { MAX_FIELDS = 512 };
    FILE *f = fopen(log_path, "r");
    if (!f) {
        snprintf(why, why_size, "ncu wrote no log");
        return -1;
    }
    int column[64], rows = 0;
    bool header = false;
    char *line = NULL, *fields[MAX_FIELDS];
    size_t capacity = 0;
    for (int i = 0; i < count; i++)
        values[i] = 0;
    while (getline(&line, &capacity, f) > 0 && rows >= 0) {
        if (line[0] != '"')
            continue; /* ==PROF== and ==WARNING== lines */
        int n = csv_fields(line, fields, MAX_FIELDS);
        if (!header) { /* the first CSV line names the columns */
            header = true;
            for (int i = 0; i < count; i++) {
                column[i] = -1;
                for (int c = 0; c < n; c++)
                    if (strcmp(fields[c], metrics[i]) == 0)
                        column[i] = c;
                if (column[i] < 0) {
                    snprintf(why, why_size, "ncu printed no column %s (a name it does not know?)",
                             metrics[i]);
                    rows = -1;
                }
            }
            continue;
        }
        if (fields[0][0] == '\0')
            continue; /* the units line */
        for (int i = 0; i < count && rows >= 0; i++) {
            double value;
            if (column[i] >= n || !ncu_number(fields[column[i]], &value)) {
                snprintf(why, why_size, "ncu's %s on launch %d is '%s', not a number", metrics[i],
                         rows + 1, column[i] < n ? fields[column[i]] : "(missing)");
                rows = -1;
            } else {
                values[i] += value;
            }
        }
        if (rows >= 0)
            rows++;
    }
    free(line);
    fclose(f);
    return rows;
}

/* One compute-sanitizer tool (memcheck, synccheck) over the program: fails
 * the test with its first error lines when its summary counts any error. */
static void check_sanitizer_tool(const char *tool, const char *what, const char *args)
{
    char sanitizer[4096], log_path[64];
    ck_assert_msg(find_cuda_tool("compute-sanitizer", sanitizer, sizeof sanitizer),
                  "no compute-sanitizer here (a check that needs it is added with add_if_tool)");
    ck_assert_msg(temp_path(log_path, sizeof log_path, "sanitizer_log"), "mkstemp failed");
    char prefix[4096 + 256];
    snprintf(prefix, sizeof prefix,
             "'%s' --tool %s --print-limit 4 --error-exitcode %d --log-file '%s'", sanitizer, tool,
             RACECHECK_FOUND, log_path);
    run_prefix = prefix;
    struct stage_output o;
    run_stage(args, &o);
    run_prefix = "";
    char log[16384];
    read_file_cut(log_path, log, sizeof log);
    unlink(log_path);
    /* "========= ERROR SUMMARY: 2 errors" */
    int errors = -1;
    const char *summary = strstr(log, "ERROR SUMMARY:");
    if (summary)
        sscanf(summary, "ERROR SUMMARY: %d", &errors);
    const char *first = strstr(log, "=========");
    char report[1600];
    lines_from(log, first ? first : log, 8, report, sizeof report);
    ck_assert_msg(errors == 0 && o.exit_status != RACECHECK_FOUND,
                  "compute-sanitizer's %s (%s) found %d error%s: %s. Its first report:\n%s", tool,
                  args, errors, errors == 1 ? "" : "s", what, report);
    ck_assert_msg(o.exit_status == 0, "under compute-sanitizer's %s (%s): %s, stderr: %s\n%s", tool,
                  args, exit_meaning(&o), o.err, report);
}

void check_no_gpu_memory_or_sync_errors(const char *args)
{
    check_sanitizer_tool("memcheck",
                         "a kernel read or wrote memory outside what was allocated, or "
                         "misaligned",
                         args);
    check_sanitizer_tool("synccheck",
                         "a barrier that not every thread of the block reaches, or a warp-wide "
                         "call whose mask names lanes that do not take part",
                         args);
}

bool can_profile(void)
{
    if (profilable >= 0)
        return profilable;
    profilable = 0;
    if (!find_cuda_tool("ncu", ncu, sizeof ncu)) {
        snprintf(profile_missing, sizeof profile_missing,
                 "Nsight Compute's ncu (on PATH, beside nvcc, in $CUDA_HOME/bin or "
                 "/opt/nvidia/nsight-compute/)");
        return false;
    }
    if (!can_run_stage()) {
        snprintf(profile_missing, sizeof profile_missing, "a GPU the program can run on");
        return false;
    }
    char log_path[64], err_path[64], err[2048], log[2048], why[256];
    if (!temp_path(log_path, sizeof log_path, "ncu_log") ||
        !temp_path(err_path, sizeof err_path, "ncu_err")) {
        snprintf(profile_missing, sizeof profile_missing, "a writable /tmp");
        return false;
    }
    const char *const metric[] = {"smsp__inst_executed.sum"};
    double value;
    int status = run_ncu("--size 4K --reps 1", NULL, metric[0], log_path, err_path);
    int rows = sum_ncu_rows(log_path, metric, 1, &value, why, sizeof why);
    read_file_cut(err_path, err, sizeof err);
    read_file_cut(log_path, log, sizeof log);
    unlink(log_path);
    unlink(err_path);
    if (strstr(err, "ERR_NVGPUCTRPERM") || strstr(log, "ERR_NVGPUCTRPERM")) {
        snprintf(
            profile_missing, sizeof profile_missing,
            "permission to read the GPU's performance counters (ncu says ERR_NVGPUCTRPERM: see "
            "https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
        return false;
    }
    /* ncu that profiled launches of a program that then failed on its own
     * (a wrong histogram: exit 1) can profile: the groups that use it run, and
     * fail on that exit, rather than call the program's fault ncu's. */
    bool program_failed = rows > 0 && (strstr(log, "The application returned an error code") ||
                                       strstr(err, "The application returned an error code"));
    if ((status != 0 && !program_failed) || rows <= 0) {
        char first[300];
        const char *error = strstr(log, "==ERROR==") ? strstr(log, "==ERROR==") : err;
        lines_from(error, error, 1, first, sizeof first);
        first[strcspn(first, "\n")] = '\0';
        snprintf(
            profile_missing, sizeof profile_missing,
            "an ncu that can profile this program (%.200s exited %d after %d launches: %.300s)",
            ncu, status, rows < 0 ? 0 : rows,
            first[0]   ? first
            : rows < 0 ? why
                       : "no message");
        return false;
    }
    profilable = 1;
    return true;
}

void profile_kernel(const char *args, const char *kernel_regex, const char *const *metrics,
                    int count, double *values)
{
    ck_assert_msg(count >= 1 && count <= 64, "profile_kernel: %d metrics (1 to 64)", count);
    ck_assert_msg(can_profile(), "cannot profile here: needs %s", profile_missing);
    char list[4096] = "";
    for (int i = 0; i < count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "", metrics[i]);
    char log_path[64], err_path[64], err[2048], log[4096], why[512] = "";
    ck_assert_msg(temp_path(log_path, sizeof log_path, "ncu_log") &&
                      temp_path(err_path, sizeof err_path, "ncu_err"),
                  "mkstemp failed");
    int status = run_ncu(args, kernel_regex, list, log_path, err_path);
    int rows = sum_ncu_rows(log_path, metrics, count, values, why, sizeof why);
    read_file_cut(err_path, err, sizeof err);
    read_file_cut(log_path, log, sizeof log);
    unlink(log_path);
    unlink(err_path);
    launches_profiled = rows < 0 ? 0 : rows;
    const char *error = strstr(log, "==ERROR==");
    char first[600] = "";
    if (error)
        lines_from(log, error, 2, first, sizeof first);
    ck_assert_msg(status == 0, "under ncu (%s): exit %d. ncu says: %s\nstderr: %s", args, status,
                  first, err);
    ck_assert_msg(rows >= 0, "under ncu (%s): %s", args, why);
    ck_assert_msg(rows > 0,
                  "under ncu (%s): no launch of a kernel whose name matches /%s/ was profiled "
                  "(is the kernel renamed, or not launched?)",
                  args, kernel_regex);
}

void add_if_tool(Suite *suite, TCase *tc, int checks, bool available, const char *missing)
{
    if (!can_run_stage()) {
        skipped_checks += checks; /* run_exercise says the program cannot run here */
        return;
    }
    if (available) {
        add_tcase(suite, tc, checks);
        return;
    }
    skipped_checks += checks;
    const char *name = "?";
    for (int g = 0; g < group_count; g++)
        if (groups[g].tc == tc)
            name = groups[g].name;
    char note[600];
    snprintf(note, sizeof note, "  not run here: \"%s\" (%d check%s): needs %s\n", name, checks,
             checks == 1 ? "" : "s", missing);
    printf("%s", note);
    snprintf(tool_notes + strlen(tool_notes), sizeof tool_notes - strlen(tool_notes), "%s", note);
}

int ptx_lines_matching(const char *regex)
{
    const char *path = getenv("CHECK_PTX");
    ck_assert_msg(path && *path,
                  "no PTX to read: CHECK_PTX is not set (make check builds the program's PTX "
                  "and sets it)");
    unsigned char *text;
    size_t size;
    char why[512];
    ck_assert_msg(read_file(path, &text, &size, why, sizeof why) == EXIT_OK, "%s", why);
    regex_t pattern;
    ck_assert_msg(regcomp(&pattern, regex, REG_EXTENDED | REG_NOSUB) == 0, "bad pattern /%s/",
                  regex);
    char *ptx = realloc(text, size + 1); /* one more byte: a C string, whatever the file holds */
    ck_assert(ptx != NULL);
    ptx[size] = '\0';
    int matching = 0;
    for (char *line = ptx, *end; line < ptx + size; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            end = ptx + size;
        *end = '\0';
        matching += regexec(&pattern, line, 0, NULL, 0) == 0;
    }
    regfree(&pattern);
    free(ptx);
    return matching;
}

char *read_ptx(const char *kernel)
{
    const char *path = getenv("CHECK_PTX");
    ck_assert_msg(path && *path,
                  "no PTX to read: CHECK_PTX is not set (make check builds the program's PTX "
                  "and sets it)");
    unsigned char *text;
    size_t size;
    char why[512];
    ck_assert_msg(read_file(path, &text, &size, why, sizeof why) == EXIT_OK, "%s", why);
    char *ptx = realloc(text, size + 1);
    ck_assert(ptx != NULL);
    ptx[size] = '\0';
    if (!kernel)
        return ptx;
    char start[256];
    snprintf(start, sizeof start, ".entry %s", kernel);
    char *entry = strstr(ptx, start);
    ck_assert_msg(entry != NULL, "the program's PTX has no kernel %s (%s)", kernel, path);
    char *end = strstr(entry, "\n}");
    ck_assert_msg(end != NULL, "cannot find the end of %s in the PTX", kernel);
    *end = '\0';
    memmove(ptx, entry, (size_t)(end - entry) + 1);
    return ptx;
}

void check_no_constant_full_mask(const char *kernel, const char *why)
{
    char *ptx = read_ptx(kernel);
    char all_lanes[64][16]; /* the registers set to -1 (all 32 lanes) */
    int registers = 0;
    for (char *line = strtok(ptx, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            line++;
        char reg[16];
        int read = 0; /* set only when the whole line matched, -1; included */
        if (sscanf(line, "mov.%*[ub]32 %15[^,], -1;%n", reg, &read) == 1 && read > 0 &&
            registers < 64)
            snprintf(all_lanes[registers++], sizeof all_lanes[0], "%s", reg);
        if (!strstr(line, ".sync") ||
            !(strstr(line, "match.") || strstr(line, "vote.") || strstr(line, "shfl.")))
            continue;
        char *end = strrchr(line, ';');
        char *comma = strrchr(line, ',');
        ck_assert_msg(end && comma && comma < end, "cannot read the PTX line '%s'", line);
        *end = '\0';
        char *mask = comma + 1;
        while (*mask == ' ' || *mask == '\t')
            mask++;
        bool constant = strcmp(mask, "-1") == 0;
        for (int r = 0; r < registers && !constant; r++)
            constant = strcmp(mask, all_lanes[r]) == 0;
        ck_assert_msg(!constant,
                      "%s%s warp-wide call '%s;' takes a mask of all 32 lanes, a constant "
                      "(0xffffffff): in a loop's last step, and in the last warp of a block that "
                      "is not whole warps, some of those lanes have left the loop or are not "
                      "there, and a mask that names them is undefined behaviour%s",
                      kernel ? kernel : "the program", kernel ? "'s" : "'s PTX:", line, why);
    }
    free(ptx);
}

void check_global_atomics_are_device_wide(void)
{
    int block_scope = ptx_lines_matching("^[[:space:]]*(atom|red)(\\.global)?\\.cta\\.");
    ck_assert_msg(block_scope == 0,
                  "the program's PTX has %d atomic%s of block scope (.cta: atomicAdd_block) on "
                  "global memory, atomic only among one block's threads, on bins every block adds "
                  "to",
                  block_scope, block_scope == 1 ? "" : "s");
}

static char memory_short[256];

bool have_memory_for(size_t gpu_bytes, size_t host_bytes)
{
    unsigned long long free_mib = 0, available_kib = 0;
    bool gpu_known = false, host_known = false;
    FILE *smi = popen("nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits "
                      "2>/dev/null",
                      "r");
    if (smi) {
        gpu_known = fscanf(smi, "%llu", &free_mib) == 1;
        pclose(smi);
    }
    FILE *info = fopen("/proc/meminfo", "r");
    if (info) {
        char line[256];
        while (!host_known && fgets(line, sizeof line, info))
            host_known = sscanf(line, "MemAvailable: %llu kB", &available_kib) == 1;
        fclose(info);
    }
    unsigned long long gpu_mib = (gpu_bytes >> 20) + 64, host_kib = (host_bytes >> 10) + 65536;
    if (gpu_known && free_mib < gpu_mib) {
        snprintf(memory_short, sizeof memory_short,
                 "a GPU with %llu MiB free for its input (this one has %llu MiB free)", gpu_mib,
                 free_mib);
        return false;
    }
    if (host_known && available_kib < host_kib) {
        snprintf(memory_short, sizeof memory_short,
                 "%llu MiB of host memory available (this machine has %llu MiB)", host_kib >> 10,
                 available_kib >> 10);
        return false;
    }
    return true;
}

const char *memory_missing(void)
{
    return memory_short;
}
