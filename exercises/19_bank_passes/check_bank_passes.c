/*
 * check_bank_passes.c - exercise 19 counts the passes shared memory needs
 * for one warp: 32 banks, word w in bank w % 32, lanes on one word served
 * together, one word a bank a pass. The check runs the program on one warp
 * at a time (--words) against answers worked out by hand, then tests laws
 * any right count keeps, then the rule itself (held here, by another method)
 * on random warps and on warps crowded into one bank, then the simulated warps of random bytes against the
 * exact expectation, computed here without simulating, and the per-lane
 * layout against exactly one pass. Then the program built with AddressSanitizer
 * and UBSan, on words up to the highest, which must read and write nothing out
 * of bounds.
 */
#include "stage_checks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LANES    32
#define BANKS    32
#define MAX_WORD 1048575 /* the highest word --words takes */

/* ------------------------------------------------------ one warp at a time -- */

/* The program's passes for one warp, lane l on word[l]. */
static int run_words(const unsigned *word, int lanes)
{
    char args[512] = "--words ";
    for (int l = 0; l < lanes; l++)
        snprintf(args + strlen(args), sizeof args - strlen(args), "%s%u", l ? "," : "", word[l]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args, exit_meaning(&o),
                  o.err);
    const char *line = strstr(o.out, "\npasses:");
    int got = -1, said_lanes = -1;
    ck_assert_msg(line && sscanf(line + 1, "passes: %d for %d lanes", &got, &said_lanes) == 2,
                  "%s: no 'passes: N for L lanes' line: %.400s", args, o.out);
    ck_assert_msg(said_lanes == lanes, "%s: the program read %d lanes, expected %d", args,
                  said_lanes, lanes);
    return got;
}

/* Each answer worked out by hand from the README's rule. */
struct known {
    const char *words;
    int passes;
    const char *why;
};

static const struct known known[] = {
    {"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31", 1,
     "32 lanes on 32 words in 32 different banks: one pass"},
    {"7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7", 1,
     "32 lanes on one word: served together, one pass"},
    {"0,32", 2, "words 0 and 32 are two words of bank 0: a bank conflict, two passes"},
    {"0,32,0,32", 2,
     "two words of bank 0, each touched by two lanes: the lanes on one word are served "
     "together, so two passes, not four"},
    {"0,32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512,544,576,608,640,672,704,"
     "736,768,800,832,864,896,928,960,992",
     32, "32 different words, all in bank 0: 32 passes"},
    {"5", 1, "one lane: one pass"},
    {"3,35,67", 3, "three lanes on three words of bank 3: three passes"},
    {"0,1,32,33,64", 3,
     "five lanes: bank 0 gets words 0, 32 and 64, bank 1 words 1 and 33: the busiest bank sets "
     "it, three passes"},
    {"100,100,132,4", 3,
     "words 100, 132 and 4 are all in bank 4 (100 twice, served together): three passes"},
    {"31,63,63,63", 2, "bank 31 gets words 31 and 63 (63 three times): two passes"},
    {"33,66,99,132,165,198,231,264", 1,
     "word 33l is in bank l: eight words in eight banks, one pass"},
    {"2,4,34,36,66,68", 3, "banks 2 and 4 each get three words: three passes, not six"},
    {"0,1024", 2,
     "words 0 and 1024 are two different words of bank 0, however far apart: two passes"},
    {"5,65541,5", 2,
     "words 5 and 65541 (65536 + 5) are two different words of bank 5, 5 touched twice: two "
     "passes"},
    {"0,32,64,96,128,160,192,224,256,288,320,352,384,416,448,480,512,512", 17,
     "17 different words of bank 0 (0, 32, ... 512), then word 512 again, served with its "
     "first lane: 17 passes"},
    {"1048575,31,524319,31", 3,
     "the highest word --words takes, 1048575, and words 31 and 524319 (2^19 + 31): three "
     "different words of bank 31, three passes"},
    {"31,30,29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0", 1,
     "32 lanes on words 31 down to 0, a stride of -1: 32 words in 32 different banks, one pass, "
     "as going up"},
    {"62,60,58,56,54,52,50,48,46,44,42,40,38,36,34,32,30,28,26,24,22,20,18,16,14,12,10,8,6,4,2,"
     "0",
     2,
     "32 lanes on words 62 down to 0, a stride of -2: the 16 even banks get two words each, "
     "two passes, as going up"},
    {"372,360,348,336,324,312,300,288,276,264,252,240,228,216,204,192,180,168,156,144,132,120,"
     "108,96,84,72,60,48,36,24,12,0",
     4,
     "32 lanes on words 372 down to 0, a stride of -12: banks 0, 4, ... 28 get four words each, "
     "four passes, as going up"},
};
#define KNOWN ((int)(sizeof known / sizeof known[0]))

