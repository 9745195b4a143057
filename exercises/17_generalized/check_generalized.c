/*
 * check_generalized.c - exercise 17 gives stage 08's library three types of
 * its own. The check sees, in order: that the combines keep the laws the
 * library relies on (the program's --laws, on the host); that spline_bins
 * splits each chosen key as the README says (its outputs, against a split
 * this file works out itself, in double); and, where a GPU is, that every bin
 * the library makes with them matches this file's own CPU answer, spline
 * bins within a float tolerance, the nearest picks and darkest values bit for
 * bit, on sizes around the 16-byte item, every data kind, each placement of
 * the bins, and a photograph. The first two groups need no GPU: without one,
 * a wrong type fails here, and a right one is reported not checked (77).
 */
#include "stage_checks.h"
#include "command_checks.h"
#include "hsv.h" /* stage 08's hue of a pixel */

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE "../../data/chelsea.bmp" /* make check runs in the exercise's folder */

/* ---------------------------------------------------------- the program -- */

/* Runs the program with args: its whole stdout and stderr, and its exit status. */
static struct ran run_program(const char *args)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' %s", stage_program(), args);
    return run_command(command);
}

/* What an exit status means, in the words of every exercise's check. */
static const char *meaning(int status)
{
    struct stage_output o = {.exit_status = status > 128 ? -1 : status,
                             .signal = status > 128 ? status - 128 : 0};
    return exit_meaning(&o);
}

/* The line of out that starts with start, up to its end (NULL: none), and its length. */
static const char *line_of(const char *out, const char *start, int *length)
{
    for (const char *line = out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, start, strlen(start)) == 0) {
            *length = (int)strcspn(line, "\n");
            return line;
        }
    return NULL;
}

/* Asserts that the program's line that starts with start says yes. */
static void says_yes(const struct ran *r, const char *args, const char *start)
{
    int length;
    const char *line = line_of(r->out, start, &length);
    ck_assert_msg(line != NULL, "%s: no line '%s...' in:\n%.1500s", args, start, r->out);
    ck_assert_msg(length >= 5 && strncmp(line + length - 5, ": yes", 5) == 0, "%s says:\n%.*s",
                  args, length, line);
}

/* ------------------------------------------------- 1: the combines' laws -- */

static const char *const combine_lines[] = {"nearest_hue: associative", "nearest_hue: commutative",
                                            "nearest_hue: identity()",  "nearest_hue: the nearer",
                                            "darkest:     associative", "darkest:     commutative",
                                            "darkest:     identity()",  "darkest:     the smaller"};
#define COMBINE_LINES ((int)(sizeof combine_lines / sizeof combine_lines[0]))
#define LAW_SEEDS     3

START_TEST(test_combines_are_associative_commutative_with_an_identity_and_as_meant)
{
    char args[64];
    snprintf(args, sizeof args, "--laws --seed %d", 1 + 1000 * _i);
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK || r.status == EXIT_FAILED, "%s: %s, stderr: %.1500s", args,
                  meaning(r.status), r.err);
    for (int l = 0; l < COMBINE_LINES; l++)
        says_yes(&r, args, combine_lines[l]);
    free_ran(&r);
}
END_TEST

/* ------------------------------------------- 2: the transform's outputs -- */

/* Key x's split, worked out here from the README's words: x's place p, in
 * bin widths from bin 0's centre; c, the bin whose centre is nearest, and
 * d = p - c, from -0.5 to 0.5; bins c - 1, c and c + 1 take the quadratic
 * B-spline's weights 0.5 (0.5 - d)^2, 0.75 - d^2 and 0.5 (0.5 + d)^2, and a
 * share for a bin before the first or past the last stays in that end bin.
 * Nothing outside [lo, hi), nor for NaN. Returns the bins that take a share,
 * each once, with how many of the key's three shares each holds, and c. */
static int exact_split(double lo, double hi, unsigned bins, float x, unsigned bin[3],
                       double weight[3], int shares[3], long *centre)
{
    if (!(x >= lo && x < hi))
        return 0;
    double p = ((double)x - lo) * bins / (hi - lo) - 0.5;
    long c = (long)floor(p + 0.5), last = (long)bins - 1;
    c = c < 0 ? 0 : c > last ? last : c; /* a key that rounds onto hi: the last bin's */
    double d = p - c;
    const double share[3] = {0.5 * (0.5 - d) * (0.5 - d), 0.75 - d * d,
                             0.5 * (0.5 + d) * (0.5 + d)};
    int pairs = 0;
    for (long b = c - 1; b <= c + 1; b++) {
        unsigned held = (unsigned)(b < 0 ? 0 : b > last ? last : b);
        int at = 0;
        while (at < pairs && bin[at] != held)
            at++;
        if (at == pairs)
            bin[pairs] = held, weight[pairs] = 0, shares[pairs++] = 0;
        weight[at] += share[b - c + 1], shares[at]++;
    }
    *centre = c;
    return pairs;
}

/* How far from exact a weight worked out in float may be: its place is a
 * few roundings of a number up to bins, each within 2^-24 of it. */
static double split_tolerance(unsigned bins)
{
    return 8.0 * (bins + 1) * 0x1p-24;
}

/* The program prints, with --laws --print-bins, what spline_bins gave each
 * key it tried, each key alone in an item: "key X in [LO, HI) of B bins: bin
 * b: w, ..." (X, LO, HI floats in 9 digits, which read back exactly) or
 * "...: nothing". Each is compared here, bin by bin, with exact_split; and
 * enough keys of each kind must have been tried: with all three nearest bins
 * inside, in an end bin (a share past the end), outside. */
