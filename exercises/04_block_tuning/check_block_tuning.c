/*
 * check_block_tuning.c - exercise 04 measures what it claims: one verified CSV
 * row for each of the 7 grids (1, 2, 4, ... 64 blocks per SM), each a median
 * of the repeats asked for, and a "best:" line that names the row with the
 * smallest kernel time and the right speed-up over the book's 2 blocks per SM,
 * then a "pick:" line that names the smallest grid whose kernel time is at
 * most 1.05 times the best's, and between them a "predicted knee:" line that
 * gives the blocks per SM that fill an SM, from its two limits, and which
 * limit binds.
 * Nothing here depends on how fast the GPU is: where the check needs a known
 * winner, --favour N makes every other grid wait some milliseconds more in its
 * kernel-only runs (twice as long on every other grid, so that the times rise
 * and fall) and N alone wait in its end-to-end runs, so that a best that was
 * not measured, not the smallest, not looked for in every row, or read from
 * the end-to-end times shows. And --times T1,...,T7 gives the seven kernel
 * times outright: nothing runs, so the groups that use only --times (the
 * sweep's order, the best, the pick) run on a machine without a GPU too.
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
    int reps;
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
    r->reps = (int)strtol(field[4], NULL, 10);
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
    ck_assert_msg(fields == 6,
                  "expected 'best: IMPL, BxT threads, X ms kernel only, Sx as fast as the book's "
                  "2 blocks per SM (Y ms)', got (%d fields read): %.200s",
                  fields, line);
}

struct pick {
    char impl[64];
    long blocks;
    int threads;
    double kernel_ms, best_ms;
};

/* Reads the "pick:" line from text (stdout, or stderr with --csv). */
static void read_pick(const char *text, struct pick *p)
{
    const char *line = strstr(text, "pick:");
    ck_assert_msg(line != NULL, "no 'pick:' line in: %s", text);
    int fields = sscanf(line,
                        "pick: %63[^,], %ldx%d threads, %lf ms kernel only, the smallest grid "
                        "within 5%% of the best's %lf ms",
                        p->impl, &p->blocks, &p->threads, &p->kernel_ms, &p->best_ms);
    ck_assert_msg(fields == 5,
                  "expected 'pick: IMPL, BxT threads, X ms kernel only, the smallest grid within "
                  "5%% of the best's Y ms', got (%d fields read): %.200s",
                  fields, line);
}

/* The answer lines of the last run_sweep (its stderr, as --csv puts them) or
 * run_times (its stdout). */
static char last_answer[8192];

/* Runs a sweep with --reps 3 --csv and reads its rows and its best line. */
static int run_sweep(const char *sweep, char *args, size_t args_size, struct row rows[GRIDS + 1],
                     struct best *b)
{
    snprintf(args, args_size, "%s --reps 3 --csv", sweep);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: expected exit 0, got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    snprintf(last_answer, sizeof last_answer, "%s", o.err);
    int count = read_csv(&o, rows, GRIDS + 1);
    if (b)
        read_best(o.err, b); /* with --csv the answer goes to stderr */
    return count;
}

/* The table covers the sweep: 7 rows in order, each grid 2^i times the first,
 * one block size, each a median of the 3 runs asked for, each verified. */
static void check_rows(const char *args, const struct row rows[], int count)
{
    ck_assert_msg(count == GRIDS, "%s: expected %d CSV rows, one per grid, got %d", args, GRIDS,
                  count);
    for (int i = 0; i < GRIDS; i++) {
        char impl[64];
        snprintf(impl, sizeof impl, "blocks-per-sm-%d", 1 << i);
        ck_assert_msg(strcmp(rows[i].impl, impl) == 0, "%s: expected row %d to be %s, got %s", args,
                      i, impl, rows[i].impl);
        ck_assert_msg(rows[i].blocks == rows[0].blocks << i,
                      "%s: expected %s to have %d x %ld blocks (the SMs), got %ld", args, impl,
                      1 << i, rows[0].blocks, rows[i].blocks);
        ck_assert_msg(rows[i].threads == rows[0].threads,
                      "%s: expected every grid to have %d threads per block, %s has %d", args,
                      rows[0].threads, impl, rows[i].threads);
        ck_assert_msg(rows[i].reps == 3, "%s: expected %s to be a median of 3 runs, got %d", args,
                      impl, rows[i].reps);
        ck_assert_msg(rows[i].kernel_ms > 0, "%s: expected a kernel time for %s, got %.4f ms", args,
                      impl, rows[i].kernel_ms);
        ck_assert_msg(rows[i].verified, "%s: expected %s verified, got 'no'", args, impl);
    }
}

/* Runs the program with --times, which runs nothing and needs no GPU, and
 * reads its table (between the "impl" header and the best: line) and its
 * best: line. The table: 7 rows in the order 1, 2, 4, ... 64 blocks per SM
 * (one SM stands in for the GPU: blocks are blocks per SM), one block size,
 * each row's time the one given for its place, as printed (4 decimals). */
