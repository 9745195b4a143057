/*
 * check_lost_updates.c - exercise 20 runs a schedule of threads that each add
 * 1 to one counter with a plain ++: a load, an add in a register, a store. The
 * check runs the program on schedules worked out by hand, then on random
 * schedules of its own: first laws that any right run keeps, then the same
 * schedules run here, by another method, for the final count and for whose
 * adds were lost, past 256 threads too, and (by a program built beside the
 * check, check_run_schedule.c) on schedules up to the program's limits, longer
 * than --schedule takes. Then the program built with AddressSanitizer, which
 * must free what it takes; the program's own random schedules, which must lose
 * none with one thread and more with more threads; and the refusals.
 */
#include "stage_checks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOST_THREADS 1024 /* the program's most, as in a CUDA block */
#define MOST_STEPS   768  /* 3 x 8 threads x 32 adds: fits the check's command line */

/* ----------------------------------------------------- one schedule a run -- */

struct run_counts {
    long final, lost, increments;
    int threads;
    long by_thread[MOST_THREADS];
};

/* The counts in a run's output out, from its first 'schedule:' line on. */
static struct run_counts counts_in(const char *args, const char *out)
{
    struct run_counts r = {0};
    const char *final = strstr(out, "\nfinal:"), *lost = strstr(out, "\nlost:"),
               *by = strstr(out, "\nby thread:"), *sched = strstr(out, "\nschedule:");
    long steps = 0, adds = 0;
    ck_assert_msg(sched && sscanf(sched + 1, "schedule: %ld steps: %d %*s x %ld", &steps,
                                  &r.threads, &adds) == 3,
                  "%.300s: no 'schedule: S steps: T threads x N adds' line: %.400s", args, out);
    ck_assert_msg(final && sscanf(final + 1, "final: %ld", &r.final) == 1,
                  "%.300s: no 'final: F' line: %.400s", args, out);
    ck_assert_msg(lost && sscanf(lost + 1, "lost: %ld of %ld", &r.lost, &r.increments) == 2,
                  "%.300s: no 'lost: L of I increments' line: %.400s", args, out);
    ck_assert_msg(r.threads >= 1 && r.threads <= MOST_THREADS, "%.300s: %d threads", args,
                  r.threads);
    ck_assert_msg(by, "%.300s: no 'by thread:' line: %.400s", args, out);
    const char *p = by + strlen("\nby thread:");
    for (int t = 0; t < r.threads; t++) {
        char *end;
        r.by_thread[t] = strtol(p, &end, 10);
        ck_assert_msg(end != p, "%.300s: the 'by thread:' line has fewer than %d numbers: %.200s",
                      args, r.threads, by + 1);
        p = end;
    }
    ck_assert_msg(r.increments == r.threads * adds && r.lost == r.increments - r.final,
                  "%.300s: the program's own lines disagree (given code changed?): %.400s", args,
                  out);
    return r;
}

/* The program's counts for args, which hold --schedule. */
static struct run_counts run_args(const char *args)
{
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%.300s: %s, expected exit 0; stderr: %s", args,
                  exit_meaning(&o), o.err);
    return counts_in(args, o.out);
}

/* The same for a schedule held as numbers. */
static struct run_counts run_steps(const int *step, long steps, char *args, size_t size)
{
    snprintf(args, size, "--schedule ");
    for (long s = 0; s < steps; s++)
        snprintf(args + strlen(args), size - strlen(args), "%s%d", s ? "," : "", step[s]);
    return run_args(args);
}

/* Each answer worked out by hand: load, add, store, step by step. */
struct known {
    const char *args;
    long final;
    long by_thread[MOST_THREADS]; /* each thread's adds lost */
    const char *why;
};

#define ROUND_OF_4 "0,1,2,3,0,1,2,3,0,1,2,3"
#define WARP_3                                                                                     \
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"
static const struct known known[] = {
    {"--schedule 0,0,0", 1, {0}, "one thread, one add: load 0, add, store 1"},
    {"--schedule 0,0,0,0,0,0,0,0,0", 3, {0}, "one thread never loses: 3 adds make 3"},
    {"--schedule 0,0,0,1,1,1", 2, {0, 0}, "thread 1 loads after thread 0 stores: nothing lost"},
    {"--schedule 0,1,0,0,1,1",
     1,
     {1, 0},
     "both load 0 before either stores; both store 1, thread 1 last: thread 0's add is lost"},
    {"--schedule 0,1,1,1,0,0",
     1,
     {0, 1},
     "thread 0 loads 0, thread 1 stores 1, thread 0 stores 1 over it: thread 1's add is lost"},
    {"--schedule 0,0,1,0,1,1",
     1,
     {1, 0},
     "thread 1 loads 0 after thread 0's add, before its store: both store 1, thread 0's add "
     "is lost"},
    {"--schedule 1,0,0,0,1,1",
     1,
     {1, 0},
     "thread 1 loads 0, thread 0 adds whole (1), thread 1 stores 1 over it: thread 0 finished "
     "first and still lost"},
    {"--schedule 0,0,0,1,2,1,1,2,2",
     2,
     {0, 1, 0},
     "thread 0 makes 1; threads 1 and 2 both load 1 and store 2, thread 2 last: thread 1's add "
     "is lost"},
    {"--schedule " ROUND_OF_4 "," ROUND_OF_4 "," ROUND_OF_4,
     3,
     {3, 3, 3, 0},
     "4 threads, 3 rounds, each round every thread loads before any stores: 1 a round, T - 1 = "
     "3 lost a round; thread 3 stores last each round"},
    {"--schedule 0,1,2,0,1,2,2,1,0,0,1,2,0,1,2,2,1,0",
     2,
     {0, 2, 2},
     "3 threads, 2 rounds of every load before any store, stored last by thread 0: 2 lost a "
     "round"},
    {"--schedule " WARP_3 "," WARP_3 "," WARP_3,
     1,
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
      1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0},
     "32 threads in step, as a warp: every load, then every add, then every store: 31 of 32 "
     "lost"},
    {"--schedule 0,1,1,1,1,1,1,0,0,0,0,0",
     2,
     {0, 2},
     "thread 0 loads 0, thread 1 makes 2, thread 0 stores 1 over it (the count goes down), "
     "then makes 2: both of thread 1's adds are lost"},
    {"--schedule 0,1,1,1,1,1,1,0,0,1,0,0,0,0,0,0,1,1",
     2,
     {2, 2},
     "2 threads of 3 adds can end at 2: thread 0 stores 1 over thread 1's 2, thread 1 loads "
     "that 1, thread 0 makes 3, thread 1 stores 2 over it"},
    {"--threads 3 --schedule 2,2,2,0,0,0,1,1,1",
     3,
     {0, 0, 0},
     "three threads one after another, thread 2 first: nothing lost"},
    {"--adds 2 --schedule 0,0,1,1,0,1,0,0,1,0,1,1",
     2,
     {2, 0},
     "2 threads of 2 adds, each add overlapping the other thread's: both load 0 and store 1, "
     "thread 1 last; both load thread 1's 1 and store 2, thread 1 last: both of thread 0's adds "
     "are lost"},
};
#define KNOWN ((int)(sizeof known / sizeof known[0]))