START_TEST(test_hand_layouts_have_known_passes)
{
    const struct known *k = &known[_i];
    unsigned word[LANES];
    int lanes = 0;
    for (char *p = (char *)k->words; *p; p += *p == ',')
        word[lanes++] = (unsigned)strtoul(p, &p, 10);
    int got = run_words(word, lanes);
    ck_assert_msg(got == k->passes, "--words %s: your passes says %d, expected %d: %s", k->words,
                  got, k->passes, k->why);
}
END_TEST

/* ----------------------------------------------------------- random warps -- */

/* A small generator of the check's own (splitmix64): the same warps every run. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Warp i: 1 to 32 lanes on words drawn from the first 32 x k words (k from 1
 * to 8), so that banks get several words and some words several lanes. */
static int random_warp(int i, unsigned word[LANES])
{
    uint64_t state = 1000 + (uint64_t)i;
    int lanes = 1 + (int)(next_random(&state) % LANES);
    if (i % 4 == 0)
        lanes = LANES;
    unsigned range = BANKS * (1 + (unsigned)(next_random(&state) % 8));
    for (int l = 0; l < lanes; l++)
        word[l] = (unsigned)(next_random(&state) % range);
    return lanes;
}
/* Wide warp i: the same, on words from the whole range --words takes, in
 * one to three banks, on rows (word / 32) that differ from one row in a
 * single bit: words that agree in all their low bits but are different
 * words, so that a word or row kept in too few bits shows. */
static int wide_warp(int i, unsigned word[LANES])
{
    uint64_t state = 5000 + (uint64_t)i;
    int lanes = 1 + (int)(next_random(&state) % LANES);
    if (i % 4 == 0)
        lanes = LANES;
    unsigned banks[3], rows = (MAX_WORD + 1) / BANKS;
    int in_banks = 1 + (int)(next_random(&state) % 3);
    for (int b = 0; b < in_banks; b++)
        banks[b] = (unsigned)(next_random(&state) % BANKS);
    unsigned row = (unsigned)(next_random(&state) % rows);
    for (int l = 0; l < lanes; l++) {
        unsigned flip = next_random(&state) % 4 ? 1u << (next_random(&state) % 15) : 0;
        word[l] = (row ^ flip) * BANKS + banks[next_random(&state) % (unsigned)in_banks];
    }
    return lanes;
}
/* Scattered warp i: 32 lanes in one or two banks, on rows drawn from the whole
 * range at random: rows that agree in no bits in particular, so that a row kept
 * modulo some number, or hashed into a small table, meets another row's. */
static int scattered_warp(int i, unsigned word[LANES])
{
    uint64_t state = 9000 + (uint64_t)i;
    unsigned banks[2], rows = (MAX_WORD + 1) / BANKS;
    int in_banks = 1 + i % 2;
    for (int b = 0; b < in_banks; b++)
        banks[b] = (unsigned)(next_random(&state) % BANKS);
    for (int l = 0; l < LANES; l++)
        word[l] = (unsigned)(next_random(&state) % rows) * BANKS +
                  banks[next_random(&state) % (unsigned)in_banks];
    return LANES;
}
#define NARROW_WARPS    24
#define WIDE_WARPS      12
#define SCATTERED_WARPS 12
#define RANDOM_WARPS    (NARROW_WARPS + WIDE_WARPS + SCATTERED_WARPS)

/* Random warp i of the three kinds: the narrow ones first. */
static int any_warp(int i, unsigned word[LANES])
{
    if (i < NARROW_WARPS)
        return random_warp(i, word);
    if (i < NARROW_WARPS + WIDE_WARPS)
        return wide_warp(i - NARROW_WARPS, word);
    return scattered_warp(i - NARROW_WARPS - WIDE_WARPS, word);
}

START_TEST(test_passes_keep_their_laws)
{
    unsigned word[LANES], turned[LANES] = {0};
    int lanes = any_warp(_i, word);
    int got = run_words(word, lanes);
    ck_assert_msg(got >= 1 && got <= lanes,
                  "random warp %d (%d lanes): your passes says %d; a warp takes at least one pass "
                  "and at most one a lane (each lane alone), so 1 to %d",
                  _i, lanes, got, lanes);
    for (int l = 0; l < lanes; l++) /* the same lanes backwards */
        turned[l] = word[lanes - 1 - l];
    int backwards = run_words(turned, lanes);
    for (int l = 0; l < lanes; l++) /* and turned by a third */
        turned[l] = word[(l + lanes / 3) % lanes];
    int rotated = run_words(turned, lanes);
    ck_assert_msg(backwards == got && rotated == got,
                  "random warp %d (%d lanes): your passes says %d, but %d for the same words in "
                  "reverse order and %d turned by a third: which lane touches which word cannot "
                  "change the passes",
                  _i, lanes, got, backwards, rotated);
}
END_TEST

