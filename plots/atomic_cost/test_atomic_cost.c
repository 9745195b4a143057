/*
 * test_atomic_cost.c - atomic_cost prints a verified row for each of its eight
 * patterns, in the table and in the CSV, with the documented columns and
 * numbers that agree with each other; one address for the whole grid is
 * slower per atomic than an address per thread. It takes only --reps, --csv
 * and --help, and exits 77 with one line where there is no GPU.
 * Without a CUDA device the GPU checks are reported as skipped.
 */
#include "stage_checks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CSV_COLUMNS                                                                                \
    "tool,memory,pattern,threads,blocks,atomics,addresses,reps,kernel_ms,gatomics_per_s,"          \
    "ns_per_atomic_per_address,verified,gpu"

/* The rows, in the order printed. same_address: a warp's lanes share a counter,
 * so the row has a time per atomic per address. */
static const struct {
    const char *memory, *pattern;
    bool same_address;
} patterns[] = {
    {"global", "own-address", false},   {"global", "warp-address", true},
    {"global", "one-address", true},    {"global", "random-256", false},
    {"shared", "own-bank", false},      {"shared", "warp-address", true},
    {"shared", "bank-conflict", false}, {"shared", "random-256", false},
};
#define PATTERNS ((int)(sizeof patterns / sizeof patterns[0]))

/* ------------------------------------------------------------ usage -- */

/* Options of the stages' set that a measurement with fixed work has no use for. */
static const char *const unused_options[] = {
    "--size 1M",
    "--data constant",
    "--seed 7",
    "--print-bins",
    "--blocks 4",
    "--threads 64",
    "--blocks-per-sm 2",
    "--file ../../common/book.h",
    "--image ../../data/chelsea.bmp",
};
#define UNUSED_OPTIONS ((int)(sizeof unused_options / sizeof unused_options[0]))

