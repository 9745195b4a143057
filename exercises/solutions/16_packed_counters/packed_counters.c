/*
 * Exercise 16 - two 16-bit counters in one 32-bit word, on the CPU: what
 * chapter 07 does when a block's bins do not fit as 32-bit counters.
 * The reference solution.
 *
 *   make run ARGS='--data constant --size 200000 --show-packing'
 *   make check
 */
#include "book.h"    /* the input, the CPU's check, the clock: worth reading */
#include "harness.h" /* options, repeats, the report: no need to read it */

#include <stdint.h>
#include <string.h>

#define WORDS    (BINS / 2) /* bin 2k in the low half of words[k], bin 2k + 1 in the high half */
#define HALF_MAX 65535u     /* the most a 16-bit half holds: one more carries into the next bin */

/* Moves the count in bin's half out to its 32-bit total, and empties the half. */
static void flush(uint32_t words[WORDS], unsigned int totals[BINS], unsigned int bin)
{
    unsigned int shift = bin % 2 * 16;
    totals[bin] += words[bin / 2] >> shift & 0xffff;
    words[bin / 2] &= ~(0xffffu << shift);
}

/* Adds one to bin's half, flushing it first when one more would not fit. */
static void add_one(uint32_t words[WORDS], unsigned int totals[BINS], unsigned int bin)
{
    unsigned int shift = bin % 2 * 16;
    unsigned int count = words[bin / 2] >> shift & 0xffff;
    if (count + 1 > HALF_MAX)
        flush(words, totals, bin);
    words[bin / 2] += 1u << shift;
}

/* Every bin's count: its total, and what its half still holds. */
static void unpack(const uint32_t words[WORDS], const unsigned int totals[BINS],
                   unsigned int histo[BINS])
{
    for (unsigned int bin = 0; bin < BINS; bin++)
        histo[bin] = totals[bin] + (words[bin / 2] >> (bin % 2 * 16) & 0xffff);
}

/* ------------------------------------------------------------------------- */
/* struct packing and watch(): what the program sees of the halves from
 * outside add_one, after each add (the peak, the flushes, the carries). */
#include "packed_counters_watch.h"

struct run {
    const struct input *in;
    uint32_t words[WORDS];
    unsigned int totals[BINS];
    unsigned int histo[BINS];
    struct packing seen;
};

static double count_once(void *context)
{
    struct run *run = context;
    const unsigned char *buffer = run->in->buffer;
    double start = now_ms();
    memset(run->words, 0, sizeof run->words);
    memset(run->totals, 0, sizeof run->totals);
    memset(&run->seen, 0, sizeof run->seen);
    for (size_t i = 0; i < run->in->size; i++) { /* size_t: an input may pass 2 GiB */
        uint32_t before = run->words[buffer[i] / 2];
        add_one(run->words, run->totals, buffer[i]);
        watch(before, run->words[buffer[i] / 2], buffer[i], &run->seen);
    }
    unpack(run->words, run->totals, run->histo);
    return now_ms() - start;
}

static const struct stage_option options[] = {
    {"--show-packing", NULL, "say how the 16-bit halves were used: words, peak, flushes, carries"},
    {NULL, NULL, NULL}};

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "16_packed_counters",
                                .program = "packed_counters",
                                .summary = "exercise: two 16-bit counters in each 32-bit word",
                                .help = "one thread makes every add: --threads takes only 1.",
                                .options = options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.threads > 1) /* the lesson is the packing, so one thread counts */
        usage_error(&stage, "--threads: this program runs on one thread; --threads takes only 1");
    struct input in = make_input(&stage, &opt);
    static struct run run; /* static: zeroed, and off the stack */
    run.in = &in;
    double ms = median_ms(count_once, &run, opt.reps);
    struct result result = {.impl = "mine",
                            .device = cpu_name(),
                            .threads = 1,
                            .kernel_ms = ms,
                            .total_ms = ms,
                            .histo = run.histo};
    int status = report_result(&stage, &opt, &in, &result);
    if (opt.stage_values[0] && !opt.csv)
        printf("packing:    %d words of two 16-bit halves for %d bins, peak half %u, "
               "%llu flushes, %llu carries into a neighbour\n",
               WORDS, BINS, run.seen.peak, (unsigned long long)run.seen.flushes,
               (unsigned long long)run.seen.carries);
    free_input(&in);
    return status;
}
