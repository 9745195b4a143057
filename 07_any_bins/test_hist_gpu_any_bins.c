/*
 * test_hist_gpu_any_bins.c - 07_any_bins against a reference computed here,
 * in plain C, by the rule the program documents (even bins over [LO, HI):
 * integer keys (key - LO) x bins / (HI - LO), float keys (int)((key - LO) x
 * scale)): every strategy and key type at bin counts around the powers of
 * two, on every data kind and on sizes around the 16-byte loads; weights
 * within the stated tolerance; channels and --image exact; keys outside the
 * range and NaNs in no bin and counted; past 2^31 keys; bad usage exits 2
 * before any GPU is touched. The GPU checks are skipped without a CUDA device.
 */
#include "stage_checks.h"

#include <math.h>
#include <unistd.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------- running the program -- */

struct any_output {
    int exit_status;
    double *bins; /* the --print-bins lines, in order */
    size_t bins_printed;
    long long outside; /* the "outside:" line, or -1 */
    bool verified;
    char out[8192]; /* the start of stdout, but for the bins */
    char err[2048];
};

static void run_any(const char *args, struct any_output *o, size_t most_bins)
{
    char command[1024], err_path[] = "/tmp/any_bins_err_XXXXXX";
    int fd = mkstemp(err_path);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(command, sizeof command, "'%s' %s 2>%s", stage_program(), args, err_path);
    FILE *p = popen(command, "r");
    ck_assert(p != NULL);
    *o = (struct any_output){.outside = -1};
    o->bins = calloc(most_bins ? most_bins : 1, sizeof *o->bins);
    ck_assert(o->bins != NULL);
    char line[512];
    size_t used = 0;
    while (fgets(line, sizeof line, p)) {
        unsigned long long bin;
        double value;
        long long outside;
        if (sscanf(line, "%llu: %lf", &bin, &value) == 2 && bin == o->bins_printed &&
            bin < most_bins) {
            o->bins[o->bins_printed++] = value;
            continue;
        }
        size_t len = strlen(line);
        if (used + len < sizeof o->out) {
            memcpy(o->out + used, line, len + 1);
            used += len;
        }
        if (sscanf(line, "outside: %lld", &outside) == 1)
            o->outside = outside;
        else if (strncmp(line, "verified:   yes", 15) == 0)
            o->verified = true;
    }
    int status = pclose(p);
    o->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *e = fopen(err_path, "r");
    size_t got = e ? fread(o->err, 1, sizeof o->err - 1, e) : 0;
    o->err[got] = '\0';
    if (e)
        fclose(e);
    remove(err_path);
}

/* ------------------------------------------------------- the reference -- */

enum key { U8, U16, U32, F32 };
static const char *const key_names[] = {"u8", "u16", "u32", "f32"};
static const int key_sizes[] = {1, 2, 4, 4};

/* The keys the program makes from --data and --seed: the bytes as they are,
 * or for f32 each 32-bit word w as (w >> 8) / 2^24. */
static unsigned char *make_keys(enum key type, enum data_kind kind, size_t bytes, uint64_t seed)
{
    unsigned char *buffer = malloc(bytes ? bytes : 1);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, bytes, seed);
    if (type == F32)
        for (size_t i = 0; i < bytes / 4; i++) {
            uint32_t word;
            memcpy(&word, buffer + 4 * i, 4);
            float key = (float)(word >> 8) / 16777216.0f;
            memcpy(buffer + 4 * i, &key, 4);
        }
    return buffer;
}

/* Counts (or, with weights, sums) n keys into channels x bins; returns the
 * keys in no bin. Integer keys over [lo, lo + width), floats over [flo, fhi). */
