/*
 * 01_cpu - the histogram on the CPU: the book's single loop, the baseline
 * every GPU stage is compared with, and two faster CPU programs, so that the
 * GPU is measured against a good CPU program and not only a naive one.
 *
 *   ./hist_cpu                   the book's loop, histo[buffer[i]]++
 *   ./hist_cpu --variant sub4    four interleaved sub-histograms
 *   ./hist_cpu --threads 8       one private histogram per thread, merged
 */
#include "book.h"    /* the input, the CPU's check, the clock: worth reading */
#include "harness.h" /* options, repeats, the report: no need to read it */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef void (*histo_function)(const unsigned char *buffer, size_t size, unsigned int *histo);

/* The book's loop. size_t, not int: an int index stops at 2 GiB. */
static void histo_book(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    for (size_t i = 0; i < size; i++)
        histo[buffer[i]]++;
}

/* On repeated bytes the book's loop stalls: each histo[b]++ waits for the
 * previous store to the same counter. Four sets of counters let four
 * neighbouring bytes be counted independently; they are added up at the end. */
static void histo_sub4(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    unsigned int sub[4][BINS] = {{0}};
    size_t i = 0;
    for (; i + 4 <= size; i += 4) {
        sub[0][buffer[i]]++;
        sub[1][buffer[i + 1]]++;
        sub[2][buffer[i + 2]]++;
        sub[3][buffer[i + 3]]++;
    }
    for (; i < size; i++) /* the last 0 to 3 bytes */
        sub[0][buffer[i]]++;
    for (int bin = 0; bin < BINS; bin++)
        histo[bin] += sub[0][bin] + sub[1][bin] + sub[2][bin] + sub[3][bin];
}

static const char *const variants[] = {"book", "sub4", NULL};
static const histo_function variant_functions[] = {histo_book, histo_sub4};

/* Each thread counts its own slice into its own histogram: no sharing, no
 * atomics, no locks. The merge costs 256 additions per thread. */
struct slice {
    pthread_t thread;
    histo_function count;
    const unsigned char *buffer;
    size_t size;
    unsigned int histo[BINS];
};

static void *count_slice(void *arg)
{
    struct slice *slice = arg;
    slice->count(slice->buffer, slice->size, slice->histo);
    return NULL;
}

static void histo_threads(const unsigned char *buffer, size_t size, unsigned int *histo,
                          histo_function count, int threads)
{
    struct slice *slices = calloc((size_t)threads, sizeof *slices);
    if (!slices)
        fail("out of host memory for %d threads", threads);
    size_t per_thread = size / threads, start = 0;
    for (int t = 0; t < threads; t++) {
        slices[t].count = count;
        slices[t].buffer = buffer + start;
        slices[t].size = t < threads - 1 ? per_thread : size - start; /* the last takes the rest */
        start += slices[t].size;
        int err = pthread_create(&slices[t].thread, NULL, count_slice, &slices[t]);
        if (err)
            fail("pthread_create: %s", strerror(err));
    }
    for (int t = 0; t < threads; t++) {
        int err = pthread_join(slices[t].thread, NULL);
        if (err)
            fail("pthread_join: %s", strerror(err));
        for (int bin = 0; bin < BINS; bin++)
            histo[bin] += slices[t].histo[bin];
    }
    free(slices);
}

struct cpu_run {
    const struct input *in;
    histo_function count;
    int threads;
    unsigned int histo[BINS];
};

static double histogram_once(void *context)
{
    struct cpu_run *run = context;
    double start = now_ms();
    memset(run->histo, 0, sizeof run->histo);
    if (run->threads == 1)
        run->count(run->in->buffer, run->in->size, run->histo);
    else
        histo_threads(run->in->buffer, run->in->size, run->histo, run->count, run->threads);
    return now_ms() - start;
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "01_cpu",
                                .program = "hist_cpu",
                                .summary = "the histogram on the CPU, the baseline",
                                .variants = variants};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct input in = make_input(&stage, &opt);

    struct cpu_run run = {&in, variant_functions[opt.variant], opt.threads ? opt.threads : 1, {0}};
    double ms = median_ms(histogram_once, &run, opt.reps);

    struct result result = {.impl = variants[opt.variant],
                            .device = cpu_name(),
                            .blocks = 0,
                            .threads = run.threads,
                            .kernel_ms = ms,
                            .total_ms = ms,
                            .histo = run.histo};
    int status = report_result(&stage, &opt, &in, &result);
    free_input(&in);
    return status;
}