/* The rule, by another method than a count per bank: sort the words, drop
 * repeats, and find the longest run of words of one bank. */
static int compare_by_bank(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    if (x % BANKS != y % BANKS)
        return x % BANKS < y % BANKS ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int rule_passes(const unsigned *word, int lanes)
{
    unsigned sorted[LANES];
    memcpy(sorted, word, (size_t)lanes * sizeof *word);
    qsort(sorted, (size_t)lanes, sizeof *sorted, compare_by_bank);
    int most = 0, run = 0;
    for (int l = 0; l < lanes; l++) {
        if (l > 0 && sorted[l] == sorted[l - 1])
            continue; /* the same word: served with the one before */
        run = l > 0 && sorted[l] % BANKS == sorted[l - 1] % BANKS ? run + 1 : 1;
        most = run > most ? run : most;
    }
    return most;
}

/* A warp's words as --words takes them, comma-separated, into list. */
static void words_list(const unsigned *word, int lanes, char *list, size_t size)
{
    list[0] = '\0';
    for (int l = 0; l < lanes; l++)
        snprintf(list + strlen(list), size - strlen(list), "%s%u", l ? "," : "", word[l]);
}

START_TEST(test_passes_follow_the_banks_rule)
{
    unsigned word[LANES];
    int lanes = any_warp(_i, word);
    int got = run_words(word, lanes), expected = rule_passes(word, lanes);
    char list[512];
    words_list(word, lanes, list, sizeof list);
    ck_assert_msg(got == expected,
                  "--words %s: your passes says %d, expected %d: the most different words any "
                  "one bank gets (lanes on one word count once)",
                  list, got, expected);
}
END_TEST

/* Crowded warp i: 32 lanes in one bank, on rows drawn at random from the whole
 * range, a few lanes on an earlier lane's word: 496 pairs of lanes a warp, so
 * that two different words taken as one (a word found through a hash, or kept
 * in a table or a number too small for the whole range) cost a pass somewhere
 * among a few hundred warps. */
static int crowded_warp(int i, unsigned word[LANES])
{
    uint64_t state = 20000 + (uint64_t)i;
    unsigned bank = (unsigned)(next_random(&state) % BANKS), rows = (MAX_WORD + 1) / BANKS;
    for (int l = 0; l < LANES; l++)
        word[l] = l > 0 && next_random(&state) % 8 == 0
                      ? word[next_random(&state) % (unsigned)l]
                      : (unsigned)(next_random(&state) % rows) * BANKS + bank;
    return LANES;
}
#define CROWDED_WARPS 512

START_TEST(test_different_words_in_one_bank_each_take_a_pass)
{
    unsigned word[LANES];
    int lanes = crowded_warp(_i, word);
    int got = run_words(word, lanes), expected = rule_passes(word, lanes);
    char list[512];
    words_list(word, lanes, list, sizeof list);
    ck_assert_msg(got == expected,
                  "%d different words of bank %u: your passes says %d, expected %d; two "
                  "different words are never served together, however alike their bits or "
                  "a hash of them: --words %s",
                  expected, word[0] % BANKS, got, expected, list);
}
END_TEST

/* ----------------------------------------------- warps of random bytes -- */

/* The exact expected passes of a warp of 32 uniform random bytes in one
 * copy of 256 bins (8 words a bank), from chapter 03's model, without
 * simulating: P(no bank gets more than m words) by exponential generating
 * functions. One bank's ways of taking n lanes on at most m of its 8 words:
 * sum over j <= m of C(8, j) j! S(n, j) (S: Stirling numbers of the second
 * kind); 32 banks multiply; each term is scaled by 1/256^n so that the
 * coefficient times 32! is a probability. Every term is positive, so long
 * double keeps it to many digits. E[passes] = sum over m of P(max > m). */
static long double at_most(int m, long double stirling[LANES + 1][LANES + 1])
{
    long double bank[LANES + 1], power[LANES + 1] = {1};
    long double factorial = 1, scale = 1; /* n! and 256^n */
    for (int n = 0; n <= LANES; n++) {
        long double choose = 1, ways = 0; /* C(8, j) j!, the 8 words' falling factorial */
        for (int j = 0; j <= m && j <= n; j++) {
            ways += choose * stirling[n][j];
            choose *= 8 - j;
        }
        if (n > 0)
            factorial *= n, scale *= 256;
        bank[n] = ways / factorial / scale;
    }
    for (int b = 0; b < BANKS; b++) /* power = bank^(b + 1), up to x^32 */
        for (int n = LANES; n >= 0; n--) {
            long double sum = 0;
            for (int k = 0; k <= n; k++)
                sum += (b == 0 ? (k == 0) : power[k]) * bank[n - k];
            power[n] = sum;
        }
    return power[LANES] * factorial; /* factorial is 32! here */
}

static long double expected_passes(long double *one_pass)
{
    static long double stirling[LANES + 1][LANES + 1];
    stirling[0][0] = 1;
    for (int n = 1; n <= LANES; n++)
        for (int k = 1; k <= n; k++)
            stirling[n][k] = k * stirling[n - 1][k] + stirling[n - 1][k - 1];
    long double mean = 0;
    for (int m = 0; m < 8; m++)
        mean += 1 - at_most(m, stirling);
    *one_pass = at_most(1, stirling);
    return mean;
}

/* What the program printed for one layout of the simulated warps. */
struct tally {
    bool printed;
    double mean;
    long one_pass, warps;
};

static struct tally read_tally(const char *out, const char *name)
{
    struct tally t = {0};
    char format[96];
    snprintf(format, sizeof format, "%s %%lf passes a warp on average, %%ld of %%ld", name);
    for (const char *line = out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (sscanf(line, format, &t.mean, &t.one_pass, &t.warps) == 3)
            t.printed = true;
    return t;
}

#define SIMULATED "--warps 400000 --seed 1"
#define TOLERANCE 0.01 /* passes: more than 10 standard errors of 400000 warps' mean */

START_TEST(test_random_bytes_in_one_copy_take_about_3_15_passes)
{
    long double one_pass;
    long double exact = expected_passes(&one_pass);
    /* the check's own arithmetic, against chapter 03's two numbers */
    ck_assert_msg(
        exact > 3.145L && exact < 3.155L && one_pass > 1.9475e-8L && one_pass < 1.9485e-8L,
        "the check's own arithmetic is wrong: %.6Lf passes, %.4Lg one-pass warps", exact, one_pass);
    struct stage_output o;
    run_stage(SIMULATED, &o);
    ck_assert_msg(o.exit_status == 0, SIMULATED ": %s, expected exit 0; stderr: %s",
                  exit_meaning(&o), o.err);
    static const int layout_passes[] = {1, 1, 2, 32, 1};
    int l = 0;
    for (const char *line = strstr(o.out, "\nlayout:"); line && l < 5;
         line = strstr(line + 1, "\nlayout:"), l++) {
        int got = -1;
        sscanf(line + 1, "layout: %d", &got);
        ck_assert_msg(got == layout_passes[l],
                      SIMULATED ": hand layout %d says %d passes, expected %d: %.120s", l + 1, got,
                      layout_passes[l], line + 1);
    }
    ck_assert_msg(l == 5, SIMULATED ": %d 'layout:' lines, expected 5: %.400s", l, o.out);
    struct tally t = read_tally(o.out, "one copy:");
    ck_assert_msg(t.printed && t.warps == 400000,
                  SIMULATED ": no 'one copy: M passes a warp on average, K of 400000' line: "
                            "%.600s",
                  o.out);
    ck_assert_msg(t.mean > (double)exact - TOLERANCE && t.mean < (double)exact + TOLERANCE,
                  SIMULATED ": one copy of the bins (word = byte) takes %.6f passes a warp on "
                            "average; chapter 03's model expects %.6Lf (worked out exactly "
                            "here), within %.2f",
                  t.mean, exact, TOLERANCE);
    ck_assert_msg(t.one_pass <= 2,
                  SIMULATED ": %ld of 400000 warps of random bytes in one pass; chapter 03's "
                            "model expects one in about 51 million warps",
                  t.one_pass);
}
END_TEST

/* Also runs past 65536 calls of passes: 5 hand layouts and 65530 warps in one
 * copy make 65535, so the first warp of the copy per lane is call 65536, and
 * many of its words were never touched before. An answer that marks words
 * seen with a 16-bit call number comes round to the 0 every untouched word
 * holds there, and finds the warp's words seen: 0 passes (seeds 4 and 9: all
 * 32 words untouched; such seeds found by trying 1 to 60). And 2^k - 6 warps
 * for k = 17 to 21, for a call number of 17 to 21 bits (a few seconds). */
static const char *const one_pass_runs[] = {
    SIMULATED, "--warps 5000 --seed 7", "--warps 1 --seed 3", "--warps 65530 --seed 4",
    "--warps 65530 --seed 9",
    /* the same for a call number kept in 17 to 21 bits: 2^k - 6 warps make
     * the first per-lane warp call 2^k */
    "--warps 131066 --seed 4", "--warps 262138 --seed 4", "--warps 524282 --seed 4",
    "--warps 1048570 --seed 4", "--warps 2097146 --seed 4"};
#define ONE_PASS_RUNS ((int)(sizeof one_pass_runs / sizeof one_pass_runs[0]))

START_TEST(test_a_copy_per_lane_and_constant_bytes_take_one_pass)
{
    const char *args = one_pass_runs[_i];
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args, exit_meaning(&o),
                  o.err);
    const char *const names[] = {"per lane:", "constant:"};
    const char *const why[] = {"chapter 05's copy per lane puts lane l's word in bank l, "
                               "whatever its byte",
                               "every lane on the same word is served together"};
    for (int i = 0; i < 2; i++) {
        struct tally t = read_tally(o.out, names[i]);
        ck_assert_msg(t.printed, "%s: no '%s M passes a warp on average, K of N' line: %.600s",
                      args, names[i], o.out);
        ck_assert_msg(t.mean == 1 && t.one_pass == t.warps,
                      "%s: %s %.6f passes a warp on average, %ld of %ld warps in one pass; "
                      "expected exactly 1, every warp: %s",
                      args, names[i], t.mean, t.one_pass, t.warps, why[i]);
    }
}
END_TEST

/* -------------------------------------------- many warps in one run -- */

/* Runs of many warps, each line's total worked out here warp by warp with
 * the rule (rule_passes, on the workbook's generator, fill_input, as the
 * program fills them), and compared with the mean the program prints, to its
 * six digits, and its count of one-pass warps. Under a million warps, one
 * pass more or less in the total moves the mean by more than 10^-6, so it
 * shows. One warp per run (--words) never shows an answer that depends on
 * the warps before it: an answer kept from the warp before and reused when
 * the lane count, sum and xor of the words match (seeds 850 and 1846 give
 * two such warps of different passes among the first 600 in one copy, seed
 * 40 among 20000), or words marked seen with a byte-wide warp number that
 * comes round again every 255 warps (seeds 234 and 1349: the first constant
 * warp's word was last touched a multiple of 255 warps before, in the copy
 * per lane, and it is taken as seen: 0 passes). Seeds found by trying such
 * answers on seeds 1 to 5000. */
struct many_warps {
    long warps;
    unsigned seed;
};
static const struct many_warps many_warps_runs[] = {
    {600, 850}, {600, 1846}, {20000, 40}, {600, 234}, {600, 1349}};
#define MANY_WARPS_RUNS ((int)(sizeof many_warps_runs / sizeof many_warps_runs[0]))

START_TEST(test_many_warps_in_one_run_match_the_rule_warp_by_warp)
{
    const struct many_warps *r = &many_warps_runs[_i];
    char args[96];
    snprintf(args, sizeof args, "--warps %ld --seed %u", r->warps, r->seed);
    size_t size = (size_t)r->warps * LANES;
    unsigned char *bytes = malloc(size);
    ck_assert(bytes != NULL);
    const char *const names[] = {"one copy:", "per lane:", "constant:"};
    long total[3] = {0}, one_pass[3] = {0};
    for (int i = 0; i < 3; i++) {
        if (i != 1)
            fill_input(i == 0 ? DATA_UNIFORM : DATA_CONSTANT, bytes, size, r->seed);
        for (long w = 0; w < r->warps; w++) {
            unsigned word[LANES];
            for (int l = 0; l < LANES; l++) {
                unsigned byte = bytes[(size_t)w * LANES + (size_t)l];
                word[l] = i == 1 ? byte * LANES + (unsigned)l : byte;
            }
            int p = rule_passes(word, LANES);
            total[i] += p;
            one_pass[i] += p == 1;
        }
    }
    free(bytes);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, expected exit 0; stderr: %s", args, exit_meaning(&o),
                  o.err);
    for (int i = 0; i < 3; i++) {
        struct tally t = read_tally(o.out, names[i]);
        ck_assert_msg(t.printed && t.warps == r->warps,
                      "%s: no '%s M passes a warp on average, K of %ld' line: %.600s", args,
                      names[i], r->warps, o.out);
        char got[32], want[32];
        snprintf(got, sizeof got, "%.6f", t.mean);
        snprintf(want, sizeof want, "%.6f", (double)total[i] / (double)r->warps);
        ck_assert_msg(strcmp(got, want) == 0 && t.one_pass == one_pass[i],
                      "%s: %s %s passes a warp on average, %ld warps in one pass; expected %s "
                      "(%ld passes in all) and %ld, worked out here warp by warp: does a warp's "
                      "answer depend on the warps before it?",
                      args, names[i], got, t.one_pass, want, total[i], one_pass[i]);
    }
}
END_TEST

