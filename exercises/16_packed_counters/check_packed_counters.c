/*
 * check_packed_counters.c - exercise 16 counts every byte as the CPU does,
 * and does it in 16-bit halves: the program's --show-packing line, made by
 * watching the words from outside add_one, must show 128 words for 256 bins,
 * halves that were used, a flush whenever a bin passes 65535, and no half
 * that ever changed its neighbour. Sizes around 65535 and constant data (one
 * bin holds everything) find the half that carries or wraps.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_counts_the_books_phrase)
{
    check_matches_reference(23 * 10, DATA_TEXT, 1, "");
}
END_TEST

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* What --show-packing printed. */
struct packing {
    bool printed;
    int words, bins;
    unsigned int peak;
    unsigned long long flushes, carries;
};

static struct packing read_packing(const struct stage_output *o)
{
    struct packing p = {0};
    const char *line = strstr(o->out, "\npacking:");
    p.printed = line && sscanf(line + 1,
                               "packing: %d words of two 16-bit halves for %d bins, peak half %u, "
                               "%llu flushes, %llu carries",
                               &p.words, &p.bins, &p.peak, &p.flushes, &p.carries) == 5;
    return p;
}

/* A seed whose constant data is an even byte (the low half of its word) or an odd one. */
static uint64_t constant_seed(bool odd)
{
    for (uint64_t seed = 1;; seed++) {
        unsigned char byte;
        fill_input(DATA_CONSTANT, &byte, 1, seed);
        if ((byte & 1) == odd)
            return seed;
    }
}

/* Runs with --print-bins --show-packing on an input the program makes from
 * input_args (generated data, or --file) and the check holds in buffer;
 * asserts the CPU's bins and sum, "verified", no carry, and at least the
 * flushes the counts need: a half holds at most 65535, so a bin of c > 65535
 * was flushed at least (c - 1) / 65535 times. what says, in words, what the
 * input is, for the failure's message. */
static struct packing check_packed_input(const unsigned char *buffer, size_t size,
                                         const char *input_args, const char *what)
{
    unsigned int expected[BINS] = {0};
    cpu_histogram(buffer, size, expected);
    char args[512];
    snprintf(args, sizeof args, "%s --reps 1 --print-bins --show-packing", input_args);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.bins_printed == BINS, "%s (%s): %s, printed %d bins, expected %d; stderr: %s",
                  args, what, exit_meaning(&o), o.bins_printed, BINS, o.err);
    unsigned long long needed = 0;
    for (int bin = 0; bin < BINS; bin++) {
        ck_assert_msg(o.bins[bin] == expected[bin],
                      "%s (%s): bin %d (the %s half of word %d) is %u, expected %u (the CPU's)",
                      args, what, bin, bin % 2 ? "high" : "low", bin / 2, o.bins[bin],
                      expected[bin]);
        if (expected[bin] > 0)
            needed += (expected[bin] - 1) / 65535;
    }
    ck_assert_msg(o.exit_status == 0, "%s (%s): %s, expected exit 0; stderr: %s", args, what,
                  exit_meaning(&o), o.err);
    ck_assert_msg(o.has_sum && o.sum == size, "%s (%s): Histogram Sum %" PRIu64 ", expected %zu",
                  args, what, o.sum, size);
    ck_assert_msg(o.says_verified, "%s (%s): no 'verified: yes' line", args, what);
    struct packing p = read_packing(&o);
    ck_assert_msg(p.printed, "%s: no 'packing: ...' line; stdout starts: %.300s", args, o.out);
    ck_assert_msg(p.carries == 0,
                  "%s (%s): %llu adds changed the other half of their word, expected 0: a half "
                  "carried into its neighbour, or a flush touched it",
                  args, what, p.carries);
    ck_assert_msg(p.flushes >= needed,
                  "%s (%s): %llu flushes, expected at least %llu: a half cannot hold more than "
                  "65535",
                  args, what, p.flushes, needed);
    return p;
}

