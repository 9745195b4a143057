/*
 * check_cpu_threads.c - exercise 01 counts one input with T threads: the bins
 * are right for any T, each thread counts its slice into a private copy (the
 * program's --show-copies shows what each copy counted), the slices cover the
 * input once and are balanced even with more threads than bytes, and
 * ThreadSanitizer, run on a second build of the program, reports no race.
 */
#include "stage_checks.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_COPIES 1024 /* --threads is at most 1024 */

/* ------------------------------------------------------ the bins, any T -- */

struct count_case {
    size_t size;
    enum data_kind kind;
    int threads;
};

/* Constant bytes send every thread to the same counter: a shared plain ++
 * loses counts there first. Sizes not a multiple of T leave a remainder. */
static const struct count_case counts[] = {
    {0, DATA_UNIFORM, 4},        {1, DATA_CONSTANT, 2},      {23, DATA_TEXT, 3},
    {1000, DATA_SKEWED, 7},      {65537, DATA_CONSTANT, 2},  {1000003, DATA_UNIFORM, 4},
    {3000017, DATA_CONSTANT, 8}, {4000037, DATA_SKEWED, 16}, {1000003, DATA_UNIFORM, 1}};
#define COUNTS ((int)(sizeof counts / sizeof counts[0]))

START_TEST(test_bins_match_reference_for_any_thread_count)
{
    char extra[32];
    snprintf(extra, sizeof extra, "--threads %d", counts[_i].threads);
    check_matches_reference(counts[_i].size, counts[_i].kind, 100 + (uint64_t)_i, extra);
}
END_TEST

START_TEST(test_reports_the_speed_up_over_one_thread)
{
    const char *args = "--size 1000000 --reps 3 --threads 2";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "\nspeed-up:");
    double speed_up = 0;
    ck_assert_msg(line && sscanf(line, "\nspeed-up: %lf x", &speed_up) == 1 && speed_up > 0,
                  "%s: expected a line 'speed-up:   S x ...' with S > 0, got: %s", args, o.out);
}
END_TEST

/* ---------------------------------------------- what each copy counted -- */

struct copy {
    size_t first, end;
    unsigned long long counted;
};

struct copies_output {
    int exit_status;
    int count;     /* copy lines read */
    bool in_order; /* copy t is on the t-th copy line */
    struct copy copy[MAX_COPIES];
    char err[2048];
};

/* Runs the program with --show-copies and reads every "copy t: bytes F to E,
 * counted C" line (up to 1024 of them: more than stage_output keeps). */
static void run_copies(const char *args, struct copies_output *c)
{
    memset(c, 0, sizeof *c);
    c->exit_status = -1;
    c->in_order = true;
    char err_path[] = "/tmp/cpu_threads_err_XXXXXX", command[1024], line[512];
    int err_fd = mkstemp(err_path);
    ck_assert(err_fd >= 0);
    close(err_fd);
    snprintf(command, sizeof command, "'%s' %s --show-copies 2>'%s'", stage_program(), args,
             err_path);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    while (fgets(line, sizeof line, p)) {
        int t;
        struct copy k;
        if (sscanf(line, "copy %d: bytes %zu to %zu, counted %llu", &t, &k.first, &k.end,
                   &k.counted) == 4 &&
            c->count < MAX_COPIES) {
            c->in_order = c->in_order && t == c->count;
            c->copy[c->count++] = k;
        }
    }
    int status = pclose(p);
    c->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *err = fopen(err_path, "r");
    if (err) {
        c->err[fread(c->err, 1, sizeof c->err - 1, err)] = '\0';
        fclose(err);
    }
    unlink(err_path);
}

/* Asserts exit 0, one copy line per thread, and each copy's count equal to
 * its slice's length: the thread counted its slice into its own copy. */
static void check_copies(size_t size, int threads, const char *data, struct copies_output *c)
{
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data %s --threads %d --reps 1", size, data, threads);
    run_copies(args, c);
    ck_assert_msg(c->exit_status == 0, "%s --show-copies: exit %d, stderr: %s", args,
                  c->exit_status, c->err);
    ck_assert_msg(c->count == threads && c->in_order,
                  "%s --show-copies: expected %d lines 'copy t: bytes F to E, counted C', t = 0 "
                  "to %d in order, got %d%s",
                  args, threads, threads - 1, c->count, c->in_order ? "" : ", out of order");
    unsigned long long total = 0;
    for (int t = 0; t < threads; t++) {
        const struct copy *k = &c->copy[t];
        ck_assert_msg(k->end >= k->first && k->counted == k->end - k->first,
                      "%s --show-copies: copy %d has slice [%zu, %zu), %zu bytes, but its private "
                      "histogram counted %llu: each thread must count its slice into its own copy",
                      args, t, k->first, k->end, k->end - k->first, k->counted);
        total += k->counted;
    }
    ck_assert_msg(total == size,
                  "%s --show-copies: the copies counted %llu bytes in all, "
                  "expected %zu",
                  args, total, size);
}

START_TEST(test_each_thread_counts_its_slice_into_a_private_copy)
{
    static const int threads[] = {2, 4, 3};
    static const size_t sizes[] = {1000003, 4000000, 65537};
    static const char *const data[] = {"uniform", "constant", "skewed"};
    struct copies_output *c = malloc(sizeof *c);
    ck_assert(c != NULL);
    check_copies(sizes[_i], threads[_i], data[_i], c);
    free(c);
}
END_TEST

/* --------------------------------------------------------- the slices -- */