static long long reference(enum key type, const unsigned char *keys, size_t n, unsigned bins,
                           int channels, uint64_t lo, uint64_t width, float flo, float fhi,
                           const float *weights, double *out)
{
    long long outside = 0;
    float scale = (float)bins / (fhi - flo);
    for (size_t i = 0; i < n; i++) {
        long long bin = -1;
        if (type == F32) {
            float k;
            memcpy(&k, keys + 4 * i, 4);
            if (k >= flo && k < fhi) {
                bin = (long long)((k - flo) * scale);
                if (bin >= bins)
                    bin = bins - 1;
            }
        } else {
            uint64_t k = type == U8    ? keys[i]
                         : type == U16 ? (uint64_t)(keys[2 * i] | keys[2 * i + 1] << 8)
                                       : (uint64_t)keys[4 * i] | (uint64_t)keys[4 * i + 1] << 8 |
                                             (uint64_t)keys[4 * i + 2] << 16 |
                                             (uint64_t)keys[4 * i + 3] << 24;
            if (k >= lo && k - lo < width)
                bin = (long long)((k - lo) * bins / width);
        }
        if (bin < 0) {
            outside++;
            continue;
        }
        out[(i % channels) * bins + bin] += weights ? weights[i] : 1;
    }
    return outside;
}