/* The same on generated data. */
static struct packing check_packed(size_t size, enum data_kind kind, uint64_t seed)
{
    unsigned char *buffer = malloc(size ? size : 1);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    char args[256], what[64];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %" PRIu64, size, data_kind_name(kind),
             seed);
    snprintf(what, sizeof what, "%s data", data_kind_name(kind));
    struct packing p = check_packed_input(buffer, size, args, what);
    free(buffer);
    return p;
}

/* ------------------------------------------------------------ technique -- */

START_TEST(test_packs_256_bins_into_128_words)
{
    struct packing p = check_packed(65535, DATA_UNIFORM, 7);
    ck_assert_msg(p.words == BINS / 2 && p.bins == BINS,
                  "--size 65535 --show-packing: %d words for %d bins, expected %d for %d", p.words,
                  p.bins, BINS / 2, BINS);
    ck_assert_msg(p.peak > 0,
                  "--size 65535 --show-packing: peak half 0, expected more: no count was ever "
                  "in a 16-bit half (plain 32-bit counters?)");
    ck_assert_msg(p.flushes == 0,
                  "--size 65535 --show-packing: %llu flushes, expected 0: no bin of 65535 "
                  "uniform bytes comes near 65535, so no half needs one",
                  p.flushes);
}
END_TEST

START_TEST(test_a_full_half_is_flushed_in_either_half)
{
    bool odd = _i;
    uint64_t seed = constant_seed(odd);
    struct packing p = check_packed(131072, DATA_CONSTANT, seed);
    ck_assert_msg(p.peak >= 32768 && p.flushes > 0,
                  "--size 131072 --data constant --seed %" PRIu64 " (%s bin) --show-packing: "
                  "peak half %u, %llu flushes; expected flushes, and a peak of 32768 to 65535: "
                  "a half flushed only once it holds at least 32768, as the task asks",
                  seed, odd ? "an odd" : "an even", p.peak, p.flushes);
}
END_TEST

/* The program clears the words before each timed run and counts the same
 * input again: every run must pack it the same way, so the last of five runs
 * shows the packing one run shows. State that outlives a run (a count of adds
 * since the last flush kept beside the halves, say) makes later runs flush
 * at other moments. */
static const char *const rerun_inputs[] = {"--size 200000 --data constant",
                                           "--size 3000000 --data uniform --seed 3"};

START_TEST(test_every_run_packs_the_same_way)
{
    char one[160], five[160];
    snprintf(one, sizeof one, "%s --reps 1 --show-packing", rerun_inputs[_i]);
    snprintf(five, sizeof five, "%s --reps 5 --show-packing", rerun_inputs[_i]);
    struct stage_output a, b;
    run_stage(one, &a);
    run_stage(five, &b);
    ck_assert_msg(a.exit_status == 0 && b.exit_status == 0, "%s: %s; --reps 5: %s", one,
                  exit_meaning(&a), exit_meaning(&b));
    const char *line_a = strstr(a.out, "\npacking:"), *line_b = strstr(b.out, "\npacking:");
    ck_assert_msg(line_a && line_b, "%s: no 'packing:' line: %s", one, line_a ? b.out : a.out);
    size_t length = strcspn(line_a + 1, "\n");
    ck_assert_msg(length == strcspn(line_b + 1, "\n") && strncmp(line_a, line_b, length + 1) == 0,
                  "%s: the last of 5 runs packed the input otherwise than one run:\n  one:  "
                  "%.*s\n  five: %.*s\n(is there state that the next run does not start afresh?)",
                  one, (int)length, line_a + 1, (int)strcspn(line_b + 1, "\n"), line_b + 1);
}
END_TEST

/* ---------------------------------------------------------------- edges -- */

/* Around one and two full halves: the last count that fits, the first that does not. */
static const size_t edge_sizes[] = {65534,  65535,  65536,  65537,  131070,
                                    131071, 131072, 131073, 196605, 196606};
#define EDGE_SIZES ((int)(sizeof edge_sizes / sizeof edge_sizes[0]))

START_TEST(test_constant_data_around_65535_in_either_half)
{
    check_packed(edge_sizes[_i / 2], DATA_CONSTANT, constant_seed(_i % 2));
}
END_TEST

