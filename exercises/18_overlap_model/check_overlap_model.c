/*
 * check_overlap_model.c - exercise 18 models chapter 06's streams: each
 * chunk's copy in, kernel and copy back, chunk c on stream c % S, each step
 * waiting for its stream and its resource, served in issue order. The check
 * runs the program on made-up durations (--in, --kernel, --out) against ends
 * worked out by hand, then reads every step it prints (--print-steps) against
 * the model's rules held here, then tests laws any right model keeps on
 * made-up cases, then runs it on the H100's recorded timeline of stage 06.
 */
#include "stage_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stage 06's recorded timeline on the H100 (make check runs in the exercise's folder) */
#define TIMELINE "../../plots/results/timeline-06_streams-nvidia-h100-80gb-hbm3.txt"
/* ms: the durations here are multiples of 1/4 (exact in a double), of 0.0001 or of 0.0000001 */
#define EPSILON 1e-6
/* ms: what 6 decimals can be off by, rounded (an end below 0.001 ms is compared within it) */
#define HALF_PRINTED 5.01e-7
#define MAX_STEPS    (3 * MAX_CHUNKS) /* every step of the most chunks */
#define MAX_CHUNKS   4096
/* What the program's options take: --streams, --engines, and each duration in ms. */
#define MAX_STREAMS 64
#define MAX_ENGINES 8
#define MAX_MS      1e9

enum step { COPY_IN, KERNEL, COPY_OUT, STEPS };
static const char *const step_names[STEPS] = {"copy-in", "kernel", "copy-out"};
static const char *const resource_names[STEPS] = {"copies in", "kernels", "copies back"};

static double later(double a, double b)
{
    return a > b ? a : b;
}

static bool near(double a, double b)
{
    return a - b < EPSILON && b - a < EPSILON;
}

/* What the program printed: its end, and with --print-steps each step. */
struct model_run {
    struct stage_output o;
    bool has_end, complete;
    double end;
    int steps;
    int chunk[MAX_STEPS], stream[MAX_STEPS], step[MAX_STEPS];
    double start[MAX_STEPS], finish[MAX_STEPS];
};

static void read_model_line(const char *line, struct model_run *r)
{
    char name[16];
    int s = 0;
    if (sscanf(line, "end: %lf", &r->end) == 1)
        r->has_end = true;
    else if (strncmp(line, "verified:", 9) == 0)
        r->complete = true; /* the last line: nothing was cut */
    else if (r->steps < MAX_STEPS &&
             sscanf(line, "%d %d %15s %lf %lf", &r->chunk[r->steps], &r->stream[r->steps], name,
                    &r->start[r->steps], &r->finish[r->steps]) == 5) {
        while (s < STEPS && strcmp(name, step_names[s]) != 0)
            s++;
        r->step[r->steps++] = s;
    }
}

/* Called once the program has run, before any assertion (a test's files to remove). */
static void (*after_run)(void);

static void run_model(const char *args, struct model_run *r)
{
    memset(r, 0, sizeof *r);
    run_stage(args, &r->o);
    if (r->o.exit_status != 0 && after_run)
        after_run();
    ck_assert_msg(r->o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args,
                  exit_meaning(&r->o), r->o.err);
    for (const char *line = r->o.out; *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line))
        read_model_line(line, r);
    if (!r->complete) { /* more than run_stage keeps (every step of 4096 chunks): read it all */
        r->steps = 0;
        r->has_end = false;
        char command[4096], line[512];
        snprintf(command, sizeof command, "'%s' %s 2>/dev/null", stage_program(), args);
        FILE *p = popen(command, "r");
        ck_assert(p != NULL);
        while (fgets(line, sizeof line, p))
            read_model_line(line, r);
        pclose(p);
    }
    if (after_run)
        after_run();
    ck_assert_msg(r->complete, "%s: no 'verified:' line, its last: the output was cut: %.400s",
                  args, r->o.out);
    /* made-up durations print an end; the recorded timeline (no arguments) a row per way */
    ck_assert_msg(r->has_end || !args[0], "%s: no 'end: ... ms' line: %.400s", args, r->o.out);
}

/* ---------------------------------------------------- known answers -- */

/* Each answer worked out by hand from the README's rules. */
struct known {
    const char *args;
    double end;
    const char *why;
};