START_TEST(test_spline_bins_splits_every_chosen_key_as_the_readme_says)
{
    const char *args = "--laws --print-bins";
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK || r.status == EXIT_FAILED, "%s: %s, stderr: %.1500s", args,
                  meaning(r.status), r.err);
    int between = 0, ends = 0, outside = 0;
    for (const char *line = r.out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        float x, lo, hi;
        unsigned bins, got_bin[16], bin[3];
        double got_weight[16], weight[3];
        int used = 0, got = 0, shares[3];
        long centre = 0;
        if (sscanf(line, "key %f in [%f, %f) of %u bins:%n", &x, &lo, &hi, &bins, &used) != 4)
            continue;
        int length = (int)strcspn(line, "\n");
        const char *p = line + used;
        if (strncmp(p, " nothing", 8) != 0)
            for (int n = 0;
                 got < 16 && sscanf(p, " bin %u: %lf%n", &got_bin[got], &got_weight[got], &n) == 2;
                 p += n + (p[n] == ','))
                got++;
        int pairs = exact_split(lo, hi, bins, x, bin, weight, shares, &centre);
        bool end = centre == 0 || centre == (long)bins - 1;
        outside += !pairs, ends += pairs && end, between += pairs && !end;
        /* every bin named on either side: the same weight on both, within the tolerance */
        for (int side = 0; side < 2; side++)
            for (int k = 0; k < (side ? pairs : got); k++) {
                unsigned b = side ? bin[k] : got_bin[k];
                double sum = 0;
                for (int g = 0; g < got; g++)
                    sum += got_bin[g] == b ? got_weight[g] : 0;
                for (int w = 0; w < pairs; w++)
                    sum -= bin[w] == b ? weight[w] : 0;
                char wanted[160] = "nothing: it is outside [lo, hi)";
                for (int w = 0, at = 0; w < pairs; w++)
                    at += snprintf(wanted + at, sizeof wanted - at, "%sbin %u: %.9g", w ? ", " : "",
                                   bin[w], weight[w]);
                ck_assert_msg(fabs(sum) <= split_tolerance(bins) && b < bins,
                              "spline_bins gives %.*s\n  but that key's nearest centre is bin "
                              "%ld's: it should give %s",
                              length, line, centre, wanted);
            }
    }
    ck_assert_msg(between >= 40 && ends >= 20 && outside >= 20,
                  "%s: too few keys tried (%d with three bins inside, %d in an end bin, "
                  "%d outside):\n%.1500s",
                  args, between, ends, outside, r.out);
    free_ran(&r);
}
END_TEST

/* What the program checks itself with spline_bins' own items: at most
 * spline_bins::outputs from an item of 4 keys (the library's contract), and
 * exactly that many from 4 keys that each split in three (the most), every
 * bin below bins(), and nothing for an item's keys past the input's end. */
START_TEST(test_spline_bins_items_keep_the_librarys_contract)
{
    const char *args = "--laws";
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK || r.status == EXIT_FAILED, "%s: %s, stderr: %.1500s", args,
                  meaning(r.status), r.err);
    says_yes(&r, args, "spline_bins: every bin it emits below bins()");
    says_yes(&r, args, "spline_bins: at most outputs");
    says_yes(&r, args, "spline_bins: outputs (");
    says_yes(&r, args, "spline_bins: nothing for an item's keys past the input's last");
    says_yes(&r, args, "spline_bins: a key between the end bins");
    says_yes(&r, args, "spline_bins: a key in an end bin");
    says_yes(&r, args, "spline_bins: a key outside");
    free_ran(&r);
}
END_TEST

/* ---------------------------------------------------- 3: usage, anywhere -- */

static const struct {
    const char *args, *says;
} refused[] = {
    {"--bins 0", "--bins"},
    {"--bins 65537", "--bins"},
    {"--pixels --bins 361", "--bins"},
    {"--range 1:0", "--range"},
    {"--range 0:inf", "--range"},
    {"--pixels --range 0:1", "--range"},
    {"--size 6", "4-byte f32 keys"},
    {"--pixels --size 7", "3-byte pixels"},
    {"--laws --bins 10", "--laws"},
    {"--threads 256", "own launch"},
};
#define REFUSED ((int)(sizeof refused / sizeof refused[0]))

START_TEST(test_bad_usage_is_refused_before_the_gpu)
{
    struct ran r = run_program(refused[_i].args);
    ck_assert_msg(r.status == EXIT_USAGE, "%s: %s, want exit 2 (bad usage)", refused[_i].args,
                  meaning(r.status));
    ck_assert_msg(strstr(r.err, refused[_i].says), "%s: the reason does not name '%s': %.1500s",
                  refused[_i].args, refused[_i].says, r.err);
    free_ran(&r);
}
END_TEST

/* ----------------------------------------------- 4, 5: spline bins, GPU -- */

/* The f32 keys the program makes from n generated 4-byte words: the top 24
 * bits over 2^24, a float in [0, 1). */
static float *generated_keys(size_t size, enum data_kind kind, uint64_t seed)
{
    unsigned char *bytes = malloc(size ? size : 1);
    float *keys = malloc(size ? size : 1);
    ck_assert(bytes && keys);
    fill_input(kind, bytes, size, seed);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t word;
        memcpy(&word, bytes + i, 4);
        keys[i / 4] = (float)(word >> 8) * 0x1p-24f;
    }
    free(bytes);
    return keys;
}

/* Runs the program on keys with args and asserts exit 0, "verified: yes" and
 * every bin it prints within the tolerance of the exact spline bins worked
 * out here: a float sum of k terms in any order is within (k - 1) 2^-24 of
 * the sum of their magnitudes (Higham, 4.2), and each term, a weight worked
 * out in float, within split_tolerance. A key's shares are k terms each, as
 * the GPU adds them, even two or three in one end bin. */