START_TEST(test_every_kind_past_two_full_halves)
{
    check_packed(1000003, (enum data_kind)_i, 1600 + (uint64_t)_i);
    check_packed(3 * 65535 + 1, (enum data_kind)_i, 1700 + (uint64_t)_i);
}
END_TEST

/* ---------------------------------------------------- busy neighbours -- */

/* Inputs where a half fills while the other half of its word holds counts:
 * with one bin only (constant data) the neighbour is always 0, and a flush
 * that empties the whole word, or moves the neighbour's bits into the
 * total, still counts right. Each is a run of bytes, one byte value per run;
 * an even byte is a word's low half, the next odd byte its high half. */
struct run_of_bytes {
    unsigned char byte;
    size_t count;
};
static const struct neighbours {
    const char *what;
    struct run_of_bytes runs[4];
    size_t repeats; /* the runs, this many times over */
} neighbours[] = {
    {"byte 64 70000 times, then byte 65 70000 times: the high half fills while the low half "
     "holds what its flush left",
     {{64, 70000}, {65, 70000}, {0, 0}, {0, 0}},
     1},
    {"byte 65 300 times, then byte 64 200000 times: a low half fills three times while its "
     "high half holds 300",
     {{65, 300}, {64, 200000}, {0, 0}, {0, 0}},
     1},
    {"byte 200 300 times, then byte 201 200000 times: a high half fills three times while its "
     "low half holds 300",
     {{200, 300}, {201, 200000}, {0, 0}, {0, 0}},
     1},
    {"bytes 64 and 65 in turn, 150000 times each: both halves of one word fill together",
     {{64, 1}, {65, 1}, {0, 0}, {0, 0}},
     150000},
    {"byte 64 65535 times, byte 65 65535 times, then one more of each: both halves full at "
     "once, where a carry out of the low half would wrap the high half",
     {{64, 65535}, {65, 65535}, {64, 1}, {65, 1}},
     1},
    {"byte 7 99 times and byte 6 once, over and over: an odd bin far ahead of its even "
     "neighbour",
     {{7, 99}, {6, 1}, {0, 0}, {0, 0}},
     2000},
};
#define NEIGHBOURS ((int)(sizeof neighbours / sizeof neighbours[0]))

START_TEST(test_a_full_half_leaves_its_busy_neighbour_alone)
{
    const struct neighbours *n = &neighbours[_i];
    size_t size = 0;
    for (size_t r = 0; r < n->repeats; r++)
        for (int k = 0; k < 4; k++)
            size += n->runs[k].count;
    unsigned char *buffer = malloc(size);
    ck_assert(buffer != NULL);
    size_t at = 0;
    for (size_t r = 0; r < n->repeats; r++)
        for (int k = 0; k < 4; k++)
            for (size_t c = 0; c < n->runs[k].count; c++)
                buffer[at++] = n->runs[k].byte;
    /* removed at once, and read through the descriptor the program inherits, so that a
     * failure leaves nothing in /tmp */
    char path[] = "/tmp/packed_counters_XXXXXX", args[128];
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot make a file in /tmp");
    unlink(path);
    ck_assert_msg(write(fd, buffer, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0,
                  "cannot write %s", path);
    snprintf(args, sizeof args, "--file /dev/fd/%d", fd);
    check_packed_input(buffer, size, args, n->what);
    close(fd);
    free(buffer);
}
END_TEST

/* Every bin past 65535 on uniform bytes: every half fills while its neighbour holds about as
 * much (about 78000 each). */
START_TEST(test_every_half_fills_beside_its_neighbour)
{
    check_packed(20000000, DATA_UNIFORM, 1616);
}
END_TEST

/* ------------------------------------------ the three functions, one call at a time -- */

/* The Makefile builds check_halves.c, which includes the file under test,
 * into packed_counters-functions beside this check (and, where the compiler
 * has UBSan, packed_counters-functions-ubsan): it runs one of the three
 * functions on one word and one total, all the words and totals but these
 * at 0. The program only ever flushes a half add_one found full; here each
 * function must keep its own comment, on any word. */
static char functions[4096], functions_ubsan[4096];
static const char *functions_under_test = functions;

/* Beside the check, a program the Makefile built: its path, from the check's own. */
static void program_beside_check(char *path, size_t size, const char *check, const char *name)
{
    snprintf(path, size, "%s", check);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, size - (size_t)(slash ? slash + 1 - path : 0), "%s", name);
}