static const struct known one_stream[] = {
    {"--chunks 1 --streams 1 --in 2 --kernel 3 --out 1", 6,
     "one chunk: its copy in, kernel and copy back one after another, 2 + 3 + 1"},
    {"--chunks 1 --streams 4 --in 2 --kernel 3 --out 1", 6,
     "one chunk on four streams: still one after another, as one chunk uses one stream"},
    {"--chunks 2 --streams 1 --in 2 --kernel 3 --out 1", 12,
     "two chunks on one stream: the second chunk's copy in waits for the first chunk's copy back, "
     "so nothing overlaps: the sum, 2 x 6"},
    {"--streams 1 --in 1,2,3,4,5 --kernel 0.5 --out 0.25,0,0,0,1", 18.75,
     "five chunks of different steps on one stream: every step in turn, the sum of 15 + 2.5 + "
     "1.25"},
    {"--streams 1 --in 1000000000,999999999.25 --kernel 0.25 --out 0,0.5", 2000000000.25,
     "two chunks of long copies on one stream (the options take durations up to 1e9 ms): every "
     "step in turn, the sum, to the quarter of a millisecond"},
    {"--chunks 4096 --streams 1 --in 1000000000 --kernel 1000000000 --out 1000000000",
     12288000000000.0,
     "the options' limits: 4096 chunks of three 1e9 ms steps on one stream, the sum (12288 "
     "billion ms: exact in a double, past what 64-bit nanoseconds hold)"},
    {"--chunks 2 --streams 1 --in 0.0004 --kernel 0.0002 --out 0", 0.0012,
     "two chunks of steps under a microsecond on one stream: the sum, 2 x (0.0004 + 0.0002); "
     "a clock of whole microseconds rounds every step to 0"},
    {"--chunks 4096 --streams 1 --in 0.0000004 --kernel 0.0000004 --out 0.0000004", 0.0049152,
     "the most chunks, of steps under a nanosecond (0.0000004 ms), on one stream: the sum, "
     "4096 x 3 x 0.0000004; a clock of whole nanoseconds rounds every step to 0"},
    {"--chunks 4096 --streams 1 --in 0.0000000009 --kernel 0 --out 0.0000000009", 0.0000073728,
     "the most chunks, of copies under a picosecond (0.0000000009 ms), on one stream: the sum, "
     "4096 x 2 x 0.0000000009; a model that takes times less than a picosecond apart as equal "
     "starts steps before their stream is free"},
};
#define ONE_STREAM ((int)(sizeof one_stream / sizeof one_stream[0]))

static const struct known several_streams[] = {
    {"--chunks 4 --streams 4 --in 4 --kernel 1 --out 1", 18,
     "copies in dominate: they follow each other with no gap (4 x 4 = 16), each kernel and copy "
     "back hides behind the next copy in, and the last chunk's kernel and copy back come after "
     "(16 + 1 + 1)"},
    {"--chunks 4 --streams 4 --in 1 --kernel 4 --out 1", 18,
     "kernels dominate: the first copy in (1), then the four kernels one after another (16), "
     "each starting when the one before it ends, and the last copy back (1)"},
    {"--chunks 4 --streams 4 --in 1 --kernel 1 --out 3", 14,
     "copies back dominate: the first chunk's copy in and kernel (2), then four copies back of "
     "3 one after another (12)"},
    {"--chunks 4 --streams 2 --in 2 --kernel 1 --out 0.5", 9.5,
     "four chunks on two streams, chunk c on stream c % 2: copies in at 0, 2, 4 and 6 (chunk 2's "
     "stream is free at 3.5, chunk 3's at 5.5), then the last chunk's kernel and copy back, "
     "8 + 1 + 0.5"},
    {"--chunks 5 --streams 2 --in 1 --kernel 3 --out 0.5", 16.5,
     "five chunks on two streams, the kernels dominate: the first copy in (1), five kernels one "
     "after another (15), the last copy back (0.5); each later chunk's copy in waits for its "
     "stream, but ends before the SMs are free"},
    {"--chunks 3 --streams 8 --in 2 --kernel 1 --out 1", 8,
     "more streams than chunks: three chunks use three streams; copies in at 0, 2 and 4, the "
     "last kernel 6 to 7, its copy back 7 to 8"},
    {"--chunks 3 --streams 2 --in 0 --kernel 0 --out 0", 0,
     "every step takes no time: everything ends at 0"},
    {"--chunks 3 --streams 3 --in 2 --kernel 0 --out 0", 6,
     "kernels and copies back of no time: the copies in alone, one after another"},
    {"--streams 2 --in 2,0,2 --kernel 1 --out 0", 6,
     "a copy in of no time: chunk 1's kernel waits for chunk 0's (the SMs, until 3); chunk 2's "
     "copy in waits for its stream, free when chunk 0's copy back ends at 3, and ends at 5; its "
     "kernel 5 to 6"},
    {"--chunks 4 --streams 4 --engines 2 --in 4 --kernel 1 --out 1", 11,
     "two copies at a time each way: chunks 0 and 1 copy in together (0 to 4), then 2 and 3 "
     "(4 to 8); their kernels one at a time, 8 to 9 and 9 to 10; the last copy back 10 to 11"},
    {"--chunks 4 --streams 4 --engines 2 --in 3,1,1,1 --kernel 0 --out 0", 3,
     "two copies at a time, of different lengths: chunk 0's copy in holds one engine 0 to 3, "
     "and chunks 1, 2 and 3 each take the engine that is free first, the other one: 0 to 1, "
     "1 to 2, 2 to 3"},
    {"--chunks 8 --streams 8 --engines 8 --in 4 --kernel 1 --out 4", 16,
     "eight copies at a time each way, the most --engines takes: the eight copies in together "
     "(0 to 4); the kernels one at a time, 4 to 12; each copy back on an engine of its own as "
     "soon as its kernel ends, the last 12 to 16"},
    {"--chunks 4096 --streams 6 --engines 2 --in \"$(yes 0.0000000009,0 | head -n 2048 | paste "
     "-sd, -)\" --kernel 0 --out \"$(yes 0,0.0000000009 | head -n 2048 | paste -sd, -)\"",
     0.0000009225,
     "the most chunks, of copies under a picosecond, two engines each way: even chunks copy in "
     "0.0000000009 ms, odd chunks copy back as long; each copy takes the engine free first, so "
     "the 2048 copies each way run two at a time (1024 x 0.0000000009) and the last copy back "
     "ends one copy later; a model that takes engines free less than a picosecond apart as free "
     "together puts copies on a busy engine, and ends about twice as late"},
};
#define SEVERAL_STREAMS ((int)(sizeof several_streams / sizeof several_streams[0]))