/* ------------------------------------- under AddressSanitizer and UBSan -- */

/* The program built with AddressSanitizer and UndefinedBehaviorSanitizer (the
 * Makefile), which stop it at the first read or write out of bounds or
 * undefined step, and a probe that does both on purpose: the group runs only
 * where the probe's errors are reported. A table of every word, or of a bit
 * for each, sized by the highest word rather than the number of words, is one
 * element short: the passes stay right and only a sanitizer sees the write
 * past it, from the words at the top of the range. */
static char sanitized[4096], sanitizer_probe[4096];

static const char *const sanitized_runs[] = {
    "--words 1048575",
    /* the top 32 words, one in each bank: one pass */
    "--words 1048544,1048545,1048546,1048547,1048548,1048549,1048550,1048551,1048552,1048553,"
    "1048554,1048555,1048556,1048557,1048558,1048559,1048560,1048561,1048562,1048563,1048564,"
    "1048565,1048566,1048567,1048568,1048569,1048570,1048571,1048572,1048573,1048574,1048575",
    /* the top word of bank 31 and the 31 below it in that bank: 32 passes */
    "--words 1048575,1048543,1048511,1048479,1048447,1048415,1048383,1048351,1048319,1048287,"
    "1048255,1048223,1048191,1048159,1048127,1048095,1048063,1048031,1047999,1047967,1047935,"
    "1047903,1047871,1047839,1047807,1047775,1047743,1047711,1047679,1047647,1047615,1047583",
    /* the top words, each touched twice, and word 0: 3 passes */
    "--words 1048575,0,1048575,1048544,1048544,1048543,1048543,1048512,1048575",
    /* across the range: the last word of each 32768, all in bank 31: 32 passes */
    "--words 32767,65535,98303,131071,163839,196607,229375,262143,294911,327679,360447,393215,"
    "425983,458751,491519,524287,557055,589823,622591,655359,688127,720895,753663,786431,"
    "819199,851967,884735,917503,950271,983039,1015807,1048575",
    /* the hand layouts and warps of random bytes, in one copy and a copy per lane */
    "--warps 2000 --seed 1",
};
#define SANITIZED_RUNS ((int)(sizeof sanitized_runs / sizeof sanitized_runs[0]))