/* The program's weights: splitmix64 of the seed and the key's index. */
static float weight_of(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

/* The run exited 0 and printed total bins, each equal to expected (within the
 * stated tolerance for weights). */
static void assert_bins(const char *args, const struct any_output *o, const double *expected,
                        size_t total, bool weighted)
{
    ck_assert_msg(o->exit_status == 0, "%s: exit %d: %s", args, o->exit_status, o->err);
    ck_assert_msg(o->bins_printed == total, "%s: %zu bins printed, want %zu", args, o->bins_printed,
                  total);
    for (size_t b = 0; b < total; b++) {
        double tolerance = weighted ? 1e-3 * fmax(fabs(expected[b]), 1.0) : 0;
        ck_assert_msg(fabs(o->bins[b] - expected[b]) <= tolerance, "%s: bin %zu is %.6f, want %.6f",
                      args, b, o->bins[b], expected[b]);
    }
}

/* ---------------------------------------------------------- the matrix -- */

static const char *const strategies[] = {"per-warp",     "per-block", "cluster",   "global",
                                         "global-plain", "cub",       "cub-range", "auto"};
#define STRATEGIES 8
static const unsigned bin_counts[] = {1, 2, 255, 256, 257, 4096, 65535, 65536, 65537, 1u << 20};
#define BIN_COUNTS 10
static const size_t key_counts[] = {0, 1, 15, 16, 17, 1000003};
#define KEY_COUNTS 6
static const enum data_kind kinds[] = {DATA_UNIFORM, DATA_SKEWED, DATA_CONSTANT};

/* Runs one strategy on one input; checks its bins against the reference, or,
 * where the strategy does not hold the bins on this GPU, that it says so and
 * exits 2. Only a strategy with a limit may refuse, and only many bins; only
 * cluster may not run at all (exit 77), on a GPU or build without clusters. */
static void check_case(const char *strategy, enum key type, unsigned bins, enum data_kind kind,
                       size_t n, const char *extra)
{
    uint64_t seed = 7 + n + bins;
    size_t bytes = n * key_sizes[type];
    char args[512];
    snprintf(args, sizeof args,
             "--variant %s --keys %s --bins %u --data %s --size %zu --seed %llu --reps 1 "
             "--print-bins %s",
             strategy, key_names[type], bins, data_kind_name(kind), bytes, (unsigned long long)seed,
             extra);
    double *expected = calloc(bins, sizeof *expected);
    unsigned char *keys = make_keys(type, kind, bytes, seed);
    long long outside = reference(type, keys, n, bins, 1, 0, (uint64_t)1 << (8 * key_sizes[type]),
                                  0, 1, NULL, expected);
    struct any_output o;
    run_any(args, &o, bins);
    if (o.exit_status == EXIT_CANNOT_RUN && strcmp(strategy, "cluster") == 0) {
        /* a GPU below 9.0, or a build without sm_90 code: no clusters to test */
        ck_assert_msg(strstr(o.err, "cluster needs"), "%s: exit 77: %s", args, o.err);
    } else if (o.exit_status == EXIT_USAGE && strstr(o.err, "holds at most")) {
        bool may_refuse = (strcmp(strategy, "per-warp") == 0 && bins >= 4096) ||
                          (strcmp(strategy, "per-block") == 0 && bins >= 65535) ||
                          (strcmp(strategy, "cluster") == 0 && bins >= 65537);
        ck_assert_msg(may_refuse, "%s: refused: %s", args, o.err);
    } else if (o.exit_status == EXIT_USAGE && strstr(o.err, "cub-range is shown")) {
        ck_assert_msg(type == F32, "%s: refused: %s", args, o.err);
    } else {
        assert_bins(args, &o, expected, bins, false); /* first: it says why a run failed */
        ck_assert_msg(o.verified, "%s: no verified line", args);
        ck_assert_msg(o.outside == outside, "%s: outside %lld, want %lld", args, o.outside,
                      outside);
    }
    free(o.bins);
    free(expected);
    free(keys);
}

/* Every key type x bin count with every strategy at once (--variant all:
 * the program checks each against its own CPU reference and fails if one
 * is wrong; the last one's bins are checked here too), the data kind and
 * size turning with the index. */
START_TEST(test_every_strategy_key_type_and_bin_count_is_exact)
{
    int t = _i % 4, b = matrix_value(_i, BIN_COUNTS, 4);
    check_case("all", (enum key)t, bin_counts[b], kinds[_i % 3], key_counts[3 + _i % 3], "");
}
END_TEST

/* Each strategy alone, its own bins checked here, on every data kind, and
 * every size with --variant all. */
START_TEST(test_each_strategy_on_every_data_kind_is_exact)
{
    int s = _i % STRATEGIES, k = matrix_value(_i, 3, STRATEGIES);
    check_case(strategies[s], _i % 2 ? U8 : U32, s == 0 ? 300 : 4096, kinds[k], 1000003, "");
}
END_TEST

START_TEST(test_every_size_is_exact)
{
    check_case("all", U32, 4096, kinds[_i % 3], key_counts[matrix_value(_i, KEY_COUNTS, 3)], "");
}
END_TEST

/* Launches that leave warps partly empty and blocks with odd counts. */
START_TEST(test_odd_launches_are_exact)
{
    static const char *const launches[] = {"--blocks 1 --threads 32", "--blocks 3 --threads 96",
                                           "--blocks 2 --threads 64"};
    static const char *const launched[] = {"per-warp", "per-block", "global", "global-plain"};
    check_case(launched[_i % 4], _i % 2 ? U8 : U32, 257, kinds[_i % 3], 1000003, launches[_i % 3]);
    /* a cluster's grid is a whole number of clusters: 257 bins take a cluster of 2 */
    check_case("cluster", U32, 257, kinds[_i % 3], 1000003,
               _i % 2 ? "--blocks 2 --threads 64" : "--blocks 4 --threads 96");
}
END_TEST

/* --------------------------------------------------------------- ranges -- */

/* A file of floats with NaNs, infinities, -0, the range's edges and keys
 * just inside and outside it: each in its bin or in none, and counted. */
START_TEST(test_float_keys_outside_the_range_and_nans_are_in_no_bin)
{
    float keys[] = {NAN,
                    -NAN,
                    INFINITY,
                    -INFINITY,
                    -0.0f,
                    0.0f,
                    0.25f,
                    0.5f,
                    0.75f,
                    1.0f,
                    nextafterf(1.0f, 0),
                    nextafterf(0.25f, 0),
                    -1e-30f,
                    3.0f,
                    0.1f,
                    0.9f,
                    0.5f};
    size_t n = sizeof keys / sizeof keys[0];
    char path[] = "/tmp/any_bins_f32_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0 && write(fd, keys, sizeof keys) == (ssize_t)sizeof keys);
    close(fd);
    static const char *const variants[] = {"per-warp", "per-block", "cluster", "global", "cub"};
    for (int v = 0; v < 5; v++) {
        for (int r = 0; r < 2; r++) {
            float lo = r ? 0.25f : 0, hi = r ? 0.75f : 1;
            char args[256];
            snprintf(args, sizeof args,
                     "--file %s --keys f32 --bins 7 --variant %s --reps 1 --print-bins%s", path,
                     variants[v], r ? " --range 0.25:0.75" : "");
            double expected[7] = {0};
            long long outside =
                reference(F32, (const unsigned char *)keys, n, 7, 1, 0, 0, lo, hi, NULL, expected);
            struct any_output o;
            run_any(args, &o, 7);
            assert_bins(args, &o, expected, 7, false);
            ck_assert_msg(o.outside == outside, "%s: outside %lld, want %lld", args, o.outside,
                          outside);
            free(o.bins);
        }
    }
    remove(path);
}
END_TEST

/* Integer ranges that are not the whole key type, one not a power of two wide. */
START_TEST(test_integer_ranges_bin_evenly_and_count_the_rest)
{
    static const char *const ranges[] = {"1000:9000", "0:65536", "12345:12346", "7:65535"};
    size_t n = 1000003, bytes = 2 * n;
    unsigned char *keys = make_keys(U16, DATA_SKEWED, bytes, 3);
    for (int r = 0; r < 4; r++) {
        long long lo, hi;
        sscanf(ranges[r], "%lld:%lld", &lo, &hi);
        double expected[100] = {0};
        long long outside = reference(U16, keys, n, 100, 1, (uint64_t)lo, (uint64_t)(hi - lo), 0, 1,
                                      NULL, expected);
        for (int s = 0; s < 5; s++) {
            char args[256];
            snprintf(args, sizeof args,
                     "--keys u16 --data skewed --size %zu --seed 3 --bins 100 --range %s --variant "
                     "%s --reps 1 --print-bins",
                     bytes, ranges[r], s == 4 ? "cub-range" : strategies[s]);
            struct any_output o;
            run_any(args, &o, 100);
            assert_bins(args, &o, expected, 100, false);
            ck_assert_msg(o.outside == outside, "%s: outside %lld, want %lld", args, o.outside,
                          outside);
            free(o.bins);
        }
    }
    free(keys);
}
END_TEST

/* ------------------------------------------------- weights and channels -- */

START_TEST(test_weights_agree_within_the_tolerance)
{
    static const char *const variants[] = {"per-warp", "per-block", "cluster", "global",
                                           "global-plain"};
    enum key type = _i % 2 ? F32 : U32;
    enum data_kind kind = kinds[matrix_value(_i, 3, 2)];
    size_t n = 1000003, bytes = 4 * n;
    unsigned bins = 1000;
    unsigned char *keys = make_keys(type, kind, bytes, 11);
    float *weights = malloc(n * sizeof *weights);
    for (size_t i = 0; i < n; i++)
        weights[i] = weight_of(11, i);
    double expected[1000] = {0};
    reference(type, keys, n, bins, 1, 0, (uint64_t)1 << 32, 0, 1, weights, expected);
    for (int v = 0; v < 5; v++) {
        char args[256];
        snprintf(args, sizeof args,
                 "--keys %s --data %s --size %zu --seed 11 --bins %u --weights --variant %s --reps "
                 "1 --print-bins",
                 key_names[type], data_kind_name(kind), bytes, bins, variants[v]);
        struct any_output o;
        run_any(args, &o, bins);
        assert_bins(args, &o, expected, bins, true);
        free(o.bins);
    }
    free(weights);
    free(keys);
}
END_TEST

START_TEST(test_channels_are_exact)
{
    static const char *const variants[] = {"per-warp", "per-block", "cluster",
                                           "global",   "cub",       "auto"};
    int channels = 2 + _i % 3;
    size_t n = (size_t)channels * 250001;
    enum data_kind kind = kinds[matrix_value(_i, 3, 3)];
    unsigned char *keys = make_keys(U8, kind, n, 5);
    double expected[4 * 256] = {0};
    reference(U8, keys, n, 256, channels, 0, 256, 0, 1, NULL, expected);
    for (int v = 0; v < 6; v++) {
        char args[256];
        snprintf(args, sizeof args,
                 "--keys u8 --channels %d --data %s --size %zu --seed 5 --variant %s --reps 1 "
                 "--print-bins",
                 channels, data_kind_name(kind), n, variants[v]);
        struct any_output o;
        run_any(args, &o, 4 * 256);
        assert_bins(args, &o, expected, (size_t)channels * 256, false);
        free(o.bins);
    }
    free(keys);
}
END_TEST

START_TEST(test_image_counts_red_green_and_blue)
{
    struct image img;
    char why[256];
    ck_assert_msg(read_bmp("../data/chelsea.bmp", &img, why, sizeof why) == EXIT_OK, "%s", why);
    size_t n = (size_t)img.width * img.height * 3;
    double expected[3 * 256] = {0};
    reference(U8, img.rgb, n, 256, 3, 0, 256, 0, 1, NULL, expected);
    static const char *const variants[] = {"per-block", "global", "cub"};
    for (int v = 0; v < 3; v++) {
        char args[256];
        snprintf(args, sizeof args,
                 "--image ../data/chelsea.bmp --variant %s --reps 1 --print-bins", variants[v]);
        struct any_output o;
        run_any(args, &o, 3 * 256);
        assert_bins(args, &o, expected, 3 * 256, false);
        free(o.bins);
    }
    free_image(&img);
}
END_TEST

/* More than 2^31 keys: 8-bit keys, 2 GiB + 17 bytes. */
START_TEST(test_past_two_to_the_31_keys)
{
    static const char *const variants[] = {"per-block", "global", "auto"};
    size_t n = ((size_t)1 << 31) + 17;
    unsigned char *keys = make_keys(U8, DATA_SKEWED, n, 9);
    double expected[256] = {0};
    reference(U8, keys, n, 256, 1, 0, 256, 0, 1, NULL, expected);
    free(keys);
    char args[256];
    snprintf(args, sizeof args,
             "--keys u8 --data skewed --size %zu --seed 9 --variant %s --reps 1 --print-bins", n,
             variants[_i]);
    struct any_output o;
    run_any(args, &o, 256);
    assert_bins(args, &o, expected, 256, false);
    free(o.bins);
}
END_TEST

/* A strategy asked for more bins than it holds says its limit and exits 2. */
START_TEST(test_too_many_bins_for_a_strategy_says_its_limit)
{
    static const char *const cases[] = {"--variant per-warp --bins 100000",
                                        "--variant per-block --bins 200000",
                                        "--variant cluster --bins 16M",
                                        "--variant cub --keys u16 --bins 65537",
                                        "--variant cub-range --keys u16 --bins 1M",
                                        "--variant cluster --bins 257 --blocks 3"};
    static const char *const reasons[] = {
        "holds at most",     "holds at most",
        "holds at most",     "holds at most 65536 bins of u16 keys",
        "NVIDIA/cccl#10976", "a multiple of the cluster's blocks"};
    char args[256];
    snprintf(args, sizeof args, "%s --size 1K --reps 1", cases[_i]);
    struct any_output o;
    run_any(args, &o, 0);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d", args, o.exit_status);
    char *newline = strchr(o.err, '\n');
    if (newline)
        *newline = '\0'; /* the reason is the first line */
    ck_assert_msg(strstr(o.err, reasons[_i]), "%s: %s lacks %s", args, o.err, reasons[_i]);
    free(o.bins);
}
END_TEST

/* cub's "not run:" line in a report, ended by its newline (cub-range's is not
 * it), or NULL: "cub needs N MiB ..." or "cub: CUB ... wants N MiB ...". */
static char *cub_refusal(const char *report)
{
    static char line[512];
    const char *at = report;
    while ((at = strstr(at, "\nnot run:    cub")) && at[16] != ' ' && at[16] != ':')
        at++;
    if (!at)
        return NULL;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(at + 1, "\n"), at + 1);
    return line;
}