static void check_known(const struct known *k)
{
    struct model_run r;
    run_model(k->args, &r);
    /* an end under a microsecond is compared to the printed 6 decimals: half of their last */
    double within = k->end < 0.001 ? HALF_PRINTED : EPSILON;
    ck_assert_msg(r.end - k->end < within && k->end - r.end < within,
                  "%s: your model ends at %.6f ms, expected %.17g ms: %s", k->args, r.end, k->end,
                  k->why);
}

START_TEST(test_one_chunk_or_one_stream_is_every_step_in_turn)
{
    check_known(&one_stream[_i]);
}
END_TEST

START_TEST(test_chunks_on_several_streams_overlap)
{
    check_known(&several_streams[_i]);
}
END_TEST

/* ------------------------------------------------------- made-up cases -- */

/* The most chunks in a made-up case: the lines of its 144 steps fit in the output read. */
#define MADE_UP_CHUNKS 48

struct made_up {
    int chunks, streams, engines;
    double ms[MADE_UP_CHUNKS][STEPS];
    char durations[2048]; /* as the program takes them: --in ... --kernel ... --out ... */
};

/* What a made-up case draws: chunks and streams from a range, 1 to engines
 * copies at once, and its durations in quarters of a millisecond: 0 to 4 ms,
 * or, when long, 0 to the 1e9 ms the options take (still exact in a double,
 * past 2^24 and 2^32 whole milliseconds). */
struct shape {
    int fewest_chunks, most_chunks, fewest_streams, most_streams, engines;
    bool long_durations;
};

/* A number from 0 to n - 1, from a 64-bit linear congruential generator. */
static unsigned int next_random(unsigned long long *state, unsigned int n)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned int)(*state >> 33) % n;
}

/* Case number seed, of that shape; about one step in five takes no time. */
static void make_case(unsigned int seed, const struct shape *shape, struct made_up *m)
{
    unsigned long long state = 0x9e3779b97f4a7c15ull * (seed + 1);
    m->chunks = shape->fewest_chunks +
                (int)next_random(&state, (unsigned)(shape->most_chunks - shape->fewest_chunks + 1));
    m->streams =
        shape->fewest_streams +
        (int)next_random(&state, (unsigned)(shape->most_streams - shape->fewest_streams + 1));
    m->engines = 1 + (int)next_random(&state, (unsigned int)shape->engines);
    unsigned int quarters = shape->long_durations ? (unsigned int)(4 * MAX_MS) + 1 : 17;
    int at = 0;
    for (int step = 0; step < STEPS; step++) {
        at += snprintf(m->durations + at, sizeof m->durations - (size_t)at, "%s--%s ",
                       step ? " " : "",
                       step == COPY_IN  ? "in"
                       : step == KERNEL ? "kernel"
                                        : "out");
        for (int c = 0; c < m->chunks; c++) {
            m->ms[c][step] = next_random(&state, 5) == 0 ? 0 : next_random(&state, quarters) / 4.0;
            at += snprintf(m->durations + at, sizeof m->durations - (size_t)at, "%s%.17g",
                           c ? "," : "", m->ms[c][step]);
        }
    }
}

/* ------------------------------------------------- every step, by the rules -- */

/* Reads every step printed for durations ms against the model's rules, in
 * issue order: a step starts when the step before it on its stream has
 * ended and its resource has an engine free (the one free first), and lasts
 * its duration. */
static void check_every_step(const char *args, int chunks, int streams, int engines,
                             const double ms[][STEPS])
{
    char with_steps[2200];
    snprintf(with_steps, sizeof with_steps, "%s --print-steps", args);
    struct model_run r;
    run_model(with_steps, &r);
    ck_assert_msg(r.steps == chunks * STEPS,
                  "%s: printed %d steps, expected %d (%d chunks of 3); stdout: %.300s", with_steps,
                  r.steps, chunks * STEPS, chunks, r.o.out);
    double stream_free[MAX_STREAMS] = {0}, engine_free[STEPS][MAX_ENGINES] = {{0}}, last = 0;
    int stream_last[MAX_STREAMS];
    for (int s = 0; s < MAX_STREAMS; s++)
        stream_last[s] = -1;
    for (int i = 0; i < r.steps; i++) {
        int c = i / STEPS, step = i % STEPS, stream = c % streams;
        ck_assert_msg(r.chunk[i] == c && r.step[i] == step,
                      "%s: line %d of the steps is not chunk %d's %s", with_steps, i + 1, c,
                      step_names[step]);
        int at_once = step == KERNEL ? 1 : engines, first_free = 0;
        for (int e = 1; e < at_once; e++)
            if (engine_free[step][e] < engine_free[step][first_free])
                first_free = e;
        double ready = stream_free[stream], resource_free = engine_free[step][first_free];
        double start = r.start[i], end = r.finish[i];
        char before[96] = "nothing before it";
        int p = stream_last[stream];
        if (p >= 0)
            snprintf(before, sizeof before, "chunk %d's %s", p / STEPS, step_names[p % STEPS]);
        ck_assert_msg(start - ready > -EPSILON,
                      "%s: chunk %d's %s starts at %.6f, before the step before it on stream %d "
                      "(%s) ends at %.6f: a stream runs its steps one at a time, in order",
                      with_steps, c, step_names[step], start, stream, before, ready);
        ck_assert_msg(start - resource_free > -EPSILON,
                      "%s: chunk %d's %s starts at %.6f, while the %s are busy until %.6f (%d at "
                      "a time, taken in issue order)",
                      with_steps, c, step_names[step], start, resource_names[step], resource_free,
                      at_once);
        ck_assert_msg(near(start, later(ready, resource_free)),
                      "%s: chunk %d's %s starts at %.6f, later than it must: its stream (chunk c "
                      "on stream c %% %d) is free at %.6f, and the %s at %.6f",
                      with_steps, c, step_names[step], start, streams, ready, resource_names[step],
                      resource_free);
        ck_assert_msg(near(end, start + ms[c][step]),
                      "%s: chunk %d's %s starts at %.6f and ends at %.6f, expected %.6f: it "
                      "lasts its %g ms",
                      with_steps, c, step_names[step], start, end, start + ms[c][step],
                      ms[c][step]);
        stream_free[stream] = end;
        stream_last[stream] = i;
        engine_free[step][first_free] = end;
        last = later(last, end);
    }
    ck_assert_msg(near(r.end, last), "%s: 'end: %.6f ms', but the last step printed ends at %.6f",
                  with_steps, r.end, last);
}