static int run_times(const char *times_args, struct row rows[GRIDS + 1], struct best *b)
{
    struct stage_output o;
    run_stage(times_args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: expected exit 0, got %s; stderr: %s", times_args,
                  exit_meaning(&o), o.err);
    snprintf(last_answer, sizeof last_answer, "%s", o.out);
    char *line = strstr(o.out, "\nimpl ");
    ck_assert_msg(line != NULL, "%s: no table (a line 'impl ...') in: %s", times_args, o.out);
    int count = 0;
    for (line = strchr(line + 1, '\n'); line && strncmp(line + 1, "best:", 5) != 0;
         line = strchr(line + 1, '\n')) {
        if (line[1] == '\0')
            break;
        ck_assert_msg(count < GRIDS + 1, "%s: more than %d rows", times_args, GRIDS + 1);
        struct row *r = &rows[count++];
        int fields =
            sscanf(line + 1, "%63s %ldx%d %lf", r->impl, &r->blocks, &r->threads, &r->kernel_ms);
        ck_assert_msg(fields == 4, "%s: expected a row 'IMPL BxT MS', got: %.200s", times_args,
                      line + 1);
        r->reps = 0;
        r->verified = false;
    }
    ck_assert_msg(count == GRIDS, "%s: expected %d rows, one per grid, got %d: %s", times_args,
                  GRIDS, count, o.out);
    const char *given = strstr(times_args, "--times ") + strlen("--times ");
    const char *threads = strstr(times_args, "--threads ");
    int want_threads = threads ? atoi(threads + strlen("--threads ")) : 256; /* --help's */
    for (int i = 0; i < GRIDS; i++) {
        char impl[64], text[64];
        snprintf(impl, sizeof impl, "blocks-per-sm-%d", 1 << i);
        ck_assert_msg(strcmp(rows[i].impl, impl) == 0, "%s: expected row %d to be %s, got %s",
                      times_args, i, impl, rows[i].impl);
        ck_assert_msg(rows[i].blocks == rows[0].blocks << i,
                      "%s: expected %s to have %d x %ld blocks, got %ld", times_args, impl, 1 << i,
                      rows[0].blocks, rows[i].blocks);
        ck_assert_msg(rows[i].threads == want_threads,
                      "%s: expected every grid to have %d threads per block (%s), %s has %d",
                      times_args, want_threads, threads ? "--threads" : "the default", impl,
                      rows[i].threads);
        char *end;
        snprintf(text, sizeof text, "%.4f", strtod(given, &end)); /* the n-th time, printed */
        given = end + 1;
        ck_assert_msg(rows[i].kernel_ms == strtod(text, NULL),
                      "%s: expected %s to read the %d-th time given, %s ms, got %.4f ms",
                      times_args, impl, i + 1, text, rows[i].kernel_ms);
    }
    if (b)
        read_best(o.out, b);
    return count;
}

/* The best line names the row with the smallest kernel time (a tie at 4
 * decimals may name either), repeats that row's numbers and the book's, and
 * its speed-up is the book's time over the best's. */
static void check_best(const char *args, const struct row rows[], int count, const struct best *b)
{
    const struct row *named = NULL, *book = NULL, *fastest = &rows[0];
    for (int i = 0; i < count; i++) {
        if (strcmp(rows[i].impl, b->impl) == 0)
            named = &rows[i];
        if (strcmp(rows[i].impl, "blocks-per-sm-2") == 0)
            book = &rows[i];
        if (rows[i].kernel_ms < fastest->kernel_ms)
            fastest = &rows[i];
    }
    ck_assert_msg(named != NULL, "%s: expected the best to be a row of the table, got %s", args,
                  b->impl);
    ck_assert_msg(book != NULL, "%s: expected a row for the book's 2 blocks per SM, got none",
                  args);
    /* Both are printed with 4 decimals from the same double: equal as read. */
    ck_assert_msg(b->kernel_ms == named->kernel_ms && b->blocks == named->blocks &&
                      b->threads == named->threads,
                  "%s: expected the best line to repeat its row (%s: %ldx%d, %.4f ms), got "
                  "%ldx%d, %.4f ms",
                  args, b->impl, named->blocks, named->threads, named->kernel_ms, b->blocks,
                  b->threads, b->kernel_ms);
    ck_assert_msg(named->kernel_ms == fastest->kernel_ms,
                  "%s: expected the best to be the fastest row, %s (%.4f ms), got %s (%.4f ms)",
                  args, fastest->impl, fastest->kernel_ms, b->impl, named->kernel_ms);
    ck_assert_msg(b->book_ms == book->kernel_ms,
                  "%s: expected the book's time to be its row's, %.4f ms, got %.4f ms", args,
                  book->kernel_ms, b->book_ms);
    /* The speed-up is printed from unrounded times: allow for the rounding. */
    double want = book->kernel_ms / named->kernel_ms;
    ck_assert_msg(fabs(b->speedup - want) <= 0.01 + 0.02 * want,
                  "%s: expected a speed-up of %.3fx (the book's row over the best's), got %.2fx",
                  args, want, b->speedup);
}

/* Inputs and block sizes: the answer may differ, the checks must not. */
static const char *const sweeps[] = {
    "--size 16M --data uniform",
    "--size 16M --data constant --threads 1024", /* every atomic on one bin */
    "--size 4M --data skewed --threads 33",      /* a block size that is not a power of two */
};
#define SWEEPS ((int)(sizeof sweeps / sizeof sweeps[0]))

/* The sweep with --times, which needs no GPU: seven rows in order, each
 * reading its own time, of the block size asked for (run_times checks them),
 * and the best: line's book time the 2-blocks-per-SM row's. Falling times,
 * then rising ones, so that the book's row is at neither end of either. */
