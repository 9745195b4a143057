/*
 * Exercise 20 - chapter 02's lost increments, on the CPU: threads add 1 to
 * one shared counter with a plain ++, which is three steps (load, add 1,
 * store), and a schedule says which thread takes its next step when. Write
 * run_schedule; the rest reads a schedule, or draws random ones, and prints
 * the final count and how many increments were lost. The reference solution.
 *
 *   make run                                  hand schedules, then random ones for 1 to 32 threads
 *   make run ARGS='--schedule 0,1,0,0,1,1'    one schedule: thread 0 loads, then thread 1, ...
 *   make run ARGS='--threads 4 --adds 100 --trials 1000 --seed 7'
 *   make check
 */
#include "book.h"    /* fail, the exit codes */
#include "harness.h" /* options, usage errors and checked_malloc: no need to read it */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STEPS_AN_ADD  3       /* load the counter into a register, add 1, store it back */
#define MAX_THREADS   1024    /* the most threads a CUDA block holds */
#define MAX_STEPS     30000   /* the longest --schedule: about what a command line holds */
#define MAX_ADDS      1000000 /* adds a thread, for random schedules */
#define MAX_PER_TRIAL 1048576 /* threads x adds, for random schedules */
#define MAX_IN_ALL    1e8     /* threads x adds x trials */

/* ------------------------------------------------------------ your part -- */

/* Runs one schedule (the README's task). `threads` threads (0 to threads - 1)
 * each add 1 to one shared counter `adds` times, and each add is three steps:
 * load the counter into the thread's own register, add 1 to the register,
 * store the register into the counter. The counter starts at 0. At step s
 * (0 to steps - 1), thread schedule[s] takes its next step. The schedule is
 * whole (the given code has checked it): each thread takes exactly
 * 3 x adds steps. Returns the counter at the end, and sets lost[t], for each
 * thread t, to how many of thread t's adds the final count does not hold. */
static long run_schedule(const int *schedule, long steps, int threads, long adds, long lost[])
{
    long counter = 0;
    long holder = -1; /* the store whose value the counter holds; -1: the 0 it starts at */
    long *reg = checked_malloc((size_t)threads * sizeof *reg);
    long *loaded_from = checked_malloc((size_t)threads * sizeof *loaded_from);
    long *taken = checked_malloc((size_t)threads * sizeof *taken); /* steps each has taken */
    /* store k of thread t is store t x adds + k; below_it[store] is the store
     * whose value its load read: the count it built on */
    long *below_it = checked_malloc((size_t)threads * (size_t)adds * sizeof *below_it);
    for (int t = 0; t < threads; t++)
        taken[t] = 0;
    for (long s = 0; s < steps; s++) {
        int t = schedule[s];
        long step = taken[t]++;
        if (step % STEPS_AN_ADD == 0) { /* load */
            reg[t] = counter;
            loaded_from[t] = holder;
        } else if (step % STEPS_AN_ADD == 1) { /* add 1, in the register */
            reg[t]++;
        } else { /* store */
            counter = reg[t];
            holder = (long)t * adds + step / STEPS_AN_ADD;
            below_it[holder] = loaded_from[t];
        }
    }
    /* The final count is the stores it was built on, one on the next, down to
     * the 0 it started at; every other store was written over, its add lost. */
    for (int t = 0; t < threads; t++)
        lost[t] = adds;
    for (long store = holder; store >= 0; store = below_it[store])
        lost[store / adds]--;
    free(reg);
    free(loaded_from);
    free(taken);
    free(below_it);
    return counter;
}

/* ------------------------------------------------- the schedules it runs -- */

/* A schedule given by --schedule: thread ids separated by commas. Threads:
 * --threads, else the highest id + 1; adds: --adds, else as many as the
 * schedule's steps need. Refuses (exit 2, one reason) any schedule that is
 * not whole: an id out of range, a step for a thread that has finished, too
 * long, or too short. */
struct schedule {
    int *step;
    long steps;
    int threads;
    long adds;
};