/* The hand-made cases of the first two groups, with their durations. */
struct hand_made {
    const char *args;
    int chunks, streams, engines;
    double ms[8][STEPS];
};
static const struct hand_made hand_made[] = {
    {"--streams 1 --in 1,2,3,4,5 --kernel 0.5 --out 0.25,0,0,0,1",
     5,
     1,
     1,
     {{1, 0.5, 0.25}, {2, 0.5, 0}, {3, 0.5, 0}, {4, 0.5, 0}, {5, 0.5, 1}}},
    {"--chunks 4 --streams 2 --in 2 --kernel 1 --out 0.5",
     4,
     2,
     1,
     {{2, 1, 0.5}, {2, 1, 0.5}, {2, 1, 0.5}, {2, 1, 0.5}}},
    {"--chunks 5 --streams 2 --in 1 --kernel 3 --out 0.5",
     5,
     2,
     1,
     {{1, 3, 0.5}, {1, 3, 0.5}, {1, 3, 0.5}, {1, 3, 0.5}, {1, 3, 0.5}}},
    {"--streams 2 --in 2,0,2 --kernel 1 --out 0", 3, 2, 1, {{2, 1, 0}, {0, 1, 0}, {2, 1, 0}}},
    {"--chunks 4 --streams 4 --engines 2 --in 3,1,1,1 --kernel 0 --out 0",
     4,
     4,
     2,
     {{3, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 0, 0}}},
    {"--chunks 8 --streams 8 --engines 8 --in 4 --kernel 1 --out 4",
     8,
     8,
     8,
     {{4, 1, 4}, {4, 1, 4}, {4, 1, 4}, {4, 1, 4}, {4, 1, 4}, {4, 1, 4}, {4, 1, 4}, {4, 1, 4}}},
    /* Engines free past 2^24 ms, less than a float's step apart (1 past 2^24, 8 past 2^26):
     * chunk 2's copy in takes engine 1, free first, though a float holds the two as one. */
    {"--streams 3 --engines 2 --in 16777216.5,16777216,1 --kernel 0 --out 0",
     3,
     3,
     2,
     {{16777216.5, 0, 0}, {16777216, 0, 0}, {1, 0, 0}}},
    {"--streams 3 --engines 2 --in 100000003,100000000,2 --kernel 0.25 --out 0.5",
     3,
     3,
     2,
     {{100000003, 0.25, 0.5}, {100000000, 0.25, 0.5}, {2, 0.25, 0.5}}},
};
#define HAND_MADE ((int)(sizeof hand_made / sizeof hand_made[0]))

/* The made-up cases of the rules: small ones on any number of engines the
 * options take; long durations, where a time kept with too few digits drifts
 * from the step before it; and cases at the options' limits, up to 64 streams
 * and 8 engines, where a table sized for fewer overflows. */
#define SMALL_CASES 16
#define LONG_CASES  6
#define LIMIT_CASES 4
static const struct {
    int cases;
    struct shape shape;
} rule_shapes[] = {
    {SMALL_CASES, {2, 24, 1, 6, MAX_ENGINES, false}},
    {LONG_CASES, {2, 24, 1, 6, MAX_ENGINES, true}},
    {LIMIT_CASES, {40, MADE_UP_CHUNKS, 33, MAX_STREAMS, MAX_ENGINES, false}},
};
#define RULE_CASES (SMALL_CASES + LONG_CASES + LIMIT_CASES)

START_TEST(test_every_step_waits_for_its_stream_and_its_resource_and_no_longer)
{
    if (_i < HAND_MADE) {
        const struct hand_made *h = &hand_made[_i];
        check_every_step(h->args, h->chunks, h->streams, h->engines, h->ms);
        return;
    }
    int i = _i - HAND_MADE, shape = 0;
    while (i >= rule_shapes[shape].cases)
        i -= rule_shapes[shape++].cases;
    struct made_up m;
    make_case(1800 + 100 * (unsigned int)shape + (unsigned int)i, &rule_shapes[shape].shape, &m);
    char args[2200];
    snprintf(args, sizeof args, "--streams %d --engines %d %s", m.streams, m.engines, m.durations);
    check_every_step(args, m.chunks, m.streams, m.engines, m.ms);
}
END_TEST

