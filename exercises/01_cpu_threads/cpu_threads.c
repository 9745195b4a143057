/*
 * Exercise 01 - several threads count one input. Each of T threads takes a
 * slice of the input, counts it into a private copy of the histogram, and
 * adds that copy to the one histogram all threads share, without losing a
 * count. The program times T threads against one and prints the speed-up.
 *
 *   make run ARGS='--threads 4'                 4 threads, against 1
 *   make run ARGS='--threads 4 --show-copies'   what each thread's copy counted
 *   make check                                  right, race-free, and private copies?
 */
#include "book.h"    /* the input, the CPU's check, the clock: worth reading */
#include "harness.h" /* options, repeats, the report: no need to read it */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What all the threads share: the input, the one histogram they fill, and a
 * lock for the histogram, should your merge need one. */
struct shared {
    const unsigned char *buffer;
    size_t size;
    int threads;
    unsigned int histo[BINS];
    pthread_mutex_t lock;
};

/* What one thread owns. */
struct worker {
    pthread_t thread;
    struct shared *shared;
    size_t first, count;     /* its slice: count bytes from buffer[first] */
    unsigned int copy[BINS]; /* its private histogram, zero when the thread starts */
};

/* ------------------------------------------------------------ your part -- */

/* The slice of thread t of threads: the slices cover the input once, in
 * order, and no slice is longer than another by more than one byte. */
static void slice_of(int t, int threads, size_t size, size_t *first, size_t *count)
{
    /* TODO 1: this split covers the input, but the last thread takes the
     * whole remainder, and with more threads than bytes it takes everything.
     * Balance it (see the README's hint 3). */
    size_t per_thread = size / threads;
    *first = (size_t)t * per_thread;
    *count = t < threads - 1 ? per_thread : size - *first;
}

/* One thread: count the slice into the private copy, then add the copy to the
 * shared histogram, here, before the thread ends (the main thread only
 * joins). Other threads may be adding theirs at the same moment. */
static void *count_slice(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->shared;
    const unsigned char *slice = s->buffer + w->first;
    /* TODO 2: every thread adds into the one shared histogram with a plain
     * ++, and threads that add to the same bin at once lose counts. Count
     * into w->copy instead, then merge it into s->histo safely (hints 1, 2, 4).
     * Merge inside the thread, not after the join as stage 01 does: GPU blocks (chapter 03)
     * merge this way while other blocks still count, so the check fails a merge after the join. */
    for (size_t i = 0; i < w->count; i++)
        s->histo[slice[i]]++;
    return NULL;
}

/* ------------------------------------------------- the threads, the timing -- */

/* One histogram of the whole input with s->threads threads; the workers'
 * slices and copies stay in workers[] for --show-copies. */
static void count_with_threads(struct shared *s, struct worker *workers)
{
    memset(s->histo, 0, sizeof s->histo);
    memset(workers, 0, (size_t)s->threads * sizeof *workers);
    for (int t = 0; t < s->threads; t++) {
        workers[t].shared = s;
        slice_of(t, s->threads, s->size, &workers[t].first, &workers[t].count);
        int err = pthread_create(&workers[t].thread, NULL, count_slice, &workers[t]);
        if (err)
            fail("pthread_create: %s", strerror(err));
    }
    for (int t = 0; t < s->threads; t++) {
        int err = pthread_join(workers[t].thread, NULL);
        if (err)
            fail("pthread_join: %s", strerror(err));
    }
}

struct run {
    struct shared shared;
    struct worker *workers;
};

/* Creating and joining the threads is timed too: it is part of the price. */
static double count_once(void *context)
{
    struct run *run = context;
    double start = now_ms();
    count_with_threads(&run->shared, run->workers);
    return now_ms() - start;
}

static const struct stage_option own_options[] = {
    {"--show-copies", NULL, "print each thread's slice and what its private copy counted"},
    {NULL, NULL, NULL}};
enum { OPT_SHOW_COPIES };

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "01_cpu_threads",
                                .program = "cpu_threads",
                                .summary = "exercise: T threads count one input, against 1 thread",
                                .help = "--threads T: T threads, timed against 1 thread.",
                                .launch_default = "one thread per logical CPU",
                                .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    /* Logical CPUs online, as nproc counts them: a core with two hardware threads counts twice. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = opt.threads ? opt.threads : cpus < 1 ? 1 : cpus > 1024 ? 1024 : (int)cpus;
    struct input in = make_input(&stage, &opt);

    struct run one = {{in.buffer, in.size, 1, {0}, PTHREAD_MUTEX_INITIALIZER}, NULL};
    struct run many = {{in.buffer, in.size, threads, {0}, PTHREAD_MUTEX_INITIALIZER}, NULL};
    one.workers = calloc(1, sizeof *one.workers);
    many.workers = calloc((size_t)threads, sizeof *many.workers);
    if (!one.workers || !many.workers)
        fail("out of host memory for %d threads", threads);

    char name[32];
    snprintf(name, sizeof name, "%d thread%s", threads, threads > 1 ? "s" : "");
    struct result results[2] = {
        {.impl = name, .device = cpu_name(), .threads = threads, .histo = many.shared.histo},
        {.impl = "1 thread", .device = cpu_name(), .threads = 1, .histo = one.shared.histo}};
    results[0].kernel_ms = results[0].total_ms = median_ms(count_once, &many, opt.reps);
    int rows = 1;
    if (threads > 1) {
        results[1].kernel_ms = results[1].total_ms = median_ms(count_once, &one, opt.reps);
        rows = 2;
    }
    int status = report_results(&stage, &opt, &in, results, rows);
    if (!opt.csv && rows == 2 && results[0].kernel_ms > 0)
        printf("speed-up:   %.2f x with %d threads over 1 thread (%ld logical CPUs online)\n",
               results[1].kernel_ms / results[0].kernel_ms, threads, cpus);
    if (opt.stage_values[OPT_SHOW_COPIES])
        for (int t = 0; t < threads; t++) {
            const struct worker *w = &many.workers[t];
            uint64_t counted = 0;
            for (int bin = 0; bin < BINS; bin++)
                counted += w->copy[bin];
            printf("copy %d: bytes %zu to %zu, counted %llu\n", t, w->first, w->first + w->count,
                   (unsigned long long)counted);
        }
    free(one.workers);
    free(many.workers);
    free_input(&in);
    return status;
}
