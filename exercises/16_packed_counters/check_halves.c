/*
 * check_halves.c - the check's view of exercise 16's three functions, one
 * call at a time: it includes the file you edit (its main renamed) and runs
 * add_one, flush or unpack on one word and one total given on the command
 * line, as the program never does: flush on a half that is not full, add_one
 * beside a neighbour that holds counts. check_packed_counters runs it.
 *
 *   check_halves add|flush|unpack BIN WORD TOTAL
 *   check_halves adds BIN WORD TOTAL N
 *
 * prints "word W total T" (add, flush: the word and bin's total after the
 * call) or "count C others-wrong W" (unpack, into a histo filled with 0xA5
 * first: bin's count, and how many other bins it left not equal to their
 * total plus their half). adds calls add_one N times
 * on bin, reading the word itself after each call (not through the program's
 * watch()), and prints "peak P lowest-flush L flushes F neighbour-changes C
 * half H total T": the most bin's half held, the least it held just before a
 * call that lowered it (65536 when none did), how many calls lowered it, how
 * many changed the other half, and the half and total at the end.
 */
/* The file under test: yours, or the Makefile names another (a solution's). */
#ifndef PACKED_COUNTERS_C
#define PACKED_COUNTERS_C "packed_counters.c"
#endif
#define main packed_counters_main
#include PACKED_COUNTERS_C
#undef main

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 5 && !(argc == 6 && strcmp(argv[1], "adds") == 0)) {
        fprintf(stderr, "usage: %s add|flush|unpack BIN WORD TOTAL, or adds BIN WORD TOTAL N\n",
                argv[0]);
        return 2;
    }
    unsigned long bin = strtoul(argv[2], NULL, 10), word = strtoul(argv[3], NULL, 10),
                  total = strtoul(argv[4], NULL, 10);
    if (bin >= BINS || word > UINT32_MAX || total > UINT32_MAX) {
        fprintf(stderr, "%s: BIN below %d, WORD and TOTAL below 2^32\n", argv[0], BINS);
        return 2;
    }
    /* The word through uint32_t, as the task declares the words: one in place, the others 0. */
    static uint32_t words[WORDS];
    static unsigned int totals[BINS], histo[BINS];
    words[bin / 2] = (uint32_t)word;
    totals[bin] = (unsigned int)total;
    if (strcmp(argv[1], "adds") == 0) {
        unsigned long n = strtoul(argv[5], NULL, 10);
        unsigned int shift = (unsigned int)bin % 2 * 16, other = 16 - shift;
        uint32_t peak = 0, lowest = 65536, neighbour = (uint32_t)word >> other & 0xffff;
        unsigned long flushes = 0, changes = 0;
        for (unsigned long i = 0; i < n; i++) {
            uint32_t before = words[bin / 2] >> shift & 0xffff;
            add_one(words, totals, (unsigned int)bin);
            uint32_t half = words[bin / 2] >> shift & 0xffff;
            peak = half > peak ? half : peak;
            if (half < before) {
                flushes++;
                lowest = before < lowest ? before : lowest;
            }
            changes += (words[bin / 2] >> other & 0xffff) != neighbour;
        }
        printf("peak %" PRIu32 " lowest-flush %" PRIu32 " flushes %lu neighbour-changes %lu half "
               "%" PRIu32 " total %u\n",
               peak, lowest, flushes, changes, words[bin / 2] >> shift & 0xffff, totals[bin]);
        return 0;
    } else if (strcmp(argv[1], "add") == 0)
        add_one(words, totals, (unsigned int)bin);
    else if (strcmp(argv[1], "flush") == 0)
        flush(words, totals, (unsigned int)bin);
    else if (strcmp(argv[1], "unpack") == 0) {
        /* histo as a caller may hand it in, not zeroed: unpack sets every bin */
        for (unsigned int b = 0; b < BINS; b++)
            histo[b] = 0xA5A5A5A5u;
        unpack(words, totals, histo);
        unsigned int others_wrong = 0;
        for (unsigned int b = 0; b < BINS; b++)
            others_wrong +=
                b != bin && histo[b] != totals[b] + (words[b / 2] >> (b % 2 * 16) & 0xffff);
        printf("count %u others-wrong %u\n", histo[bin], others_wrong);
        return 0;
    } else {
        fprintf(stderr, "%s: add, flush or unpack, not %s\n", argv[0], argv[1]);
        return 2;
    }
    printf("word %lu total %u\n", (unsigned long)words[bin / 2], totals[bin]);
    return 0;
}