/* ------------------------------------------------------------- the laws -- */

#define LAW_CASES 40

/* On one copy engine each way: the end with one stream is the sum (nothing
 * overlaps); with more it is no later, no later than the sum, and no earlier
 * than the busiest resource's total or the longest chunk's three steps. */
START_TEST(test_the_laws_of_overlap_hold)
{
    static const struct shape one_engine = {2, 24, 1, 6, 1, false};
    struct made_up m;
    make_case(4200 + (unsigned int)_i, &one_engine, &m);
    if (m.streams == 1) /* compared with one stream below */
        m.streams = 4;
    char args[2200], one[2200];
    snprintf(args, sizeof args, "--streams %d %s", m.streams, m.durations);
    snprintf(one, sizeof one, "--streams 1 %s", m.durations);
    double total[STEPS] = {0}, sum = 0, longest_chunk = 0;
    int busiest = COPY_IN;
    for (int c = 0; c < m.chunks; c++) {
        double chunk = 0;
        for (int step = 0; step < STEPS; step++) {
            total[step] += m.ms[c][step];
            chunk += m.ms[c][step];
        }
        sum += chunk;
        longest_chunk = later(longest_chunk, chunk);
    }
    for (int step = 0; step < STEPS; step++)
        if (total[step] > total[busiest])
            busiest = step;
    struct model_run r, serial;
    run_model(one, &serial);
    ck_assert_msg(near(serial.end, sum),
                  "%s: one stream ends at %.6f ms, expected the sum of every step, %.6f: on one "
                  "stream nothing overlaps",
                  one, serial.end, sum);
    run_model(args, &r);
    ck_assert_msg(r.end < serial.end + EPSILON,
                  "%s: %d streams end at %.6f ms, later than one stream (%.6f): more streams may "
                  "only let more overlap",
                  args, m.streams, r.end, serial.end);
    ck_assert_msg(r.end > total[busiest] - EPSILON,
                  "%s: ends at %.6f ms, before the busiest resource (the %s) can have done its "
                  "%.6f ms of steps, one at a time",
                  args, r.end, resource_names[busiest], total[busiest]);
    ck_assert_msg(r.end > longest_chunk - EPSILON,
                  "%s: ends at %.6f ms, before the longest chunk's three steps, one after "
                  "another, can have run (%.6f ms)",
                  args, r.end, longest_chunk);
}
END_TEST

/* The printed bound of perfect overlap is no later than any schedule's end:
 * the busiest resource's total over its engines, but never less than its
 * longest single step (one step runs on one engine). With two copy engines
 * and a 10 ms copy among 1 ms ones, the bound and the end are 10 ms. */
START_TEST(test_perfect_overlap_is_no_less_than_the_longest_step)
{
    const char *args = "--in 10,1,1 --engines 2 --streams 3";
    struct model_run r;
    run_model(args, &r);
    const char *line = strstr(r.o.out, "perfect overlap ");
    double perfect = -1;
    ck_assert_msg(line && sscanf(line, "perfect overlap %lf", &perfect) == 1,
                  "%s: no 'perfect overlap T ms' in the bounds line: %.400s", args, r.o.out);
    ck_assert_msg(near(perfect, 10.0) && perfect < r.end + EPSILON,
                  "%s: perfect overlap %.6f ms, expected 10 ms (the model ends at %.6f): the "
                  "bound is the busiest resource's total over its engines, but no less than its "
                  "longest single step, which one engine runs alone",
                  args, perfect, r.end);
}
END_TEST

/* --------------------------------------------------- the recorded timeline -- */

/* The last event of one way in the recorded timeline: what the GPU measured. */
static double measured_end(const char *way)
{
    FILE *file = fopen(TIMELINE, "r");
    ck_assert_msg(file != NULL, "cannot open %s: the recorded timeline of stage 06", TIMELINE);
    char line[512], name[32];
    double begin, end, last = -1;
    while (fgets(line, sizeof line, file))
        if (line[0] != '#' && sscanf(line, "%31s %*s %*d %*s %lf %lf", name, &begin, &end) == 3 &&
            strcmp(name, way) == 0)
            last = later(last, end);
    fclose(file);
    ck_assert_msg(last > 0, "%s holds no steps of %s", TIMELINE, way);
    return last;
}

/* The ways whose steps are all on the GPU: the model holds all they do. */
static const struct recorded {
    const char *way;
    int chunks, streams;
} recorded[] = {{"pinned", 1, 1}, {"streams", 16, 4}};
#define TOLERANCE 0.02 /* of the measured end */

START_TEST(test_the_recorded_h100_timeline_is_predicted)
{
    const struct recorded *w = &recorded[_i];
    double measured = measured_end(w->way);
    struct model_run r;
    run_model("", &r);
    const char *row = strstr(r.o.out, "\n");
    char name[32];
    int chunks = 0, streams = 0;
    double model = -1;
    for (; row; row = strchr(row + 1, '\n'))
        if (sscanf(row + 1, "%31s %d %d %lf", name, &chunks, &streams, &model) == 4 &&
            strcmp(name, w->way) == 0)
            break;
    ck_assert_msg(row != NULL, "(no arguments: the recorded timeline): no row for %s: %.600s",
                  w->way, r.o.out);
    ck_assert_msg(chunks == w->chunks && streams == w->streams,
                  "(the recorded timeline): %s has %d chunks on %d streams, expected %d on %d",
                  w->way, chunks, streams, w->chunks, w->streams);
    ck_assert_msg(model > measured * (1 - TOLERANCE) && model < measured * (1 + TOLERANCE),
                  "(the recorded timeline, %s): your model ends at %.3f ms; the H100's last "
                  "event of %s is at %.3f ms (%s); expected within %.0f%% of it",
                  w->way, model, w->way, measured, TIMELINE, TOLERANCE * 100);
}
END_TEST