/* The example from a new user: 64M keys into 2^28 bins. CUB's scratch space
 * for that is more than any GPU holds (a privatized copy of the bins per
 * block); it is refused with its reason, and the strategies that fit still
 * run, verified. Whichever strategies run must be right, and any that is
 * refused must say how much memory it wanted against what is free. */
START_TEST(test_a_strategy_that_needs_more_memory_than_the_gpu_has_is_refused)
{
    struct any_output o;
    const char *args = "--size 256M --keys u32 --bins 268435456 --reps 1";
    run_any(args, &o, 0);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    ck_assert_msg(o.verified, "%s: no verified line: %s", args, o.out);
    /* the report names each refusal on a "not run:" line */
    const char *refusal = cub_refusal(o.out);
    ck_assert_msg(refusal && strstr(refusal, " MiB"), "%s: no 'not run: cub ... MiB' line: %s",
                  args, o.out);
    ck_assert_msg(strstr(o.out, "\nglobal "), "%s: global did not run: %s", args, o.out);
    free(o.bins);
    /* asked for alone, the refusal is the one-line reason of a usage error */
    run_any("--size 256M --keys u32 --bins 268435456 --reps 1 --variant cub", &o, 0);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(o.err, "MiB"), "exit %d: %s", o.exit_status,
                  o.err);
    free(o.bins);
}
END_TEST

