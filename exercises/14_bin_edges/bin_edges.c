/*
 * Exercise 14 - the rule that turns a key into a bin, for signed 32-bit keys:
 * bins of equal width over [lo, hi), lo and hi anywhere in int32's range, 1
 * to 2^24 bins. The rule is one line of arithmetic; getting it exact at every
 * edge, for every range, is the exercise. The histogram uses your rule; make
 * check computes every key's exact bin itself and compares. This program
 * holds no reference bin of its own: that would be the answer.
 *
 *   make run ARGS='--lo -1000 --hi 1000 --bins 7 --key 999'   the bin of one key
 *   make run ARGS='--bins 16M'            100 MiB of keys, 2^24 bins over [-2^31, 2^31 - 1)
 *   make check
 */
#include "book.h"    /* the input, the clock: worth reading */
#include "harness.h" /* options, repeats: no need to read it */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BINS (1L << 24)

/* Even bins over [lo, hi): bin b holds the keys with
 *     b <= (key - lo) x bins / (hi - lo) < b + 1,
 * that is, bin = floor((key - lo) x bins / (hi - lo)), computed exactly.
 * A key below lo, or at hi or above, is in no bin. As hi is an int32 too,
 * INT32_MAX is never in a bin. */
struct range {
    int32_t lo, hi; /* lo < hi */
    long bins;      /* 1 to 2^24 */
};

/* ------------------------------------------------------------ your part -- */

/* The bin of key, 0 to bins - 1, or -1 when key is outside [lo, hi). */
static long key_bin(const struct range *r, int32_t key)
{
    /* TODO: the rule as it is first written. It is right for small ranges
     * and few bins; make it exact for every range and every number of bins,
     * and at both edges (see the README's hints). */
    if (key < r->lo || key > r->hi)
        return -1;
    return (key - r->lo) * r->bins / (r->hi - r->lo);
}

/* ------------------------------------------------------ the histogram -- */

struct run {
    const struct range *r;
    const unsigned char *bytes; /* n keys, 4 bytes each, in the machine's order */
    size_t n;
    unsigned int *histo; /* r->bins counters */
    size_t outside;      /* keys in no bin */
};

static double histogram_once(void *context)
{
    struct run *run = context;
    double start = now_ms();
    memset(run->histo, 0, (size_t)run->r->bins * sizeof *run->histo);
    run->outside = 0;
    for (size_t i = 0; i < run->n; i++) {
        int32_t key;
        memcpy(&key, run->bytes + 4 * i, 4); /* the bytes need not be aligned */
        long bin = key_bin(run->r, key);
        if (bin < -1 || bin >= run->r->bins) /* an index past the counters: stop here */
            fail("key %" PRId32 ": bin %ld is not -1 or 0 to %ld", key, bin, run->r->bins - 1);
        if (bin < 0)
            run->outside++;
        else
            run->histo[bin]++;
    }
    return now_ms() - start;
}

/* ------------------------------------------------------------ the main -- */

static const struct stage_option own_options[] = {
    {"--bins", "N", "1 to 16777216 even bins; K, M are powers of 1024 (default 256)"},
    {"--lo", "L", "the range's first key, an int32 (default -2147483648)"},
    {"--hi", "H", "the range's end, an int32 above L, itself in no bin (default 2147483647)"},
    {"--key", "K", "print the bin of the one int32 key K, and stop"},
    {"--print-bins", NULL, "print every bin, one '<bin>: <count>' line each"},
    {NULL, NULL, NULL}};
enum { OPT_BINS, OPT_LO, OPT_HI, OPT_KEY, OPT_PRINT_BINS };

/* A whole number from min to max, with an optional K or M (powers of 1024),
 * or the usage error that names the option. */