/* ---------------------------------------- every step, at the options' limits -- */

/* Every step of cases at the options' limits together, read against the
 * check's model: 4096 chunks on up to 64 streams and 8 engines, durations of
 * every magnitude the options take in one run (0, under a nanosecond, quarters
 * of a millisecond up to 1e9 ms), so that per-chunk bookkeeping right only for
 * the first few hundred chunks, or engines told apart only in some digits,
 * shows. The lists go to the program through files (--in "$(cat FILE)"). */
static const struct limit_case {
    int chunks, streams, engines;
    unsigned int seed;
    bool mixed; /* magnitudes from 9e-10 to 1e9 ms; else quarters of 0 to 4 ms */
} limit_cases[] = {{4096, 63, 8, 1, true}, {4096, 64, 3, 2, false}, {4096, 2, 1, 3, true},
                   {4096, 5, 2, 4, false}, {64, 5, 3, 5, true},     {3000, 33, 7, 6, true}};
#define LIMIT_RUNS ((int)(sizeof limit_cases / sizeof limit_cases[0]))

static double limit_ms[MAX_CHUNKS][STEPS];
static char limit_paths[STEPS][32]; /* the lists' files */

static void remove_limit_files(void)
{
    for (int step = 0; step < STEPS; step++)
        if (limit_paths[step][0])
            unlink(limit_paths[step]);
    limit_paths[0][0] = limit_paths[1][0] = limit_paths[2][0] = '\0';
}

START_TEST(test_every_step_at_the_options_limits)
{
    const struct limit_case *l = &limit_cases[_i];
    unsigned long long state = 0x2545f4914f6cdd1dull * (l->seed + 1);
    char(*paths)[32] = limit_paths, args[512];
    after_run = remove_limit_files; /* as soon as the program has read them */
    int at = snprintf(args, sizeof args, "--streams %d --engines %d", l->streams, l->engines);
    for (int step = 0; step < STEPS; step++) {
        snprintf(paths[step], sizeof paths[step], "/tmp/overlap_model_XXXXXX");
        int fd = mkstemp(paths[step]);
        ck_assert_msg(fd >= 0, "cannot make a file in /tmp");
        FILE *file = fdopen(fd, "w");
        ck_assert(file != NULL);
        for (int c = 0; c < l->chunks; c++) {
            unsigned int kind = next_random(&state, 5);
            double ms = kind == 0               ? 0
                        : l->mixed && kind == 1 ? next_random(&state, 9) * 0.0000000001 + 9e-10
                        : l->mixed ? next_random(&state, (unsigned int)(4 * MAX_MS) + 1) / 4.0
                                   : next_random(&state, 17) / 4.0;
            limit_ms[c][step] = ms;
            fprintf(file, "%s%.17g", c ? "," : "", ms);
        }
        ck_assert(fclose(file) == 0);
        at += snprintf(args + at, sizeof args - (size_t)at, " --%s \"$(cat %s)\"",
                       step == COPY_IN  ? "in"
                       : step == KERNEL ? "kernel"
                                        : "out",
                       paths[step]);
    }
    check_every_step(args, l->chunks, l->streams, l->engines, (const double(*)[STEPS])limit_ms);
}
END_TEST

/* ------------------------------------- the recorded timeline, more engines -- */

/* The recorded timeline's ways through the check's own model with 2 and 3
 * copy engines each way (the H100 reports 3): each way's durations taken as
 * the program's README says (from the later of a step's event and the end of
 * the step before it on its resource, to its end), and the model's end
 * compared to the 3 decimals the row prints. */
#define MAX_WAYS 8
static struct timeline_way {
    char name[32];
    int count, streams;
    double begin[MAX_CHUNKS][STEPS], end[MAX_CHUNKS][STEPS];
} ways[MAX_WAYS];
static int way_count;

static void read_recorded_ways(void)
{
    FILE *file = fopen(TIMELINE, "r");
    ck_assert_msg(file != NULL, "cannot open %s: the recorded timeline of stage 06", TIMELINE);
    char line[512], name[32], stream[16], what[16];
    int chunk, step;
    double begin, end;
    way_count = 0;
    while (fgets(line, sizeof line, file)) {
        if (line[0] == '#' || sscanf(line, "%31s %15s %d %15s %lf %lf", name, stream, &chunk, what,
                                     &begin, &end) != 6)
            continue;
        for (step = 0; step < STEPS && strcmp(what, step_names[step]) != 0; step++)
            ;
        ck_assert_msg(step < STEPS && chunk >= 0 && chunk < MAX_CHUNKS, "%s: a bad line: %s",
                      TIMELINE, line);
        int w = 0, on = strcmp(stream, "default") == 0 ? 0 : atoi(stream);
        while (w < way_count && strcmp(ways[w].name, name) != 0)
            w++;
        ck_assert_msg(w < MAX_WAYS, "%s: more ways than the check reads", TIMELINE);
        if (w == way_count) {
            memset(&ways[w], 0, sizeof ways[w]);
            snprintf(ways[w].name, sizeof ways[w].name, "%s", name);
            way_count++;
        }
        ways[w].count = chunk + 1 > ways[w].count ? chunk + 1 : ways[w].count;
        ways[w].streams = on + 1 > ways[w].streams ? on + 1 : ways[w].streams;
        ways[w].begin[chunk][step] = begin;
        ways[w].end[chunk][step] = end;
    }
    fclose(file);
}