/* Runs one call; returns what it printed (word and total; for unpack, bin's
 * count in *word_after and the other bins it got wrong in *total_after). */
static void call_function(const char *call, unsigned int bin, uint32_t word, uint32_t total,
                          uint32_t *word_after, uint32_t *total_after)
{
    char command[8192], line[256] = "";
    snprintf(command, sizeof command, "'%s' %s %u %" PRIu32 " %" PRIu32 " 2>&1",
             functions_under_test, call, bin, word, total);
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    char all[2048] = "";
    while (fgets(line, sizeof line, out))
        if (strlen(all) + strlen(line) < sizeof all)
            strcat(all, line);
    int status = pclose(out);
    bool read =
        strcmp(call, "unpack") == 0
            ? sscanf(all, "count %" SCNu32 " others-wrong %" SCNu32, word_after, total_after) == 2
            : sscanf(all, "word %" SCNu32 " total %" SCNu32, word_after, total_after) == 2;
    ck_assert_msg(status == 0 && read,
                  "%s(words, totals, %u) with words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32
                  ": %s stopped (status %d) and said:\n%.1500s",
                  call, bin, bin / 2, word, bin, total, functions_under_test, status, all);
}

/* A word with count in bin's half and other in the neighbour's. */
static uint32_t word_of(unsigned int bin, uint32_t count, uint32_t other)
{
    return bin % 2 ? count << 16 | other : other << 16 | count;
}

static const unsigned int call_bins[] = {0, 1, 254, 255};
static const uint32_t call_counts[] = {0, 1, 300, 32767, 32768, 65534, 65535};
static const uint32_t call_others[] = {0, 300, 65535};
#define CALL_BINS   ((int)(sizeof call_bins / sizeof call_bins[0]))
#define CALL_COUNTS ((int)(sizeof call_counts / sizeof call_counts[0]))
#define CALL_OTHERS ((int)(sizeof call_others / sizeof call_others[0]))

static void check_each_function(unsigned int bin)
{
    for (int c = 0; c < CALL_COUNTS; c++)
        for (int o = 0; o < CALL_OTHERS; o++) {
            uint32_t count = call_counts[c], other = call_others[o], total = 1000;
            uint32_t word = word_of(bin, count, other), after, total_after;
            unsigned int shift = bin % 2 * 16;
            /* flush: the whole count moves to the total, the half empties, the neighbour stays */
            call_function("flush", bin, word, total, &after, &total_after);
            ck_assert_msg(
                after == word_of(bin, 0, other) && total_after == total + count,
                "flush(words, totals, %u) with words[%u] = 0x%08" PRIx32 " (%" PRIu32
                " in bin %u's half, %" PRIu32 " in its neighbour's) and totals[%u] = %" PRIu32
                ": words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32 ", expected 0x%08" PRIx32
                " and %" PRIu32 " (the count the half holds moves out; the half empties; the "
                "neighbour stays as it was)",
                bin, bin / 2, word, count, bin, other, bin, total, bin / 2, after, bin, total_after,
                word_of(bin, 0, other), total + count);
            /* unpack: the total and what the half still holds */
            call_function("unpack", bin, word, total, &after, &total_after);
            ck_assert_msg(after == total + count,
                          "unpack with words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32
                          ": bin %u counts %" PRIu32 ", expected %" PRIu32,
                          bin / 2, word, bin, total, bin, after, total + count);
            ck_assert_msg(total_after == 0,
                          "unpack with words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32
                          ", into a histo that held 0xA5A5A5A5 in every bin: %" PRIu32
                          " other bins are not their total plus their half: unpack sets every "
                          "bin, empty ones to 0, whatever histo held",
                          bin / 2, word, bin, total, total_after);
            /* add_one: one more in this bin, none in the neighbour; no half past 65535, and
             * no flush below 32768. Not on a half that holds 65535: a design that flushes
             * as soon as its add reaches 65535 never leaves one, and is right too. */
            if (count == 65535)
                continue;
            call_function("add", bin, word, total, &after, &total_after);
            uint32_t half = after >> shift & 0xffff, neighbour = after >> (16 - shift) & 0xffff;
            ck_assert_msg(
                neighbour == other && (uint64_t)half + total_after == count + 1 + total &&
                    (count + 1 >= 32768 || half == count + 1),
                "add_one(words, totals, %u) with words[%u] = 0x%08" PRIx32 " (%" PRIu32
                " in bin %u's half, %" PRIu32 " in its neighbour's) and totals[%u] = %" PRIu32
                ": words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32
                " (expected one more count in bin %u, half and total together, "
                "the neighbour's %" PRIu32 " untouched%s)",
                bin, bin / 2, word, count, bin, other, bin, total, bin / 2, after, bin, total_after,
                bin, other, count + 1 < 32768 ? ", and no flush below 32768" : "");
        }
}

