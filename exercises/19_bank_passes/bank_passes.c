/*
 * Exercise 19 - chapters 03 and 05's bank conflicts, on the CPU: how many
 * passes shared memory needs for one warp's accesses. Write passes; the rest
 * runs it on hand-made layouts, then on warps of random bytes counted into
 * one copy of the 256 bins (chapter 03) and into a copy per lane (chapter 05).
 *
 *   make run                          hand layouts, then 400000 warps of each layout
 *   make run ARGS='--words 0,32,64'   one warp: lane l on the l-th word
 *   make check
 */
#include "book.h"    /* the input's bytes (fill_input), fail, the exit codes */
#include "harness.h" /* options and usage errors: no need to read it */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LANES     32      /* lanes in a warp */
#define BANKS     32      /* shared memory's banks, each one 4-byte word wide */
#define MAX_WORD  1048575 /* the highest word --words takes: 4 MiB of words, more than fits */
#define MAX_WARPS 4000000

/* ------------------------------------------------------------ your part -- */

/* How many passes shared memory needs when lane l (0 <= l < lanes) of one
 * warp touches the 4-byte word word[l] (the README's task): word w is in
 * bank w % 32; lanes on the same word are served together, in one pass; a
 * pass serves one word in each bank. Reads word[0] to word[lanes - 1] only. */
static int passes(const unsigned word[LANES], int lanes)
{
    /* TODO: this serves one lane a pass, as if no two lanes could be served
     * together. Count the passes the banks really need (the README's task
     * and hints). */
    (void)word;
    return lanes;
}

/* ---------------------------------------------------- the layouts it runs -- */

/* One warp, given by --words: lane l on the l-th word. The slots past the
 * last lane hold words that would conflict with lane 0's, so that reading
 * past `lanes` shows in the answer. */
static int parse_words(const struct stage *stage, const char *text, unsigned word[2 * LANES])
{
    int lanes = 0;
    const char *p = text;
    for (;;) {
        char *end, why[192];
        errno = 0;
        long w = strtol(p, &end, 10);
        if (end == p || errno || w < 0 || w > MAX_WORD || (*end && *end != ',') || lanes == LANES) {
            snprintf(why, sizeof why,
                     "--words takes 1 to %d word indices from 0 to %d separated by commas, one "
                     "per lane, not '%s'",
                     LANES, MAX_WORD, text);
            usage_error(stage, why);
        }
        word[lanes++] = (unsigned)w;
        if (!*end)
            break;
        p = end + 1;
    }
    for (int l = lanes; l < 2 * LANES; l++)
        word[l] = word[0] + BANKS * (unsigned)(l + 1);
    return lanes;
}

/* Hand-made layouts of a whole warp: lane l on word l * stride + offset. */
struct layout {
    const char *what;
    unsigned stride, offset;
};
static const struct layout layouts[] = {
    {"lane l on word l: 32 words in 32 banks", 1, 0},
    {"every lane on word 7: one word", 0, 7},
    {"lane l on word 2l: 16 banks, 2 words each", 2, 0},
    {"lane l on word 32l: 32 words, all in bank 0", 32, 0},
    {"lane l on word 33l: 32 words in 32 banks", 33, 0},
};
#define LAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

/* Warps of bytes, each lane's byte counted into the word the layout gives it:
 * one copy of the bins (word = byte, chapter 03), or a copy per lane (word =
 * byte * 32 + lane, chapter 05's lane-bins). */
enum copies { ONE_COPY, PER_LANE };

struct tally {
    double passes; /* summed over the warps */
    long one_pass; /* warps served in one pass */
};

static struct tally count_warps(const unsigned char *bytes, long warps, enum copies copies)
{
    struct tally t = {0, 0};
    for (long w = 0; w < warps; w++) {
        unsigned word[LANES];
        for (int l = 0; l < LANES; l++) {
            unsigned byte = bytes[w * LANES + l];
            word[l] = copies == ONE_COPY ? byte : byte * LANES + (unsigned)l;
        }
        int p = passes(word, LANES);
        t.passes += p;
        t.one_pass += p == 1;
    }
    return t;
}

static void print_tally(const char *name, const char *what, struct tally t, long warps)
{
    printf("%-11s %.6f passes a warp on average, %ld of %ld warps in one pass (%s)\n", name,
           t.passes / (double)warps, t.one_pass, warps, what);
}

static const struct stage_option own_options[] = {
    {"--warps", "N", "warps of bytes to simulate, 1 to 4000000 (default 400000)"},
    {"--words", "W[,W...]", "one warp instead: lane l on the l-th word, 1 to 32 words"},
    {NULL, NULL, NULL}};
enum { OPT_WARPS, OPT_WORDS };

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "19_bank_passes",
        .program = "bank_passes",
        .summary = "exercise: how many passes shared memory's banks need for one warp",
        .help = "nothing is counted into bins: --seed picks the random bytes, and --size, "
                "--data, --file, --image, --reps, --threads, --csv and --print-bins are "
                "refused (exit 2).",
        .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.size_given || opt.data_given || opt.file || opt.image || opt.reps != DEFAULT_REPS ||
        opt.threads || opt.csv || opt.print_bins)
        usage_error(&stage, "--size, --data, --file, --image, --reps, --threads, --csv and "
                            "--print-bins have no meaning here: --warps and --seed choose the "
                            "bytes");
    long warps = (long)stage_option_number(&stage, &opt, OPT_WARPS, 1, MAX_WARPS, 400000);
    printf("%s: %s\n", stage.dir, stage.summary);
    printf("banks:      %d, each one 4-byte word a pass; word w in bank w %% %d\n", BANKS, BANKS);

    if (opt.stage_values[OPT_WORDS]) {
        if (opt.stage_values[OPT_WARPS])
            usage_error(&stage, "--words is one warp: --warps has no meaning with it");
        unsigned word[2 * LANES];
        int lanes = parse_words(&stage, opt.stage_values[OPT_WORDS], word);
        printf("passes:     %d for %d lanes\n", passes(word, lanes), lanes);
    } else {
        for (int i = 0; i < LAYOUTS; i++) {
            unsigned word[LANES];
            for (int l = 0; l < LANES; l++)
                word[l] = (unsigned)l * layouts[i].stride + layouts[i].offset;
            printf("layout:     %2d passes: %s\n", passes(word, LANES), layouts[i].what);
        }
        size_t size = (size_t)warps * LANES;
        unsigned char *bytes = malloc(size);
        if (!bytes)
            fail("out of host memory for %ld warps", warps);
        printf("warps:      %ld of %d random bytes (seed %llu)\n", warps, LANES,
               (unsigned long long)opt.seed);
        fill_input(DATA_UNIFORM, bytes, size, opt.seed);
        print_tally("one copy:", "word = byte, chapter 03", count_warps(bytes, warps, ONE_COPY),
                    warps);
        print_tally("per lane:", "word = byte * 32 + lane, chapter 05",
                    count_warps(bytes, warps, PER_LANE), warps);
        fill_input(DATA_CONSTANT, bytes, size, opt.seed);
        print_tally("constant:", "every byte the same, one copy",
                    count_warps(bytes, warps, ONE_COPY), warps);
        free(bytes);
    }
    /* The right answer needs the rule, which is the exercise: make check holds it. */
    printf("verified:   not here: make check holds the banks' rule and compares\n");
    return EXIT_OK;
}