START_TEST(test_no_read_or_write_out_of_bounds)
{
    set_stage_program(sanitized);
    struct stage_output o;
    run_stage(sanitized_runs[_i], &o);
    const char *report = strstr(o.err, "ERROR: "); /* past the report's rule of = signs */
    if (!report)
        report = strstr(o.err, "runtime error:");
    ck_assert_msg(o.exit_status == 0 && !strstr(o.err, "Sanitizer") &&
                      !strstr(o.err, "runtime error:"),
                  "%.300s, built with AddressSanitizer and UBSan: %s, expected exit 0 and no "
                  "report: a read or write out of bounds (a table of words one element short?) "
                  "or an undefined step; stderr: %s",
                  sanitized_runs[_i], exit_meaning(&o), report ? report : o.err);
}
END_TEST

/* Whether the probe's error is reported here: run with args, it prints says. */
static bool probe_reports(const char *probe, const char *args, const char *says)
{
    if (access(probe, X_OK) != 0)
        return false;
    char command[4200], line[512];
    snprintf(command, sizeof command, "'%s' %s 2>&1", probe, args);
    FILE *p = popen(command, "r");
    bool reported = false;
    while (p && fgets(line, sizeof line, p))
        reported |= strstr(line, says) != NULL;
    if (p)
        pclose(p);
    return reported;
}