/* flush and unpack on totals past 2^24, 2^31 and up to 2^32 - 1 (a total is
 * an unsigned int: a bin of 2^32 - 1 bytes ends there): no float, int or
 * narrower number on the way. */
static void check_large_totals(unsigned int bin)
{
    static const uint32_t totals[] = {16777215, 16777216, 2147483647, 4294901760u};
    static const uint32_t counts[] = {1, 3, 65534, 65535};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            uint32_t total = totals[t], count = counts[c], word = word_of(bin, count, 300);
            uint32_t after, total_after;
            call_function("flush", bin, word, total, &after, &total_after);
            ck_assert_msg(after == word_of(bin, 0, 300) && total_after == total + count,
                          "flush(words, totals, %u) with words[%u] = 0x%08" PRIx32
                          " and totals[%u] = %" PRIu32 ": words[%u] = 0x%08" PRIx32
                          " and totals[%u] = %" PRIu32 ", expected 0x%08" PRIx32 " and %" PRIu32
                          " (a total reaches 2^32 - 1: every step of the sum exact that far)",
                          bin, bin / 2, word, bin, total, bin / 2, after, bin, total_after,
                          word_of(bin, 0, 300), total + count);
            call_function("unpack", bin, word, total, &after, &total_after);
            ck_assert_msg(after == total + count,
                          "unpack with words[%u] = 0x%08" PRIx32 " and totals[%u] = %" PRIu32
                          ": bin %u counts %" PRIu32 ", expected %" PRIu32
                          " (a count reaches 2^32 - 1: every step of the sum exact that far)",
                          bin / 2, word, bin, total, bin, after, total + count);
        }
}

START_TEST(test_each_function_keeps_its_comment_on_any_word)
{
    check_each_function(call_bins[_i]);
    check_large_totals(call_bins[_i]);
}
END_TEST

/* add_one called 200000 times on one bin whose neighbour holds 300, the word
 * read after every call by check_halves itself (not by the program's
 * watch()): the half never flushed below 32768, flushed as often as it must,
 * the neighbour never changed, and half and total together the calls. */
static const struct {
    unsigned int bin;
    uint32_t half, total;
} many_adds[] = {{1, 0, 0}, {254, 0, 0}, {0, 65000, 7}, {255, 40000, 4294000000u}};
#define MANY_ADDS ((int)(sizeof many_adds / sizeof many_adds[0]))