static void check_spline(const float *keys, size_t n, float lo, float hi, unsigned bins,
                         const char *args)
{
    double *sums = calloc(bins, sizeof *sums), *tolerance = calloc(bins, sizeof *tolerance);
    unsigned *terms = calloc(bins, sizeof *terms);
    ck_assert(sums && tolerance && terms);
    for (size_t i = 0; i < n; i++) {
        unsigned bin[3];
        double weight[3];
        int shares[3];
        long centre;
        int pairs = exact_split(lo, hi, bins, keys[i], bin, weight, shares, &centre);
        for (int k = 0; k < pairs; k++)
            sums[bin[k]] += weight[k], tolerance[bin[k]] += weight[k], terms[bin[k]] += shares[k];
    }
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK, "%s: %s, stderr: %.1500s", args, meaning(r.status), r.err);
    ck_assert_msg(strstr(r.out, "\nverified:   yes"), "%s: no 'verified: yes' line:\n%.1500s", args,
                  r.out);
    unsigned next = 0;
    for (const char *line = r.out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned b;
        double got;
        if (!isdigit((unsigned char)*line) || sscanf(line, "%u: %lf", &b, &got) != 2)
            continue;
        ck_assert_msg(b == next && b < bins, "%s: bin %u printed where bin %u was due", args, b,
                      next);
        double tol = (terms[b] + 2) * tolerance[b] * 0x1p-24 + terms[b] * split_tolerance(bins);
        ck_assert_msg(fabs(got - sums[b]) <= tol,
                      "%s: bin %u holds %.9g, the exact spline bin is %.9g (tolerance %.3g)", args,
                      b, got, sums[b], tol);
        next++;
    }
    ck_assert_msg(next == bins, "%s: %u bins printed, not %u", args, next, bins);
    free_ran(&r);
    free(sums), free(tolerance), free(terms);
}

/* Around the 16-byte item (4 keys): none, one key, one short of an item, one
 * item, one key past it; a prime number of keys; and some 4 MB. Then, last
 * so the sizes above keep their seeds, 2, 6, 10 and 10006 keys: between them
 * every count of keys mod 8, the last item holding 1, 2, 3 or 4 keys (one key
 * lost shows only on a small input: a bin of 4 MB's keys is within units). */
static const size_t spline_sizes[] = {0,  4,         12,      16, 20, 60, 64,
                                      68, 4 * 10007, 4000000, 8,  24, 40, 4 * 10006};
#define SPLINE_SIZES ((int)(sizeof spline_sizes / sizeof spline_sizes[0]))

START_TEST(test_spline_bins_on_the_gpu_match_for_every_size_and_kind)
{
    size_t size = spline_sizes[_i / 4];
    enum data_kind kind = (enum data_kind)(_i % 4);
    float *keys = generated_keys(size, kind, 100 + _i);
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %d --bins 100 --reps 1 --print-bins",
             size, data_kind_name(kind), 100 + _i);
    check_spline(keys, size / 4, 0, 1, 100, args);
    free(keys);
}
END_TEST

/* One bin; ranges the keys in [0, 1) fill in part, or overflow; bins the
 * library keeps per lane (few), per block (3000: too many per lane) or in
 * global memory (65536: too many for a block); and each placement alone
 * (300 bins per lane fit in any GPU's 48 KiB). */
static const struct {
    float lo, hi;
    unsigned bins;
    const char *extra;
} spline_cases[] = {
    {0, 1, 1, ""},
    {-1.5f, 2.5f, 7, "--range -1.5:2.5"},
    {0.25f, 0.75f, 10, "--range 0.25:0.75"},
    {0, 1, 3000, ""},
    {0, 1, 65536, ""},
    {0, 1, 300, "--variant per-lane"},
    {0, 1, 1000, "--variant per-block"},
    {0, 1, 1000, "--variant global"},
};
#define SPLINE_CASES ((int)(sizeof spline_cases / sizeof spline_cases[0]))

START_TEST(test_spline_bins_on_the_gpu_match_for_every_range_bins_and_placement)
{
    size_t size = 4000004;
    float *keys = generated_keys(size, DATA_UNIFORM, 7);
    char args[256];
    snprintf(args, sizeof args, "--size %zu --seed 7 --bins %u %s --reps 1 --print-bins", size,
             spline_cases[_i].bins, spline_cases[_i].extra);
    check_spline(keys, size / 4, spline_cases[_i].lo, spline_cases[_i].hi, spline_cases[_i].bins,
                 args);
    free(keys);
}
END_TEST

/* A file of floats as they are: NaN, the infinities, negatives, 0 and -0,
 * the range's ends and keys just inside them, between uniform ones. */
/* What a key costs. The transform runs once for every key, so its work must
 * not grow with the bins: finding the nearest centre is arithmetic on the
 * key, a few dozen instructions. A search that tries the centres one by one
 * is still right, and costs a step for every bin: at 65536 bins, some 65536
 * steps a key. The bound counts a thread's instructions in the library's
 * kernel (ncu), the atomics and the loop around the transform included. */
#define COSTED_ARGS             "--size 4M --data uniform --seed 5 --bins 65536 --variant global --reps 1"
#define FEW_BINS_ARGS           "--size 4M --data uniform --seed 5 --bins 64 --variant global --reps 1"
#define COSTED_KEYS             ((4 << 20) / 4)
#define MOST_INSTRUCTIONS_A_KEY 1000

/* A thread's instructions a key in the library's kernel on args (ncu). */
static double instructions_a_key(const char *args)
{
    const char *const metrics[] = {"smsp__thread_inst_executed.sum"};
    double instructions;
    profile_kernel(args, "gh_kernel", metrics, 1, &instructions);
    return instructions / profile_launches() / COSTED_KEYS;
}

START_TEST(test_a_keys_work_does_not_grow_with_the_bins)
{
    double per_key = instructions_a_key(COSTED_ARGS);
    ck_assert_msg(per_key <= MOST_INSTRUCTIONS_A_KEY,
                  "%s: %.0f instructions a key in the library's kernel, want at most %d: the "
                  "nearest centre takes arithmetic on the key, not a step for every bin",
                  COSTED_ARGS, per_key, MOST_INSTRUCTIONS_A_KEY);
    /* The same keys and placement (global: no copy of the bins to zero or
     * merge) at 64 bins: the solution runs the same instructions for a key
     * whatever the bins, so the two counts agree to about one instruction
     * (at 64 bins a few more keys fall in an end bin, whose two outputs to it
     * go as one run: slightly fewer there). A binary search over the bins
     * makes 6 halvings at 64 bins and 16 at 65536: 10 more steps, each about
     * a dozen instructions (such a loop, compiled, is 14 PTX instructions:
     * the middle, a conversion, a compare, two selects, the loop's test and
     * branch), some 100 more a key. A linear search grows by thousands.
     * Bound: 5% more, and 16 instructions, above the count at 64 bins. */
    double few_bins = instructions_a_key(FEW_BINS_ARGS);
    ck_assert_msg(per_key <= 1.05 * few_bins + 16,
                  "%s: %.1f instructions a key at 65536 bins, %.1f at 64 bins (%s), want at most "
                  "%.1f: a key's work grows with the bins; the nearest centre is arithmetic on "
                  "the key, with no loop or search over the bins",
                  COSTED_ARGS, per_key, few_bins, FEW_BINS_ARGS, 1.05 * few_bins + 16);
}
END_TEST