/* Beside the check, a program the Makefile built: its path, from the check's own. */
static void program_beside_check(char *path, size_t size, const char *check, const char *name)
{
    snprintf(path, size, "%s", check);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, size - (size_t)(slash ? slash + 1 - path : 0), "%s", name);
}

/* ----------------------------- with bounds traps and guard pages -- */

/* The same runs, on the program built with -fsanitize=bounds trapping (no
 * runtime needed: an index past a static table's end stops it) and with every
 * block of the heap ending right before a page that may not be touched
 * (common/tests/guarded_alloc.c): a table one element short stops it, with a signal,
 * on machines where AddressSanitizer cannot run, and wherever it can too. */
static char guarded[4096];

START_TEST(test_no_write_past_a_table_with_guard_pages)
{
    set_stage_program(guarded);
    struct stage_output o;
    run_stage(sanitized_runs[_i], &o);
    ck_assert_msg(o.exit_status == 0,
                  "%.300s, built with bounds traps and a page that may not be touched right "
                  "after each block of the heap: %s, expected exit 0: a read or write past the "
                  "end of a table (one element short?); stderr: %s",
                  sanitized_runs[_i], exit_meaning(&o), o.err);
}
END_TEST

/* --------------------------------------------------------- the defaults -- */

/* No options: the hand layouts and --help's defaults, 400000 warps of seed 1,
 * word for word what --warps 400000 --seed 1 prints, and the verified line
 * last. */