static void parse_schedule(const struct stage *stage, const char *text, int threads, long adds,
                           struct schedule *s)
{
    char why[256];
    s->step = checked_malloc(MAX_STEPS * sizeof *s->step);
    s->steps = 0;
    int highest = 0;
    for (const char *p = text;;) {
        char *end;
        errno = 0;
        long id = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ',') || id < 0 || id >= MAX_THREADS) {
            snprintf(why, sizeof why,
                     "--schedule takes thread ids from 0 to %d separated by commas, one a step: "
                     "step %ld is not one",
                     MAX_THREADS - 1, s->steps);
            usage_error(stage, why);
        }
        if (s->steps == MAX_STEPS) {
            snprintf(why, sizeof why,
                     "--schedule is too long: at most %d steps (use --threads and --adds for "
                     "longer, random, schedules)",
                     MAX_STEPS);
            usage_error(stage, why);
        }
        if (threads && id >= threads) {
            snprintf(why, sizeof why,
                     "--schedule: step %ld is thread %ld, out of range: --threads %d has threads 0 "
                     "to %d",
                     s->steps, id, threads, threads - 1);
            usage_error(stage, why);
        }
        highest = id > highest ? (int)id : highest;
        s->step[s->steps++] = (int)id;
        if (!*end)
            break;
        p = end + 1;
    }
    s->threads = threads ? threads : highest + 1;
    long per_thread = STEPS_AN_ADD * (long)s->threads; /* steps for one add of each thread */
    s->adds = adds ? adds : (s->steps + per_thread - 1) / per_thread;
    long whole = per_thread * s->adds;
    if (s->steps > whole) {
        snprintf(why, sizeof why,
                 "--schedule is too long: %ld steps, but %d threads x %ld adds take %ld: a step "
                 "for a thread that has finished",
                 s->steps, s->threads, s->adds, whole);
        usage_error(stage, why);
    }
    long taken[MAX_THREADS] = {0};
    for (long i = 0; i < s->steps; i++)
        if (++taken[s->step[i]] > STEPS_AN_ADD * s->adds) {
            snprintf(why, sizeof why,
                     "--schedule: step %ld is thread %d's, but thread %d has finished: its %ld "
                     "adds are %ld steps (--adds, or as many as the schedule needs)",
                     i, s->step[i], s->step[i], s->adds, STEPS_AN_ADD * s->adds);
            usage_error(stage, why);
        }
    for (int t = 0; t < s->threads; t++)
        if (taken[t] < STEPS_AN_ADD * s->adds) {
            snprintf(why, sizeof why,
                     "--schedule is too short: it ends before thread %d has finished, which "
                     "takes %ld of its %ld steps (%ld adds)",
                     t, taken[t], STEPS_AN_ADD * s->adds, s->adds);
            usage_error(stage, why);
        }
}

/* Random schedules, from a small generator of the program's own (splitmix64):
 * each step is taken by a thread drawn at random from those not finished. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void draw_schedule(struct schedule *s, int *running, long *left, uint64_t *state)
{
    int count = s->threads; /* running[0 .. count - 1]: the threads not finished */
    for (int t = 0; t < s->threads; t++)
        running[t] = t, left[t] = STEPS_AN_ADD * s->adds;
    for (long i = 0; i < s->steps; i++) {
        int pick = (int)(next_random(state) % (uint64_t)count), t = running[pick];
        s->step[i] = t;
        if (--left[t] == 0)
            running[pick] = running[--count];
    }
}

/* Runs `trials` random schedules of threads x adds and prints one line. */
static void run_random(int threads, long adds, long trials, uint64_t seed)
{
    struct schedule s = {NULL, STEPS_AN_ADD * (long)threads * adds, threads, adds};
    s.step = checked_malloc((size_t)s.steps * sizeof *s.step);
    int *running = checked_malloc((size_t)threads * sizeof *running);
    long *left = checked_malloc((size_t)threads * sizeof *left);
    long *lost = checked_malloc((size_t)threads * sizeof *lost);
    uint64_t state = seed;
    double finals = 0;
    for (long k = 0; k < trials; k++) {
        draw_schedule(&s, running, left, &state);
        finals += (double)run_schedule(s.step, s.steps, threads, adds, lost);
    }
    long increments = (long)threads * adds;
    double final = finals / (double)trials, lost_on_average = (double)increments - final;
    printf("random:     %4d threads x %ld adds: final %.3f, lost %.3f of %ld on average, "
           "mean lost fraction %.6f\n",
           threads, adds, final, lost_on_average, increments, lost_on_average / (double)increments);
    free(s.step);
    free(running);
    free(left);
    free(lost);
}

/* Hand-made schedules, shown by make run before the random ones. */
static void run_hand_schedules(void)
{
    static const struct {
        const char *steps, *what;
    } hand[] = {
        {"0,0,0,0,0,0,0,0,0", "one thread, 3 adds: nothing to race with"},
        {"0,0,0,1,1,1", "two threads, one after the other"},
        {"0,1,0,0,1,1", "both load before either stores"},
        {"0,1,1,1,0,0", "thread 1's whole add between thread 0's load and store"},
        {"0,1,1,1,1,1,1,0,0,0,0,0", "thread 0 stores 1 over thread 1's 2"},
    };
    int step[STEPS_AN_ADD * 32];
    long lost[32];
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++) {
        long steps = 0;
        int threads = 0;
        for (const char *p = hand[i].steps; *p; p += *p == ',') {
            char *end;
            step[steps] = (int)strtol(p, &end, 10);
            threads = step[steps] >= threads ? step[steps] + 1 : threads;
            steps++;
            p = end;
        }
        long adds = steps / (STEPS_AN_ADD * threads);
        long final = run_schedule(step, steps, threads, adds, lost);
        printf("schedule:   final %ld, lost %ld of %ld: %s (%s)\n", final, threads * adds - final,
               threads * adds, hand[i].what, hand[i].steps);
    }
    /* a warp of 32 lanes in step: every lane loads, then every lane adds, then every lane stores */
    for (int l = 0; l < 32; l++)
        step[l] = step[32 + l] = step[64 + l] = l;
    long final = run_schedule(step, STEPS_AN_ADD * 32, 32, 1, lost);
    printf("schedule:   final %ld, lost %ld of %d: 32 threads in step, as a warp: every load, "
           "then every add, then every store\n",
           final, 32 - final, 32);
}