/* The check's model: the end of the chunks' steps of ms on streams and engines. */
static double model_end(const double ms[][STEPS], int chunks, int streams, int engines)
{
    double stream_free[MAX_STREAMS] = {0}, engine_free[STEPS][MAX_ENGINES] = {{0}}, last = 0;
    for (int c = 0; c < chunks; c++)
        for (int step = 0; step < STEPS; step++) {
            int at_once = step == KERNEL ? 1 : engines, first_free = 0;
            for (int e = 1; e < at_once; e++)
                if (engine_free[step][e] < engine_free[step][first_free])
                    first_free = e;
            double end =
                later(stream_free[c % streams], engine_free[step][first_free]) + ms[c][step];
            stream_free[c % streams] = engine_free[step][first_free] = end;
            last = later(last, end);
        }
    return last;
}

START_TEST(test_the_recorded_timeline_with_more_engines)
{
    int engines = 2 + _i;
    read_recorded_ways();
    char args[32];
    snprintf(args, sizeof args, "--engines %d", engines);
    struct model_run r;
    run_stage(args, &r.o);
    ck_assert_msg(r.o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args,
                  exit_meaning(&r.o), r.o.err);
    for (int w = 0; w < way_count; w++) {
        const struct timeline_way *way = &ways[w];
        double resource_free[STEPS] = {0};
        for (int c = 0; c < way->count; c++)
            for (int step = 0; step < STEPS; step++) {
                double from = later(way->begin[c][step], resource_free[step]);
                limit_ms[c][step] = way->end[c][step] - from;
                resource_free[step] = later(resource_free[step], way->end[c][step]);
            }
        double want =
            model_end((const double(*)[STEPS])limit_ms, way->count, way->streams, engines);
        const char *row = r.o.out;
        char name[32];
        int chunks = 0, streams = 0;
        double model = -1;
        for (; row; row = strchr(row + 1, '\n'))
            if (sscanf(row + (row != r.o.out), "%31s %d %d %lf", name, &chunks, &streams, &model) ==
                    4 &&
                strcmp(name, way->name) == 0)
                break;
        ck_assert_msg(row != NULL, "%s (the recorded timeline): no row for %s: %.600s", args,
                      way->name, r.o.out);
        ck_assert_msg(model - want < 0.00051 && want - model < 0.00051,
                      "%s (the recorded timeline, %s: %d chunks on %d streams): your model ends "
                      "at %.3f ms, expected %.3f ms (the model's rules with %d copies at a time "
                      "each way, on the durations measured)",
                      args, way->name, way->count, way->streams, model, want, engines);
    }
}
END_TEST

/* ------------------------------------------------------------- the defaults -- */

/* Without --streams, --engines, --kernel or --out: 4 streams, 1 copy at a time
 * each way, kernels and copies back of 0 ms; without --chunks, as many chunks
 * as the longest list. Every step read against the model with those. */
static const struct {
    const char *args;
    int chunks, streams, engines;
    double ms[8][STEPS];
} defaults[] = {
    {"--in 1,2,3,4,5,6,7,8 --kernel 1.5",
     8,
     4,
     1,
     {{1, 1.5, 0},
      {2, 1.5, 0},
      {3, 1.5, 0},
      {4, 1.5, 0},
      {5, 1.5, 0},
      {6, 1.5, 0},
      {7, 1.5, 0},
      {8, 1.5, 0}}},
    {"--chunks 6 --out 2 --in 0.5",
     6,
     4,
     1,
     {{0.5, 0, 2}, {0.5, 0, 2}, {0.5, 0, 2}, {0.5, 0, 2}, {0.5, 0, 2}, {0.5, 0, 2}}},
    {"--kernel 3,1,2 --streams 2", 3, 2, 1, {{0, 3, 0}, {0, 1, 0}, {0, 2, 0}}},
    {"--in 2", 1, 4, 1, {{2, 0, 0}}},
};
#define DEFAULTS ((int)(sizeof defaults / sizeof defaults[0]))

START_TEST(test_the_defaults)
{
    check_every_step(defaults[_i].args, defaults[_i].chunks, defaults[_i].streams,
                     defaults[_i].engines, defaults[_i].ms);
    struct model_run r;
    run_model(defaults[_i].args, &r);
    char want[160];
    snprintf(want, sizeof want, "chunks:     %d on %d streams (chunk c on stream c %% %d)\n",
             defaults[_i].chunks, defaults[_i].streams, defaults[_i].streams);
    ck_assert_msg(strstr(r.o.out, want) &&
                      strstr(r.o.out, "model:      copies: 1 at a time each way; kernels: 1 at "
                                      "a time\n"),
                  "%s: expected the lines '%.*s' and 'model:      copies: 1 at a time each way; "
                  "kernels: 1 at a time' (the defaults), got:\n%.500s",
                  defaults[_i].args, (int)strlen(want) - 1, want, r.o.out);
}
END_TEST

