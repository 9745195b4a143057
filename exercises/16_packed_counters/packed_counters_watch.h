/*
 * packed_counters_watch.h - how packed_counters.c sees your halves from
 * outside add_one, for its --show-packing line. It reads each half as your
 * functions must, so it is kept out of your file: open it after you have
 * written yours, and leave it as it is.
 */
#ifndef PACKED_COUNTERS_WATCH_H
#define PACKED_COUNTERS_WATCH_H

#include <stdint.h>

/* What the program sees of the halves from outside add_one, after each add:
 * the highest count a half held, how often a half went down (a flush), and
 * how often the other half of the word changed (a carry into the neighbour). */
struct packing {
    unsigned int peak;
    uint64_t flushes, carries;
};

/* Counts what one add_one did to bin's word, seen from outside: before and
 * after are the word around the call. */
static void watch(uint32_t before, uint32_t after, unsigned int bin, struct packing *seen)
{
    unsigned int shift = bin % 2 * 16, other = 16 - shift;
    unsigned int was = before >> shift & 0xffff, now = after >> shift & 0xffff;
    seen->peak = now > seen->peak ? now : seen->peak;
    seen->flushes += now < was;
    seen->carries += (before >> other & 0xffff) != (after >> other & 0xffff);
}

#endif