START_TEST(test_hand_schedules_end_at_known_counts)
{
    const struct known *k = &known[_i];
    struct run_counts r = run_args(k->args);
    ck_assert_msg(r.final == k->final, "%s: final %ld, expected %ld: %s", k->args, r.final,
                  k->final, k->why);
}
END_TEST

/* ------------------------------------------------------- random schedules -- */

/* A small generator of the check's own (splitmix64): the same schedules every run. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static int below(uint64_t *state, int n)
{
    return (int)(next_random(state) % (uint64_t)n);
}

static void shuffle(int *a, int n, uint64_t *state)
{
    for (int i = n - 1; i > 0; i--) {
        int j = below(state, i + 1), keep = a[i];
        a[i] = a[j], a[j] = keep;
    }
}

/* The kinds of schedule the laws are tried on. */
enum kind {
    ONE_THREAD, /* one thread: nothing to race with */
    IN_TURN,    /* threads in a random order, each runs all its adds: nothing lost */
    ROUNDS,     /* rounds, each every thread's one add, the steps of a round mixed at random */
    LOADS_FIRST /* rounds in which every thread loads, then adds, then stores */
};
static const char *const kind_names[] = {"one thread", "threads in turn",
                                         "rounds of one add a thread", "rounds of loads first"};
#define KINDS 4

struct schedule {
    int step[MOST_STEPS];
    long steps;
    int threads;
    long adds;
};

static void make_schedule(enum kind kind, uint64_t seed, struct schedule *s)
{
    uint64_t state = seed;
    s->threads = kind == ONE_THREAD ? 1 : 2 + below(&state, 7);
    s->adds = 1 + below(&state, kind == ONE_THREAD ? 200 : 32);
    s->steps = 0;
    int order[3 * 8];
    if (kind == ONE_THREAD) {
        for (long i = 0; i < 3 * s->adds; i++)
            s->step[s->steps++] = 0;
    } else if (kind == IN_TURN) {
        for (int t = 0; t < s->threads; t++)
            order[t] = t;
        shuffle(order, s->threads, &state);
        for (int t = 0; t < s->threads; t++)
            for (long i = 0; i < 3 * s->adds; i++)
                s->step[s->steps++] = order[t];
    } else {
        for (long round = 0; round < s->adds; round++) {
            if (kind == ROUNDS) { /* each thread's 3 steps, in a random order */
                for (int i = 0; i < 3 * s->threads; i++)
                    order[i] = i % s->threads;
                shuffle(order, 3 * s->threads, &state);
                for (int i = 0; i < 3 * s->threads; i++)
                    s->step[s->steps++] = order[i];
            } else { /* every load, then every add, then every store, each in a random order */
                for (int phase = 0; phase < 3; phase++) {
                    for (int t = 0; t < s->threads; t++)
                        order[t] = t;
                    shuffle(order, s->threads, &state);
                    for (int t = 0; t < s->threads; t++)
                        s->step[s->steps++] = order[t];
                }
            }
        }
    }
}

/* A schedule with no pattern: each step by a thread drawn from those not finished. */
static void any_schedule(uint64_t seed, struct schedule *s)
{
    uint64_t state = seed;
    s->threads = 1 + below(&state, 8);
    s->adds = 1 + below(&state, 96 / s->threads);
    long left[8];
    int running[8], count = s->threads;
    for (int t = 0; t < s->threads; t++)
        left[t] = 3 * s->adds, running[t] = t;
    for (s->steps = 0; count > 0; s->steps++) {
        int pick = below(&state, count), t = running[pick];
        s->step[s->steps] = t;
        if (--left[t] == 0)
            running[pick] = running[--count];
    }
}

#define LAW_RUNS 6 /* of each kind */

START_TEST(test_random_schedules_keep_the_laws)
{
    enum kind kind = (enum kind)(_i % KINDS);
    struct schedule s;
    make_schedule(kind, 100 + (uint64_t)_i, &s);
    char args[8192];
    struct run_counts r = run_steps(s.step, s.steps, args, sizeof args);
    long n = s.adds, all = s.threads * s.adds;
    switch (kind) {
    case ONE_THREAD:
        ck_assert_msg(r.final == n,
                      "%.200s...: final %ld, expected %ld: one thread (%s) has "
                      "nothing to race with, and loses no add",
                      args, r.final, n, kind_names[kind]);
        break;
    case IN_TURN:
        ck_assert_msg(r.final == all,
                      "%.200s...: final %ld, expected %ld: %d threads in turn, "
                      "each loading after the one before stored, lose nothing",
                      args, r.final, all, s.threads);
        break;
    case ROUNDS:
        ck_assert_msg(r.final >= n && r.final <= all,
                      "%.200s...: final %ld, expected %ld to %ld: in each of the %ld rounds every "
                      "one of %d threads makes one add, so a round adds at least 1 and at most %d",
                      args, r.final, n, all, n, s.threads, s.threads);
        break;
    case LOADS_FIRST:
        ck_assert_msg(r.final == n,
                      "%.200s...: final %ld, expected %ld: in each of the %ld rounds all %d "
                      "threads load before any stores, so they all store the same count + 1: "
                      "%d lost a round",
                      args, r.final, n, n, s.threads, s.threads - 1);
        break;
    }
}
END_TEST

/* The check's own run, by another method: a log of the stores, each with the
 * count it wrote and the store its load read (-1: the 0 the counter starts at).
 * A store's count is 1 more than the one it read; the final count is the last
 * store's, and the stores it was built on are found by going back through the
 * log from the last store. */