/* Each item is four keys, one 16-byte load (the task). The library's kernel
 * loads an item with transform.read and nothing else from global memory here
 * (the global placement adds with atomics, which are not loads; the range and
 * the keys' address are kernel parameters). So a warp's load instruction
 * brings 32 items: 1 Mi keys are 262144 items, 8192 warp load
 * instructions a launch on the solution, one per 32 items (a warp split
 * between the library's unrolled loop and its remainder adds a few). A read()
 * that makes four 4-byte loads issues four: 32768. Bound: at most 2 per 32
 * items. */
START_TEST(test_an_item_is_one_load)
{
    const char *const metrics[] = {"smsp__inst_executed_op_global_ld.sum"};
    double loads;
    profile_kernel(COSTED_ARGS, "gh_kernel", metrics, 1, &loads);
    double per_32_items = loads / profile_launches() / (COSTED_KEYS / 4 / 32);
    ck_assert_msg(per_32_items <= 2,
                  "%s: %.2f global load instructions a warp's 32 items (ncu: %.0f in %d "
                  "launches), want at most 2: read() should fetch an item's four keys with one "
                  "16-byte load, not one load a key",
                  COSTED_ARGS, per_32_items, loads, profile_launches());
}
END_TEST

START_TEST(test_spline_bins_on_the_gpu_give_nothing_for_keys_outside_the_range)
{
    enum { N = 40003 };
    float *keys = generated_keys(4 * (size_t)N, DATA_UNIFORM, 9);
    const float odd[] = {NAN,   INFINITY, -INFINITY,    -0.5f, 0.0f,
                         -0.0f, 1.0f,     0.999999940f, 2.0f,  1e-40f};
    for (int i = 0; i < N; i += 7)
        keys[i] = odd[(i / 7) % 10];
    char path[] = "/tmp/check_generalized_XXXXXX", args[256];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert(f && fwrite(keys, 4, N, f) == N && fclose(f) == 0);
    snprintf(args, sizeof args, "--file %s --bins 10 --reps 1 --print-bins", path);
    check_spline(keys, N, 0, 1, 10, args);
    unlink(path);
    free(keys);
}
END_TEST

