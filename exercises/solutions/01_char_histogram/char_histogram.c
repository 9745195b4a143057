/*
 * Exercise 01 - the character histogram of a text, the book's figure 9.1.
 * The reference solution.
 *
 *   make run ARGS='--data text --size 230'   ten copies of the phrase
 *   make check                               does your count match the CPU reference?
 */
#include "book.h"    /* the input, the CPU's check, the clock: worth reading */
#include "harness.h" /* options, repeats, the report: no need to read it */

#include <string.h>

/* Adds one to histo[b] for every byte b of text; histo starts at zero. */
static void count_characters(const unsigned char *text, size_t size, unsigned int histo[BINS])
{
    for (size_t i = 0; i < size; i++) /* size_t: a text can be longer than 2 GiB */
        histo[text[i]]++;
}

/* One bar per character that occurs, as long as its count allows. */
static void draw_chart(const unsigned int histo[BINS])
{
    unsigned int most = 1;
    for (int b = 0; b < BINS; b++)
        most = histo[b] > most ? histo[b] : most;
    for (int b = 0; b < BINS; b++) {
        if (!histo[b])
            continue;
        int width = (int)(50.0 * histo[b] / most + 0.5);
        printf(b >= 32 && b < 127 ? "  '%c'  " : " 0x%02x ", b);
        for (int i = 0; i < width; i++)
            putchar('#');
        printf(" %u\n", histo[b]);
    }
}

struct run {
    const struct input *in;
    unsigned int histo[BINS];
};

static double count_once(void *context)
{
    struct run *run = context;
    double start = now_ms();
    memset(run->histo, 0, sizeof run->histo);
    count_characters(run->in->buffer, run->in->size, run->histo);
    return now_ms() - start;
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "01_char_histogram",
                                .program = "char_histogram",
                                .summary = "exercise: the character histogram of a text"};
    struct options opt = options_or_exit(argc, argv, &stage);
    struct input in = make_input(&stage, &opt);
    struct run run = {.in = &in};
    double ms = median_ms(count_once, &run, opt.reps);
    struct result result = {.impl = "mine", .device = cpu_name(), .threads = 1,
                            .kernel_ms = ms, .total_ms = ms, .histo = run.histo};
    int status = report_result(&stage, &opt, &in, &result);
    if (!opt.csv && !opt.bins && status == EXIT_OK)
        draw_chart(run.histo);
    free_input(&in);
    return status;
}