static long reference_steps(const int *step, long steps, int threads, long adds,
                            long by_thread[MOST_THREADS])
{
    struct store {
        int thread;
        long wrote, read;
    } *log = malloc((size_t)(steps / 3 + 1) * sizeof *log);
    ck_assert(log);
    long stores = 0, last = -1;                        /* last: the store the counter holds */
    long read[MOST_THREADS], done[MOST_THREADS] = {0}; /* each thread's load, its steps */
    for (long i = 0; i < steps; i++) {
        int t = step[i];
        int phase = (int)(done[t]++ % 3);
        if (phase == 0)
            read[t] = last;
        else if (phase == 2) {
            log[stores] = (struct store){t, read[t] < 0 ? 1 : log[read[t]].wrote + 1, read[t]};
            last = stores++;
        }
    }
    for (int t = 0; t < threads; t++)
        by_thread[t] = adds;
    for (long at = last; at >= 0; at = log[at].read)
        by_thread[log[at].thread]--;
    long final = last < 0 ? 0 : log[last].wrote;
    free(log);
    return final;
}

static long reference_run(const struct schedule *s, long by_thread[MOST_THREADS])
{
    return reference_steps(s->step, s->steps, s->threads, s->adds, by_thread);
}

#define ANY_RUNS 40

START_TEST(test_random_schedules_end_where_the_check_does)
{
    struct schedule s;
    any_schedule(500 + (uint64_t)_i, &s);
    long expected_by_thread[MOST_THREADS];
    long expected = reference_run(&s, expected_by_thread);
    char args[8192];
    struct run_counts r = run_steps(s.step, s.steps, args, sizeof args);
    ck_assert_msg(r.final == expected,
                  "%.400s: final %ld, expected %ld (%d threads x %ld adds, run here step by step)",
                  args, r.final, expected, s.threads, s.adds);
}
END_TEST

/* ------------------------------------------------- whose adds were lost -- */

static void assert_by_thread(const char *args, const struct run_counts *r, const long *expected,
                             const char *why)
{
    char got[512] = "", want[512] = "";
    bool same = true;
    for (int t = 0; t < r->threads; t++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), " %ld", r->by_thread[t]);
        snprintf(want + strlen(want), sizeof want - strlen(want), " %ld", expected[t]);
        same &= r->by_thread[t] == expected[t];
    }
    ck_assert_msg(same, "%.300s: by thread:%s, expected%s: %s", args, got, want, why);
}

START_TEST(test_hand_schedules_lose_known_adds)
{
    const struct known *k = &known[_i];
    struct run_counts r = run_args(k->args);
    assert_by_thread(k->args, &r, k->by_thread, k->why);
}
END_TEST

START_TEST(test_lost_adds_add_up_and_match_the_check)
{
    struct schedule s;
    if (_i < LAW_RUNS * KINDS)
        make_schedule((enum kind)(_i % KINDS), 100 + (uint64_t)_i, &s);
    else
        any_schedule(500 + (uint64_t)(_i - LAW_RUNS * KINDS), &s);
    char args[8192];
    struct run_counts r = run_steps(s.step, s.steps, args, sizeof args);
    long sum = 0;
    for (int t = 0; t < r.threads; t++) {
        ck_assert_msg(r.by_thread[t] >= 0 && r.by_thread[t] <= s.adds,
                      "%.300s: by thread: thread %d lost %ld of its %ld adds", args, t,
                      r.by_thread[t], s.adds);
        sum += r.by_thread[t];
    }
    ck_assert_msg(sum == r.lost,
                  "%.300s: by thread: the threads' lost adds sum to %ld, but %ld were lost (%ld "
                  "adds, final %ld): each lost increment is one thread's add",
                  args, sum, r.lost, r.increments, r.final);
    long expected[MOST_THREADS];
    reference_run(&s, expected);
    assert_by_thread(args, &r, expected,
                     "the adds that the final count is not built on, store on store, down to 0");
}
END_TEST

/* ------------------------------------------ many threads, long schedules -- */

/* Schedules of many threads: in turn (threads in a random order), in any
 * order (each step by a thread drawn from those not finished), or in rounds
 * in which every thread loads, then adds, then stores. */
enum many_kind { MANY_IN_TURN, MANY_ANY, MANY_LOADS_FIRST };
static const char *const many_names[] = {"in turn", "in any order", "rounds of loads first"};

static void many_schedule(enum many_kind kind, int threads, long adds, uint64_t seed, int *step)
{
    uint64_t state = seed;
    int order[MOST_THREADS];
    long left[MOST_THREADS], steps = 0;
    for (int t = 0; t < threads; t++)
        order[t] = t, left[t] = 3 * adds;
    if (kind == MANY_IN_TURN) {
        shuffle(order, threads, &state);
        for (int t = 0; t < threads; t++)
            for (long i = 0; i < 3 * adds; i++)
                step[steps++] = order[t];
    } else if (kind == MANY_ANY) {
        for (int count = threads; count > 0;) {
            int pick = below(&state, count), t = order[pick];
            step[steps++] = t;
            if (--left[t] == 0)
                order[pick] = order[--count];
        }
    } else {
        for (long round = 0; round < 3 * adds; round++) {
            shuffle(order, threads, &state);
            for (int t = 0; t < threads; t++)
                step[steps++] = order[t];
        }
    }
}

/* The program's final count and lost adds against the check's, thread by thread. */
static void assert_as_the_check_finds(const char *what, const struct run_counts *r, const int *step,
                                      int threads, long adds)
{
    long expected[MOST_THREADS];
    long final = reference_steps(step, 3 * threads * adds, threads, adds, expected);
    ck_assert_msg(r->threads == threads, "%s: %d threads, expected %d", what, r->threads, threads);
    ck_assert_msg(r->final == final, "%s: final %ld, expected %ld (run here step by step)", what,
                  r->final, final);
    for (int t = 0; t < threads; t++)
        ck_assert_msg(r->by_thread[t] == expected[t],
                      "%s: by thread: thread %d lost %ld of its %ld adds, expected %ld: the adds "
                      "that the final count is not built on, store on store, down to 0",
                      what, t, r->by_thread[t], adds, expected[t]);
}

/* Schedule i: 257 to 320 threads of one add each, which --schedule holds on
 * the check's command line: a thread, or a store's thread, kept in a byte
 * shows past thread 255. */
#define MANY_RUNS 6

