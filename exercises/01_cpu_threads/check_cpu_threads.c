/*
 * check_cpu_threads.c - exercise 01 counts one input with T threads: the bins
 * are right for any T, each thread counts its slice into a private copy (the
 * program's --show-copies shows what each copy counted), the slices cover the
 * input once and are balanced even with more threads than bytes, and
 * ThreadSanitizer, run on a second build of the program, reports no race. A
 * third build, watched from inside (check_cpu_threads_watch.c), shows what
 * each thread read, wrote and locked: each counts its own slice, once, into
 * memory of its own, with no lock, and adds it to the shared bins itself. A
 * fourth, whose pthread_create, pthread_join, pthread_mutex_lock or unlock
 * fails once (check_cpu_threads_refuse.c), must stop with the reason, and its
 * clock readings must hold the threads' creation and join; the speed-up line
 * must agree with the table's times.
 */
#include "stage_checks.h"

#include <errno.h>
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
 * loses counts there first. Sizes not a multiple of T leave a remainder. The
 * last three cases, 32 MiB on 256 threads, make a shared ++ lose counts in
 * nearly every run on two cores or more, even a busy machine: the first
 * failure is then the race itself. (On one core no count is lost: an add to
 * memory is one instruction, which no other thread can split.) */
static const struct count_case counts[] = {
    {0, DATA_UNIFORM, 4},           {1, DATA_CONSTANT, 2},          {23, DATA_TEXT, 3},
    {1000, DATA_SKEWED, 7},         {65537, DATA_CONSTANT, 2},      {1000003, DATA_UNIFORM, 4},
    {3000017, DATA_CONSTANT, 8},    {4000037, DATA_SKEWED, 16},     {1000003, DATA_UNIFORM, 1},
    {33554467, DATA_CONSTANT, 256}, {33554467, DATA_CONSTANT, 256}, {33554467, DATA_CONSTANT, 256}};
#define COUNTS ((int)(sizeof counts / sizeof counts[0]))

START_TEST(test_bins_match_reference_for_any_thread_count)
{
    char extra[32];
    snprintf(extra, sizeof extra, "--threads %d", counts[_i].threads);
    check_matches_reference(counts[_i].size, counts[_i].kind, 100 + (uint64_t)_i, extra);
}
END_TEST

/* The speed-up line must be the table's 1-thread time over its T-thread time,
 * within the rounding of the three numbers (times to 4 decimals, the speed-up
 * to 2). 64 threads on 1000 bytes spend their time starting threads: the
 * ratio is far from 1 there, so a ratio upside down cannot pass for it. */
static const char *const speed_ups[] = {"--size 1000000 --reps 3 --threads 2",
                                        "--size 1000 --reps 5 --threads 64"};

START_TEST(test_reports_the_speed_up_over_one_thread)
{
    const char *args = speed_ups[_i];
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "\nspeed-up:");
    double speed_up = 0;
    ck_assert_msg(line && sscanf(line, "\nspeed-up: %lf x", &speed_up) == 1 && speed_up >= 0,
                  "%s: expected a line 'speed-up:   S x ...' with S >= 0, got: %s", args, o.out);
    double many_ms = -1, one_ms = -1, ms;
    char launch[32];
    int threads;
    for (const char *p = o.out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (sscanf(p, "%d threads %31s %lf", &threads, launch, &ms) == 3 && threads > 1)
            many_ms = ms;
        else if (strncmp(p, "1 thread ", 9) == 0 &&
                 sscanf(p, "1 thread %31s %lf", launch, &ms) == 2)
            one_ms = ms;
    }
    ck_assert_msg(many_ms > 0 && one_ms > 0,
                  "%s: expected the table's rows 'T threads - MS ...' and '1 thread - MS ...' "
                  "with times above 0, got: %s",
                  args, o.out);
    /* Each printed time is within 0.00005 ms of the one the program divided. */
    double ratio = one_ms / many_ms, slack = 0.005 + ratio * (0.00006 / one_ms + 0.00006 / many_ms);
    ck_assert_msg(speed_up >= ratio - slack && speed_up <= ratio + slack,
                  "%s: the speed-up line says %.2f x, but the table's times give %.4f / %.4f = "
                  "%.2f x: the speed-up is the 1-thread time over the T-thread time (more than 1 "
                  "when the threads are faster)",
                  args, speed_up, one_ms, many_ms, ratio);
}
END_TEST

/* -------------------------------------------- a thread that cannot start -- */

static char refuse_program[4096]; /* linked with check_cpu_threads_refuse.c, beside the check */

