/*
 * test_hist_gpu_many_bins.c - 07_many_bins against a reference computed here,
 * in plain C, by the rule the program documents (the input read as
 * little-endian 32-bit keys; bin = key x bins / 2^32): every strategy at bin
 * counts around the powers of two and around what each can hold, on every
 * data kind, on key counts around the 16-byte loads and partition's tiles,
 * and on odd launches; sort, besides, on bins of 1 to 20 bits, none or one
 * key, and constant keys. A strategy may refuse bins only by saying what they
 * need and what it has, and the two must agree with its refusal. The CSV has
 * one header however many bins --sweep runs. Bad usage exits 2 before any GPU
 * is touched; the GPU checks are skipped without a CUDA device.
 */
#include "command_checks.h" /* run_command, output_of */
#include "stage_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------- running the program -- */

/* What one run did: its exit status and stderr, and the bins of its
 * --print-bins lines, in order. */
struct many_output {
    int exit_status;
    char *err;
    unsigned *bins;
    size_t bins_printed;
    bool verified;
};

static void run_many(const char *args, struct many_output *o, size_t most_bins)
{
    char command[1024];
    snprintf(command, sizeof command, "'%s' %s", stage_program(), args);
    struct ran r = run_command(command);
    *o = (struct many_output){.exit_status = r.status,
                              .err = r.err,
                              .bins = calloc(most_bins ? most_bins : 1, sizeof *o->bins)};
    ck_assert(o->bins != NULL);
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long long bin, value;
        if (sscanf(line, "%llu: %llu", &bin, &value) == 2 && bin == o->bins_printed &&
            bin < most_bins)
            o->bins[o->bins_printed++] = (unsigned)value;
        else if (strncmp(line, "verified:   yes", 15) == 0)
            o->verified = true;
    }
    free(r.out);
}

static void free_many(struct many_output *o)
{
    free(o->bins);
    free(o->err);
}

/* ------------------------------------------------------- the reference -- */

/* The keys the program makes from --data, --size and --seed, counted here. */
static unsigned *reference(enum data_kind kind, size_t keys, uint64_t seed, unsigned bins)
{
    unsigned char *bytes = malloc(4 * keys + 1);
    unsigned *histo = calloc(bins, sizeof *histo);
    ck_assert(bytes && histo);
    fill_input(kind, bytes, 4 * keys, seed);
    for (size_t i = 0; i < keys; i++) {
        uint32_t key = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 |
                       (uint32_t)bytes[4 * i + 2] << 16 | (uint32_t)bytes[4 * i + 3] << 24;
        histo[((uint64_t)key * bins) >> 32]++;
    }
    free(bytes);
    return histo;
}

/* ---------------------------------------------------------- the matrix -- */

static const char *const strategies[] = {"per-warp",
                                         "per-block",
                                         "per-block-halves",
                                         "halves-aggregated",
                                         "cluster",
                                         "global",
                                         "global-plain",
                                         "partition",
                                         "sort",
                                         "cub",
                                         "auto"};
#define STRATEGIES 11
/* around the powers of two, a bucket of partition (32768 on the H100), what
 * each copy holds (per-warp 7264, per-block 58112, halves 116224, cluster
 * 930304 on the H100), and the most */
static const unsigned bin_counts[] = {2,      3,      255,    256,    257,     4096,   7264,
                                      7265,   32768,  32769,  58112,  58113,   65536,  116224,
                                      116225, 262144, 930304, 930305, 1048575, 1048576};
#define BIN_COUNTS ((int)(sizeof bin_counts / sizeof bin_counts[0]))
/* keys: none, fewer than a vector, around a vector, around a tile of
 * partition (16384 keys with 1024 threads), and many */
static const size_t key_counts[] = {0, 1, 3, 4, 5, 16383, 16384, 16385, 1000003};
#define KEY_COUNTS ((int)(sizeof key_counts / sizeof key_counts[0]))
static const enum data_kind kinds[] = {DATA_UNIFORM, DATA_SKEWED, DATA_CONSTANT, DATA_TEXT};

/* A refusal must say why in numbers that agree: "need N bytes ...; a block
 * has M" with N > M, or "holds at most N bins" with N below the bins asked. */