START_TEST(test_past_256_threads_the_right_threads_lose)
{
    uint64_t state = 700 + (uint64_t)_i;
    int threads = 257 + below(&state, 64);
    enum many_kind kind = (enum many_kind)(_i % 3);
    int step[3 * 320];
    many_schedule(kind, threads, 1, next_random(&state), step);
    char args[6000], what[128];
    struct run_counts r = run_steps(step, 3L * threads, args, sizeof args);
    snprintf(what, sizeof what, "--schedule of %d threads x 1 add, %s (seed %d)", threads,
             many_names[kind], 700 + _i);
    assert_as_the_check_finds(what, &r, step, threads, 1);
}
END_TEST

/* Schedules longer than --schedule takes, up to the program's limits, run by
 * your run_schedule called directly (check_run_schedule.c, built beside the
 * check): chains of a million stores under the final count, 1024 threads,
 * 1048576 adds in all. */
static const struct {
    enum many_kind kind;
    int threads;
    long adds;
} long_schedules[] = {
    {MANY_IN_TURN, 1, 1000000},     {MANY_IN_TURN, 1024, 1024}, {MANY_ANY, 1024, 1024},
    {MANY_LOADS_FIRST, 1024, 1024}, {MANY_ANY, 2, 500000},      {MANY_ANY, 64, 16384},
};
#define LONG_RUNS ((int)(sizeof long_schedules / sizeof long_schedules[0]))
static char run_schedule_program[4096]; /* the program check_run_schedule.c makes */

/* A schedule written for check_run_schedule.c into a new file, whose name goes
 * into path (a mkstemp template). */
static void write_schedule(char *path, const int *step, int threads, long adds)
{
    long steps = 3 * threads * adds;
    int fd = mkstemp(path);
    FILE *file = fd < 0 ? NULL : fdopen(fd, "wb");
    long head[3] = {threads, adds, steps};
    ck_assert_msg(file && fwrite(head, sizeof head, 1, file) == 1 &&
                      fwrite(step, sizeof *step, (size_t)steps, file) == (size_t)steps &&
                      fclose(file) == 0,
                  "cannot write a schedule to %s", path);
}

START_TEST(test_long_schedules_lose_the_adds_the_check_finds)
{
    int threads = long_schedules[_i].threads;
    long adds = long_schedules[_i].adds, steps = 3 * threads * adds;
    int *step = malloc((size_t)steps * sizeof *step);
    ck_assert(step);
    many_schedule(long_schedules[_i].kind, threads, adds, 900 + (uint64_t)_i, step);
    char path[] = "/tmp/lost_updates_schedule_XXXXXX";
    write_schedule(path, step, threads, adds);
    set_stage_program(run_schedule_program);
    struct run_counts r = run_args(path);
    unlink(path);
    char what[160];
    snprintf(what, sizeof what, "run_schedule on %ld steps: %d thread%s x %ld adds, %s", steps,
             threads, threads == 1 ? "" : "s", adds, many_names[long_schedules[_i].kind]);
    assert_as_the_check_finds(what, &r, step, threads, adds);
    free(step);
}
END_TEST

/* Calls of run_schedule one after another on one buffer, rewritten in place
 * between calls (check_run_schedule.c given several files), as the program's
 * random trials rewrite theirs: 2 threads of 1000 adds, thread 0's adds then
 * thread 1's (nothing lost), then the same but for thread 1's first load just
 * before thread 0's last store (thread 0's last add lost), then the first
 * again. The schedules agree in their first 2999 steps: an answer kept from
 * the call before and known by the buffer and the first steps shows. */
#define AGAIN_ADDS  1000
#define AGAIN_STEPS (3 * 2 * AGAIN_ADDS)

static void again_schedule(int which, int *step)
{
    for (int s = 0; s < AGAIN_STEPS; s++)
        step[s] = s >= AGAIN_STEPS / 2;
    if (which == 1) /* thread 1 loads before thread 0's last store */
        step[AGAIN_STEPS / 2 - 1] = 1, step[AGAIN_STEPS / 2] = 0;
}

START_TEST(test_run_schedule_runs_each_call_on_its_steps)
{
    static const int calls[] = {0, 1, 0};
    static int step[2][AGAIN_STEPS];
    char path[2][40], args[128];
    for (int which = 0; which < 2; which++) {
        again_schedule(which, step[which]);
        snprintf(path[which], sizeof path[which], "/tmp/lost_updates_schedule_XXXXXX");
        write_schedule(path[which], step[which], 2, AGAIN_ADDS);
    }
    snprintf(args, sizeof args, "%s %s %s", path[0], path[1], path[0]);
    set_stage_program(run_schedule_program);
    struct stage_output o;
    run_stage(args, &o);
    unlink(path[0]);
    unlink(path[1]);
    ck_assert_msg(o.exit_status == 0, "run_schedule on 3 files: %s, expected exit 0; stderr: %s",
                  exit_meaning(&o), o.err);
    const char *block = o.out;
    for (int c = 0; c < 3; c++) {
        block = strstr(c ? block + 1 : block, "run_schedule: your run_schedule");
        ck_assert_msg(block, "run_schedule on 3 files: %d results, expected 3: %.400s", c, o.out);
        char what[300];
        snprintf(what, sizeof what,
                 "run_schedule called 3 times on one buffer, rewritten between calls, 2 threads "
                 "x %d adds, call %d of 3 (%s), whose first 2999 steps are the other call's",
                 AGAIN_ADDS, c + 1,
                 calls[c] ? "thread 1 loads just before thread 0's last store"
                          : "thread 0's adds, then thread 1's");
        struct run_counts r = counts_in(args, block);
        assert_as_the_check_finds(what, &r, step[calls[c]], 2, AGAIN_ADDS);
    }
}
END_TEST

/* --------------------------------------------- many calls in one process -- */

/* Runs a program the Makefile built beside the check with args, through a
 * shell, and returns all it printed (malloc'd), its exit status in *status. */
static char *run_all(const char *program, const char *args, int *status)
{
    char command[8192];
    snprintf(command, sizeof command, "timeout 60 '%s' %s 2>&1", program, args);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    size_t used = 0, room = 1 << 16;
    char *out = malloc(room);
    ck_assert(out);
    size_t got;
    while ((got = fread(out + used, 1, room - used - 1, p)) > 0) {
        used += got;
        if (room - used < 4096) {
            out = realloc(out, room *= 2);
            ck_assert(out);
        }
    }
    out[used] = '\0';
    *status = pclose(p);
    return out;
}