START_TEST(test_an_option_it_has_no_use_for_exits_2_naming_it)
{
    struct stage_output o;
    run_stage(unused_options[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d", unused_options[_i], o.exit_status);
    char option[32];
    snprintf(option, sizeof option, "%.*s", (int)strcspn(unused_options[_i], " "),
             unused_options[_i]);
    char *second_line = strchr(o.err, '\n');
    ck_assert_msg(second_line != NULL, "%s: nothing on stderr", unused_options[_i]);
    *second_line++ = '\0';
    ck_assert_msg(strstr(o.err, option) && strstr(o.err, "takes only --reps, --csv and --help"),
                  "%s: the reason is '%s'", unused_options[_i], o.err);
    ck_assert_msg(strncmp(second_line, "usage:", 6) == 0, "%s: no usage after the reason",
                  unused_options[_i]);
    ck_assert_msg(o.out[0] == '\0', "%s: printed on stdout: %s", unused_options[_i], o.out);
}
END_TEST

START_TEST(test_help_says_what_it_takes)
{
    struct stage_output o;
    run_stage("--help", &o);
    ck_assert_int_eq(o.exit_status, EXIT_OK);
    ck_assert_msg(strstr(o.out, "takes only --reps, --csv and --help"), "%s", o.out);
}
END_TEST

/* Where CUDA sees no device (as here, with every device hidden), one line and exit 77. */
START_TEST(test_without_a_gpu_exits_77_with_one_line)
{
    const char *before = getenv("CUDA_VISIBLE_DEVICES");
    char saved[256];
    snprintf(saved, sizeof saved, "%s", before ? before : "");
    setenv("CUDA_VISIBLE_DEVICES", "-1", 1); /* CUDA hides devices from an invalid index on */
    struct stage_output o;
    run_stage("--reps 1", &o);
    if (before)
        setenv("CUDA_VISIBLE_DEVICES", saved, 1);
    else
        unsetenv("CUDA_VISIBLE_DEVICES");
    ck_assert_msg(o.exit_status == EXIT_CANNOT_RUN, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.out[0] == '\0', "printed on stdout: %s", o.out);
    char *newline = strchr(o.err, '\n');
    ck_assert_msg(strstr(o.err, "cannot run here") && newline && newline[1] == '\0',
                  "not one line: '%s'", o.err);
}
END_TEST

/* --------------------------------------------------------- on a GPU -- */

struct row {
    char tool[32], memory[16], pattern[32], verified[8], gpu[256];
    long threads, blocks, reps;
    double atomics, addresses, kernel_ms, gatomics_per_s, ns_per_atomic_per_address;
    bool has_ns; /* the ns_per_atomic_per_address field is not empty */
};

/* The next comma-separated field of *line (empty fields included) into field. */
static void next_field(char **line, char *field, size_t size)
{
    size_t len = strcspn(*line, ",");
    snprintf(field, size, "%.*s", (int)len, *line);
    *line += len + ((*line)[len] == ',');
}

static double number_field(char **line)
{
    char field[64];
    next_field(line, field, sizeof field);
    return field[0] ? strtod(field, NULL) : NAN;
}

/* Runs the program with args and --csv, asserts exit 0 and the header, and
 * reads its rows; returns how many there were. */
static int read_csv(const char *args, struct row rows[], int most)
{
    char command_args[256];
    snprintf(command_args, sizeof command_args, "%s --csv", args);
    struct stage_output o;
    run_stage(command_args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", command_args, o.exit_status, o.err);
    char *line = strtok(o.out, "\n");
    ck_assert_msg(line && strcmp(line, CSV_COLUMNS) == 0, "header: %s", line ? line : "(none)");
    int count = 0;
    while ((line = strtok(NULL, "\n")) && count < most) {
        struct row *r = &rows[count++];
        char field[64];
        next_field(&line, r->tool, sizeof r->tool);
        next_field(&line, r->memory, sizeof r->memory);
        next_field(&line, r->pattern, sizeof r->pattern);
        r->threads = (long)number_field(&line);
        r->blocks = (long)number_field(&line);
        r->atomics = number_field(&line);
        r->addresses = number_field(&line);
        r->reps = (long)number_field(&line);
        r->kernel_ms = number_field(&line);
        r->gatomics_per_s = number_field(&line);
        next_field(&line, field, sizeof field);
        r->has_ns = field[0] != '\0';
        r->ns_per_atomic_per_address = r->has_ns ? strtod(field, NULL) : NAN;
        next_field(&line, r->verified, sizeof r->verified);
        snprintf(r->gpu, sizeof r->gpu, "%s", line); /* the last field, which may hold commas */
    }
    return count;
}

static bool positive(double x)
{
    return isfinite(x) && x > 0;
}

/* Whether a and b agree to within 2% (the CSV rounds to four decimals). */
static bool close_to(double a, double b)
{
    return fabs(a - b) <= 0.02 * fabs(b);
}

START_TEST(test_csv_has_a_verified_row_per_pattern_with_consistent_numbers)
{
    struct row rows[PATTERNS + 1];
    int count = read_csv("--reps 2", rows, PATTERNS + 1);
    ck_assert_int_eq(count, PATTERNS);
    double threads_in_grid = (double)rows[0].threads * rows[0].blocks;
    for (int i = 0; i < PATTERNS; i++) {
        const struct row *r = &rows[i];
        ck_assert_str_eq(r->tool, "atomic_cost");
        ck_assert_str_eq(r->memory, patterns[i].memory);
        ck_assert_str_eq(r->pattern, patterns[i].pattern);
        ck_assert_msg(r->threads > 0 && r->blocks > 0, "%s: launch %ld x %ld", r->pattern,
                      r->blocks, r->threads);
        ck_assert_msg(r->threads == rows[0].threads && r->blocks == rows[0].blocks &&
                          r->atomics == rows[0].atomics,
                      "%s %s: every pattern must run the same grid and work", r->memory,
                      r->pattern);
        /* a whole number of atomics per thread */
        ck_assert_msg(r->atomics >= threads_in_grid && fmod(r->atomics, threads_in_grid) == 0,
                      "%s: %.0f atomics for %.0f threads", r->pattern, r->atomics, threads_in_grid);
        ck_assert_int_eq(r->reps, 2);
        ck_assert_msg(positive(r->kernel_ms) && positive(r->gatomics_per_s), "%s %s: %g ms, %g",
                      r->memory, r->pattern, r->kernel_ms, r->gatomics_per_s);
        ck_assert_msg(close_to(r->gatomics_per_s, r->atomics / (r->kernel_ms * 1e6)),
                      "%s %s: %g G atomics/s is not %g atomics over %g ms", r->memory, r->pattern,
                      r->gatomics_per_s, r->atomics, r->kernel_ms);
        ck_assert_msg(r->has_ns == patterns[i].same_address, "%s %s: ns per atomic per address",
                      r->memory, r->pattern);
        if (r->has_ns)
            ck_assert_msg(positive(r->ns_per_atomic_per_address) &&
                              close_to(r->ns_per_atomic_per_address,
                                       r->kernel_ms * 1e6 / (r->atomics / r->addresses)),
                          "%s %s: %g ns per atomic per address", r->memory, r->pattern,
                          r->ns_per_atomic_per_address);
        ck_assert_msg(strcmp(r->verified, "yes") == 0, "%s %s: verified %s", r->memory, r->pattern,
                      r->verified);
        ck_assert_msg(r->gpu[0] != '\0', "no GPU named");
    }
    /* How many counters each pattern spreads its atomics over. */
    double blocks = rows[0].blocks, warps_per_block = rows[0].threads / 32.0;
    ck_assert_double_eq(rows[0].addresses, threads_in_grid);
    ck_assert_double_eq(rows[1].addresses, threads_in_grid / 32);
    ck_assert_double_eq(rows[2].addresses, 1);
    ck_assert_msg(rows[3].addresses > 1 && rows[3].addresses <= 256, "%g", rows[3].addresses);
    ck_assert_double_eq(rows[4].addresses, blocks * 32);
    ck_assert_double_eq(rows[5].addresses, blocks * warps_per_block);
    ck_assert_double_eq(rows[6].addresses, blocks * 32);
    ck_assert_msg(rows[7].addresses > blocks && rows[7].addresses <= blocks * 256, "%g",
                  rows[7].addresses);
}
END_TEST

START_TEST(test_table_has_a_verified_row_per_pattern)
{
    struct stage_output o;
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.says_verified, "no 'verified: yes' line:\n%s", o.out);
    /* a row: memory, pattern, the numbers, then yes */
    bool found[PATTERNS] = {false};
    for (char *line = strtok(o.out, "\n"); line; line = strtok(NULL, "\n")) {
        char memory[16], pattern[32];
        size_t len = strlen(line);
        if (sscanf(line, "%15s %31s", memory, pattern) != 2 || len < 4 ||
            strcmp(line + len - 4, " yes") != 0)
            continue;
        for (int i = 0; i < PATTERNS; i++)
            found[i] = found[i] || (strcmp(memory, patterns[i].memory) == 0 &&
                                    strcmp(pattern, patterns[i].pattern) == 0);
    }
    for (int i = 0; i < PATTERNS; i++)
        ck_assert_msg(found[i], "no verified row for %s %s", patterns[i].memory,
                      patterns[i].pattern);
}
END_TEST

/* Not a speed threshold: the order the lesson rests on, by a wide margin.
 * Every thread of the grid adding to one address waits for the others; an
 * address per thread lets the L2 cache work on many at once. */
START_TEST(test_one_address_is_slower_per_atomic_than_an_address_per_thread)
{
    struct row rows[PATTERNS];
    ck_assert_int_eq(read_csv("--reps 3", rows, PATTERNS), PATTERNS);
    const struct row *own = &rows[0], *one = &rows[2];
    ck_assert_msg(one->gatomics_per_s < own->gatomics_per_s,
                  "global one-address %g G atomics/s, own-address %g", one->gatomics_per_s,
                  own->gatomics_per_s);
}
END_TEST

/* Whether a GPU is here to run on. (can_run_stage asks with --size, which
 * this program refuses.) Where there is none, says why. */
static bool gpu_here(void)
{
    struct stage_output o;
    run_stage("--reps 1 --csv", &o);
    if (o.exit_status != EXIT_CANNOT_RUN)
        return true;
    printf("GPU checks not run: %s", o.err);
    return false;
}

int main(int argc, char **argv)
{
    set_stage("atomic_cost", argc, argv);
    Suite *suite = suite_create("atomic_cost");
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks); /* the stages' bad usages, --help */
    tcase_add_loop_test(usage, test_an_option_it_has_no_use_for_exits_2_naming_it, 0,
                        UNUSED_OPTIONS);
    tcase_add_test(usage, test_help_says_what_it_takes);
    tcase_add_test(usage, test_without_a_gpu_exits_77_with_one_line);
    suite_add_tcase(suite, usage);
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_test(gpu, test_csv_has_a_verified_row_per_pattern_with_consistent_numbers);
    tcase_add_test(gpu, test_table_has_a_verified_row_per_pattern);
    tcase_add_test(gpu, test_one_address_is_slower_per_atomic_than_an_address_per_thread);
    if (gpu_here())
        suite_add_tcase(suite, gpu);
    else
        add_skipped(3);
    return run_suite(suite);
}