static bool refusal_agrees(const char *err, unsigned bins)
{
    const char *need = strstr(err, "need "), *has = strstr(err, "a block has ");
    const char *most = strstr(err, "holds at most ");
    unsigned long a, b;
    if (need && has && sscanf(need, "need %lu bytes", &a) == 1 &&
        sscanf(has, "a block has %lu", &b) == 1)
        return a > b;
    if (most && sscanf(most, "holds at most %lu bins", &a) == 1)
        return a < bins;
    return false;
}

/* Runs one strategy on one input and checks its bins against the reference;
 * where it refuses the bins, that only a strategy with a limit does, in
 * numbers that agree; where it cannot run, that only cluster says so. */
static void check_case(const char *strategy, unsigned bins, enum data_kind kind, size_t keys,
                       const char *extra)
{
    uint64_t seed = 7 + keys + bins;
    char args[512];
    snprintf(args, sizeof args,
             "--variant %s --bins %u --data %s --size %zu --seed %llu --reps 1 --print-bins %s",
             strategy, bins, data_kind_name(kind), 4 * keys, (unsigned long long)seed, extra);
    unsigned *expected = reference(kind, keys, seed, bins);
    struct many_output o;
    run_many(args, &o, bins);
    bool limited = strcmp(strategy, "global") != 0 && strcmp(strategy, "global-plain") != 0 &&
                   strcmp(strategy, "partition") != 0 && strcmp(strategy, "sort") != 0 &&
                   strcmp(strategy, "cub") != 0 && strcmp(strategy, "auto") != 0 &&
                   strcmp(strategy, "all") != 0;
    if (o.exit_status == EXIT_CANNOT_RUN && strcmp(strategy, "cluster") == 0) {
        ck_assert_msg(strstr(o.err, "cluster needs"), "%s: exit 77: %s", args, o.err);
    } else if (o.exit_status == EXIT_USAGE && limited) {
        ck_assert_msg(bins > 4096 && refusal_agrees(o.err, bins), "%s: refused: %s", args, o.err);
    } else {
        ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
        ck_assert_msg(o.bins_printed == bins, "%s: %zu bins printed", args, o.bins_printed);
        for (unsigned b = 0; b < bins; b++)
            ck_assert_msg(o.bins[b] == expected[b], "%s: bin %u is %u, want %u", args, b, o.bins[b],
                          expected[b]);
        ck_assert_msg(o.verified, "%s: no verified line", args);
    }
    free_many(&o);
    free(expected);
}

/* Each strategy at each bin count, the data kind and key count turning. */
START_TEST(test_every_strategy_at_every_bin_count_is_exact)
{
    int s = _i % STRATEGIES, b = matrix_value(_i, BIN_COUNTS, STRATEGIES);
    check_case(strategies[s], bin_counts[b], kinds[_i % 4], key_counts[KEY_COUNTS - 1 - _i % 3],
               "");
}
END_TEST

/* Each strategy at every key count, the data kind turning. */
START_TEST(test_every_strategy_on_every_size_is_exact)
{
    int s = _i % STRATEGIES, n = matrix_value(_i, KEY_COUNTS, STRATEGIES);
    check_case(strategies[s], s % 2 ? 4096 : 1048576, kinds[_i % 4], key_counts[n], "");
}
END_TEST

/* sort: bins of every width its sort is cut to (1, 2, 8, 9, 10, 16 and 20
 * bits: 2, 3 not a power of two, 256 and 257 around one pass of CUB's 8-bit
 * digits, 1000, 65536, 2^20), no key, one, a few thousand (one tile of CUB's
 * sort or a few), and constant keys, whose bins are one run. An end_bit one
 * short leaves the bins' top bit unsorted: a bin's keys fall in several
 * runs, whose lengths overwrite one another, and more runs than bins overrun
 * unique and counts (a crash, or a hang if they reach CUB's scratch); the
 * uniform cases, where most bins have keys, fail at every width (constant
 * keys cannot: one run, sorted or not). A sort of every bit is right and
 * slower: only the times show it. */