/* Writes n items of size bytes each to a new file under /tmp, its name into path. */
static void write_temporary(char path[32], const void *items, size_t size, size_t n)
{
    strcpy(path, "/tmp/check_generalized_XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert(f && fwrite(items, size, n, f) == n && fclose(f) == 0);
}

/* Far from 0, on the GPU: 1000 bins over [1000.3, 1001.3), every float key
 * within a quarter of a bin of an edge between bins 2m and 2m + 1 (4092
 * keys: 16 floats a bin there). There lo x scale, 1000.3f x 1000, rounds to
 * 1000300, 0.0122 of a bin from the exact 1000299.99; (key - lo) x scale is
 * exact (key - lo is, by Sterbenz), so a place worked out the README's way
 * (fused into one multiply-add or not) is right to a rounding, while one
 * from key x scale - lo x scale (one fma or two products) is 0.0122 of a bin
 * off for every key. A key on an edge moves its half shares by that much,
 * and the keys sit on every other edge only, so that no bin gets the
 * opposite move from its other edge: each bin is off by 11 to 15 times its
 * tolerance (worked out on the CPU with fmaf). The host's --laws tries this
 * range too, but only a place worked out on the host: this is the GPU's. */
START_TEST(test_spline_bins_on_the_gpu_far_from_0_on_the_bins_edges)
{
    const float lo = 1000.3f, hi = 1001.3f;
    const unsigned bins = 1000;
    float *keys = malloc(sizeof *keys * 20000);
    ck_assert(keys != NULL);
    size_t n = 0;
    for (float x = lo; x < hi && n < 20000; x = nextafterf(x, INFINITY)) {
        double p = ((double)x - lo) * bins / ((double)hi - lo) - 0.5, below = floor(p);
        if ((long)below % 2 == 0 && fabs(p - below - 0.5) < 0.25)
            keys[n++] = x;
    }
    ck_assert_msg(n > 1000, "only %zu keys next to the edges", n);
    char path[32], args[256];
    write_temporary(path, keys, sizeof *keys, n);
    snprintf(args, sizeof args, "--file %s --bins %u --range 1000.3:1001.3 --reps 1 --print-bins",
             path, bins);
    check_spline(keys, n, lo, hi, bins, args);
    unlink(path);
    free(keys);
}
END_TEST

/* Keys exactly on a bin's centre, on the GPU: with 8 bins over [0, 1) the
 * keys 3/16, 7/16 and 11/16 have places 1.5, 3.5 and 5.5 exactly, and with
 * 100 bins the keys 1/8, 3/8, 5/8 and 7/8 have places 12.5, 37.5, 62.5 and
 * 87.5 (float products, exact), so d is 0 and each key gives 1/8, 3/4 and 1/8
 * to its bin and the two beside it, like any other key. Keys on a grid land
 * there often. The host's --laws tries centres too, but on the host's path:
 * these are the GPU's. The centres are every other bin's or further apart,
 * so that no bin's loss is made up by its neighbours' keys (every centre
 * full alike would give each bin 1 a key either way). 500 keys a centre: a
 * key given wholly to its bin moves that bin by 125 and each neighbour by
 * 62.5, thousands of times their tolerance (these sums are exact in float). */
static const struct {
    unsigned bins, centres;
    float first, step;
} centre_cases[] = {{8, 3, 3.0f / 16, 1.0f / 4}, {100, 4, 1.0f / 8, 1.0f / 4}};
#define CENTRE_CASES ((int)(sizeof centre_cases / sizeof centre_cases[0]))

START_TEST(test_spline_bins_on_the_gpu_split_keys_on_the_centres)
{
    enum { EACH = 500 };
    unsigned centres = centre_cases[_i].centres, bins = centre_cases[_i].bins;
    size_t n = (size_t)EACH * centres;
    float *keys = malloc(sizeof *keys * n);
    ck_assert(keys != NULL);
    for (size_t i = 0; i < n; i++)
        keys[i] = centre_cases[_i].first + (float)(i % centres) * centre_cases[_i].step;
    char path[32], args[256];
    write_temporary(path, keys, sizeof *keys, n);
    snprintf(args, sizeof args, "--file %s --bins %u --reps 1 --print-bins", path, bins);
    check_spline(keys, n, 0, 1, bins, args);
    unlink(path);
    free(keys);
}
END_TEST

/* ------------------------------------------ 6: nearest_hue, darkest, GPU -- */

/* How far the hue of a pixel in hue bin `bin` is from the bin's centre, in
 * thousandths of a bin width, as the README defines it: the thousandth of
 * the bin its hue falls in (hsv.h's hue bin of 1000 times the bins), counted
 * from the middle one. */
static unsigned hue_distance(const unsigned char *c, unsigned bins, unsigned bin)
{
    long from = (long)hsv_of(c[0], c[1], c[2], 1000 * bins).hue_bin - 1000L * bin - 500;
    return (unsigned)labs(from);
}

/* Runs the program on n pixels with args; asserts exit 0, both reports
 * verified, and every bin of both as worked out here: the pixel whose hue is
 * nearest its bin's centre (of two as near, the first) and the least
 * brightness of each hue; an empty bin holds the identities, distance and
 * pixel 2^32 - 1, and 2^32 - 1. */
static void check_pixels(const unsigned char *rgb, size_t n, unsigned bins, const char *args)
{
    unsigned *best = malloc(2 * sizeof *best * bins), *least = malloc(sizeof *least * bins);
    ck_assert(best && least);
    for (unsigned b = 0; b < bins; b++)
        best[2 * b] = 0xffffffffu, best[2 * b + 1] = 0xffffffffu, least[b] = 0xffffffffu;
    for (size_t p = 0; p < n; p++) {
        const unsigned char *c = rgb + 3 * p;
        struct hsv h = hsv_of(c[0], c[1], c[2], bins); /* stage 08's rule, hsv.h */
        unsigned bin = h.hue_bin, v = h.value;
        if (bin == NO_BIN)
            continue;
        unsigned distance = hue_distance(c, bins, bin);
        if (distance < best[2 * bin])
            best[2 * bin] = distance, best[2 * bin + 1] = (unsigned)p;
        least[bin] = v < least[bin] ? v : least[bin];
    }
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK, "%s: %s, stderr: %.1500s", args, meaning(r.status), r.err);
    const char *second = strstr(r.out, "\nverified:   yes");
    ck_assert_msg(second && strstr(second + 1, "\nverified:   yes"),
                  "%s: not two 'verified: yes' lines (nearest_hue, darkest):\n%.1500s", args,
                  r.out);
    unsigned picks = 0, minima = 0;
    for (const char *line = r.out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned b, v, pixel;
        if (!isdigit((unsigned char)*line))
            continue;
        if (sscanf(line, "%u: distance %u, pixel %u", &b, &v, &pixel) == 3) {
            ck_assert_msg(b == picks, "%s: nearest_hue: bin %u printed where %u was due", args, b,
                          picks);
            ck_assert_msg(v == best[2 * b] && pixel == best[2 * b + 1],
                          "%s: nearest_hue: bin %u holds distance %u, pixel %u; the pixel of "
                          "that hue nearest its centre (the first, of two as near) is distance "
                          "%u, pixel %u%s",
                          args, b, v, pixel, best[2 * b], best[2 * b + 1],
                          best[2 * b + 1] == 0xffffffffu ? " (no pixel: the identity)" : "");
            picks++;
        } else if (sscanf(line, "%u: darkest %u", &b, &v) == 2) {
            ck_assert_msg(b == minima, "%s: darkest: bin %u printed where %u was due", args, b,
                          minima);
            ck_assert_msg(v == least[b],
                          "%s: darkest: bin %u holds %u; the least brightness of "
                          "that hue is %u%s",
                          args, b, v, least[b],
                          least[b] == 0xffffffffu ? " (no pixel: the identity)" : "");
            minima++;
        }
    }
    ck_assert_msg(picks == bins && minima == bins, "%s: %u and %u bins printed, not %u each", args,
                  picks, minima, bins);
    free_ran(&r);
    free(best), free(least);
}

/* Around the 16-byte item again, in 3-byte pixels; a prime; some 3 MB. */
static const size_t pixel_sizes[] = {0, 3, 15, 45, 48, 51, 3 * 10007, 3000000};
#define PIXEL_SIZES ((int)(sizeof pixel_sizes / sizeof pixel_sizes[0]))

START_TEST(test_nearest_hue_and_darkest_on_the_gpu_match_for_every_size_and_kind)
{
    size_t size = pixel_sizes[_i / 4];
    enum data_kind kind = (enum data_kind)(_i % 4);
    unsigned char *rgb = malloc(size ? size : 1);
    ck_assert(rgb != NULL);
    fill_input(kind, rgb, size, 200 + _i);
    char args[256];
    snprintf(args, sizeof args,
             "--pixels --size %zu --data %s --seed %d --bins 36 --reps 1 --print-bins", size,
             data_kind_name(kind), 200 + _i);
    check_pixels(rgb, size / 3, 36, args);
    free(rgb);
}
END_TEST

/* The photograph: one hue bin (every hued pixel meets in it), 36, and 360. */
static const unsigned image_bins[] = {1, 36, 360};
#define IMAGE_BINS ((int)(sizeof image_bins / sizeof image_bins[0]))