/* check_run_schedule.c --stamps: run_schedule on 2 threads, then 2^k - 1
 * times on thread 0 alone, then on the 2 threads again, for k = 16 to 22 (8
 * million calls in one process): each call of 2 threads, thread 0's add then
 * thread 1's, ends at 2 with nothing lost. A step count kept between calls
 * and restarted by a call number of 16 to 22 bits comes round to thread 1's
 * last call at one of them: its stores are numbered past its adds. */
START_TEST(test_a_thread_back_after_millions_of_calls_starts_afresh)
{
    int status;
    char *out = run_all(run_schedule_program, "--stamps", &status);
    int lines = 0;
    for (const char *p = strstr(out, "stamps:"); p; p = strstr(p + 1, "\nstamps:")) {
        long gap = -1, final = -1, lost0 = -1, lost1 = -1;
        sscanf(p + (*p == '\n'),
               "stamps: after %ld calls without thread 1: final %ld, by thread %ld %ld", &gap,
               &final, &lost0, &lost1);
        ck_assert_msg(final == 2 && lost0 == 0 && lost1 == 0,
                      "run_schedule called on thread 0 alone %ld times, then on 2 threads "
                      "(0,0,0,1,1,1: thread 0's add, then thread 1's): final %ld, by thread %ld "
                      "%ld; expected final 2, by thread 0 0: does something kept from call to "
                      "call come round after 2^k calls?",
                      gap, final, lost0, lost1);
        lines++;
    }
    ck_assert_msg(status == 0 && lines == 7,
                  "run_schedule --stamps (8 million calls in one process): exit status %d, %d "
                  "of 7 'stamps:' lines, expected exit 0 and 7: %.600s",
                  status, lines, out);
    free(out);
}
END_TEST

/* 2000 random schedules of 2 to 4 threads x 1 to 3 adds, in one file, run by
 * run_schedule one after another in one process on one buffer: each call's
 * final count and lost adds against the check's own. Each odd one is the
 * even one before with two pairs of steps swapped late in the schedule, a
 * pair a,b and a later pair b,a: the same shape, the same steps of each
 * thread, the same first steps, and the same sums of the steps, plain,
 * xor'd or weighted by place, but often another count: an answer kept from
 * the call before and known by such a summary shows. */
#define SMALL_SCHEDULES 2000

static void small_schedule(int i, int *step, int *threads, long *adds)
{
    uint64_t state = 31000 + (uint64_t)(i & ~1);
    *threads = 2 + (int)(next_random(&state) % 3);
    *adds = 1 + (long)(next_random(&state) % 3);
    long left[4], steps = 3 * *threads * *adds;
    for (int t = 0; t < *threads; t++)
        left[t] = 3 * *adds;
    for (long k = 0; k < steps; k++) {
        int t;
        do
            t = (int)(next_random(&state) % (uint64_t)*threads);
        while (!left[t]);
        left[t]--;
        step[k] = t;
    }
    if (i % 2 == 0)
        return;
    for (long q = steps - 2; q >= 2; q--)
        for (long p = q - 2; p >= 0 && step[q] != step[q + 1]; p--)
            if (step[p] == step[q + 1] && step[p + 1] == step[q]) {
                int a = step[p];
                step[p] = step[p + 1], step[p + 1] = a;
                step[q + 1] = step[q], step[q] = a;
                return;
            }
}

START_TEST(test_thousands_of_small_calls_each_as_the_check_finds)
{
    char path[] = "/tmp/lost_updates_schedules_XXXXXX";
    int fd = mkstemp(path);
    FILE *file = fd < 0 ? NULL : fdopen(fd, "wb");
    ck_assert_msg(file, "cannot write schedules to %s", path);
    for (int i = 0; i < SMALL_SCHEDULES; i++) {
        int step[36], threads;
        long adds;
        small_schedule(i, step, &threads, &adds);
        long head[3] = {threads, adds, 3 * threads * adds};
        ck_assert(fwrite(head, sizeof head, 1, file) == 1 &&
                  fwrite(step, sizeof *step, (size_t)head[2], file) == (size_t)head[2]);
    }
    ck_assert(fclose(file) == 0);
    int status;
    char *out = run_all(run_schedule_program, path, &status);
    unlink(path);
    const char *block = out;
    for (int i = 0; i < SMALL_SCHEDULES; i++) {
        block = strstr(i ? block + 1 : block, "run_schedule: your run_schedule");
        ck_assert_msg(block,
                      "run_schedule on %d schedules in one process: %d results, expected %d "
                      "(exit status %d): %.600s",
                      SMALL_SCHEDULES, i, SMALL_SCHEDULES, status, out);
        int step[36], threads;
        long adds;
        small_schedule(i, step, &threads, &adds);
        char what[200];
        snprintf(what, sizeof what,
                 "run_schedule call %d of %d in one process on one buffer (%d threads x %ld "
                 "adds, random, seed %d%s)",
                 i + 1, SMALL_SCHEDULES, threads, adds, 31000 + (i & ~1),
                 i % 2 ? ", two pairs of steps swapped late" : "");
        struct run_counts r = counts_in(what, block);
        assert_as_the_check_finds(what, &r, step, threads, adds);
    }
    ck_assert_msg(status == 0, "run_schedule on %d schedules: exit status %d", SMALL_SCHEDULES,
                  status);
    free(out);
}
END_TEST

/* ----------------------------------------------- with guard pages -- */

/* check_run_schedule.c built with common/tests/guarded_alloc.c: every block your
 * code allocates ends right before a page that may not be touched, and after
 * each call it prints the blocks still allocated. 8 small schedules, then
 * the largest one (1024 threads x 1024 adds, 2^20 stores) 6 times: each must
 * run to the end with the check's counts, and the blocks still allocated may
 * not grow with the calls: memory never freed (a table kept for long
 * schedules alone included), or a store written past a table, shows, where
 * AddressSanitizer cannot run too. */
static char guarded[4096];
#define GUARDED_SMALL 8
#define GUARDED_LARGE 6