static const struct {
    unsigned bins;
    enum data_kind kind;
    size_t keys;
} sort_cases[] = {
    {2, DATA_UNIFORM, 1000003},        {3, DATA_UNIFORM, 1000003},
    {1000, DATA_SKEWED, 1000003},      {1000, DATA_TEXT, 1000003},
    {65536, DATA_UNIFORM, 1000003},    {1048576, DATA_UNIFORM, 1000003},
    {1048576, DATA_SKEWED, 1000003},   {3, DATA_CONSTANT, 1000003},
    {1048576, DATA_CONSTANT, 1000003}, {3, DATA_UNIFORM, 1},
    {1048576, DATA_UNIFORM, 1},        {65536, DATA_UNIFORM, 0},
    {256, DATA_UNIFORM, 1000003},      {257, DATA_SKEWED, 1000003},
    {1000, DATA_UNIFORM, 16385},       {2, DATA_CONSTANT, 5},
};
#define SORT_CASES ((int)(sizeof sort_cases / sizeof sort_cases[0]))

START_TEST(test_sort_is_exact_at_every_width_of_its_bins)
{
    check_case("sort", sort_cases[_i].bins, sort_cases[_i].kind, sort_cases[_i].keys, "");
}
END_TEST

/* Launches with few blocks and small ones, which every kernel must count
 * exactly with (grid-stride loops, partition's tiles of another size). */
START_TEST(test_odd_launches_are_exact)
{
    static const char *const launches[] = {"--blocks 1 --threads 32", "--blocks 3 --threads 96",
                                           "--blocks 2 --threads 64", "--threads 1024"};
    int s = _i % (STRATEGIES - 2); /* not cub (no launch), nor auto; sort: its own two kernels */
    const char *launch = launches[_i % 4];
    if (strcmp(strategies[s], "cluster") == 0) /* its grid is whole clusters: its own size */
        launch = strstr(launch, "--threads");
    /* per-warp: 32 copies of 1500 bins (192000 bytes) still fit a block of 1024 threads */
    check_case(strategies[s], strcmp(strategies[s], "per-warp") == 0 ? 1500 : 70001, kinds[_i % 4],
               1000003, launch);
}
END_TEST

/* The lines of the CSV a run that must succeed prints, each checked as a
 * verified row of this stage but the header, which must come exactly once;
 * returns the rows (to free), how many there are in *rows. */
static char **csv_rows(const char *args, int *rows)
{
    char command[512];
    snprintf(command, sizeof command, "'%s' %s --csv", stage_program(), args);
    char *csv = output_of(command);
    char **row = calloc(strlen(csv) / 2 + 1, sizeof *row);
    ck_assert(row != NULL);
    int headers = 0;
    *rows = 0;
    for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
        if (strcmp(line, CSV_HEADER) == 0) {
            headers++;
            continue;
        }
        size_t len = strlen(line);
        ck_assert_msg(strncmp(line, "07_many_bins,", 13) == 0, "%s", line);
        ck_assert_msg(len > 4 && strcmp(line + len - 4, ",yes") == 0, "not verified: %s", line);
        row[(*rows)++] = strdup(line);
    }
    ck_assert_int_eq(headers, 1);
    free(csv);
    return row;
}

static void free_rows(char **row, int rows)
{
    for (int i = 0; i < rows; i++)
        free(row[i]);
    free(row);
}

/* --variant all checks every strategy against the CPU in the program; its
 * CSV has a row for each, under the shared header, each verified, each
 * strategy's name ending in its bins. */
START_TEST(test_all_strategies_in_one_csv)
{
    int rows;
    char **row = csv_rows("--bins 100000 --size 4M --reps 1", &rows);
    for (int i = 0; i < rows; i++)
        ck_assert_msg(strncmp(row[i] + 13, "read-bandwidth,", 15) == 0 ||
                          strstr(row[i], "/100000,"),
                      "no bins in the name: %s", row[i]);
    ck_assert_msg(rows >= 6, "%d rows", rows); /* the floor, auto, and what holds 100000 bins */
    free_rows(row, rows);
}
END_TEST

/* --sweep: one header, and for each of its ten bin counts the floor and
 * every strategy that holds them, every one verified. */
START_TEST(test_sweep_has_one_header_and_every_bin_count)
{
    int rows, floors = 0;
    bool seen_max = false;
    char **row = csv_rows("--sweep --size 1M --reps 1 --data skewed", &rows);
    for (int i = 0; i < rows; i++) {
        floors += strstr(row[i], ",read-bandwidth,") != NULL;
        seen_max = seen_max || strstr(row[i], "partition/1048576,");
    }
    ck_assert_int_eq(floors, 10);
    ck_assert(seen_max);
    ck_assert_msg(rows > 50, "%d rows", rows);
    free_rows(row, rows);
}
END_TEST