START_TEST(test_many_adds_seen_from_outside)
{
    const unsigned long n = 200000;
    unsigned int bin = many_adds[_i].bin;
    uint32_t word = word_of(bin, many_adds[_i].half, 300), total = many_adds[_i].total;
    char command[8192], all[1024] = "";
    snprintf(command, sizeof command, "'%s' adds %u %" PRIu32 " %" PRIu32 " %lu 2>&1",
             functions_under_test, bin, word, total, n);
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    size_t got = fread(all, 1, sizeof all - 1, out);
    all[got] = '\0';
    int status = pclose(out);
    unsigned long peak, lowest, flushes, changes, half, total_after;
    bool read = sscanf(all,
                       "peak %lu lowest-flush %lu flushes %lu neighbour-changes %lu half %lu "
                       "total %lu",
                       &peak, &lowest, &flushes, &changes, &half, &total_after) == 6;
    ck_assert_msg(status == 0 && read, "%s: stopped (status %d) and said:\n%.900s", command, status,
                  all);
    uint64_t want = (uint64_t)many_adds[_i].half + total + n;
    unsigned long needed = (unsigned long)((many_adds[_i].half + n - 1) / 65535);
    char what[256];
    snprintf(what, sizeof what,
             "add_one(words, totals, %u) %lu times, from words[%u] = 0x%08" PRIx32 " (%" PRIu32
             " in bin %u's half, 300 in its neighbour's) and totals[%u] = %" PRIu32,
             bin, n, bin / 2, word, many_adds[_i].half, bin, bin, total);
    ck_assert_msg(changes == 0, "%s: %lu calls changed the neighbour's half, expected none", what,
                  changes);
    ck_assert_msg((uint64_t)half + total_after == want,
                  "%s: half %lu and total %lu, together %" PRIu64 ", expected %" PRIu64, what, half,
                  total_after, (uint64_t)half + total_after, want);
    ck_assert_msg(flushes == 0 || lowest >= 32768,
                  "%s: a call emptied the half when it held %lu, expected no flush below 32768",
                  what, lowest);
    ck_assert_msg(flushes >= needed && peak <= 65535,
                  "%s: %lu flushes (peak half %lu), expected at least %lu: a half holds at most "
                  "65535",
                  what, flushes, peak, needed);
}
END_TEST

/* A bin of 258 x 65535 + 3 bytes (a file of byte 7), past 2^24: its total
 * passes 2^24 at an odd number, which a float does not hold, both in a flush
 * and in the unpack. */
START_TEST(test_a_bin_past_2_24)
{
    size_t size = 258 * (size_t)65535 + 3;
    unsigned char *buffer = malloc(size);
    ck_assert(buffer != NULL);
    memset(buffer, 7, size);
    /* 16 MiB: removed at once, and read through the descriptor the program inherits, so
     * that a failure leaves nothing in /tmp */
    char path[] = "/tmp/packed_counters_XXXXXX", args[128];
    int fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "cannot make a file in /tmp");
    unlink(path);
    ck_assert_msg(write(fd, buffer, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0,
                  "cannot write %s", path);
    snprintf(args, sizeof args, "--file /dev/fd/%d", fd);
    check_packed_input(buffer, size, args, "258 x 65535 + 3 bytes of 7: bin 7 passes 2^24");
    close(fd);
    free(buffer);
}
END_TEST

START_TEST(test_each_function_has_no_undefined_behaviour)
{
    functions_under_test = functions_ubsan;
    check_each_function(call_bins[_i]);
    check_large_totals(call_bins[_i]);
}
END_TEST

/* --threads takes only 1 here (one thread makes every add): 4 is bad usage. */
START_TEST(test_threads_above_one_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--size 1000 --threads 4", &o);
    size_t first = strcspn(o.err, "\n");
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(first < 500 ? first : 500), o.err);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(line, "--threads"),
                  "--size 1000 --threads 4: %s, expected exit 2 (bad usage: --threads takes "
                  "only 1) and a first line of stderr that names --threads; it was: '%s'",
                  exit_meaning(&o), line);
}
END_TEST

/* With no options: the book's 100 MiB of uniform bytes, seed 1, on one
 * thread, every bin right (the program's own 'verified: yes' and the sum),
 * and no packing line unless --show-packing asks for it. */
START_TEST(test_the_defaults)
{
    struct stage_output o;
    run_stage("", &o);
    ck_assert_msg(o.exit_status == 0, "no options: %s, stderr: %s", exit_meaning(&o), o.err);
    static const char *const lines[] = {"input:      uniform, 104857600 bytes, seed 1\n",
                                        "threads:    1\n", "Histogram Sum: 104857600\n",
                                        "verified:   yes"};
    for (int l = 0; l < 4; l++)
        ck_assert_msg(strstr(o.out, lines[l]) != NULL,
                      "no options (the defaults: 100 MiB of uniform bytes, seed 1, one thread): "
                      "expected the line '%.*s', got:\n%.600s",
                      (int)strcspn(lines[l], "\n"), lines[l], o.out);
    ck_assert_msg(strstr(o.out, "packing:") == NULL,
                  "no options: a 'packing:' line, which only --show-packing asks for:\n%.600s",
                  o.out);
}
END_TEST