START_TEST(test_no_block_left_behind_or_written_past)
{
    int small[GUARDED_SMALL][36], small_threads[GUARDED_SMALL];
    long small_adds[GUARDED_SMALL];
    char small_path[] = "/tmp/lost_updates_schedules_XXXXXX", large_path[40];
    int fd = mkstemp(small_path);
    FILE *file = fd < 0 ? NULL : fdopen(fd, "wb");
    ck_assert_msg(file, "cannot write schedules to %s", small_path);
    for (int i = 0; i < GUARDED_SMALL; i++) {
        small_schedule(i, small[i], &small_threads[i], &small_adds[i]);
        long head[3] = {small_threads[i], small_adds[i], 3 * small_threads[i] * small_adds[i]};
        ck_assert(fwrite(head, sizeof head, 1, file) == 1 &&
                  fwrite(small[i], sizeof(int), (size_t)head[2], file) == (size_t)head[2]);
    }
    ck_assert(fclose(file) == 0);
    const int threads = 1024;
    const long adds = 1024, steps = 3 * threads * adds;
    int *step = malloc((size_t)steps * sizeof *step);
    ck_assert(step);
    many_schedule(MANY_ANY, threads, adds, 950, step);
    snprintf(large_path, sizeof large_path, "/tmp/lost_updates_schedule_XXXXXX");
    write_schedule(large_path, step, threads, adds);
    char args[400];
    snprintf(args, sizeof args, "%s", small_path);
    for (int i = 0; i < GUARDED_LARGE; i++)
        snprintf(args + strlen(args), sizeof args - strlen(args), " %s", large_path);
    int status;
    char *out = run_all(guarded, args, &status);
    unlink(small_path);
    unlink(large_path);
    const char *block = out;
    long first_blocks = -1, blocks = -1;
    for (int c = 0; c < GUARDED_SMALL + GUARDED_LARGE; c++) {
        block = strstr(c ? block + 1 : block, "run_schedule: your run_schedule");
        ck_assert_msg(block,
                      "run_schedule built with a page that may not be touched after each block "
                      "of the heap: %d of %d calls ended (exit status %d: a signal 11 is a read "
                      "or write past a block): %.600s",
                      c, GUARDED_SMALL + GUARDED_LARGE, status, out);
        bool large = c >= GUARDED_SMALL;
        char what[200];
        snprintf(what, sizeof what, "run_schedule call %d of %d (built with guard pages)", c + 1,
                 GUARDED_SMALL + GUARDED_LARGE);
        struct run_counts r = counts_in(what, block);
        if (large)
            assert_as_the_check_finds(what, &r, step, threads, adds);
        else
            assert_as_the_check_finds(what, &r, small[c], small_threads[c], small_adds[c]);
        const char *line = strstr(block, "\nblocks:");
        ck_assert_msg(line && sscanf(line + 1, "blocks: %ld", &blocks) == 1,
                      "%s: no 'blocks: N still allocated' line", what);
        if (c == 0)
            first_blocks = blocks;
    }
    ck_assert_msg(status == 0, "run_schedule built with guard pages: exit status %d; %.400s",
                  status, out);
    ck_assert_msg(blocks <= first_blocks + 2,
                  "run_schedule called %d times in one process (8 small schedules, then 1024 "
                  "threads x 1024 adds 6 times): %ld blocks of memory still allocated after the "
                  "first call, %ld after the last: memory never freed, call after call",
                  GUARDED_SMALL + GUARDED_LARGE, first_blocks, blocks);
    free(out);
    free(step);
}
END_TEST

/* --------------------------------------------------------- the defaults -- */

/* No options: the hand schedules, then the sweep of 1 to 32 threads with
 * --help's defaults (--adds 1000, --trials 100, --seed 1), word for word, and
 * the verified line last. */
START_TEST(test_no_options_run_the_defaults_help_names)
{
    const char *named_args = "--adds 1000 --trials 100 --seed 1";
    struct stage_output none, named;
    run_stage("", &none);
    ck_assert_msg(none.exit_status == 0, "no options: %s, expected exit 0; stderr: %s",
                  exit_meaning(&none), none.err);
    run_stage(named_args, &named);
    ck_assert_msg(strcmp(none.out, named.out) == 0,
                  "no options: the output differs from %s's, the defaults --help names:\n%.900s"
                  "\nagainst\n%.900s",
                  named_args, none.out, named.out);
    const char *last = strstr(none.out, "\nverified:");
    const char *end = last ? strchr(last + 1, '\n') : NULL;
    ck_assert_msg(end && end[1] == '\0', "no options: expected a last line 'verified: ...': %.900s",
                  none.out);
}
END_TEST

/* ------------------------------------------- under AddressSanitizer -- */

/* The program built with AddressSanitizer (the Makefile), and a probe that
 * leaks on purpose: the group runs only where the probe's leak is reported. */
static char sanitized[4096], leak_probe[4096];

static const char *const sanitized_runs[] = {
    "--schedule 0,1,1,1,1,1,1,0,0,0,0,0",
    "--threads 300 --adds 20 --trials 3 --seed 2",
    "--adds 50 --trials 2",
    /* the program's limits: the most stores one schedule takes (1024 threads x 1024 adds,
     * 2^20), and the most adds (a million on one thread), each past the 2^19 stores of
     * the runs above, where a table taken for long schedules alone shows; 0.05 s here */
    "--threads 1024 --adds 1024 --trials 2",
    "--threads 1 --adds 1000000 --trials 2",
    /* the sweep past 65536 calls of run_schedule: 6 by hand (the last, 32 threads in
     * step), then 13107 trials each of 1, 2, 4, 8 and 16 threads, so the first call of
     * 32 threads is call 65542, and threads 16 to 31 last ran in call 6, 65536 before:
     * state kept between calls under a 16-bit call number takes them as met in this
     * call, and thread 31 stores past its one add; 0.4 s here */
    "--adds 1 --trials 13107",
};
#define SANITIZED_RUNS ((int)(sizeof sanitized_runs / sizeof sanitized_runs[0]))

START_TEST(test_no_memory_left_unfreed_or_out_of_bounds)
{
    set_stage_program(sanitized);
    struct stage_output o;
    run_stage(sanitized_runs[_i], &o);
    const char *report = strstr(o.err, "ERROR: "); /* past the report's rule of = signs */
    ck_assert_msg(o.exit_status == 0 && !strstr(o.err, "Sanitizer"),
                  "%s, built with AddressSanitizer: %s, expected exit 0 and no report: memory "
                  "taken and never freed, or read or written out of bounds; stderr: %s",
                  sanitized_runs[_i], exit_meaning(&o), report ? report : o.err);
}
END_TEST

/* Whether LeakSanitizer reports the probe's leak here. */
static bool leaks_reported(const char *probe)
{
    if (access(probe, X_OK) != 0)
        return false;
    char command[4200], line[512];
    snprintf(command, sizeof command, "'%s' 2>&1", probe);
    FILE *p = popen(command, "r");
    bool reported = false;
    while (p && fgets(line, sizeof line, p))
        reported |= strstr(line, "LeakSanitizer: detected memory leaks") != NULL;
    if (p)
        pclose(p);
    return reported;
}