static const char *const in_order[] = {"--times 7,6,5,4,3,2,1",
                                       "--threads 64 --times 1,2,3,4,5,6,7"};
#define IN_ORDER ((int)(sizeof in_order / sizeof in_order[0]))

START_TEST(test_times_seven_grids_in_order)
{
    const char *args = in_order[_i];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    check_best(args, rows, count, &b);
}
END_TEST

START_TEST(test_times_seven_grids_each_verified)
{
    char args[256];
    struct row rows[GRIDS + 1];
    int count = run_sweep(sweeps[_i], args, sizeof args, rows, NULL);
    check_rows(args, rows, count);
}
END_TEST

START_TEST(test_the_best_is_the_fastest_row)
{
    char args[256];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_sweep(sweeps[_i], args, sizeof args, rows, &b);
    check_rows(args, rows, count);
    check_best(args, rows, count, &b);
}
END_TEST

/* A known winner: every grid but N waits milliseconds more in its kernel-only
 * runs, so the best must be N; N alone waits in its end-to-end runs, so a
 * best taken from those is not N. The ends of the sweep, the book's grid (a
 * speed-up of 1.00x) and one between: a best that was hard-coded, not
 * measured, or found by a search that stops early fails one of them. */
static const int favoured[] = {1, 64, 2, 16};
#define FAVOURED ((int)(sizeof favoured / sizeof favoured[0]))

