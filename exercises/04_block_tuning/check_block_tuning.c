/*
 * check_block_tuning.c - exercise 04 measures what it claims: one verified CSV
 * row for each of the 7 grids (1, 2, 4, ... 64 blocks per SM), and a "best:"
 * line that names the row with the smallest kernel time and the right speed-up
 * over the book's 2 blocks per SM. Nothing here depends on how fast the GPU is.
 */
#include "stage_checks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRIDS 7

struct row {
    char impl[64];
    long blocks;
    int threads;
    double kernel_ms;
    bool verified;
};

struct best {
    char impl[64];
    long blocks;
    int threads;
    double kernel_ms, speedup, book_ms;
};

/* Reads one CSV row: stage,impl,device,data,bytes,seed,blocks,threads,reps,
 * kernel_ms,total_ms,gbps,verified. The device name may be quoted and hold
 * commas, so the numbers are read from the end of the line. */
static void read_row(char *line, struct row *r)
{
    ck_assert_msg(strncmp(line, "04_block_tuning,", 16) == 0, "row starts wrong: %s", line);
    const char *impl = line + 16;
    size_t len = strcspn(impl, ",");
    ck_assert_msg(len < sizeof r->impl, "impl too long: %s", line);
    memcpy(r->impl, impl, len);
    r->impl[len] = '\0';
    char *field[9]; /* the last nine fields, from bytes to verified */
    char *end = line + strlen(line);
    for (int i = 8; i >= 0; i--) {
        char *comma = end;
        while (comma > line && *--comma != ',')
            ;
        ck_assert_msg(*comma == ',', "too few fields: %s", line);
        *comma = '\0';
        field[i] = comma + 1;
        end = comma;
    }
    r->blocks = strtol(field[2], NULL, 10);
    r->threads = (int)strtol(field[3], NULL, 10);
    r->kernel_ms = strtod(field[5], NULL);
    r->verified = strcmp(field[8], "yes") == 0;
}

/* Reads the CSV on stdout into rows; returns how many there were. */
static int read_csv(struct stage_output *o, struct row rows[], int most)
{
    char *line = o->out, *end = strchr(line, '\n');
    ck_assert_msg(end != NULL, "no CSV header: %s", o->out);
    *end = '\0';
    ck_assert_str_eq(line, CSV_HEADER);
    int count = 0;
    for (line = end + 1; (end = strchr(line, '\n')); line = end + 1) {
        *end = '\0';
        ck_assert_msg(count < most, "more than %d rows", most);
        read_row(line, &rows[count++]);
    }
    ck_assert_msg(*line == '\0', "a line that does not end: %s", line);
    return count;
}

/* Reads the "best:" line from text (stdout, or stderr with --csv). */
static void read_best(const char *text, struct best *b)
{
    const char *line = strstr(text, "best:");
    ck_assert_msg(line != NULL, "no 'best:' line in: %s", text);
    int fields = sscanf(line,
                        "best: %63[^,], %ldx%d threads, %lf ms kernel only, %lfx as fast as "
                        "the book's 2 blocks per SM (%lf ms)",
                        b->impl, &b->blocks, &b->threads, &b->kernel_ms, &b->speedup, &b->book_ms);
    ck_assert_msg(fields == 6, "cannot read the 'best:' line (%d fields): %.200s", fields, line);
}

/* Inputs and block sizes: the answer may differ, the checks must not. */
static const char *const sweeps[] = {
    "--size 16M --data uniform",
    "--size 16M --data constant --threads 1024", /* every atomic on one bin */
    "--size 4M --data skewed --threads 33",      /* a block size that is not a power of two */
};
#define SWEEPS ((int)(sizeof sweeps / sizeof sweeps[0]))

