/*
 * book.c - book.h's helpers: failing, the input, the CPU's answer and the
 * book's check, the clock.
 */
#include "book.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The name messages start with; the harness sets it to the running program's. */
const char *program_name = "histogram";

void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(EXIT_FAILED);
}

/* ----------------------------------------------------------- the input -- */

/* splitmix64: tiny, fast, and good enough for test data; the same seed gives
 * the same stream on every machine, unlike rand(). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill_input(enum data_kind kind, unsigned char *buffer, size_t size, uint64_t seed)
{
    uint64_t state = seed;
    switch (kind) {
    case DATA_UNIFORM:
        for (size_t i = 0; i < size; i += 8) {
            uint64_t r = next_random(&state);
            for (size_t k = 0; k < 8 && i + k < size; k++)
                buffer[i + k] = (unsigned char)(r >> (8 * k));
        }
        break;
    case DATA_CONSTANT: /* every byte lands in one bin: the worst case for atomics */
        memset(buffer, (unsigned char)next_random(&state), size);
        break;
    case DATA_SKEWED: /* the mean of four uniform bytes: a bell around 127.5, like a photo */
        for (size_t i = 0; i < size; i++) {
            uint64_t r = next_random(&state);
            unsigned sum =
                (unsigned)(r & 0xff) + ((r >> 8) & 0xff) + ((r >> 16) & 0xff) + ((r >> 24) & 0xff);
            buffer[i] = (unsigned char)(sum / 4);
        }
        break;
    case DATA_TEXT: {
        const size_t length = sizeof TEXT_PHRASE - 1;
        for (size_t i = 0; i < size; i++)
            buffer[i] = (unsigned char)TEXT_PHRASE[i % length];
        break;
    }
    case DATA_FILE:
    case DATA_IMAGE:
        fail("fill_input: a file or an image is read, not generated");
    }
}

unsigned char *big_random_block(size_t size, uint64_t seed)
{
    unsigned char *buffer = malloc(size ? size : 1); /* malloc(0) may return NULL */
    if (!buffer)
        fail("out of host memory (wanted %zu bytes)", size);
    fill_input(DATA_UNIFORM, buffer, size, seed);
    return buffer;
}

/* ------------------------------------------ the CPU's answer, the check -- */

void cpu_histogram(const unsigned char *buffer, size_t size, unsigned int histo[BINS])
{
    memset(histo, 0, BINS * sizeof histo[0]);
    for (size_t i = 0; i < size; i++)
        histo[buffer[i]]++;
}

uint64_t histogram_sum(const unsigned int histo[BINS])
{
    uint64_t sum = 0;
    for (int bin = 0; bin < BINS; bin++)
        sum += histo[bin];
    return sum;
}

int verify_histogram(const unsigned char *buffer, size_t size, const unsigned int histo[BINS],
                     const char *what, FILE *report)
{
    int64_t left[BINS]; /* signed and wide: a bin may go below zero */
    for (int bin = 0; bin < BINS; bin++)
        left[bin] = histo[bin];
    for (size_t i = 0; i < size; i++)
        left[buffer[i]]--;
    int wrong = 0;
    for (int bin = 0; bin < BINS; bin++) {
        if (left[bin] == 0)
            continue;
        wrong++;
        if (report)
            fprintf(report, "%s: %s: bin %d holds %u, the CPU counts %" PRId64 "\n", program_name,
                    what, bin, histo[bin], (int64_t)histo[bin] - left[bin]);
    }
    return wrong;
}

/* ----------------------------------------------------------- the clock -- */

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