/* Each refusal says why in a first line that names the option refused. */
static const struct {
    const char *args, *option;
} named_refusals[] = {{"--streams 0", "--streams"},
                      {"--engines 9", "--engines"},
                      {"--chunks 4097", "--chunks"},
                      {"--in -1", "--in"},
                      {"--kernel x", "--kernel"},
                      {"--out 1,", "--out"},
                      {"--out 2e9", "--out"},
                      {"--chunks 3 --in 1,2", "--in"},
                      {"--in 1,2 --kernel 1,2,3", "--in"},
                      {"--timeline /no/such/timeline.txt", "--timeline"},
                      {"--timeline " TIMELINE " --in 1", "--timeline"},
                      {"--csv", "--csv"},
                      {"--threads 2", "--threads"},
                      {"--reps 3", "--reps"}};
#define NAMED_REFUSALS ((int)(sizeof named_refusals / sizeof named_refusals[0]))

START_TEST(test_a_refusal_names_its_option)
{
    struct stage_output o;
    run_stage(named_refusals[_i].args, &o);
    size_t first = strcspn(o.err, "\n");
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(first < 500 ? first : 500), o.err);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(line, named_refusals[_i].option),
                  "%s: %s, expected exit 2 (bad usage) and a first line of stderr that names "
                  "%s; it was: '%s'",
                  named_refusals[_i].args, exit_meaning(&o), named_refusals[_i].option, line);
}
END_TEST

/* ---------------------------------------------------------------- usage -- */

static const char *const bad_usage[] = {
    "--streams 0",
    "--streams 65",
    "--engines 0",
    "--engines 9",
    "--chunks 0",
    "--chunks 4097",
    "--in -1",
    "--in 1,x",
    "--in nan",
    "--in 1,",
    "--chunks 3 --in 1,2",
    "--chunks 2 --in 1,2,3",
    "--in 1,2 --kernel 1,2,3",
    "--timeline /no/such/timeline.txt",
    "--timeline " TIMELINE " --in 1",
    "--size 1M",
    "--threads 2",
    "--csv",
    "--print-bins",
};
#define BAD_USAGE ((int)(sizeof bad_usage / sizeof bad_usage[0]))

int main(int argc, char **argv)
{
    set_stage("18_overlap_model", argc, argv);
    set_run_time_limit(20); /* a loop that never ends is reported, not waited for */
    Suite *suite = suite_create("exercise 18: a model of chunks on streams");
    TCase *one = exercise_tcase("one chunk, or one stream: every step in turn", 1);
    tcase_add_loop_test(one, test_one_chunk_or_one_stream_is_every_step_in_turn, 0, ONE_STREAM);
    add_tcase(suite, one, ONE_STREAM);
    TCase *several = exercise_tcase("chunks on several streams overlap", 2);
    tcase_add_loop_test(several, test_chunks_on_several_streams_overlap, 0, SEVERAL_STREAMS);
    add_tcase(suite, several, SEVERAL_STREAMS);
    TCase *rules =
        exercise_tcase("every step waits for its stream and its resource, and no longer", 2);
    tcase_add_loop_test(rules, test_every_step_waits_for_its_stream_and_its_resource_and_no_longer,
                        0, HAND_MADE + RULE_CASES);
    add_tcase(suite, rules, HAND_MADE + RULE_CASES);
    TCase *laws = exercise_tcase("the laws of overlap, on made-up cases", 3);
    tcase_add_loop_test(laws, test_the_laws_of_overlap_hold, 0, LAW_CASES);
    tcase_add_test(laws, test_perfect_overlap_is_no_less_than_the_longest_step);
    add_tcase(suite, laws, LAW_CASES + 1);
    TCase *h100 = exercise_tcase("the H100's recorded timeline of stage 06, within 2%", 3);
    tcase_add_loop_test(h100, test_the_recorded_h100_timeline_is_predicted, 0, 2);
    add_tcase(suite, h100, 2);
    TCase *limits = exercise_tcase("every step at the options' limits: 4096 chunks, 64 streams, "
                                   "8 engines, 1e-9 to 1e9 ms",
                                   2);
    tcase_set_timeout(limits, 120);
    tcase_add_loop_test(limits, test_every_step_at_the_options_limits, 0, LIMIT_RUNS);
    add_tcase(suite, limits, LIMIT_RUNS);
    TCase *engines = exercise_tcase("the recorded timeline with 2 and 3 copy engines", 3);
    tcase_add_loop_test(engines, test_the_recorded_timeline_with_more_engines, 0, 2);
    add_tcase(suite, engines, 2);
    TCase *defaults_tc = exercise_tcase("the defaults: 4 streams, 1 engine, steps of 0 ms", 0);
    tcase_add_loop_test(defaults_tc, test_the_defaults, 0, DEFAULTS);
    add_tcase(suite, defaults_tc, DEFAULTS);
    add_usage_refusals(suite, bad_usage, BAD_USAGE, "--streams");
    TCase *named = exercise_tcase("a refusal names its option", 0);
    tcase_add_loop_test(named, test_a_refusal_names_its_option, 0, NAMED_REFUSALS);
    add_tcase(suite, named, NAMED_REFUSALS);
    return run_exercise(suite);
}