START_TEST(test_no_options_run_the_defaults_help_names)
{
    struct stage_output none, named;
    run_stage("", &none);
    ck_assert_msg(none.exit_status == 0, "no options: %s, expected exit 0; stderr: %s",
                  exit_meaning(&none), none.err);
    run_stage(SIMULATED, &named);
    ck_assert_msg(strcmp(none.out, named.out) == 0,
                  "no options: the output differs from " SIMULATED
                  "'s, the defaults --help names (--warps 400000, --seed 1):\n%.900s\n"
                  "against\n%.900s",
                  none.out, named.out);
    const char *last = strstr(none.out, "\nverified:");
    const char *end = last ? strchr(last + 1, '\n') : NULL;
    ck_assert_msg(end && end[1] == '\0', "no options: expected a last line 'verified: ...': %.900s",
                  none.out);
}
END_TEST

/* ------------------------------------- many calls, any lanes, in one process -- */

/* check_passes_calls.c calls your passes on warp after warp in one process,
 * of 32, 5, 1, 32, 17 lanes and then any number, on words that come back
 * from one warp to the next: each warp's passes against the rule. */
static char passes_calls[4096];
#define CALLS_WARPS 3000

START_TEST(test_calls_of_any_lanes_in_one_process_follow_the_rule)
{
    static const unsigned seeds[] = {1, 2, 3};
    char command[4200];
    snprintf(command, sizeof command, "timeout 20 '%s' %d %u 2>&1", passes_calls, CALLS_WARPS,
             seeds[_i]);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    static char line[4096];
    long warps = 0;
    char failure[1024] = "";
    while (fgets(line, sizeof line, p)) {
        unsigned word[LANES];
        int got, lanes, used;
        char *at = line;
        if (sscanf(at, "%d %d%n", &got, &lanes, &used) != 2 || lanes < 1 || lanes > LANES) {
            snprintf(failure, sizeof failure,
                     "warp %ld: not a line of passes, lanes and words: %.300s", warps, line);
            break;
        }
        at += used;
        for (int l = 0; l < lanes; l++) {
            sscanf(at, "%u%n", &word[l], &used);
            at += used;
        }
        int expected = rule_passes(word, lanes);
        if (got != expected && !failure[0]) {
            char list[512];
            words_list(word, lanes, list, sizeof list);
            snprintf(failure, sizeof failure,
                     "call %ld of passes in one process (%d lanes, after warps of other lanes "
                     "on some of the same words): your passes says %d, expected %d: does a call "
                     "keep something from the one before? words %s",
                     warps + 1, lanes, got, expected, list);
        }
        warps++;
    }
    int status = pclose(p);
    ck_assert_msg(!failure[0], "%s %u: %s", "seed", seeds[_i], failure);
    ck_assert_msg(status == 0 && warps == CALLS_WARPS,
                  "%s: ended (status %d) after %ld of %d warps: a crash, or a loop that never "
                  "ends?",
                  command, status, warps, CALLS_WARPS);
}
END_TEST

/* ---------------------------------------------------------------- usage -- */

static const char *const bad_usage[] = {
    "--words",
    "--words x",
    "--words -1",
    "--words 1048576",
    "--words 1,,2",
    "--words 1,",
    "--words 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
    "31,32,33",
    "--words 1 --warps 5",
    "--warps 0",
    "--warps 4000001",
    "--size 1M",
    "--threads 2",
    "--csv",
    "--print-bins",
};
#define BAD_USAGE ((int)(sizeof bad_usage / sizeof bad_usage[0]))