/* 16M bins of 16M keys: CUB's scratch, a copy of the bins per block, passes
 * 2^31 counters, which CUB before 3.5 indexes with a 32-bit int and then
 * writes outside its scratch (NVIDIA/cccl#9570): the whole run died on an
 * illegal address. It must be refused with that reason, or (a fixed CUB)
 * run right; every other strategy still runs, verified. */
START_TEST(test_cub_is_refused_where_its_offsets_would_wrap)
{
    struct any_output o;
    const char *args = "--size 64M --keys u32 --bins 16M --reps 1";
    run_any(args, &o, 0);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    ck_assert_msg(o.verified, "%s: no verified line: %s", args, o.out);
    const char *refusal = cub_refusal(o.out);
    ck_assert_msg(!refusal || strstr(refusal, "NVIDIA/cccl#9570") || strstr(refusal, " MiB"),
                  "%s: %s", args, o.out);
    ck_assert_msg(refusal || strstr(o.out, "\ncub "), "%s: cub neither ran nor was refused: %s",
                  args, o.out);
    ck_assert_msg(strstr(o.out, "\nglobal "), "%s: global did not run: %s", args, o.out);
    free(o.bins);
}
END_TEST

/* ------------------------------------------------- usage, with no GPU -- */

struct bad {
    const char *args, *reason;
};
static const struct bad bad_usages[] = {
    {"--bins 0", "--bins must be 1 to"},
    {"--bins 268435457", "--bins must be 1 to 268435456"},
    {"--bins 70M --channels 4 --keys u8", "with these channels"},
    {"--range 5:5", "LO < HI"},
    {"--range 10:2", "LO < HI"},
    {"--keys u8 --range 0:300", "u8 keys need 0 <= LO < HI <= 256"},
    {"--range -1:10", "LO < HI"},
    {"--range 1.5:2", "whole numbers"},
    {"--range 3", "LO:HI"},
    {"--keys f32 --range nan:1", "must be finite"},
    {"--keys f32 --range 0:inf", "must be finite"},
    {"--keys f32 --range -3e38:3e38", "must be finite"},
    {"--keys f32 --range 1:0.5", "LO must be less than HI"},
    {"--keys f32 --range 1:1", "LO must be less than HI"},
    {"--keys f32 --range a:1", "must be numbers"},
    {"--channels 5 --keys u8", "1 to 4"},
    {"--channels 0 --keys u8", "1 to 4"},
    {"--channels 4 --keys u16", "--channels needs --keys u8"},
    {"--channels 4", "--channels needs --keys u8"},
    {"--keys u64", "u8, u16, u32 or f32"},
    {"--size 6", "not a whole number of u32 keys"},
    {"--keys u8 --channels 3 --size 100", "whole pixels"},
    {"--image ../data/chelsea.bmp --channels 4", "3 channels of u8"},
    {"--image ../data/chelsea.bmp --keys u16", "3 channels of u8"},
    {"--bins", "--bins needs a value"},
    {"--weights=1", "takes no value"},
};
#define BAD_USAGES ((int)(sizeof bad_usages / sizeof bad_usages[0]))