/* A file whose size is no whole number of keys is refused, in one line. */
START_TEST(test_a_file_of_odd_size_is_refused)
{
    char path[] = "/tmp/many_bins_odd_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, "12345", 5), 5);
    close(fd);
    char args[128];
    snprintf(args, sizeof args, "--file %s --reps 1", path);
    struct many_output o;
    run_many(args, &o, 0);
    unlink(path);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(o.err, "not a whole number of 32-bit keys"),
                  "exit %d: %s", o.exit_status, o.err);
    free_many(&o);
}
END_TEST

/* ------------------------------------------------------------ bad usage -- */

static const struct {
    const char *args, *reason;
} bad_usages[] = {
    {"--bins 1", "--bins: 1 is out of range (2 to 1048576)"},
    {"--bins 1048577", "out of range"},
    {"--bins 12x", "--bins"},
    {"--sweep --bins 8", "leave out --bins"},
    {"--sweep --print-bins", "cannot be combined"},
    {"--threads 100", "multiple of 32"},
    {"--size 6", "multiple of 4"},
    {"--bucket-bins 100", "power of two"},
    {"--bucket-bins 131072", "out of range"},
    {"--variant partitions", "not a variant"},
};
#define BAD_USAGES ((int)(sizeof bad_usages / sizeof bad_usages[0]))

START_TEST(test_bad_input_exits_2_with_a_one_line_reason)
{
    struct many_output o;
    run_many(bad_usages[_i].args, &o, 0);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: exit %d", bad_usages[_i].args, o.exit_status);
    char *newline = strchr(o.err, '\n');
    ck_assert(newline != NULL);
    *newline = '\0';
    ck_assert_msg(strstr(o.err, bad_usages[_i].reason) != NULL, "%s: '%s' lacks '%s'",
                  bad_usages[_i].args, o.err, bad_usages[_i].reason);
    free_many(&o);
}
END_TEST

START_TEST(test_without_a_gpu_it_exits_77_with_its_reason)
{
    struct many_output o;
    run_many("--size 1K --reps 1", &o, 0);
    ck_assert_msg(o.exit_status == EXIT_CANNOT_RUN, "exit %d", o.exit_status);
    ck_assert_msg(strstr(o.err, "cannot run here") != NULL, "%s", o.err);
    free_many(&o);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("07_many_bins", argc, argv);
    Suite *suite = suite_create("07_many_bins");
    int checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &checks));
    TCase *usage = tcase_create("own usage");
    tcase_add_loop_test(usage, test_bad_input_exits_2_with_a_one_line_reason, 0, BAD_USAGES);
    suite_add_tcase(suite, usage);

    TCase *no_gpu = tcase_create("no gpu");
    tcase_add_test(no_gpu, test_without_a_gpu_it_exits_77_with_its_reason);
    if (!can_run_stage())
        suite_add_tcase(suite, no_gpu);

    /* make test: each bin count once (the strategies in turn), each strategy
     * once at a key count, four launches; test-full: every pair */
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 1200);
    int bin_cases = cases(STRATEGIES * BIN_COUNTS, BIN_COUNTS);
    tcase_add_loop_test(gpu, test_every_strategy_at_every_bin_count_is_exact, 0, bin_cases);
    int data_cases = cases(STRATEGIES * KEY_COUNTS, KEY_COUNTS);
    tcase_add_loop_test(gpu, test_every_strategy_on_every_size_is_exact, 0, data_cases);
    int launches = cases(4 * (STRATEGIES - 2), 4);
    tcase_add_loop_test(gpu, test_odd_launches_are_exact, 0, launches);
    tcase_add_loop_test(gpu, test_sort_is_exact_at_every_width_of_its_bins, 0, SORT_CASES);
    tcase_add_test(gpu, test_all_strategies_in_one_csv);
    tcase_add_test(gpu, test_sweep_has_one_header_and_every_bin_count);
    tcase_add_test(gpu, test_a_file_of_odd_size_is_refused);
    add_if_runnable(suite, gpu, bin_cases + data_cases + launches + SORT_CASES + 3);
    return run_suite(suite);
}