int main(int argc, char **argv)
{
    set_stage("19_bank_passes", argc, argv);
    set_run_time_limit(20); /* a loop that never ends is reported, not waited for */
    Suite *suite = suite_create("exercise 19: the passes of one warp through shared memory");
    TCase *hand = exercise_tcase("hand layouts have known passes", 1);
    tcase_add_loop_test(hand, test_hand_layouts_have_known_passes, 0, KNOWN);
    add_tcase(suite, hand, KNOWN);
    TCase *laws = exercise_tcase("random warps: 1 to one pass a lane, in any lane order", 2);
    tcase_add_loop_test(laws, test_passes_keep_their_laws, 0, RANDOM_WARPS);
    add_tcase(suite, laws, RANDOM_WARPS);
    TCase *rule = exercise_tcase("random warps: the most different words in one bank", 2);
    tcase_add_loop_test(rule, test_passes_follow_the_banks_rule, 0, RANDOM_WARPS);
    add_tcase(suite, rule, RANDOM_WARPS);
    TCase *crowded =
        exercise_tcase("crowded warps: 32 lanes in one bank, words from the whole range", 2);
    tcase_add_loop_test(crowded, test_different_words_in_one_bank_each_take_a_pass, 0,
                        CROWDED_WARPS);
    add_tcase(suite, crowded, CROWDED_WARPS);
    TCase *bytes = exercise_tcase("random bytes in one copy of the bins: about 3.15 passes", 3);
    tcase_add_test(bytes, test_random_bytes_in_one_copy_take_about_3_15_passes);
    add_tcase(suite, bytes, 1);
    TCase *one = exercise_tcase("a copy per lane, and constant bytes: one pass, every warp", 3);
    tcase_add_loop_test(one, test_a_copy_per_lane_and_constant_bytes_take_one_pass, 0,
                        ONE_PASS_RUNS);
    add_tcase(suite, one, ONE_PASS_RUNS);
    TCase *many = exercise_tcase("many warps in one run: every warp by the rule", 2);
    tcase_add_loop_test(many, test_many_warps_in_one_run_match_the_rule_warp_by_warp, 0,
                        MANY_WARPS_RUNS);
    add_tcase(suite, many, MANY_WARPS_RUNS);
    program_beside_check(sanitized, sizeof sanitized, argv[0], "bank_passes-sanitized");
    program_beside_check(sanitizer_probe, sizeof sanitizer_probe, argv[0], "sanitizer-probe");
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1); /* out of bounds is what the probe proves */
    TCase *bounds = exercise_tcase("under AddressSanitizer and UBSan: no read or write out of "
                                   "bounds",
                                   0);
    tcase_add_loop_test(bounds, test_no_read_or_write_out_of_bounds, 0, SANITIZED_RUNS);
    if (access(sanitized, X_OK) == 0 &&
        probe_reports(sanitizer_probe, "", "ERROR: AddressSanitizer: global-buffer-overflow") &&
        probe_reports(sanitizer_probe, "ub", "runtime error: signed integer overflow"))
        add_tcase(suite, bounds, SANITIZED_RUNS);
    else {
        printf("%s: not run here: this compiler has no -fsanitize=address,undefined, or the "
               "sanitizers cannot run on this machine (they report no error in %s)\n",
               sanitized, sanitizer_probe);
        add_skipped(SANITIZED_RUNS);
    }
    program_beside_check(guarded, sizeof guarded, argv[0], "bank_passes-guarded");
    TCase *guard = exercise_tcase("built with bounds traps and guard pages: nothing out of "
                                  "bounds",
                                  0);
    tcase_add_loop_test(guard, test_no_write_past_a_table_with_guard_pages, 0, SANITIZED_RUNS);
    add_tcase(suite, guard, SANITIZED_RUNS);
    program_beside_check(passes_calls, sizeof passes_calls, argv[0], "passes-calls");
    TCase *calls = exercise_tcase("one process, warps of any lanes after each other: every "
                                  "warp by the rule",
                                  2);
    tcase_add_loop_test(calls, test_calls_of_any_lanes_in_one_process_follow_the_rule, 0, 3);
    add_tcase(suite, calls, 3);
    TCase *defaults = exercise_tcase("no options: the defaults --help names", 0);
    tcase_add_test(defaults, test_no_options_run_the_defaults_help_names);
    add_tcase(suite, defaults, 1);
    add_usage_refusals(suite, bad_usage, BAD_USAGE, "--words");
    return run_exercise(suite);
}