START_TEST(test_nearest_hue_and_darkest_of_the_photograph_match)
{
    struct image img;
    char why[512], args[256];
    ck_assert_msg(read_bmp(IMAGE, &img, why, sizeof why) == EXIT_OK, "%s", why);
    snprintf(args, sizeof args, "--image %s --bins %u --reps 1 --print-bins", IMAGE,
             image_bins[_i]);
    check_pixels(img.rgb, (size_t)img.width * img.height, image_bins[_i], args);
    free_image(&img);
}
END_TEST

/* Past 2^23 pixels: 2^23 + 5 pixels of one colour, (255, 10, 0), hue bin 0
 * of 36 at distance 265 (odd), but pixel 0, grey (no hue). The nearest pick
 * is pixel 1: every pixel ties, and of those the smallest index wins. A pick
 * packed into 32 bits as the distance's 9 bits over the pixel's 23 is right
 * below 2^23 pixels; pixel 2^23 sets bit 23, the distance's lowest, already
 * set in 265, and leaves low bits of 0: packed, it is {265, 0}, and beats
 * pixel 1. Every placement is run, and the pick of the bin is the same in
 * any order (a unique least), so such a compare fails every time. 24 MiB. */
START_TEST(test_nearest_hue_past_2_to_the_23_pixels)
{
    const size_t n = ((size_t)1 << 23) + 5;
    unsigned char *rgb = malloc(3 * n);
    ck_assert(rgb != NULL);
    for (size_t p = 0; p < n; p++)
        rgb[3 * p] = 255, rgb[3 * p + 1] = 10, rgb[3 * p + 2] = 0;
    rgb[0] = rgb[1] = rgb[2] = 90;
    ck_assert_msg(hsv_of(255, 10, 0, 36).hue_bin == 0 && hue_distance(rgb + 3, 36, 0) % 2 == 1,
                  "the test's colour is not in bin 0 at an odd distance");
    char path[32], args[256];
    write_temporary(path, rgb, 3, n);
    snprintf(args, sizeof args, "--pixels --file %s --bins 36 --reps 1 --print-bins", path);
    check_pixels(rgb, n, 36, args);
    unlink(path);
    free(rgb);
}
END_TEST

/* ----------------------------------------- 7: the default input, the CSV -- */

START_TEST(test_default_is_spline_bins_of_the_books_100_mib)
{
    float *keys = generated_keys((size_t)100 << 20, DATA_UNIFORM, 1);
    check_spline(keys, (size_t)25 << 20, 0, 1, 1000, "--reps 1 --print-bins");
    free(keys);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row_per_placement)
{
    const char *args = "--size 4096 --data skewed --reps 2 --csv";
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK, "%s: %s, stderr: %.1500s", args, meaning(r.status), r.err);
    char *row = strchr(r.out, '\n');
    ck_assert_msg(row != NULL, "%s: no header line: %.1500s", args, r.out);
    *row++ = '\0';
    ck_assert_str_eq(r.out, CSV_HEADER);
    int rows = 0;
    for (char *end; *row; row = end + 1, rows++) {
        end = strchr(row, '\n');
        ck_assert_msg(end != NULL, "%s: a row without its line's end: %s", args, row);
        *end = '\0';
        ck_assert_msg(strncmp(row, "17_generalized,spline/", 22) == 0, "%s: row starts wrong: %s",
                      args, row);
        ck_assert_msg(strstr(row, ",skewed,4096,"), "%s: data and bytes: %s", args, row);
        ck_assert_msg(strcmp(row + strlen(row) - 4, ",yes") == 0, "%s: not verified: %s", args,
                      row);
    }
    ck_assert_msg(rows >= 2, "%s: %d rows: the library's choice and each placement", args, rows);
    free_ran(&r);
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* Every usage error is one line on stderr that names what was wrong (the
 * usage follows it, and names every option, so the reason is read in the
 * first line only), nothing on stdout, exit 2: before the GPU, anywhere. */
static const struct {
    const char *args, *says;
} refused_in_one_line[] = {
    {"--range 0", "--range"},
    {"--range 0:1x", "--range"},
    {"--range nan:1", "--range"},
    {"--range 1:1", "--range"},
    {"--range 1:0", "--range"},
    {"--pixels --range 0:1", "--range"},
    {"--bins 1.5", "--bins"},
    {"--bins abc", "--bins"},
    {"--bins 0", "--bins"},
    {"--bins 65537", "--bins"},
    {"--pixels --bins 0", "--bins"},
    {"--pixels --bins 361", "--bins"},
    {"--variant nope", "--variant"},
    {"--blocks 4", "--blocks"},
    {"--blocks-per-sm 2", "--blocks-per-sm"},
    {"--laws --size 4096", "--laws"},
};
#define REFUSED_IN_ONE_LINE ((int)(sizeof refused_in_one_line / sizeof refused_in_one_line[0]))

START_TEST(test_each_refusal_names_its_option_in_one_line)
{
    const char *args = refused_in_one_line[_i].args, *says = refused_in_one_line[_i].says;
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_USAGE, "%s: %s, want exit 2 (bad usage)", args,
                  meaning(r.status));
    size_t first = strcspn(r.err, "\n");
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(first < sizeof line ? first : sizeof line - 1),
             r.err);
    ck_assert_msg(strstr(line, says) != NULL,
                  "%s: the first line of stderr, '%s', does not name '%s': the reason is one line "
                  "that says which option was wrong",
                  args, line, says);
    ck_assert_msg(r.out[0] == '\0', "%s: printed on stdout: %.300s", args, r.out);
    free_ran(&r);
}
END_TEST

/* Counts, per f32-key kernel of the PTX (the library's gh_kernel for
 * spline_bins, one per placement), its loops: branches back to a label
 * above them. The library's own loops are 4 at most in each; a split that
 * searches for the key's bin (over the centres, or by halving the bins)
 * loops once per key of the item, inlined 4 times or more. */