static long long parse_number(const struct stage *stage, const char *name, const char *text,
                              long long min, long long max)
{
    char *end, why[192];
    errno = 0;
    long long n = strtoll(text, &end, 10);
    long long unit = *end == 'K' || *end == 'k' ? 1024 : *end == 'M' || *end == 'm' ? 1048576 : 1;
    end += unit > 1;
    /* n x unit, not n, against the limits: 0K is 0, below a min of 1 */
    if (end == text || *end || errno || n < min / unit - 1 || n > max / unit || n * unit < min ||
        n * unit > max) {
        snprintf(why, sizeof why, "%s must be a whole number from %lld to %lld, not '%s'", name,
                 min, max, text);
        usage_error(stage, why);
    }
    return n * unit;
}

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "14_bin_edges",
        .program = "bin_edges",
        .summary = "exercise: int32 keys in even bins over [lo, hi), exact at every edge",
        .help = "the input's bytes are read as int32 keys (--size: a whole number of keys).",
        .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *const *v = opt.stage_values;
    struct range r = {INT32_MIN, INT32_MAX, 256};
    if (v[OPT_BINS])
        r.bins = (long)parse_number(&stage, "--bins", v[OPT_BINS], 1, MAX_BINS);
    if (v[OPT_LO])
        r.lo = (int32_t)parse_number(&stage, "--lo", v[OPT_LO], INT32_MIN, INT32_MAX);
    if (v[OPT_HI])
        r.hi = (int32_t)parse_number(&stage, "--hi", v[OPT_HI], INT32_MIN, INT32_MAX);
    if (r.lo >= r.hi)
        usage_error(&stage, "--lo must be less than --hi");
    if (opt.threads || opt.csv || opt.image)
        usage_error(&stage, "--threads, --csv and --image have no meaning here");

    if (v[OPT_KEY]) { /* one key: its bin, by your rule */
        int32_t key = (int32_t)parse_number(&stage, "--key", v[OPT_KEY], INT32_MIN, INT32_MAX);
        long bin = key_bin(&r, key);
        printf("key %" PRId32 " in %ld bins over [%" PRId32 ", %" PRId32 "): ", key, r.bins, r.lo,
               r.hi);
        printf(bin < 0 ? "no bin\n" : "bin %ld\n", bin);
        if (bin < -1 || bin >= r.bins) /* not even a bin: no counter has that index */
            fail("key %" PRId32 ": bin %ld is not -1 or 0 to %ld", key, bin, r.bins - 1);
        return EXIT_OK;
    }

    if (opt.data != DATA_FILE && opt.size % 4)
        usage_error(&stage, "--size must be a whole number of 4-byte keys");
    struct input in = make_input(&stage, &opt);
    if (in.size % 4)
        usage_error(&stage, "the file is not a whole number of 4-byte keys");
    unsigned int *histo = calloc((size_t)r.bins, sizeof *histo);
    if (!histo)
        fail("out of host memory for %ld bins", r.bins);
    struct run run = {&r, in.buffer, in.size / 4, histo, 0};
    double ms = median_ms(histogram_once, &run, opt.reps);

    printf("%s: %s\n", stage.dir, stage.summary);
    printf("input:      %s, %zu bytes: %zu int32 keys\n", in.name, in.size, run.n);
    printf("bins:       %ld over [%" PRId32 ", %" PRId32 ")\n", r.bins, r.lo, r.hi);
    printf("outside:    %zu keys in no bin\n", run.outside);
    printf("Histogram Sum: %zu\n", run.n - run.outside);
    printf("kernel only: %10.3f ms  %8.2f GB/s  (median of %d runs after %d warm-up)\n", ms,
           gb_per_s(in.size, ms), opt.reps, WARMUP_RUNS);
    /* Checking each key's bin needs the exact rule, which is the exercise: make
     * check holds it, and compares every bin and the keys in no bin. */
    printf("verified:   not here: make check computes every key's bin and compares\n");
    if (v[OPT_PRINT_BINS])
        for (long bin = 0; bin < r.bins; bin++)
            printf("%ld: %u\n", bin, histo[bin]);
    free(histo);
    free_input(&in);
    return EXIT_OK;
}