/* Slices in order from byte 0 to the end, none longer than another by more
 * than one byte: a remainder spread over the first threads. More threads than
 * bytes leaves some slices empty. */
static const struct count_case slices[] = {{10, DATA_UNIFORM, 3},       {11, DATA_UNIFORM, 4},
                                           {3, DATA_UNIFORM, 8},        {0, DATA_UNIFORM, 4},
                                           {1, DATA_UNIFORM, 1},        {1000003, DATA_SKEWED, 7},
                                           {1031, DATA_CONSTANT, 1024}, {5, DATA_TEXT, 1024}};
#define SLICES ((int)(sizeof slices / sizeof slices[0]))

START_TEST(test_slices_cover_the_input_once_and_are_balanced)
{
    size_t size = slices[_i].size;
    int threads = slices[_i].threads;
    struct copies_output *c = malloc(sizeof *c);
    ck_assert(c != NULL);
    check_copies(size, threads, data_kind_name(slices[_i].kind), c);
    size_t shortest = SIZE_MAX, longest = 0, expected_first = 0;
    for (int t = 0; t < threads; t++) {
        const struct copy *k = &c->copy[t];
        ck_assert_msg(k->first == expected_first,
                      "--size %zu --threads %d: slice %d starts at byte %zu, expected %zu (the "
                      "slices must follow each other, each starting where the last ended)",
                      size, threads, t, k->first, expected_first);
        size_t length = k->end - k->first;
        shortest = length < shortest ? length : shortest;
        longest = length > longest ? length : longest;
        expected_first = k->end;
    }
    ck_assert_msg(expected_first == size,
                  "--size %zu --threads %d: the last slice ends at %zu, "
                  "not at the end of the input",
                  size, threads, expected_first);
    ck_assert_msg(longest - shortest <= 1,
                  "--size %zu --threads %d: slices of %zu to %zu bytes: "
                  "expected %zu or %zu each (no slice longer than another by more than one byte)",
                  size, threads, shortest, longest, size / threads,
                  size / threads + (size % threads != 0));
    free(c);
    char extra[32];
    snprintf(extra, sizeof extra, "--threads %d", threads);
    check_matches_reference(size, slices[_i].kind, 200 + (uint64_t)_i, extra);
}
END_TEST

/* ------------------------------------------------------ ThreadSanitizer -- */

static char tsan_program[4096]; /* the program built with -fsanitize=thread, beside the check */

/* Whether the ThreadSanitizer build runs here at all (it needs a kernel that
 * lets it map its shadow memory); if not, why. */
static bool tsan_runs(char *why, size_t why_len)
{
    if (access(tsan_program, X_OK) != 0) {
        snprintf(why, why_len, "%.300s is missing (make check builds it)", tsan_program);
        return false;
    }
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(tsan_program);
    run_stage("--size 16 --reps 1 --threads 1", &o);
    set_stage_program(saved);
    free((void *)saved);
    snprintf(why, why_len, "%.300s: %s: %.300s", tsan_program, exit_meaning(&o), o.err);
    return o.exit_status == 0;
}

/* ThreadSanitizer follows every access to memory and every lock, join and
 * atomic, and reports two threads touching one address, one of them writing,
 * with nothing between them that orders the two: a race, even in a run where
 * no count happened to be lost. It exits 66 when it reported one. */
START_TEST(test_thread_sanitizer_reports_no_race)
{
    static const char *const args[] = {"--size 200003 --data constant --threads 4 --reps 1",
                                       "--size 100000 --data uniform --threads 3 --reps 1"};
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(tsan_program);
    run_stage(args[_i], &o);
    set_stage_program(saved);
    free((void *)saved);
    ck_assert_msg(o.exit_status == 0 && !strstr(o.err, "ThreadSanitizer"),
                  "%s %s: %s; ThreadSanitizer says:\n%s", tsan_program, args[_i], exit_meaning(&o),
                  o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("01_cpu_threads", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(tsan_program, sizeof tsan_program, "%s/cpu_threads-tsan", dirname(here));

    Suite *suite = suite_create("exercise 01: threads that count one input");
    TCase *right = exercise_tcase("the bins are right with any number of threads", 1);
    tcase_set_timeout(right, 120);
    tcase_add_loop_test(right, test_bins_match_reference_for_any_thread_count, 0, COUNTS);
    tcase_add_test(right, test_reports_the_speed_up_over_one_thread);
    add_tcase(suite, right, COUNTS + 1);

    TCase *copies = exercise_tcase("each thread counts its slice into a private copy "
                                   "(--show-copies)",
                                   2);
    tcase_set_timeout(copies, 120);
    tcase_add_loop_test(copies, test_each_thread_counts_its_slice_into_a_private_copy, 0, 3);
    add_tcase(suite, copies, 3);

    TCase *races = exercise_tcase("no data race, under ThreadSanitizer (the merge too)", 4);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_thread_sanitizer_reports_no_race, 0, 2);
    char why[1024];
    if (tsan_runs(why, sizeof why)) {
        add_tcase(suite, races, 2);
    } else {
        printf("ThreadSanitizer cannot run here: %s\n", why);
        add_skipped(2);
    }

    TCase *edges = exercise_tcase("the slices: in order, balanced, more threads than bytes", 3);
    tcase_set_timeout(edges, 120);
    tcase_add_loop_test(edges, test_slices_cover_the_input_once_and_are_balanced, 0, SLICES);
    add_tcase(suite, edges, SLICES);
    return run_exercise(suite);
}