/* Beside the check, a program the Makefile built: its path, from the check's own. */
static void program_beside_check(char *path, size_t size, const char *check, const char *name)
{
    snprintf(path, size, "%s", check);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, size - (size_t)(slash ? slash + 1 - path : 0), "%s", name);
}

/* ----------------------------------------- the program's random schedules -- */

struct random_line {
    int threads;
    long adds, increments;
    double final, lost, fraction;
};

/* Every 'random:' line of a run, in order; returns how many. */
static int read_random(const char *args, struct random_line *line, int most)
{
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args, exit_meaning(&o),
                  o.err);
    int n = 0;
    for (const char *p = strstr(o.out, "\nrandom:"); p && n < most;
         p = strstr(p + 1, "\nrandom:")) {
        struct random_line *l = &line[n];
        ck_assert_msg(sscanf(p + 1,
                             "random: %d threads x %ld adds: final %lf, lost %lf of %ld on "
                             "average, mean lost fraction %lf",
                             &l->threads, &l->adds, &l->final, &l->lost, &l->increments,
                             &l->fraction) == 6,
                      "%s: a 'random:' line not as the given code prints it: %.200s", args, p + 1);
        ck_assert_msg(l->increments == l->threads * l->adds &&
                          l->final + l->lost > l->increments - 0.002 &&
                          l->final + l->lost < l->increments + 0.002,
                      "%s: the given code's arithmetic disagrees: %.200s", args, p + 1);
        n++;
    }
    return n;
}

START_TEST(test_program_schedules_one_thread_loses_none_more_lose_more)
{
    struct random_line line[8];
    ck_assert_int_eq(read_random("--threads 1 --adds 500 --trials 20 --seed 5", line, 8), 1);
    ck_assert_msg(line[0].final == 500 && line[0].fraction == 0,
                  "--threads 1 --adds 500: final %.3f, mean lost fraction %.6f; expected 500 and "
                  "0: one thread never loses an add",
                  line[0].final, line[0].fraction);
    static const char *const runs[] = {"--threads 2 --adds 200 --trials 200 --seed 3",
                                       "--threads 4 --adds 200 --trials 200 --seed 3",
                                       "--threads 8 --adds 200 --trials 200 --seed 3",
                                       "--threads 32 --adds 200 --trials 200 --seed 3"};
    double before = 0;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(read_random(runs[i], line, 8), 1);
        ck_assert_msg(line[0].fraction > before && line[0].fraction < 1,
                      "%s: mean lost fraction %.6f, expected more than %.6f (fewer threads) and "
                      "less than 1: more threads on one counter lose more, but the last store "
                      "always counts",
                      runs[i], line[0].fraction, before);
        before = line[0].fraction;
    }
    /* The program's limits: a million adds on one thread (a chain of a million
     * stores under the final count), 1024 threads (more than a warp's 32), and
     * 1024 x 1024, the most stores a trial takes (more than the most adds) */
    ck_assert_int_eq(read_random("--threads 1 --adds 1000000 --trials 1 --seed 5", line, 8), 1);
    ck_assert_msg(line[0].final == 1000000 && line[0].fraction == 0,
                  "--threads 1 --adds 1000000: final %.3f, mean lost fraction %.6f; expected "
                  "1000000 and 0",
                  line[0].final, line[0].fraction);
    static const char *const most[] = {"--threads 1024 --adds 100 --trials 20 --seed 3",
                                       "--threads 1024 --adds 1024 --trials 1 --seed 3"};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(read_random(most[i], line, 8), 1);
        ck_assert_msg(line[0].fraction > before && line[0].fraction < 1,
                      "%s: mean lost fraction %.6f, expected more than %.6f (32 threads) and "
                      "less than 1",
                      most[i], line[0].fraction, before);
    }
}
END_TEST

START_TEST(test_make_run_shows_the_hand_schedules_and_the_sweep)
{
    struct stage_output o;
    run_stage("--adds 100 --trials 20", &o);
    ck_assert_msg(o.exit_status == 0, "--adds 100 --trials 20: %s; stderr: %s", exit_meaning(&o),
                  o.err);
    static const long finals[] = {3, 2, 1, 1, 2, 1};
    int n = 0;
    for (const char *p = strstr(o.out, "\nschedule:"); p && n < 6;
         p = strstr(p + 1, "\nschedule:"), n++) {
        long final = -1;
        sscanf(p + 1, "schedule: final %ld", &final);
        ck_assert_msg(final == finals[n], "hand schedule %d: final %ld, expected %ld: %.150s",
                      n + 1, final, finals[n], p + 1);
    }
    ck_assert_msg(n == 6, "%d 'schedule:' lines, expected 6: %.400s", n, o.out);
    struct random_line line[8];
    int lines = read_random("--adds 100 --trials 20", line, 8);
    ck_assert_msg(lines == 6, "%d 'random:' lines, expected 6 (1 to 32 threads)", lines);
    ck_assert_msg(line[0].fraction == 0, "1 thread: mean lost fraction %.6f, expected 0",
                  line[0].fraction);
    for (int i = 1; i < 6; i++)
        ck_assert_msg(line[i].fraction > line[i - 1].fraction,
                      "%d threads: mean lost fraction %.6f, not more than %d threads' %.6f",
                      line[i].threads, line[i].fraction, line[i - 1].threads, line[i - 1].fraction);
}
END_TEST

/* ---------------------------------------------------------------- usage -- */

/* Schedules that are not whole: exit 2, and a first line that says why. */
static const struct {
    const char *args, *says;
} bad_schedules[] = {
    {"--threads 2 --schedule 0,2,1", "out of range"},
    {"--threads 2 --schedule 0,1,0,0,1,1,1,1,0,0,0,1,0,1,1,0,0,7", "out of range"},
    {"--adds 1 --schedule 0,0,0,0,1,1", "has finished"},
    {"--schedule 0,0,0,0,0,0,0,1,1", "has finished"},
    {"--adds 1 --schedule 0,1,0,0,1,1,0,0,0", "too long"},
    {"--schedule 0,1,0,0,1", "too short"},
    {"--threads 3 --schedule 0,0,0,1,1,1", "too short"},
    {"--schedule 0,-1", "thread ids"},
    {"--schedule 0,1024", "thread ids"},
    {"--schedule 0,,1", "thread ids"},
    {"--schedule 0,", "thread ids"},
    {"--schedule x", "thread ids"},
};
#define BAD_SCHEDULES ((int)(sizeof bad_schedules / sizeof bad_schedules[0]))