/* --csv prints only CSV, --show-packing or not: every line of stdout has the
 * header's commas. */
START_TEST(test_csv_with_show_packing_prints_only_csv)
{
    check_stdout_is_only_csv("--size 1000 --reps 1 --csv --show-packing", 2);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("16_packed_counters", argc, argv);
    Suite *suite = suite_create("exercise 16: two 16-bit counters in each 32-bit word");
    TCase *counting = exercise_tcase("counts every byte, as the CPU does", 1);
    tcase_set_timeout(counting, 60);
    tcase_add_test(counting, test_counts_the_books_phrase);
    tcase_add_loop_test(counting, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    add_tcase(suite, counting, 1 + MATRIX_CASES);
    TCase *halves = exercise_tcase("the counts live in 16-bit halves, flushed when full", 3);
    tcase_set_timeout(halves, 60);
    tcase_add_test(halves, test_packs_256_bins_into_128_words);
    tcase_add_loop_test(halves, test_a_full_half_is_flushed_in_either_half, 0, 2);
    tcase_add_loop_test(halves, test_every_run_packs_the_same_way, 0, 2);
    add_tcase(suite, halves, 5);
    TCase *edges = exercise_tcase("no half carries: sizes around 65535, either half", 3);
    tcase_set_timeout(edges, 120);
    tcase_add_loop_test(edges, test_constant_data_around_65535_in_either_half, 0, 2 * EDGE_SIZES);
    tcase_add_loop_test(edges, test_every_kind_past_two_full_halves, 0, 4);
    add_tcase(suite, edges, 2 * EDGE_SIZES + 4);
    TCase *busy = exercise_tcase("a full half beside a neighbour that holds counts", 2);
    tcase_set_timeout(busy, 120);
    tcase_add_loop_test(busy, test_a_full_half_leaves_its_busy_neighbour_alone, 0, NEIGHBOURS);
    tcase_add_test(busy, test_every_half_fills_beside_its_neighbour);
    tcase_add_test(busy, test_a_bin_past_2_24);
    add_tcase(suite, busy, NEIGHBOURS + 2);
    program_beside_check(functions, sizeof functions, argv[0], "packed_counters-functions");
    program_beside_check(functions_ubsan, sizeof functions_ubsan, argv[0],
                         "packed_counters-functions-ubsan");
    TCase *calls = exercise_tcase("each function alone, on any word", 2);
    tcase_set_timeout(calls, 60);
    tcase_add_loop_test(calls, test_each_function_keeps_its_comment_on_any_word, 0, CALL_BINS);
    tcase_add_loop_test(calls, test_many_adds_seen_from_outside, 0, MANY_ADDS);
    add_tcase(suite, calls, CALL_BINS + MANY_ADDS);
    TCase *ubsan = exercise_tcase("each function alone, under UBSan: no undefined behaviour", 2);
    tcase_set_timeout(ubsan, 60);
    tcase_add_loop_test(ubsan, test_each_function_has_no_undefined_behaviour, 0, CALL_BINS);
    if (access(functions_ubsan, X_OK) == 0)
        add_tcase(suite, ubsan, CALL_BINS);
    else {
        printf("%s: not run here: this compiler has no -fsanitize=undefined\n", functions_ubsan);
        add_skipped(CALL_BINS);
    }
    int usage_checks = 0;
    TCase *usage = usage_tcase(false, &usage_checks);
    tcase_add_test(usage, test_threads_above_one_is_a_usage_error);
    tcase_add_test(usage, test_csv_with_show_packing_prints_only_csv);
    tcase_add_test(usage, test_the_defaults);
    add_tcase(suite, usage, usage_checks + 3);
    return run_exercise(suite);
}