static int most_loops_in_a_spline_kernel(char *entry, size_t entry_size)
{
    const char *path = getenv("CHECK_PTX");
    ck_assert_msg(path != NULL, "CHECK_PTX is not set: run the check with make check");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read the program's PTX, %s", path);
    static char labels[4096][32];
    int label_count = 0, loops = 0, most = -1;
    bool spline = false;
    char line[4096], name[256] = "", *branch, *target;
    while (fgets(line, sizeof line, f)) {
        char label[32];
        if (strstr(line, ".entry ")) {
            if (spline && loops > most)
                most = loops, snprintf(entry, entry_size, "%s", name);
            spline = strstr(line, "spline_bins") != NULL;
            const char *start = strstr(line, ".entry ") + 7;
            snprintf(name, sizeof name, "%.*s", (int)strcspn(start, "(\n"), start);
            label_count = loops = 0;
        } else if (sscanf(line, " %31[$A-Za-z0-9_]:", label) == 1 && label[0] == '$' &&
                   label_count < 4096) {
            snprintf(labels[label_count++], sizeof labels[0], "%s", label);
        } else if (spline && (branch = strstr(line, "bra")) && branch > line &&
                   (branch[-1] == ' ' || branch[-1] == '\t') && (target = strchr(branch, '$')) &&
                   sscanf(target, "%31[$A-Za-z0-9_]", label) == 1) {
            for (int l = 0; l < label_count; l++) /* a label above: a branch back, a loop */
                loops += strcmp(labels[l], label) == 0;
        }
    }
    if (spline && loops > most)
        most = loops, snprintf(entry, entry_size, "%s", name);
    fclose(f);
    ck_assert_msg(most >= 0, "no kernel for spline_bins in the PTX, %s", path);
    return most;
}

/* What ncu sees in group 6, read in the PTX where ncu is missing: an item is
 * one 16-byte load (ld.global.v4, no 4-byte float load from global memory
 * anywhere), and a key's bin is worked out, not searched for. */
START_TEST(test_one_load_an_item_and_no_search_in_the_ptx)
{
    int wide =
        ptx_lines_matching("^[[:space:]]*ld\\.global(\\.[a-z0-9_:]+)*\\.v4\\.(f32|b32|u32|s32)");
    int scalar = ptx_lines_matching("^[[:space:]]*ld\\.global(\\.(nc|ca|cg|cs|lu|cv|L1::[a-z_]+|L2:"
                                    ":[A-Za-z0-9_]+))*\\.f32[[:space:]]");
    ck_assert_msg(wide > 0 && scalar == 0,
                  "the program's PTX has %d 16-byte loads from global memory and %d 4-byte float "
                  "ones: spline_bins' read() should fetch an item's 4 keys in one 16-byte load "
                  "(a float4), not key by key",
                  wide, scalar);
    char entry[256] = "";
    int loops = most_loops_in_a_spline_kernel(entry, sizeof entry);
    ck_assert_msg(loops <= 8,
                  "the PTX's kernel '%s' (the library with spline_bins) has %d loops, where the "
                  "library's own are 4 at most: a loop in split() (a search over the bins' "
                  "centres or edges) makes a key's work grow with the bins; its bin is worked "
                  "out from its place, in a few operations",
                  entry, loops);
}
END_TEST

/* Past 2^24 pixels: 2^24 + 2304 pixels, grey (no hue) but for one run of
 * three of one colour per hue bin of 36, at pixels 2^24 + 4q - 1, 4q, 4q + 1
 * (q different for each bin, so that the runs start at every lane of a warp,
 * one across two warps). The three tie on distance, and the first of them is
 * the pick. As floats the three indices are one number, 2^24 + 4q: a
 * compare through float (on the GPU only, where the host laws cannot see
 * it) ties them, and the pick left depends on the order the GPU combined
 * them in. 48 MiB. */
START_TEST(test_nearest_hue_past_2_to_the_24_pixels)
{
    const size_t base = (size_t)1 << 24, n = base + 2304;
    unsigned char *rgb = malloc(3 * n);
    ck_assert(rgb != NULL);
    memset(rgb, 128, 3 * n);
    for (unsigned bin = 0; bin < 36; bin++) {
        unsigned char colour[3] = {0, 0, 0};
        bool found = false;
        for (unsigned r = 0; r < 256 && !found; r += 5)
            for (unsigned g = 0; g < 256 && !found; g += 5)
                for (unsigned b = 0; b < 256 && !found; b += 5)
                    if (hsv_of(r, g, b, 36).hue_bin == bin)
                        colour[0] = (unsigned char)r, colour[1] = (unsigned char)g,
                        colour[2] = (unsigned char)b, found = true;
        ck_assert_msg(found, "no colour found for hue bin %u of 36", bin);
        size_t q = 16 * (size_t)bin + bin % 8 + 1;
        for (size_t p = base + 4 * q - 1; p <= base + 4 * q + 1; p++)
            memcpy(rgb + 3 * p, colour, 3);
        ck_assert((float)(base + 4 * q - 1) == (float)(base + 4 * q + 1));
    }
    char path[32], args[256];
    write_temporary(path, rgb, 3, n);
    snprintf(args, sizeof args, "--pixels --file %s --bins 36 --reps 1 --print-bins", path);
    check_pixels(rgb, n, 36, args);
    unlink(path);
    free(rgb);
}
END_TEST

/* The defaults: --pixels without --bins is 36 hue bins; f32 keys without
 * --reps are timed 10 times, with every placement (the default variant, all:
 * the library's choice and each other that holds 1000 bins). */