START_TEST(test_times_seven_grids_each_verified)
{
    char args[256];
    snprintf(args, sizeof args, "%s --reps 3 --csv", sweeps[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    struct row rows[64];
    int count = read_csv(&o, rows, 64);
    ck_assert_msg(count == GRIDS, "%s: %d CSV rows, want one per grid: %d", args, count, GRIDS);
    for (int i = 0; i < GRIDS; i++) {
        char impl[64];
        snprintf(impl, sizeof impl, "blocks-per-sm-%d", 1 << i);
        ck_assert_msg(strcmp(rows[i].impl, impl) == 0, "%s: row %d is %s, want %s", args, i,
                      rows[i].impl, impl);
        ck_assert_msg(rows[i].blocks == rows[0].blocks << i,
                      "%s: %s has %ld blocks, want %d x %ld (the SMs)", args, impl, rows[i].blocks,
                      1 << i, rows[0].blocks);
        ck_assert_msg(rows[i].threads == rows[0].threads, "%s: the block size changed", args);
        ck_assert_msg(rows[i].kernel_ms > 0, "%s: %s took no time", args, impl);
        ck_assert_msg(rows[i].verified, "%s: %s is not verified", args, impl);
    }
}
END_TEST

START_TEST(test_the_best_is_the_fastest_row)
{
    char args[256];
    snprintf(args, sizeof args, "%s --reps 3 --csv", sweeps[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    struct best b;
    read_best(o.err, &b); /* with --csv the answer goes to stderr */
    struct row rows[64];
    int count = read_csv(&o, rows, 64);
    ck_assert_msg(count == GRIDS, "%s: %d CSV rows, want %d", args, count, GRIDS);

    const struct row *named = NULL, *book = NULL;
    double fastest = rows[0].kernel_ms;
    for (int i = 0; i < count; i++) {
        if (strcmp(rows[i].impl, b.impl) == 0)
            named = &rows[i];
        if (strcmp(rows[i].impl, "blocks-per-sm-2") == 0)
            book = &rows[i];
        fastest = fmin(fastest, rows[i].kernel_ms);
    }
    ck_assert_msg(named != NULL, "%s: the best, %s, is not a row", args, b.impl);
    ck_assert_msg(book != NULL, "%s: no row for the book's 2 blocks per SM", args);
    /* Both are printed with 4 decimals from the same double: equal as read. */
    ck_assert_msg(b.kernel_ms == named->kernel_ms && b.blocks == named->blocks &&
                      b.threads == named->threads,
                  "%s: the best line (%s, %.4f ms) does not match its row (%.4f ms)", args, b.impl,
                  b.kernel_ms, named->kernel_ms);
    ck_assert_msg(named->kernel_ms == fastest,
                  "%s: the best, %s, took %.4f ms, but a row took %.4f", args, b.impl,
                  named->kernel_ms, fastest);
    ck_assert_msg(b.book_ms == book->kernel_ms, "%s: the book's time is %.4f ms, its row %.4f",
                  args, b.book_ms, book->kernel_ms);
    /* The speed-up is printed from unrounded times: allow for the rounding. */
    double want = book->kernel_ms / named->kernel_ms;
    ck_assert_msg(b.speedup >= 1.0 - 1e-9, "%s: the best is slower than the book's (%.2fx)", args,
                  b.speedup);
    ck_assert_msg(fabs(b.speedup - want) <= 0.01 + 0.02 * want,
                  "%s: speed-up %.2fx, but the rows say %.3fx", args, b.speedup, want);
}
END_TEST

START_TEST(test_the_report_ends_with_the_best)
{
    struct stage_output o;
    run_stage("--size 1M --reps 2", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.has_sum && o.sum == 1u << 20, "no right Histogram Sum: %s", o.out);
    ck_assert_msg(o.says_verified, "no 'verified: yes': %s", o.out);
    for (int i = 0; i < GRIDS; i++) {
        char impl[64];
        snprintf(impl, sizeof impl, "\nblocks-per-sm-%d ", 1 << i);
        ck_assert_msg(strstr(o.out, impl) != NULL, "no row for %s in: %s", impl + 1, o.out);
    }
    struct best b;
    read_best(o.out, &b);
}
END_TEST

START_TEST(test_every_grid_counts_every_size_and_kind)
{
    check_matrix_case(_i, ""); /* exit 0 only when all 7 grids match the CPU */
}
END_TEST

START_TEST(test_grid_options_are_usage_errors)
{
    struct stage_output o;
    run_stage("--blocks 8 --size 1K", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    run_stage("--blocks-per-sm 8 --size 1K", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "tries every grid itself"), "stderr: %s", o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("04_block_tuning", argc, argv);
    Suite *suite = suite_create("exercise 04: block-count tuning");
    TCase *tc = tcase_create("the sweep");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_times_seven_grids_each_verified, 0, SWEEPS);
    tcase_add_loop_test(tc, test_the_best_is_the_fastest_row, 0, SWEEPS);
    tcase_add_test(tc, test_the_report_ends_with_the_best);
    tcase_add_loop_test(tc, test_every_grid_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_test(tc, test_grid_options_are_usage_errors);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, 2 * SWEEPS + 1 + MATRIX_CASES + 1);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    return run_suite(suite);
}