START_TEST(test_bad_schedules_exit_2_with_a_reason)
{
    struct stage_output o;
    run_stage(bad_schedules[_i].args, &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)",
                  bad_schedules[_i].args, exit_meaning(&o));
    size_t first = strcspn(o.err, "\n");
    ck_assert_msg(strncmp(o.err, "lost_updates: ", 14) == 0 &&
                      strstr(o.err, bad_schedules[_i].says) &&
                      strstr(o.err, bad_schedules[_i].says) < o.err + first,
                  "%s: expected a first line 'lost_updates: ...%s...'; stderr: %.300s",
                  bad_schedules[_i].args, bad_schedules[_i].says, o.err);
}
END_TEST

static const char *const bad_usage[] = {
    "--schedule",
    "--threads 0",
    "--threads 1025",
    "--adds 0",
    "--adds 1000001",
    "--trials 0",
    "--schedule 0,0,0 --trials 5",
    "--threads 1024 --adds 2000",
    "--threads 100 --adds 10000 --trials 1000",
    "--size 1M",
    "--data constant",
    "--csv",
    "--print-bins",
};
#define BAD_USAGE ((int)(sizeof bad_usage / sizeof bad_usage[0]))

int main(int argc, char **argv)
{
    set_stage("20_lost_updates", argc, argv);
    set_run_time_limit(3); /* a loop that never ends is reported, not waited for (a run takes ms) */
    Suite *suite = suite_create("exercise 20: increments lost by a plain ++, step by step");
    TCase *hand = exercise_tcase("hand schedules end at known counts", 1);
    tcase_add_loop_test(hand, test_hand_schedules_end_at_known_counts, 0, KNOWN);
    add_tcase(suite, hand, KNOWN);
    TCase *laws = exercise_tcase("random schedules: one thread loses none, in turn none, a round "
                                 "of loads first all but one",
                                 2);
    tcase_add_loop_test(laws, test_random_schedules_keep_the_laws, 0, LAW_RUNS * KINDS);
    add_tcase(suite, laws, LAW_RUNS * KINDS);
    TCase *any = exercise_tcase("random schedules: the final count the check finds", 2);
    tcase_add_loop_test(any, test_random_schedules_end_where_the_check_does, 0, ANY_RUNS);
    add_tcase(suite, any, ANY_RUNS);
    TCase *whose =
        exercise_tcase("whose adds were lost: by hand, summed, and as the check finds", 3);
    tcase_add_loop_test(whose, test_hand_schedules_lose_known_adds, 0, KNOWN);
    tcase_add_loop_test(whose, test_lost_adds_add_up_and_match_the_check, 0,
                        LAW_RUNS * KINDS + ANY_RUNS);
    add_tcase(suite, whose, KNOWN + LAW_RUNS * KINDS + ANY_RUNS);
    TCase *many = exercise_tcase("past 256 threads: the right threads lose their adds", 3);
    tcase_add_loop_test(many, test_past_256_threads_the_right_threads_lose, 0, MANY_RUNS);
    add_tcase(suite, many, MANY_RUNS);
    program_beside_check(run_schedule_program, sizeof run_schedule_program, argv[0],
                         "run_schedule");
    TCase *longer = exercise_tcase("run_schedule on schedules up to the program's limits: a "
                                   "million stores, 1024 threads",
                                   3);
    tcase_add_loop_test(longer, test_long_schedules_lose_the_adds_the_check_finds, 0, LONG_RUNS);
    add_tcase(suite, longer, LONG_RUNS);
    TCase *again = exercise_tcase("run_schedule called again on one buffer: each call runs the "
                                  "steps the buffer holds",
                                  3);
    tcase_add_test(again, test_run_schedule_runs_each_call_on_its_steps);
    add_tcase(suite, again, 1);
    TCase *stamps = exercise_tcase("run_schedule called millions of times: a thread back after "
                                   "2^16 to 2^22 calls",
                                   3);
    tcase_set_timeout(stamps, 60);
    tcase_add_test(stamps, test_a_thread_back_after_millions_of_calls_starts_afresh);
    tcase_add_test(stamps, test_thousands_of_small_calls_each_as_the_check_finds);
    add_tcase(suite, stamps, 2);
    program_beside_check(guarded, sizeof guarded, argv[0], "run_schedule-guarded");
    TCase *guard = exercise_tcase("built with guard pages: nothing written past a block, nothing "
                                  "left allocated",
                                  0);
    tcase_set_timeout(guard, 60);
    tcase_add_test(guard, test_no_block_left_behind_or_written_past);
    add_tcase(suite, guard, 1);
    program_beside_check(sanitized, sizeof sanitized, argv[0], "lost_updates-asan");
    program_beside_check(leak_probe, sizeof leak_probe, argv[0], "leak-probe");
    setenv("ASAN_OPTIONS", "detect_leaks=1", 1);
    TCase *asan = exercise_tcase("under AddressSanitizer: no memory left unfreed", 0);
    tcase_add_loop_test(asan, test_no_memory_left_unfreed_or_out_of_bounds, 0, SANITIZED_RUNS);
    if (access(sanitized, X_OK) == 0 && leaks_reported(leak_probe))
        add_tcase(suite, asan, SANITIZED_RUNS);
    else {
        printf("%s: not run here: this compiler has no -fsanitize=address, or LeakSanitizer "
               "cannot run on this machine (it reports no leak in %s)\n",
               sanitized, leak_probe);
        add_skipped(SANITIZED_RUNS);
    }
    TCase *drawn = exercise_tcase("the program's random schedules: one thread loses none, more "
                                  "threads lose more",
                                  0);
    tcase_add_test(drawn, test_program_schedules_one_thread_loses_none_more_lose_more);
    tcase_add_test(drawn, test_make_run_shows_the_hand_schedules_and_the_sweep);
    tcase_add_test(drawn, test_no_options_run_the_defaults_help_names);
    add_tcase(suite, drawn, 3);
    TCase *refused = exercise_tcase("schedules that are not whole: exit 2 and the reason", 0);
    tcase_add_loop_test(refused, test_bad_schedules_exit_2_with_a_reason, 0, BAD_SCHEDULES);
    add_tcase(suite, refused, BAD_SCHEDULES);
    add_usage_refusals(suite, bad_usage, BAD_USAGE, "--schedule");
    return run_exercise(suite);
}