START_TEST(test_the_defaults_of_bins_reps_and_variant)
{
    const size_t size = 3 * 10007;
    unsigned char *rgb = malloc(size);
    ck_assert(rgb != NULL);
    fill_input(DATA_UNIFORM, rgb, size, 300);
    check_pixels(rgb, size / 3, 36, "--pixels --size 30021 --seed 300 --reps 1 --print-bins");
    free(rgb);

    const char *args = "--size 4096 --csv";
    struct ran r = run_program(args);
    ck_assert_msg(r.status == EXIT_OK, "%s: %s, stderr: %.1500s", args, meaning(r.status), r.err);
    int rows = 0;
    for (char *row = strchr(r.out, '\n'); row && row[1]; row = strchr(row, '\n'), rows++) {
        row++;
        char *field = row;
        for (int comma = 0; comma < 8 && field; comma++)
            field = strchr(field, ','), field = field ? field + 1 : NULL;
        ck_assert_msg(field && strncmp(field, "10,", 3) == 0,
                      "%s: the row '%.*s' does not say 10 runs (reps, the 9th field): the default "
                      "--reps is 10",
                      args, (int)strcspn(row, "\n"), row);
    }
    ck_assert_msg(rows >= 2,
                  "%s: %d rows, expected the library's choice and each other placement that "
                  "holds 1000 bins (the default variant is all)",
                  args, rows);
    free_ran(&r);
}
END_TEST

START_TEST(test_csv_prints_only_csv)
{
    static const char *const args[] = {"--size 40000 --data skewed --reps 1 --csv",
                                       "--pixels --size 30000 --reps 1 --csv"};
    check_stdout_is_only_csv(args[_i], 3);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("17_generalized", argc, argv);
    Suite *suite = suite_create("exercise 17: your types for stage 08's library");

    /* On the host, before any GPU: these run on every machine. */
    TCase *laws = exercise_tcase("the combines' laws, on the host", 1);
    tcase_add_loop_test(laws,
                        test_combines_are_associative_commutative_with_an_identity_and_as_meant, 0,
                        LAW_SEEDS);
    add_tcase(suite, laws, LAW_SEEDS);

    TCase *outputs = exercise_tcase("the transform's outputs, on the host", 3);
    tcase_add_test(outputs, test_spline_bins_splits_every_chosen_key_as_the_readme_says);
    tcase_add_test(outputs, test_spline_bins_items_keep_the_librarys_contract);
    add_tcase(suite, outputs, 2);

    TCase *usage = exercise_tcase("bad usage refused, before the GPU", 0);
    tcase_add_loop_test(usage, test_bad_usage_is_refused_before_the_gpu, 0, REFUSED);
    add_tcase(suite, usage, REFUSED);

    /* With the library, on the GPU: without one, the program exits 77 and
     * these are counted as not run. */
    TCase *spline = exercise_tcase("spline bins on the GPU, every size and kind", 5);
    tcase_add_loop_test(spline, test_spline_bins_on_the_gpu_match_for_every_size_and_kind, 0,
                        SPLINE_SIZES * 4);
    add_if_runnable(suite, spline, SPLINE_SIZES * 4);

    TCase *placed = exercise_tcase("spline bins on the GPU, every range, bins and placement", 5);
    tcase_add_loop_test(placed,
                        test_spline_bins_on_the_gpu_match_for_every_range_bins_and_placement, 0,
                        SPLINE_CASES);
    tcase_add_test(placed, test_spline_bins_on_the_gpu_give_nothing_for_keys_outside_the_range);
    tcase_add_test(placed, test_spline_bins_on_the_gpu_far_from_0_on_the_bins_edges);
    add_if_runnable(suite, placed, SPLINE_CASES + 2);

    TCase *centres = exercise_tcase("spline bins on the GPU, keys exactly on bin centres", 5);
    tcase_add_loop_test(centres, test_spline_bins_on_the_gpu_split_keys_on_the_centres, 0,
                        CENTRE_CASES);
    add_if_runnable(suite, centres, CENTRE_CASES);

    TCase *cost = exercise_tcase("a key's work does not grow with the bins, an item is one load "
                                 "(GPU counters, ncu)",
                                 3);
    tcase_add_test(cost, test_a_keys_work_does_not_grow_with_the_bins);
    tcase_add_test(cost, test_an_item_is_one_load);
    add_if_tool(suite, cost, 2, can_profile(), profile_tool_missing());

    TCase *pixels =
        exercise_tcase("nearest_hue and darkest on the GPU, pixels and a photograph", 5);
    tcase_add_loop_test(pixels,
                        test_nearest_hue_and_darkest_on_the_gpu_match_for_every_size_and_kind, 0,
                        PIXEL_SIZES * 4);
    tcase_add_loop_test(pixels, test_nearest_hue_and_darkest_of_the_photograph_match, 0,
                        IMAGE_BINS);
    tcase_add_test(pixels, test_nearest_hue_past_2_to_the_23_pixels);
    add_if_runnable(suite, pixels, PIXEL_SIZES * 4 + IMAGE_BINS + 1);

    TCase *whole = exercise_tcase("the default input, the book's 100 MiB, and the CSV", 0);
    tcase_add_test(whole, test_default_is_spline_bins_of_the_books_100_mib);
    tcase_add_test(whole, test_csv_prints_header_and_a_verified_row_per_placement);
    add_if_runnable(suite, whole, 2);

    TCase *edge_usage = exercise_tcase("edge: each refusal names its option in one line", 0);
    tcase_add_loop_test(edge_usage, test_each_refusal_names_its_option_in_one_line, 0,
                        REFUSED_IN_ONE_LINE);
    add_tcase(suite, edge_usage, REFUSED_IN_ONE_LINE);

    /* read from the PTX: it runs without a GPU too */
    TCase *edge_ptx = exercise_tcase("edge: one 16-byte load an item, no search for the bin (read "
                                     "in the PTX)",
                                     3);
    tcase_add_test(edge_ptx, test_one_load_an_item_and_no_search_in_the_ptx);
    add_tcase(suite, edge_ptx, 1);

    TCase *edge =
        exercise_tcase("edge: picks past 2^24 pixels, the defaults, only CSV with --csv", 5);
    tcase_set_timeout(edge, 300);
    tcase_add_test(edge, test_nearest_hue_past_2_to_the_24_pixels);
    tcase_add_test(edge, test_the_defaults_of_bins_reps_and_variant);
    tcase_add_loop_test(edge, test_csv_prints_only_csv, 0, 2);
    add_if_runnable(suite, edge, 1 + 1 + 2);
    return run_exercise(suite);
}