/* build/cpu_threads-refuse makes the N-th pthread_create of the process fail
 * with EAGAIN (CPU_THREADS_REFUSE=N), as a low RLIMIT_NPROC or too little
 * memory for a stack does, which --threads up to 1024 can meet. Both calls
 * refused fall in the first run of the T threads. The program must stop there
 * with the reason in words and exit 1: not join a thread that never started
 * (undefined: glibc crashes on a zeroed pthread_t), and not report bins that
 * miss a slice. */
static const struct refusal {
    const char *args;
    int call;
} refusals[] = {{"--size 100003 --threads 4 --reps 1", 2},
                {"--size 100003 --threads 16 --reps 1", 9}};

START_TEST(test_a_thread_that_cannot_start_stops_the_program)
{
    const struct refusal *k = &refusals[_i];
    char call[16];
    snprintf(call, sizeof call, "%d", k->call);
    ck_assert(setenv("CPU_THREADS_REFUSE", call, 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(refuse_program);
    set_run_time_limit(60);
    run_stage(k->args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv("CPU_THREADS_REFUSE");
    const char *reason = strerror(EAGAIN);
    ck_assert_msg(o.exit_status == 1 && strstr(o.err, reason) && !strstr(o.out, "verified:"),
                  "%s %s, where pthread_create call %d returns EAGAIN (no thread could be "
                  "started): %s, stdout: %.300s, stderr: %s; expected exit 1 with the reason on "
                  "stderr, '%s' (strerror), and no table: every pthread_create and pthread_join "
                  "result is checked (hint 4)",
                  refuse_program, k->args, k->call, exit_meaning(&o), o.out, o.err, reason);
}
END_TEST

/* The same build makes the N-th pthread_mutex_lock, pthread_mutex_unlock or
 * pthread_join of the process fail with EINVAL (CPU_THREADS_REFUSE_CALL names
 * the function): each returns an error the program must check, as it checks
 * pthread_create's. A lock that was not taken leaves the merge unguarded; a
 * join that failed leaves a thread that may still be counting. The program
 * must stop with the reason and exit 1, in the T-thread run or in the 1-thread
 * run after it (--size 100003 --threads 4 --reps 1: a warm-up and one timed
 * run of 4 threads, 8 joins, then of 1 thread, joins 9 and 10). A merge that
 * takes no lock (atomics) makes no lock call: the build then says it refused
 * none, and the case passes. */
static const struct failed_call {
    const char *function;
    int call;
} failed_calls[] = {{"pthread_mutex_lock", 3},
                    {"pthread_mutex_unlock", 2},
                    {"pthread_join", 2},
                    {"pthread_join", 10}};
#define FAILED_CALLS ((int)(sizeof failed_calls / sizeof failed_calls[0]))

START_TEST(test_a_thread_call_that_fails_stops_the_program)
{
    const struct failed_call *k = &failed_calls[_i];
    const char *args = "--size 100003 --threads 4 --reps 1";
    char call[16];
    snprintf(call, sizeof call, "%d", k->call);
    ck_assert(setenv("CPU_THREADS_REFUSE", call, 1) == 0);
    ck_assert(setenv("CPU_THREADS_REFUSE_CALL", k->function, 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(refuse_program);
    set_run_time_limit(60);
    run_stage(args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv("CPU_THREADS_REFUSE");
    unsetenv("CPU_THREADS_REFUSE_CALL");
    const char *marker = strstr(o.err, "check: refused ");
    if (!marker && strcmp(k->function, "pthread_join") != 0 && o.exit_status == 0)
        return; /* no lock taken (atomics): nothing to refuse */
    ck_assert_msg(marker != NULL,
                  "%s %s: %s made fewer than %d calls (stderr: %s); the program joins each of "
                  "its threads",
                  refuse_program, args, k->function, k->call, o.err);
    /* the reason, past the check's own line */
    const char *after = strchr(marker, '\n');
    const char *reason = strerror(EINVAL);
    ck_assert_msg(o.exit_status == 1 && (strstr(o.err, reason) != NULL) &&
                      !strstr(o.out, "verified:") && after,
                  "%s %s, where %s call %d returns EINVAL: %s, stdout: %.300s, stderr: %s; "
                  "expected exit 1 with the reason on stderr, '%s' (strerror), and no table: "
                  "every pthread_mutex_lock, pthread_mutex_unlock and pthread_join result is "
                  "checked, as pthread_create's is (hint 4)",
                  refuse_program, args, k->function, k->call, exit_meaning(&o), o.out, o.err,
                  reason);
}
END_TEST

/* What is timed: the README times T threads from their start to their join,
 * thread creation included (it is part of the price of threads). The same
 * build, with CPU_THREADS_TIMELINE set, prints the order of the program's
 * clock readings (now_ms, 'T'), pthread_creates ('c') and pthread_joins
 * ('j'); each timed run reads the clock twice, so every creation and join
 * must fall between a run's first reading and its second: inside the timed
 * interval. A program that reads no clock through now_ms is not judged. */
START_TEST(test_the_timed_interval_holds_thread_start_and_join)
{
    const char *args = "--size 100003 --threads 4 --reps 2";
    ck_assert(setenv("CPU_THREADS_TIMELINE", "1", 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(refuse_program);
    set_run_time_limit(60);
    run_stage(args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv("CPU_THREADS_TIMELINE");
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s %s: %s, stderr: %s", refuse_program,
                  args, exit_meaning(&o), o.err);
    const char *line = strstr(o.err, "check: timeline ");
    ck_assert_msg(line != NULL, "%s %s: the build printed no timeline (stderr: %s)", refuse_program,
                  args, o.err);
    line += strlen("check: timeline ");
    size_t len = strcspn(line, " \n");
    if (!memchr(line, 'T', len))
        return; /* no reading through now_ms: nothing to judge */
    bool inside = false;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == 'T') {
            inside = !inside;
            continue;
        }
        ck_assert_msg(inside,
                      "%s %s: a pthread_%s at event %zu falls outside the timed interval (the "
                      "program's clock readings, T, each creation, c, and join, j, in order: "
                      "%.*s): the time of T threads runs from before the first is created to "
                      "after the last is joined, their start and join included, as the README "
                      "says",
                      refuse_program, args, line[i] == 'c' ? "create" : "join", i + 1, (int)len,
                      line);
    }
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

/* Runs program (with the environment's assignments env before it) with
 * --show-copies and reads every "copy t: bytes F to E, counted C" line (up to
 * 1024 of them: more than stage_output keeps). */
static void run_program_copies(const char *program, const char *env, const char *args,
                               struct copies_output *c)
{
    memset(c, 0, sizeof *c);
    c->exit_status = -1;
    c->in_order = true;
    char err_path[] = "/tmp/cpu_threads_err_XXXXXX", command[2048], line[512];
    int err_fd = mkstemp(err_path);
    ck_assert(err_fd >= 0);
    close(err_fd);
    snprintf(command, sizeof command, "%s '%s' %s --show-copies 2>'%s'", env, program, args,
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

static void run_copies(const char *args, struct copies_output *c)
{
    run_program_copies(stage_program(), "", args, c);
}

/* What the messages of check_copies and check_slices add: which build ran. */
static const char *program_note = "";

/* Asserts exit 0, one copy line per thread, and each copy's count equal to
 * its slice's length: the thread counted its slice into its own copy. */
static void check_copies(size_t size, int threads, const char *data, struct copies_output *c)
{
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data %s --threads %d --reps 1", size, data, threads);
    run_copies(args, c);
    ck_assert_msg(c->exit_status == 0, "%s --show-copies%s: exit %d, stderr: %s", args,
                  program_note, c->exit_status, c->err);
    ck_assert_msg(c->count == threads && c->in_order,
                  "%s --show-copies: expected %d lines 'copy t: bytes F to E, counted C', t = 0 "
                  "to %d in order, got %d%s%s",
                  args, threads, threads - 1, c->count, c->in_order ? "" : ", out of order",
                  program_note);
    unsigned long long total = 0;
    for (int t = 0; t < threads; t++) {
        const struct copy *k = &c->copy[t];
        ck_assert_msg(
            k->end >= k->first && k->counted == k->end - k->first,
            "%s --show-copies: copy %d has slice [%zu, %zu), %zu bytes, but its private "
            "histogram counted %llu: each thread must count its slice into its own copy%s",
            args, t, k->first, k->end, k->end - k->first, k->counted, program_note);
        total += k->counted;
    }
    ck_assert_msg(total == size,
                  "%s --show-copies: the copies counted %llu bytes in all, "
                  "expected %zu%s",
                  args, total, size, program_note);
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
static const struct count_case slices[] = {
    {10, DATA_UNIFORM, 3},       {11, DATA_UNIFORM, 4}, {3, DATA_UNIFORM, 8},
    {0, DATA_UNIFORM, 4},        {1, DATA_UNIFORM, 1},  {1000003, DATA_SKEWED, 7},
    {1031, DATA_CONSTANT, 1024}, {5, DATA_TEXT, 1024},  {33554467, DATA_UNIFORM, 3}};
#define SLICES ((int)(sizeof slices / sizeof slices[0]))

/* Asserts that the copies' slices follow each other from byte 0 to the end,
 * none longer than another by more than one byte. */
static void check_slices(size_t size, int threads, const struct copies_output *c)
{
    size_t shortest = SIZE_MAX, longest = 0, expected_first = 0;
    for (int t = 0; t < threads; t++) {
        const struct copy *k = &c->copy[t];
        ck_assert_msg(k->first == expected_first,
                      "--size %zu --threads %d: slice %d starts at byte %zu, expected %zu (the "
                      "slices must follow each other, each starting where the last ended)%s",
                      size, threads, t, k->first, expected_first, program_note);
        size_t length = k->end - k->first;
        shortest = length < shortest ? length : shortest;
        longest = length > longest ? length : longest;
        expected_first = k->end;
    }
    ck_assert_msg(expected_first == size,
                  "--size %zu --threads %d: the last slice ends at %zu, "
                  "not at the end of the input%s",
                  size, threads, expected_first, program_note);
    ck_assert_msg(longest - shortest <= 1,
                  "--size %zu --threads %d: slices of %zu to %zu bytes: "
                  "expected %zu or %zu each (no slice longer than another by more than one byte)%s",
                  size, threads, shortest, longest, size / threads,
                  size / threads + (size % threads != 0), program_note);
}

START_TEST(test_slices_cover_the_input_once_and_are_balanced)
{
    size_t size = slices[_i].size;
    int threads = slices[_i].threads;
    struct copies_output *c = malloc(sizeof *c);
    ck_assert(c != NULL);
    check_copies(size, threads, data_kind_name(slices[_i].kind), c);
    check_slices(size, threads, c);
    free(c);
    char extra[32];
    snprintf(extra, sizeof extra, "--threads %d", threads);
    check_matches_reference(size, slices[_i].kind, 200 + (uint64_t)_i, extra);
}
END_TEST

/* Past 2^31 bytes an int no longer holds every byte position: slice
 * arithmetic in int overflows, and a thread starts at a wrapped offset. With
 * 1024 threads, 2^31 + 2^22 + 7 bytes puts the last slice's first byte past
 * 2^31. The input is this large (2 GiB of memory, about 4 seconds) because
 * the mistake needs it; constant bytes are the quickest to make. */
START_TEST(test_slices_past_2_to_the_31)
{
    const size_t size = ((size_t)1 << 31) + ((size_t)1 << 22) + 7;
    const int threads = 1024;
    struct copies_output *c = malloc(sizeof *c);
    ck_assert(c != NULL);
    check_copies(size, threads, "constant", c);
    check_slices(size, threads, c);
    free(c);
}
END_TEST

/* ----------------------------------------------- where size_t is 32 bits -- */

/* The program built with -m32 (the Makefile), where size_t is 32 bits, as on
 * 32-bit ARM: there t x size passes 2^32 on inputs of 50 to 100 MiB, and a
 * product that wraps starts or ends a slice in the wrong place. At most 96
 * threads: each thread's stack takes some of a 32-bit program's 4 GiB of
 * addresses. */
static char build_32[4096];

static const struct count_case slices_32[] = {
    {67108879, DATA_CONSTANT, 64}, /* only 64 x size passes 2^32: the last slice's end */
    {104857603, DATA_CONSTANT, 41},
    {50331683, DATA_CONSTANT, 96}};
#define SLICES_32 ((int)(sizeof slices_32 / sizeof slices_32[0]))

START_TEST(test_slices_where_size_t_is_32_bits)
{
    const struct count_case *k = &slices_32[_i];
    const char *saved = strdup(stage_program());
    struct copies_output *c = malloc(sizeof *c);
    ck_assert(c != NULL);
    set_stage_program(build_32);
    static char note[4200];
    snprintf(note, sizeof note,
             " (%.4000s, the program built with -m32: size_t is 32 bits there, as on 32-bit "
             "ARM; uint64_t is 64 bits everywhere)",
             build_32);
    program_note = note;
    check_copies(k->size, k->threads, data_kind_name(k->kind), c);
    check_slices(k->size, k->threads, c);
    program_note = "";
    set_stage_program(saved);
    free((void *)saved);
    free(c);
}
END_TEST

/* ------------------------------------------------ watched from inside -- */

/* build/cpu_threads-watch is the program built so that it reports what each
 * of its threads did in the first run of the threads: which input bytes it
 * read, how often it wrote the shared histogram (the one the program reports),
 * and how, and the locks it took (check_cpu_threads_watch.c says how). */
static char watch_program[4096];

#define MAX_WATCHED 64 /* threads the watch follows one by one */

struct watched_thread {
    unsigned long long reads, locked_reads, locks, shared, unlocked_plain, unlocked_stores;
    unsigned long long own, mixed; /* mixed: bins it wrote plain that another wrote unlocked */
    size_t first, end;             /* the first input byte it read, and one past the last */
};

struct watch {
    char args[256];
    struct copies_output copies; /* what --show-copies printed: each thread's slice */
    int threads;
    size_t size, never_read, read_again;
    struct watched_thread thread[MAX_WATCHED + 1]; /* 0: the main thread */
};

/* The first line of text (cut in place), for a message of one line. */
static const char *first_line(char *text)
{
    text[strcspn(text, "\n")] = '\0';
    return text;
}

/* Runs the watched program with --show-copies and reads what the watch wrote. */
static struct watch *run_watched(size_t size, const char *data, int threads)
{
    struct watch *w = calloc(1, sizeof *w);
    ck_assert(w != NULL && threads <= MAX_WATCHED);
    snprintf(w->args, sizeof w->args, "--size %zu --data %s --threads %d --reps 1", size, data,
             threads);
    char path[] = "/tmp/cpu_threads_watch_XXXXXX", env[128], line[512];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(env, sizeof env, "CPU_THREADS_WATCH='%s'", path);
    run_program_copies(watch_program, env, w->args, &w->copies);
    FILE *f = fopen(path, "r");
    int lines = 0;
    if (f && fgets(line, sizeof line, f) &&
        sscanf(line, "watched %d threads, input %zu bytes, never read %zu, read more than once %zu",
               &w->threads, &w->size, &w->never_read, &w->read_again) == 4)
        while (fgets(line, sizeof line, f)) {
            struct watched_thread k;
            int t;
            if (sscanf(line,
                       "thread %d: reads %llu, reads under a lock %llu, first %zu, end %zu, "
                       "locks %llu, shared writes %llu, unlocked shared writes %llu, unlocked "
                       "atomic stores %llu, own writes %llu, plain writes to bins others wrote "
                       "unlocked %llu",
                       &t, &k.reads, &k.locked_reads, &k.first, &k.end, &k.locks, &k.shared,
                       &k.unlocked_plain, &k.unlocked_stores, &k.own, &k.mixed) == 11 &&
                t == lines && t <= MAX_WATCHED)
                w->thread[lines++] = k;
        }
    if (f)
        fclose(f);
    unlink(path);
    ck_assert_msg(w->threads == threads && lines == threads + 1,
                  "%s %s: the watched build saw %d threads in its first run, expected %d "
                  "(exit %d: %s)",
                  watch_program, w->args, w->threads, threads, w->copies.exit_status,
                  first_line(w->copies.err));
    return w;
}

/* The merge adds at most one value to each bin: more writes than bins to the
 * shared histogram from one thread means it counted there. One thread too:
 * the 1-thread run is the speed-up's baseline, and must use the same method. */
static const struct count_case watched_counts[] = {{100003, DATA_UNIFORM, 4},
                                                   {200003, DATA_CONSTANT, 3},
                                                   {65537, DATA_SKEWED, 7},
                                                   {70001, DATA_UNIFORM, 1}};
#define WATCHED_COUNTS ((int)(sizeof watched_counts / sizeof watched_counts[0]))

START_TEST(test_each_thread_counts_into_its_own_copy_and_merges_it_watched)
{
    const struct count_case *k = &watched_counts[_i];
    struct watch *w = run_watched(k->size, data_kind_name(k->kind), k->threads);
    ck_assert_msg(w->thread[0].shared == 0,
                  "%s: the main thread wrote the shared histogram %llu times: each thread adds "
                  "its own copy before it returns, and the main thread only joins (hint 2)",
                  w->args, w->thread[0].shared);
    for (int t = 1; t <= w->threads; t++) {
        const struct watched_thread *m = &w->thread[t];
        size_t slice = w->copies.count == w->threads
                           ? w->copies.copy[t - 1].end - w->copies.copy[t - 1].first
                           : (size_t)m->reads;
        ck_assert_msg(m->shared <= BINS,
                      "%s: thread %d wrote the shared histogram %llu times for its slice of %zu "
                      "bytes: it counts there; count into the thread's own copy, and add that to "
                      "the shared bins once (hint 2)",
                      w->args, t, m->shared, slice);
        ck_assert_msg(m->locked_reads == 0,
                      "%s: thread %d read %llu of its %zu bytes while holding a lock: the "
                      "threads count one after another; only the merge needs one (hint 2)",
                      w->args, t, m->locked_reads, slice);
        ck_assert_msg(m->locks <= BINS,
                      "%s: thread %d took a lock %llu times for its %zu bytes: the count "
                      "needs none, only the merge (hint 2)",
                      w->args, t, m->locks, slice);
        ck_assert_msg(slice == 0 || m->shared > 0,
                      "%s: thread %d counted its %zu bytes but never wrote the shared histogram: "
                      "each thread adds its own copy to it before it returns (hint 2)",
                      w->args, t, slice);
    }
    free(w);
}
END_TEST

/* What each thread read: its own slice, each byte once, and slices balanced
 * (past 2^24 bytes too, where a float no longer holds every position). */
static const struct count_case watched_slices[] = {{10, DATA_UNIFORM, 3},
                                                   {100003, DATA_UNIFORM, 4},
                                                   {1000003, DATA_SKEWED, 7},
                                                   {33554467, DATA_CONSTANT, 3}};
#define WATCHED_SLICES ((int)(sizeof watched_slices / sizeof watched_slices[0]))

START_TEST(test_each_thread_reads_its_slice_once_watched)
{
    const struct count_case *k = &watched_slices[_i];
    struct watch *w = run_watched(k->size, data_kind_name(k->kind), k->threads);
    ck_assert_msg(w->copies.count == k->threads,
                  "%s --show-copies: expected %d lines 'copy t: bytes F to E, counted C', got %d",
                  w->args, k->threads, w->copies.count);
    size_t shortest = SIZE_MAX, longest = 0;
    for (int t = 1; t <= w->threads; t++) {
        const struct watched_thread *m = &w->thread[t];
        const struct copy *slice = &w->copies.copy[t - 1];
        size_t first = m->reads ? m->first : slice->first, end = m->reads ? m->end : slice->first;
        ck_assert_msg(first == slice->first && end == slice->end,
                      "%s: thread %d read bytes %zu to %zu of the input, where its slice is "
                      "bytes %zu to %zu: each thread reads its own slice (hint 3)",
                      w->args, t, first, end, slice->first, slice->end);
        ck_assert_msg(m->reads == end - first,
                      "%s: thread %d read %llu bytes in its slice of %zu: it reads bytes more "
                      "than once; one pass over the slice is enough (hint 3)",
                      w->args, t, m->reads, end - first);
        shortest = end - first < shortest ? end - first : shortest;
        longest = end - first > longest ? end - first : longest;
    }
    ck_assert_msg(w->read_again == 0 && w->never_read == 0,
                  "%s: %zu input bytes were read by more than one thread or more than once, and "
                  "%zu by none: the slices cover the input once (hint 3)",
                  w->args, w->read_again, w->never_read);
    ck_assert_msg(longest - shortest <= 1,
                  "%s: the threads read slices of %zu to %zu bytes: no slice may be longer than "
                  "another by more than one byte (hint 3)",
                  w->args, shortest, longest);
    free(w);
}
END_TEST

/* Many threads merging one bin (constant data): the watch makes a thread
 * that loads a bin atomically wait before it goes on, so a store that
 * follows loses the others' counts in the bins, not only in principle. */
static const struct count_case watched_merges[] = {{100003, DATA_UNIFORM, 4},
                                                   {64000, DATA_CONSTANT, 16}};
#define WATCHED_MERGES ((int)(sizeof watched_merges / sizeof watched_merges[0]))

START_TEST(test_each_merge_loses_no_count_watched)
{
    const struct count_case *k = &watched_merges[_i];
    struct watch *w = run_watched(k->size, data_kind_name(k->kind), k->threads);
    for (int t = 1; t <= w->threads; t++) {
        const struct watched_thread *m = &w->thread[t];
        ck_assert_msg(m->unlocked_stores == 0,
                      "%s: thread %d set %llu shared bins with an atomic store and no lock: a "
                      "load then a store is two steps, and another thread's addition between "
                      "them is lost (hint 4)",
                      w->args, t, m->unlocked_stores);
        ck_assert_msg(m->unlocked_plain == 0,
                      "%s: thread %d wrote the shared bins %llu times with a plain write and no "
                      "lock: two threads can add to one bin at once (hint 4). The merge takes "
                      "the mutex in struct shared, or adds with __atomic_fetch_add, as the task "
                      "says: a lock of your own making is not one this check can see",
                      w->args, t, m->unlocked_plain);
        ck_assert_msg(m->mixed == 0,
                      "%s: thread %d added to %llu shared bins with a plain += that another "
                      "thread added to holding no lock (with an atomic, say): a lock keeps out "
                      "only the threads that take it, and the addition that lands between the "
                      "+='s load and its store is lost (hint 4)",
                      w->args, t, m->mixed);
    }
    ck_assert_msg(w->copies.exit_status == 0,
                  "%s: exit %d with %d threads merging at once, %s: an addition to a shared bin "
                  "was lost (hint 4)",
                  w->args, w->copies.exit_status, k->threads, first_line(w->copies.err));
    free(w);
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

/* --------------------------------------------- UndefinedBehaviorSanitizer -- */

static char ubsan_program[4096]; /* the program built with -fsanitize=undefined, beside the check */

/* UndefinedBehaviorSanitizer stops the program at the first undefined
 * behaviour it sees: a load or store through a pointer not aligned for its
 * type (a slice starts at any byte: 100003 bytes on 4 threads puts slice 1
 * at byte 25001), a signed overflow, a shift past the width. x86 and arm64
 * load misaligned words without a fault, so the counts alone never show it. */
START_TEST(test_undefined_behaviour_sanitizer_reports_nothing)
{
    static const char *const args[] = {"--size 100003 --data uniform --threads 4 --reps 1",
                                       "--size 1021 --data skewed --threads 7 --reps 1"};
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(ubsan_program);
    run_stage(args[_i], &o);
    set_stage_program(saved);
    free((void *)saved);
    ck_assert_msg(o.exit_status == 0 && !strstr(o.err, "runtime error"),
                  "%s %s: %s; UndefinedBehaviorSanitizer says (a load through a pointer "
                  "to a wider type than the buffer's bytes is misaligned where a slice starts at "
                  "an odd byte, and undefined in C even where the CPU allows it):\n%s",
                  ubsan_program, args[_i], exit_meaning(&o), o.err);
}
END_TEST

/* The default launch is what --help says: one thread per logical CPU online
 * (at most 1024), timed against one thread. */
START_TEST(test_default_launch_is_one_thread_per_logical_cpu)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int expected = cpus < 1 ? 1 : cpus > 1024 ? 1024 : (int)cpus;
    if (expected < 2)
        return; /* one logical CPU: the default is one thread, nothing to tell apart */
    struct stage_output o;
    run_stage("--size 100000 --reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "--size 100000 --reps 1: %s, stderr: %s", exit_meaning(&o),
                  o.err);
    char row[32];
    snprintf(row, sizeof row, "\n%d threads ", expected);
    ck_assert_msg(strstr(o.out, row) != NULL,
                  "--size 100000 --reps 1 (no --threads): expected a row '%d threads ...': with "
                  "no --threads the program runs one thread per logical CPU online (this machine "
                  "has %ld, as nproc counts them), as --help says; got: %s",
                  expected, cpus, o.out);
}
END_TEST

/* --threads T runs T threads, whatever the machine's cores: 1024 (the most
 * --threads takes) on 1031 bytes, more threads than the cores of any machine
 * the check runs on, and its row says 1024 threads. */
START_TEST(test_threads_asked_for_are_the_threads_run)
{
    const char *args = "--size 1031 --threads 1024 --reps 1";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s: %s, stderr: %s", args,
                  exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\n1024 threads ") != NULL,
                  "%s: expected a row '1024 threads ...': --threads T runs T threads, as many "
                  "as asked for, up to 1024, however many cores the machine has; got: %s",
                  args, o.out);
}
END_TEST

/* --csv prints only CSV: every line of stdout has the header's commas. */
START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 100000 --threads 2 --reps 1 --csv", 3);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("01_cpu_threads", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    const char *dir = dirname(here);
    snprintf(tsan_program, sizeof tsan_program, "%s/cpu_threads-tsan", dir);
    snprintf(watch_program, sizeof watch_program, "%s/cpu_threads-watch", dir);
    snprintf(ubsan_program, sizeof ubsan_program, "%s/cpu_threads-ubsan", dir);
    snprintf(refuse_program, sizeof refuse_program, "%s/cpu_threads-refuse", dir);

    Suite *suite = suite_create("exercise 01: threads that count one input");
    TCase *right = exercise_tcase("the bins are right with any number of threads", 1);
    tcase_set_timeout(right, 120);
    tcase_add_loop_test(right, test_bins_match_reference_for_any_thread_count, 0, COUNTS);
    tcase_add_loop_test(right, test_reports_the_speed_up_over_one_thread, 0, 2);
    tcase_add_test(right, test_default_launch_is_one_thread_per_logical_cpu);
    tcase_add_test(right, test_csv_prints_only_csv);
    tcase_add_test(right, test_threads_asked_for_are_the_threads_run);
    add_tcase(suite, right, COUNTS + 5);

    TCase *refused = exercise_tcase("a thread that cannot start, a lock or a join that fails, "
                                    "stops the program, with the reason",
                                    4);
    tcase_set_timeout(refused, 120);
    tcase_add_loop_test(refused, test_a_thread_that_cannot_start_stops_the_program, 0, 2);
    tcase_add_loop_test(refused, test_a_thread_call_that_fails_stops_the_program, 0, FAILED_CALLS);
    if (access(refuse_program, X_OK) == 0)
        add_tcase(suite, refused, 2 + FAILED_CALLS);
    else {
        printf("%s is missing (make check builds it)\n", refuse_program);
        add_skipped(2 + FAILED_CALLS);
    }

    TCase *timed = exercise_tcase("the time includes starting and joining the threads", 0);
    tcase_set_timeout(timed, 120);
    tcase_add_test(timed, test_the_timed_interval_holds_thread_start_and_join);
    if (access(refuse_program, X_OK) == 0)
        add_tcase(suite, timed, 1);
    else
        add_skipped(1);

    TCase *copies = exercise_tcase("each thread counts its slice into a private copy "
                                   "(--show-copies)",
                                   2);
    tcase_set_timeout(copies, 120);
    tcase_add_loop_test(copies, test_each_thread_counts_its_slice_into_a_private_copy, 0, 3);
    add_tcase(suite, copies, 3);

    TCase *own = exercise_tcase("each thread counts into its own copy with no lock, and merges it "
                                "itself (watched inside)",
                                2);
    tcase_set_timeout(own, 120);
    tcase_add_loop_test(own, test_each_thread_counts_into_its_own_copy_and_merges_it_watched, 0,
                        WATCHED_COUNTS);
    add_tcase(suite, own, WATCHED_COUNTS);

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

    TCase *merges =
        exercise_tcase("no merge loses a count, many threads on one bin (watched inside)", 4);
    tcase_set_timeout(merges, 120);
    tcase_add_loop_test(merges, test_each_merge_loses_no_count_watched, 0, WATCHED_MERGES);
    add_tcase(suite, merges, WATCHED_MERGES);

    TCase *reads = exercise_tcase("each thread reads its own slice, once (watched inside)", 3);
    tcase_set_timeout(reads, 120);
    tcase_add_loop_test(reads, test_each_thread_reads_its_slice_once_watched, 0, WATCHED_SLICES);
    add_tcase(suite, reads, WATCHED_SLICES);

    TCase *edges = exercise_tcase("the slices: in order, balanced, more threads than bytes", 3);
    tcase_set_timeout(edges, 120);
    tcase_add_loop_test(edges, test_slices_cover_the_input_once_and_are_balanced, 0, SLICES);
    tcase_add_test(edges, test_slices_past_2_to_the_31);
    add_tcase(suite, edges, SLICES + 1);

    TCase *undefined =
        exercise_tcase("no undefined behaviour, under UndefinedBehaviorSanitizer", 3);
    tcase_set_timeout(undefined, 120);
    tcase_add_loop_test(undefined, test_undefined_behaviour_sanitizer_reports_nothing, 0, 2);
    if (access(ubsan_program, X_OK) == 0)
        add_tcase(suite, undefined, 2);
    else {
        printf("%s is missing (make check builds it)\n", ubsan_program);
        add_skipped(2);
    }

    /* Beside this check, the Makefile builds the program with -m32 where the compiler can. */
    snprintf(build_32, sizeof build_32, "%.4000s/cpu_threads-32", dir);
    TCase *slices_m32 = exercise_tcase("the slices where size_t is 32 bits (-m32)", 3);
    tcase_set_timeout(slices_m32, 120);
    tcase_add_loop_test(slices_m32, test_slices_where_size_t_is_32_bits, 0, SLICES_32);
    if (access(build_32, X_OK) == 0)
        add_tcase(suite, slices_m32, SLICES_32);
    else {
        printf("%s: not run here: this compiler cannot build a 32-bit program (-m32; on Debian "
               "the package gcc-multilib)\n",
               build_32);
        add_skipped(SLICES_32);
    }
    return run_exercise(suite);
}