START_TEST(test_the_best_follows_the_measurements)
{
    char sweep[128], args[256];
    snprintf(sweep, sizeof sweep, "--size 1M --favour %d", favoured[_i]);
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_sweep(sweep, args, sizeof args, rows, &b);
    check_rows(args, rows, count);
    char want[64];
    snprintf(want, sizeof want, "blocks-per-sm-%d", favoured[_i]);
    ck_assert_msg(strcmp(b.impl, want) == 0,
                  "%s: every other grid waited milliseconds more in its kernel-only runs (and "
                  "this one alone in its end-to-end runs), so expected the best to be %s, got %s",
                  args, want, b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* A tie: with --tick 1000 every grid's kernel time reads 1000 ms, and the
 * rule in fastest's comment names the smaller grid, the first one timed. */
START_TEST(test_a_tie_goes_to_the_smaller_grid)
{
    char args[256];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_sweep("--size 1M --tick 1000", args, sizeof args, rows, &b);
    check_rows(args, rows, count);
    for (int i = 0; i < count; i++)
        ck_assert_msg(rows[i].kernel_ms == 1000.0,
                      "%s: expected every kernel time read as 1000 ms, got %.4f for %s", args,
                      rows[i].kernel_ms, rows[i].impl);
    ck_assert_msg(strcmp(b.impl, "blocks-per-sm-1") == 0,
                  "%s: every grid tied at 1000 ms, so expected the best to be the smallest grid, "
                  "blocks-per-sm-1 (a tie goes to the smaller grid), got %s",
                  args, b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* Nearly a tie: --times makes 2 blocks per SM 0.5%, then 0.01%, then 0.1 us
 * (0.0001 ms, the last of the 4 decimals the CSV and the best: line print),
 * then 30 ns (0.00003 ms, in the 5th decimal: below what they print) faster
 * than 1, every other grid slower. The best is the fastest row, by any
 * margin: a rule that calls times within some percent (or a tenth of one),
 * or within the event timer's resolution (about half a microsecond), a tie
 * and keeps the smaller grid names another. The third: the solution names
 * blocks-per-sm-2 (9.9999 < 10); a rule with a 0.0005 ms margin keeps
 * blocks-per-sm-1 (9.9999 is not below 10 - 0.0005). The fourth: both
 * print as 10.0000 (so check_best takes either row), and the solution names
 * blocks-per-sm-2 (10.00001 < 10.00004); a rule that compares the times
 * rounded to the 4 printed decimals sees a tie and keeps blocks-per-sm-1. */
static const char *const near_ties[][2] = {
    {"--times 1,0.995,2,2,2,2,2", "0.995 ms"},
    {"--times 10,9.999,20,20,20,20,20", "9.999 ms"},
    {"--times 10,9.9999,20,20,20,20,20", "9.9999 ms"},
    {"--times 10.00004,10.00001,20,20,20,20,20",
     "10.00001 ms (blocks-per-sm-1: 10.00004 ms, both printed as 10.0000)"}};
#define NEAR_TIES ((int)(sizeof near_ties / sizeof near_ties[0]))

START_TEST(test_a_near_tie_goes_to_the_faster_grid)
{
    const char *args = near_ties[_i][0];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    ck_assert_msg(strcmp(b.impl, "blocks-per-sm-2") == 0,
                  "%s: blocks-per-sm-2 read %s, less than blocks-per-sm-1, so expected the best "
                  "to be blocks-per-sm-2 (the fastest, by any margin), got %s",
                  args, near_ties[_i][1], b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* Nearer still: two times closer than a float holds apart (a float keeps
 * about 7 digits: 10.0000001 and 9.9999999 are both 10 in a float, a double
 * keeps them apart). The first: blocks-per-sm-2 (10.00000005) is faster than
 * blocks-per-sm-1 (10.0000001), which a float rounds down below it. The
 * second: blocks-per-sm-2 (9.9999999) is faster than blocks-per-sm-4
 * (9.99999995), and a float rounds 9.9999999 up above both. All print as
 * 10.0000, so check_best takes any of them; the best must be blocks-per-sm-2,
 * the fastest by the times given. */
static const char *const float_ties[][2] = {
    {"--times 10.0000001,10.00000005,20,20,20,20,20",
     "10.00000005 ms, less than blocks-per-sm-1's 10.0000001 ms"},
    {"--times 20,9.9999999,9.99999995,20,20,20,20",
     "9.9999999 ms, less than blocks-per-sm-4's 9.99999995 ms"}};
#define FLOAT_TIES ((int)(sizeof float_ties / sizeof float_ties[0]))

START_TEST(test_a_tie_closer_than_a_float_goes_to_the_faster_grid)
{
    const char *args = float_ties[_i][0];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    ck_assert_msg(strcmp(b.impl, "blocks-per-sm-2") == 0,
                  "%s: blocks-per-sm-2 read %s, so expected the best to be blocks-per-sm-2 (the "
                  "fastest, by any margin: keep the times as the double they are), got %s",
                  args, float_ties[_i][1], b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* A second dip: --times falls from 1 to 2 blocks per SM, rises twice in a row
 * (4 and 8), rises again, then dips at 32 below everything before it. The
 * best is the fastest of all seven rows: the solution names blocks-per-sm-32
 * (2 ms); a search that stops after two rises in a row names blocks-per-sm-2
 * (3 ms), one that stops at the first rise too. */
START_TEST(test_a_later_dip_is_the_best)
{
    const char *args = "--times 4,3,5,6,7,2,8";
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    ck_assert_msg(strcmp(b.impl, "blocks-per-sm-32") == 0,
                  "%s: the times rose twice after blocks-per-sm-2 (3 ms), then blocks-per-sm-32 "
                  "read 2 ms, the least of all seven, so expected the best to be blocks-per-sm-32, "
                  "got %s",
                  args, b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* The same times in larger numbers: --times are milliseconds (the unit of
 * every kernel time here), and a grid may take a second or more (a big input,
 * a slow GPU). The later dip of the test above, each time 1000 times larger
 * (2 to 8 seconds), then 10^7 times (hours): the best is still
 * blocks-per-sm-32. A best-so-far time that starts at a value meant as
 * "slower than any grid", one second (1000 ms) or one (as if the times were
 * seconds), is never beaten here: a fastest that keeps the first grid unless
 * a time beats it names blocks-per-sm-1. */
static const char *const slow_times[] = {"--times 4000,3000,5000,6000,7000,2000,8000",
                                         "--times 40000000,30000000,50000000,60000000,"
                                         "70000000,20000000,80000000"};
#define SLOW_TIMES ((int)(sizeof slow_times / sizeof slow_times[0]))

START_TEST(test_a_best_of_seconds_is_the_fastest_too)
{
    const char *args = slow_times[_i];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    ck_assert_msg(strcmp(b.impl, "blocks-per-sm-32") == 0,
                  "%s: every grid took a second or more (the times are milliseconds), and "
                  "blocks-per-sm-32 the least of all seven, so expected the best to be "
                  "blocks-per-sm-32, got %s",
                  args, b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* The pick line names a row, repeats its numbers and the best's time, and
 * is the smallest grid within 5% of the best: its time at most 1.05 times
 * the best's, every smaller grid's above that. The CSV prints 4 decimals,
 * so a row within 0.0002 ms of the limit may go either way. */
static void check_pick(const char *args, const struct row rows[], int count, const struct best *b,
                       const struct pick *p)
{
    int named = -1, best = -1;
    for (int i = 0; i < count; i++) {
        if (strcmp(rows[i].impl, p->impl) == 0)
            named = i;
        if (strcmp(rows[i].impl, b->impl) == 0)
            best = i;
    }
    ck_assert_msg(named >= 0, "%s: expected the pick to be a row of the table, got %s", args,
                  p->impl);
    ck_assert_msg(best >= 0, "%s: expected the best to be a row of the table, got %s", args,
                  b->impl);
    ck_assert_msg(p->kernel_ms == rows[named].kernel_ms && p->blocks == rows[named].blocks &&
                      p->threads == rows[named].threads && p->best_ms == rows[best].kernel_ms,
                  "%s: expected the pick line to repeat its row (%s: %ldx%d, %.4f ms) and the "
                  "best's time (%.4f ms), got %ldx%d, %.4f ms and %.4f ms",
                  args, p->impl, rows[named].blocks, rows[named].threads, rows[named].kernel_ms,
                  rows[best].kernel_ms, p->blocks, p->threads, p->kernel_ms, p->best_ms);
    double limit = 1.05 * rows[best].kernel_ms;
    ck_assert_msg(rows[named].kernel_ms <= limit + 0.0002,
                  "%s: expected the pick within 5%% of the best (at most 1.05 x %.4f = %.4f ms), "
                  "got %s at %.4f ms",
                  args, rows[best].kernel_ms, limit, p->impl, rows[named].kernel_ms);
    for (int i = 0; i < named; i++)
        ck_assert_msg(rows[i].kernel_ms > limit - 0.0002,
                      "%s: %s (%.4f ms) is within 5%% of the best (at most 1.05 x %.4f = %.4f "
                      "ms) and smaller than %s, so expected the pick to be %s or a smaller grid",
                      args, rows[i].impl, rows[i].kernel_ms, rows[best].kernel_ms, limit, p->impl,
                      rows[i].impl);
}

/* --times cases, each with the pick it must name. Within 5% means at most
 * 1.05 times the best's time; every time below is exact in a double, and
 * 1.05 x 20 is 21 however the product is written in double. */
static const char *const pick_times[][3] = {
    /* The fastest at 16 per SM (20); 4 per SM within 5% (20.5), 8 not (25). */
    {"--times 40,30,20.5,25,20,21.5,22", "blocks-per-sm-4",
     "the fastest is blocks-per-sm-16 (20 ms); blocks-per-sm-4 (20.5 ms) is within 5% of it and "
     "the smallest such grid, though blocks-per-sm-8 (25 ms) between them is not"},
    /* The border: 21 is exactly 1.05 x 20, so within. */
    {"--times 40,30,21,25,20,22,23", "blocks-per-sm-4",
     "blocks-per-sm-4 reads 21 ms, exactly 1.05 x the best's 20 ms: at most 1.05 times is within "
     "5%"},
    /* Just past the border: 21.0001 is more than 1.05 x 20. */
    {"--times 40,30,21.0001,25,20,22,23", "blocks-per-sm-16",
     "blocks-per-sm-4 reads 21.0001 ms, more than 1.05 x the best's 20 ms = 21 ms, and no other "
     "grid is within 5%, so the pick is the best itself"},
    /* None but the fastest within 5%. */
    {"--times 40,30,25,22,21.5,20,23", "blocks-per-sm-32",
     "only the best, blocks-per-sm-32 (20 ms), is within 5% of itself (at most 21 ms)"},
    /* A smaller grid within 5% that is slower than a larger one also within. */
    {"--times 40,20.5,20.9,20,25,30,30", "blocks-per-sm-2",
     "blocks-per-sm-2 (20.5 ms) and blocks-per-sm-4 (20.9 ms, slower) are both within 5% of the "
     "best's 20 ms; the smaller grid is the pick, not the faster"},
    /* The first row is the pick. */
    {"--times 20.2,25,25,25,25,25,20", "blocks-per-sm-1",
     "blocks-per-sm-1 (20.2 ms) is within 5% of the best, blocks-per-sm-64 (20 ms)"},
};
#define PICK_TIMES ((int)(sizeof pick_times / sizeof pick_times[0]))

START_TEST(test_the_pick_is_the_smallest_grid_within_5pct)
{
    const char *args = pick_times[_i][0];
    struct row rows[GRIDS + 1];
    struct best b;
    struct pick p;
    int count = run_times(args, rows, &b);
    check_best(args, rows, count, &b);
    read_pick(last_answer, &p);
    ck_assert_msg(strcmp(p.impl, pick_times[_i][1]) == 0,
                  "%s: %s, so expected the pick to be %s, got %s", args, pick_times[_i][2],
                  pick_times[_i][1], p.impl);
    check_pick(args, rows, count, &b, &p);
}
END_TEST

/* Measured times: --favour N makes N alone fast in its kernel-only runs (by
 * milliseconds, far more than 5%) and alone slow in its end-to-end runs, so
 * the pick must be N; a pick read from the end-to-end times names a smaller
 * grid. And one plain sweep, whose pick must agree with its own table. */
static const char *const pick_sweeps[] = {"--size 1M --favour 16", "--size 1M --favour 64",
                                          "--size 16M --data uniform"};
#define PICK_SWEEPS ((int)(sizeof pick_sweeps / sizeof pick_sweeps[0]))

START_TEST(test_the_pick_follows_the_kernel_times)
{
    char args[256];
    struct row rows[GRIDS + 1];
    struct best b;
    struct pick p;
    int count = run_sweep(pick_sweeps[_i], args, sizeof args, rows, &b);
    check_rows(args, rows, count);
    check_best(args, rows, count, &b);
    read_pick(last_answer, &p);
    const char *favour = strstr(pick_sweeps[_i], "--favour ");
    if (favour) {
        char want[64];
        snprintf(want, sizeof want, "blocks-per-sm-%s", favour + strlen("--favour "));
        ck_assert_msg(strcmp(p.impl, want) == 0,
                      "%s: every other grid waited milliseconds more in its kernel-only runs, so "
                      "none is within 5%% of %s, and expected the pick to be %s (kernel-only "
                      "times, not end to end), got %s",
                      args, want, want, p.impl);
    }
    check_pick(args, rows, count, &b, &p);
}
END_TEST

START_TEST(test_the_report_ends_with_the_best)
{
    const char *args = "--size 1M --reps 5"; /* more than a sweep's 3: each grid takes 5 */
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: expected exit 0, got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    ck_assert_msg(o.has_sum && o.sum == 1u << 20, "%s: expected 'Histogram Sum: 1048576', got: %s",
                  args, o.out);
    ck_assert_msg(o.says_verified, "%s: expected 'verified: yes', got: %s", args, o.out);
    for (int i = 0; i < GRIDS; i++) {
        char impl[64];
        snprintf(impl, sizeof impl, "\nblocks-per-sm-%d ", 1 << i);
        ck_assert_msg(strstr(o.out, impl) != NULL, "%s: expected a row for %s, got: %s", args,
                      impl + 1, o.out);
    }
    struct best b;
    read_best(o.out, &b);
    struct pick p;
    read_pick(o.out, &p);
    ck_assert_msg(strstr(o.out, "best:") < strstr(o.out, "pick:"),
                  "%s: expected the pick: line after the best: line, got: %s", args, o.out);
}
END_TEST

START_TEST(test_every_grid_counts_every_size_and_kind)
{
    check_matrix_case(_i, ""); /* exit 0 only when all 7 grids match the CPU */
}
END_TEST

START_TEST(test_grid_options_are_usage_errors)
{
    static const char *const refused[] = {
        "--blocks 8 --size 1K",  "--blocks-per-sm 8 --size 1K",
        "--favour 3 --size 1K",  "--favour 128 --size 1K",
        "--tick 0 --size 1K",    "--tick x --size 1K",
        "--times 1,2 --size 1K", "--times 1,1,1,1,1,1,0 --size 1K"};
    for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
        struct stage_output o;
        run_stage(refused[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: expected exit 2 (bad usage), got %s",
                      refused[i], exit_meaning(&o));
        if (i < 2)
            ck_assert_msg(strstr(o.err, "tries every grid itself"),
                          "%s: expected the reason 'tries every grid itself', got: %s", refused[i],
                          o.err);
    }
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* Winners the other tests never name: 8 blocks per SM (row 3) alone
 * fastest; a tie of six rows after a slower first one, which goes to the
 * first of the six, 2 blocks per SM; and a tie of the last four, which goes
 * to 8. Then times that rise and fall, as --favour 16 makes them on a GPU:
 * a best that only beats the row before it names 64. */
static const char *const edge_times[][2] = {
    {"--times 5,5,5,1,5,5,5", "blocks-per-sm-8"},
    {"--times 3,2,2,2,2,2,2", "blocks-per-sm-2"},
    {"--times 2,2,2,1,1,1,1", "blocks-per-sm-8"},
    {"--times 2,3,2,3,1,3,2", "blocks-per-sm-16"}, /* --favour 16's shape: up, down, ... */
};
#define EDGE_TIMES ((int)(sizeof edge_times / sizeof edge_times[0]))

START_TEST(test_edge_every_row_can_win_and_ties_go_to_the_smaller)
{
    const char *args = edge_times[_i][0];
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_times(args, rows, &b);
    ck_assert_msg(strcmp(b.impl, edge_times[_i][1]) == 0,
                  "%s: expected the best to be %s (the least time, and on a tie the smaller "
                  "grid), got %s",
                  args, edge_times[_i][1], b.impl);
    check_best(args, rows, count, &b);
}
END_TEST

/* The predicted knee, computed here from the same two limits (an H100's 2048
 * threads and 32 blocks per SM unless the case gives others): an SM holds
 * whole warps, so a block takes its threads rounded up to a warp; the blocks
 * that fit are the fewer of the two limits, whole blocks only. Cases where
 * the threads bind (256, 1024; 96, 200 and 100 threads, which are not whole
 * warps or do not divide the SM), where the blocks bind (32 and 1 thread),
 * where both do (64; 33, which takes two warps), and other SMs (1536 threads
 * and 16 blocks, 1024 and 16, as on GPUs of compute capability 8.6 and 7.5). */
static const char *const knee_cases[] = {
    "--threads 256",
    "--threads 1024",
    "--threads 64",
    "--threads 32",
    "--threads 1",
    "--threads 96",
    "--threads 200",
    "--threads 33",
    "--threads 640 --sm-threads 1536 --sm-blocks 16",
    "--threads 64 --sm-threads 1536 --sm-blocks 16",
    "--threads 100 --sm-threads 1024 --sm-blocks 16",
};
#define KNEE_CASES ((int)(sizeof knee_cases / sizeof knee_cases[0]))

/* The number after option in args, or fallback when it is not there. */
static int number_after(const char *args, const char *option, int fallback)
{
    const char *at = strstr(args, option);
    return at ? atoi(at + strlen(option)) : fallback;
}

START_TEST(test_the_predicted_knee_follows_the_sm_limits)
{
    char args[256];
    snprintf(args, sizeof args, "%s --times 4,3,2,1,2,3,4", knee_cases[_i]);
    int threads = number_after(args, "--threads ", 256);
    int sm_threads = number_after(args, "--sm-threads ", 2048);
    int sm_blocks = number_after(args, "--sm-blocks ", 32);
    int warps = (threads + 31) / 32;
    int by_threads = sm_threads / 32 / warps;
    int want = by_threads < sm_blocks ? by_threads : sm_blocks;
    const char *want_binds = by_threads < sm_blocks   ? "threads per SM bind"
                             : by_threads > sm_blocks ? "blocks per SM bind"
                                                      : "both limits bind";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: expected exit 0, got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "\npredicted knee:");
    ck_assert_msg(line != NULL, "%s: no 'predicted knee:' line in: %s", args, o.out);
    int blocks = 0, held_threads = 0, held_blocks = 0;
    char binds[64] = "";
    int fields = sscanf(line + 1,
                        "predicted knee: %d blocks per SM, %63[^(](an SM holds %d threads and %d "
                        "blocks)",
                        &blocks, binds, &held_threads, &held_blocks);
    ck_assert_msg(fields == 4,
                  "%s: expected 'predicted knee: N blocks per SM, WHICH bind (an SM holds T "
                  "threads and B blocks)', got (%d fields read): %.200s",
                  args, fields, line + 1);
    size_t n = strlen(binds);
    while (n && binds[n - 1] == ' ')
        binds[--n] = '\0';
    ck_assert_msg(held_threads == sm_threads && held_blocks == sm_blocks,
                  "%s: expected the limits %d threads and %d blocks per SM, got %d and %d", args,
                  sm_threads, sm_blocks, held_threads, held_blocks);
    ck_assert_msg(blocks == want && strcmp(binds, want_binds) == 0,
                  "%s: expected %d blocks per SM, %s, got %d, %s", args, want, want_binds, blocks,
                  binds);
    ck_assert_msg(strstr(o.out, "best:") < line && line < strstr(o.out, "pick:"),
                  "%s: expected the predicted knee between the best: and pick: lines, got: %s",
                  args, o.out);
}
END_TEST

/* Block sizes of one thread and of one warp: seven verified rows, each of
 * the --threads asked for, the best the fastest row. */
static const int edge_threads[] = {1, 32};
#define EDGE_THREADS ((int)(sizeof edge_threads / sizeof edge_threads[0]))

START_TEST(test_edge_blocks_of_one_thread_and_one_warp)
{
    char sweep[64], args[256];
    snprintf(sweep, sizeof sweep, "--size 1M --data skewed --threads %d", edge_threads[_i]);
    struct row rows[GRIDS + 1];
    struct best b;
    int count = run_sweep(sweep, args, sizeof args, rows, &b);
    check_rows(args, rows, count);
    for (int i = 0; i < count; i++)
        ck_assert_msg(rows[i].threads == edge_threads[_i],
                      "%s: expected every grid to have the %d threads a block asked for, %s has %d",
                      args, edge_threads[_i], rows[i].impl, rows[i].threads);
    check_best(args, rows, count, &b);
}
END_TEST

/* With no option at all, the program sweeps what --help says: the book's 100
 * MiB of uniform bytes (seed 1), each grid a median of 10 runs, 256 threads a
 * block, the seven grids 1 to 64 times the first's blocks, every row
 * verified, and the best: line on stdout. */
START_TEST(test_edge_defaults_with_no_options)
{
    struct stage_output o;
    run_stage("", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified,
                  "(no options): expected exit 0 and 'verified: yes', got %s; stderr: %s",
                  exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\ninput:      uniform, 104857600 bytes, seed 1\n"),
                  "(no options): expected the default input, 100 MiB of uniform bytes, seed 1: %s",
                  o.out);
    ck_assert_msg(strstr(o.out, "\nmedians of 10 runs after 1 warm-up"),
                  "(no options): expected the default 10 timed runs a grid: %s", o.out);
    ck_assert_msg(o.has_sum && o.sum == 104857600, "(no options): the sum: %s", o.out);
    long first = 0;
    for (int i = 0; i < GRIDS; i++) {
        char impl[64];
        snprintf(impl, sizeof impl, "\nblocks-per-sm-%d ", 1 << i);
        const char *row = strstr(o.out, impl);
        long blocks;
        int threads;
        ck_assert_msg(row && sscanf(row + strlen(impl), " %ldx%d", &blocks, &threads) == 2,
                      "(no options): expected a row '%s BxT ...', got: %s", impl + 1, o.out);
        if (i == 0)
            first = blocks;
        ck_assert_msg(threads == 256 && blocks == first << i,
                      "(no options): expected %s to launch %ld x 256 (256 threads a block, as "
                      "--help says), got %ldx%d",
                      impl + 1, first << i, blocks, threads);
    }
    struct best b;
    read_best(o.out, &b);
}
END_TEST

/* Each option refuses a bad value: exit 2, nothing on stdout, and a first
 * line on stderr that names the option (the usage follows it). Refused
 * before the GPU is opened, so this runs anywhere. */
static const struct {
    const char *args, *option;
} refusals[] = {
    {"--size 10X", "--size"},
    {"--data photo", "--data"},
    {"--reps 0", "--reps"},
    {"--threads 0", "--threads"},
    {"--threads 1025", "--threads"},
    {"--blocks 8", "--blocks"},
    {"--blocks-per-sm 8", "--blocks-per-sm"},
    {"--favour 0", "--favour"},
    {"--favour 3", "--favour"},
    {"--favour x", "--favour"},
    {"--favour 128", "--favour"},
    {"--tick 0", "--tick"},
    {"--tick x", "--tick"},
    {"--tick 1000001", "--tick"},
    {"--times 1,2", "--times"},
    {"--times 1,1,1,1,1,1,0", "--times"},
    {"--times 1,1,1,1,1,1,1,1", "--times"},
    {"--times 1,1,x,1,1,1,1", "--times"},
    {"--times 1,1,1,1,1,1,1 --csv", "--times"}, /* nothing runs: no CSV row to print */
    {"--sm-threads 1000", "--sm-threads"},
    {"--sm-threads 2050", "--sm-threads"},
    {"--sm-threads x", "--sm-threads"},
    {"--sm-blocks 0", "--sm-blocks"},
    {"--sm-blocks 65", "--sm-blocks"},
    {"--csv=yes", "--csv"},
};
#define REFUSALS ((int)(sizeof refusals / sizeof refusals[0]))

START_TEST(test_edge_each_option_refuses_a_bad_value)
{
    char args[128];
    snprintf(args, sizeof args, "%s --size 1K", refusals[_i].args);
    check_refused_naming(strncmp(refusals[_i].args, "--size", 6) ? args : refusals[_i].args,
                         refusals[_i].option);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("04_block_tuning", argc, argv);
    Suite *suite = suite_create("exercise 04: block-count tuning");

    TCase *refused = exercise_tcase("the grid options are usage errors here", 0);
    tcase_add_test(refused, test_grid_options_are_usage_errors);
    add_tcase(suite, refused, 1); /* refused before the GPU is opened: runs anywhere */

    /* --times runs nothing, so the groups that read it run anywhere: on a
     * machine without a GPU they are the only ones that do (README). */
    TCase *order = exercise_tcase("seven grids in order, the book's row found (read from --times, "
                                  "no GPU needed)",
                                  1);
    tcase_add_loop_test(order, test_times_seven_grids_in_order, 0, IN_ORDER);
    add_tcase(suite, order, IN_ORDER);

    TCase *table = exercise_tcase("seven grids, 1 to 64 blocks per SM, each a verified median", 1);
    tcase_add_loop_test(table, test_times_seven_grids_each_verified, 0, SWEEPS);
    add_if_runnable(suite, table, SWEEPS);

    TCase *given = exercise_tcase("the best is the fastest of the times given (--times, no GPU "
                                  "needed)",
                                  3);
    tcase_add_loop_test(given, test_a_near_tie_goes_to_the_faster_grid, 0, NEAR_TIES);
    tcase_add_test(given, test_a_later_dip_is_the_best);
    tcase_add_loop_test(given, test_a_best_of_seconds_is_the_fastest_too, 0, SLOW_TIMES);
    add_tcase(suite, given, NEAR_TIES + 1 + SLOW_TIMES);

    TCase *float_tie = exercise_tcase("a near tie closer than a float's precision goes to the "
                                      "faster grid",
                                      3);
    tcase_add_loop_test(float_tie, test_a_tie_closer_than_a_float_goes_to_the_faster_grid, 0,
                        FLOAT_TIES);
    add_tcase(suite, float_tie, FLOAT_TIES);

    TCase *pick = exercise_tcase("the pick: the smallest grid within 5% of the fastest", 4);
    tcase_add_loop_test(pick, test_the_pick_is_the_smallest_grid_within_5pct, 0, PICK_TIMES);
    add_tcase(suite, pick, PICK_TIMES);

    TCase *edge_given = exercise_tcase("edge: every row can win, ties after the first row (read "
                                       "from --times)",
                                       3);
    tcase_add_loop_test(edge_given, test_edge_every_row_can_win_and_ties_go_to_the_smaller, 0,
                        EDGE_TIMES);
    add_tcase(suite, edge_given, EDGE_TIMES);

    TCase *knee = exercise_tcase("the predicted knee: the blocks per SM that fill an SM, and which "
                                 "limit binds (--times, no GPU needed)",
                                 5);
    tcase_add_loop_test(knee, test_the_predicted_knee_follows_the_sm_limits, 0, KNEE_CASES);
    add_tcase(suite, knee, KNEE_CASES);

    TCase *best = exercise_tcase("the best is the fastest row of the table, against the book's "
                                 "row",
                                 3);
    tcase_add_loop_test(best, test_the_best_is_the_fastest_row, 0, SWEEPS);
    tcase_add_loop_test(best, test_the_best_follows_the_measurements, 0, FAVOURED);
    tcase_add_test(best, test_a_tie_goes_to_the_smaller_grid);
    add_if_runnable(suite, best, SWEEPS + FAVOURED + 1);

    TCase *measured =
        exercise_tcase("the pick follows the measured kernel times, not end to end", 4);
    tcase_add_loop_test(measured, test_the_pick_follows_the_kernel_times, 0, PICK_SWEEPS);
    add_if_runnable(suite, measured, PICK_SWEEPS);

    TCase *report = exercise_tcase("the report, and every grid on every size and kind", 1);
    tcase_add_test(report, test_the_report_ends_with_the_best);
    tcase_add_loop_test(report, test_every_grid_counts_every_size_and_kind, 0, MATRIX_CASES);
    add_if_runnable(suite, report, 1 + MATRIX_CASES);

    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);

    TCase *refused_edge = exercise_tcase("edge: each option refuses a bad value (exit 2, a line "
                                         "naming it)",
                                         0);
    tcase_add_loop_test(refused_edge, test_edge_each_option_refuses_a_bad_value, 0, REFUSALS);
    add_tcase(suite, refused_edge, REFUSALS); /* refused before the GPU is opened */

    TCase *edge = exercise_tcase("edge: blocks of one thread and one warp, the defaults with no "
                                 "options",
                                 3);
    tcase_add_loop_test(edge, test_edge_blocks_of_one_thread_and_one_warp, 0, EDGE_THREADS);
    tcase_add_test(edge, test_edge_defaults_with_no_options);
    add_if_runnable(suite, edge, EDGE_THREADS + 1);
    return run_exercise(suite);
}