static const struct stage_option own_options[] = {
    {"--schedule", "ID[,ID...]", "one schedule: the thread that takes its next step, a step each"},
    {"--threads", "T", "threads on the one counter, 1 to 1024 (random schedules; default 1 to 32)"},
    {"--adds", "N", "adds each thread makes, 1 to 1000000 (default 1000)"},
    {"--trials", "K", "random schedules to run and average, 1 to 1000000 (default 100)"},
    {NULL, NULL, NULL}};
enum { OPT_SCHEDULE, OPT_THREADS, OPT_ADDS, OPT_TRIALS };

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "20_lost_updates",
        .program = "lost_updates",
        .summary = "exercise: increments lost by a plain ++ on one counter, step by step",
        .help = "nothing is counted into bins: --seed picks the random schedules, and --size, "
                "--data, --file, --image, --reps, --csv and --print-bins are refused (exit 2).",
        .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.size_given || opt.data_given || opt.file || opt.image || opt.reps != DEFAULT_REPS ||
        opt.csv || opt.print_bins)
        usage_error(&stage, "--size, --data, --file, --image, --reps, --csv and --print-bins "
                            "have no meaning here: --schedule, or --threads, --adds, --trials "
                            "and --seed, choose the schedules");
    int threads = (int)stage_option_number(&stage, &opt, OPT_THREADS, 1, MAX_THREADS, 0);
    long adds = (long)stage_option_number(&stage, &opt, OPT_ADDS, 1, MAX_ADDS, 0);
    long trials = (long)stage_option_number(&stage, &opt, OPT_TRIALS, 1, 1000000, 100);
    printf("%s: %s\n", stage.dir, stage.summary);
    printf("steps:      %d an add: load the counter into the thread's register, add 1, store it "
           "back\n",
           STEPS_AN_ADD);

    if (opt.stage_values[OPT_SCHEDULE]) {
        if (opt.stage_values[OPT_TRIALS])
            usage_error(&stage, "--schedule is one schedule: --trials has no meaning with it");
        struct schedule s;
        parse_schedule(&stage, opt.stage_values[OPT_SCHEDULE], threads, adds, &s);
        long *lost = checked_malloc((size_t)s.threads * sizeof *lost);
        long final = run_schedule(s.step, s.steps, s.threads, s.adds, lost);
        long increments = (long)s.threads * s.adds;
        printf("schedule:   %ld steps: %d thread%s x %ld add%s\n", s.steps, s.threads,
               s.threads == 1 ? "" : "s", s.adds, s.adds == 1 ? "" : "s");
        printf("final:      %ld (%ld if no add were lost)\n", final, increments);
        printf("lost:       %ld of %ld increments (%.3f%%)\n", increments - final, increments,
               100.0 * (double)(increments - final) / (double)increments);
        printf("by thread: ");
        for (int t = 0; t < s.threads; t++)
            printf(" %ld", lost[t]);
        printf(" (each thread's adds lost, thread 0 first)\n");
        free(lost);
        free(s.step);
    } else {
        if (!adds)
            adds = 1000;
        if ((double)(threads ? threads : 32) * (double)adds > MAX_PER_TRIAL ||
            (double)(threads ? threads : 63) * (double)adds * (double)trials > MAX_IN_ALL)
            usage_error(&stage, "--threads x --adds may be at most 1048576, and that times "
                                "--trials at most 100000000 (without --threads: 32 and 63 "
                                "threads)");
        if (!threads)
            run_hand_schedules();
        printf("schedules:  %ld random ones for each line (seed %llu): each step taken by a "
               "thread drawn from those not finished\n",
               trials, (unsigned long long)opt.seed);
        if (threads)
            run_random(threads, adds, trials, opt.seed);
        else
            for (int t = 1; t <= 32; t *= 2)
                run_random(t, adds, trials, opt.seed);
    }
    /* The right counts need the steps run right, which is the exercise: make check holds them. */
    printf("verified:   not here: make check runs the schedules itself and compares\n");
    return EXIT_OK;
}