START_TEST(test_bad_input_exits_2_with_a_one_line_reason)
{
    struct any_output o;
    run_any(bad_usages[_i].args, &o, 0);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d", bad_usages[_i].args, o.exit_status);
    char *newline = strchr(o.err, '\n');
    ck_assert(newline != NULL);
    *newline = '\0';
    ck_assert_msg(strstr(o.err, bad_usages[_i].reason) != NULL, "%s: '%s' lacks '%s'",
                  bad_usages[_i].args, o.err, bad_usages[_i].reason);
    free(o.bins);
}
END_TEST

START_TEST(test_without_a_gpu_it_exits_77_with_its_reason)
{
    struct any_output o;
    run_any("--size 1K --reps 1", &o, 0);
    ck_assert_msg(o.exit_status == EXIT_CANNOT_RUN, "exit %d", o.exit_status);
    ck_assert_msg(strstr(o.err, "cannot run here") != NULL, "%s", o.err);
    free(o.bins);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("07_any_bins", argc, argv);
    Suite *suite = suite_create("07_any_bins");
    int checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &checks));
    TCase *usage = tcase_create("own usage");
    tcase_add_loop_test(usage, test_bad_input_exits_2_with_a_one_line_reason, 0, BAD_USAGES);
    suite_add_tcase(suite, usage);

    TCase *no_gpu = tcase_create("no gpu");
    tcase_add_test(no_gpu, test_without_a_gpu_it_exits_77_with_its_reason);
    if (!can_run_stage())
        suite_add_tcase(suite, no_gpu);

    /* make test: each bin count once (the key types in turn), each strategy
     * once, each size once, four launches, one weighted and one of each
     * channel count; past 2^31 keys in test-full */
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 1200);
    int bin_counts = cases(4 * BIN_COUNTS, BIN_COUNTS);
    tcase_add_loop_test(gpu, test_every_strategy_key_type_and_bin_count_is_exact, 0, bin_counts);
    int strategies_each = cases(STRATEGIES * 3, STRATEGIES);
    tcase_add_loop_test(gpu, test_each_strategy_on_every_data_kind_is_exact, 0, strategies_each);
    int sizes = cases(3 * KEY_COUNTS, KEY_COUNTS);
    tcase_add_loop_test(gpu, test_every_size_is_exact, 0, sizes);
    int launches = cases(15, 4);
    tcase_add_loop_test(gpu, test_odd_launches_are_exact, 0, launches);
    tcase_add_test(gpu, test_float_keys_outside_the_range_and_nans_are_in_no_bin);
    tcase_add_test(gpu, test_integer_ranges_bin_evenly_and_count_the_rest);
    int weights = cases(6, 2);
    tcase_add_loop_test(gpu, test_weights_agree_within_the_tolerance, 0, weights);
    int channels = cases(9, 3);
    tcase_add_loop_test(gpu, test_channels_are_exact, 0, channels);
    tcase_add_test(gpu, test_image_counts_red_green_and_blue);
    int past_2_31 = cases(3, 0);
    tcase_add_loop_test(gpu, test_past_two_to_the_31_keys, 0, past_2_31);
    tcase_add_loop_test(gpu, test_too_many_bins_for_a_strategy_says_its_limit, 0, 6);
    tcase_add_test(gpu, test_a_strategy_that_needs_more_memory_than_the_gpu_has_is_refused);
    tcase_add_test(gpu, test_cub_is_refused_where_its_offsets_would_wrap);
    int gpu_checks = bin_counts + strategies_each + sizes + launches + 2 + weights + channels + 1 +
                     past_2_31 + 6 + 2;
    add_if_runnable(suite, gpu, gpu_checks);
    return run_suite(suite);
}
