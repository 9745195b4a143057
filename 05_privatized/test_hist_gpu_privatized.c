/*
 * test_hist_gpu_privatized.c - every variant of 05_privatized, and CUB, gives
 * the reference histogram: the shared GPU-stage suite runs them all at once
 * (the program checks each and fails if one is wrong, and prints the first's
 * bins); here each variant's own bins are compared too, on sizes around the
 * 16-byte loads and on every data kind. The two that aggregate (run-length,
 * warp-aggregated) also get the inputs that break aggregation: warps with
 * lanes that have no byte, the longest runs, whole warps on one bin, and past
 * 2 GiB. The three built for 256 threads (packed-bytes, cub-block-sort,
 * cub-block-atomic) get the inputs that break rounds and tiles, and refuse
 * another --threads. one-copy-vector-loads, which only runs when named, also
 * gets grids too small to take the last size % 16 bytes one per thread, and
 * the case past 2 GiB. Skipped without a CUDA device, but for that refusal.
 */
#include "stage_checks.h"

#include <string.h>

static const char *const variants[] = {"book-occupancy",   "lane-bins",    "run-length",
                                       "warp-aggregated",  "vector-loads", "one-copy-vector-loads",
                                       "unrolled",         "packed-bytes", "cub-block-sort",
                                       "cub-block-atomic", "cub"};
static const size_t sizes[] = {15, 16, 17, 31, 33, 1000003};
#define VARIANTS 11
#define SIZES    6

START_TEST(test_each_variant_matches_reference)
{
    int variant = _i % VARIANTS, kind = matrix_value(_i, 4, VARIANTS);
    int size = matrix_value(_i, SIZES, VARIANTS * 4);
    char args[64];
    snprintf(args, sizeof args, "--variant %s", variants[variant]);
    check_matches_reference(sizes[size], (enum data_kind)kind, 500 + (uint64_t)_i, args);
}
END_TEST

static const char *const aggregating[] = {"run-length", "warp-aggregated"};
#define AGGREGATING 2

/* A launch and an input where a variant could lose or repeat a count. */
struct launch_case {
    const char *launch;
    size_t size;
    enum data_kind kind;
};

static const struct launch_case aggregation_cases[] = {
    /* The loop's last step leaves a warp partly empty: 1, 31, 33, T - 1 and
     * T + 1 bytes for T = 2 x 64 threads. */
    {"--blocks 2 --threads 64", 1, DATA_UNIFORM},
    {"--blocks 2 --threads 64", 31, DATA_UNIFORM},
    {"--blocks 2 --threads 64", 33, DATA_CONSTANT},
    {"--blocks 2 --threads 64", 127, DATA_CONSTANT},
    {"--blocks 2 --threads 64", 129, DATA_SKEWED},
    /* Blocks whose last warp has 1 lane (33 threads) or 8 (1000), at every step. */
    {"--blocks 3 --threads 33", 98, DATA_CONSTANT},
    {"--blocks 3 --threads 33", 1000003, DATA_UNIFORM},
    {"--blocks 3 --threads 33", 1000003, DATA_CONSTANT},
    {"--blocks 2 --threads 1000", 1999, DATA_CONSTANT},
    {"--blocks 2 --threads 1000", 1000003, DATA_SKEWED},
    /* The longest runs and the widest matches: one thread reads every byte, one
     * run; one warp on one bin, 32 lanes in every match; a stride of 23, the
     * phrase's length, so each thread reads one letter over and over and the
     * lanes that read the same letter match; the default grid. */
    {"--blocks 1 --threads 1", 1000003, DATA_CONSTANT},
    {"--blocks 1 --threads 32", 1000003, DATA_CONSTANT},
    {"--blocks 1 --threads 23", 1000003, DATA_TEXT},
    {"", 1000003, DATA_CONSTANT},
};
#define AGGREGATION_CASES ((int)(sizeof aggregation_cases / sizeof aggregation_cases[0]))

START_TEST(test_aggregation_counts_every_byte_once)
{
    /* every case with both variants, or (the sample) each case once, in turn */
    const struct launch_case *c =
        &aggregation_cases[matrix_value(_i, AGGREGATION_CASES, AGGREGATING)];
    char args[128];
    snprintf(args, sizeof args, "--variant %s %s", aggregating[_i % AGGREGATING], c->launch);
    check_matches_reference(c->size, c->kind, 700 + (uint64_t)_i, args);
}
END_TEST

/* size_t indices, and one bin that counts more than 2^31 bytes. (The shared
 * suite's case past 2 GiB runs every variant too, on uniform bytes.) */
START_TEST(test_aggregation_past_2_gib)
{
    char args[64];
    snprintf(args, sizeof args, "--variant %s", aggregating[_i]);
    check_matches_reference(((size_t)1 << 31) + 5, DATA_CONSTANT, 9, args);
}
END_TEST

static const char *const fixed_size[] = {"packed-bytes", "cub-block-sort", "cub-block-atomic"};
#define FIXED_SIZE 3

/* packed-bytes counts in rounds of 15 x 16 = 240 bytes per thread (one round
 * of one block: 256 x 240 = 61440 bytes), in 8-bit counters; the CUB ones in
 * tiles of 256 x 16 = 4096 bytes, the rest with shared atomics. One block on
 * constant bytes gives each thread a whole round of one bin: a counter that
 * wraps, or a flush that comes late, loses 256 counts. make test runs case i
 * with variant i % 3: packed-bytes, cub-block-sort, cub-block-atomic, in turn,
 * so each case sits where it tests most. */
static const struct launch_case round_and_tile_cases[] = {
    {"--blocks 1", 61440 + 15, DATA_CONSTANT},         /* 241: a tail byte and a full round */
    {"--blocks 1", 4095, DATA_CONSTANT},               /* no whole tile: all of it the rest */
    {"--blocks 1", 4097, DATA_UNIFORM},                /* a tile and one byte */
    {"--blocks 1", 1000003, DATA_CONSTANT},            /* 16 rounds and a partial one */
    {"--blocks 1", 4096, DATA_CONSTANT},               /* one tile, one run of one bin */
    {"--blocks 2", 3 * 4096 + 17, DATA_SKEWED},        /* the rest goes to block 1 */
    {"--blocks 1", 255 * 16 * 256 + 1, DATA_CONSTANT}, /* 17 full rounds and one tail byte */
    {"--blocks 1", 1000003, DATA_TEXT},                /* 244 tiles through one block's scratch */
    {"--blocks 1", 61440, DATA_CONSTANT},              /* one full round, 240 in a counter */
    {"--blocks 3", 3 * 61440 + 4 * 16, DATA_TEXT},     /* a round each, and a bit of a second */
    {"--blocks 100000", 1000003, DATA_CONSTANT},       /* most blocks have nothing to count */
};
#define ROUND_AND_TILE_CASES ((int)(sizeof round_and_tile_cases / sizeof round_and_tile_cases[0]))

START_TEST(test_rounds_and_tiles_count_every_byte_once)
{
    const struct launch_case *c =
        &round_and_tile_cases[matrix_value(_i, ROUND_AND_TILE_CASES, FIXED_SIZE)];
    char args[128];
    snprintf(args, sizeof args, "--variant %s %s", fixed_size[_i % FIXED_SIZE], c->launch);
    check_matches_reference(c->size, c->kind, 800 + (uint64_t)_i, args);
}
END_TEST

/* One bin past 2^31 bytes (32-bit totals), over many rounds and tiles per block. */
START_TEST(test_fixed_size_variants_past_2_gib)
{
    char args[64];
    snprintf(args, sizeof args, "--variant %s", fixed_size[_i]);
    check_matches_reference(((size_t)1 << 31) + 5, DATA_CONSTANT, 10, args);
}
END_TEST

/* Named, they refuse another block size, before any GPU is looked for. */
START_TEST(test_fixed_size_variants_refuse_other_threads)
{
    char args[96], reason[96];
    snprintf(args, sizeof args, "--variant %s --threads 128", fixed_size[_i]);
    snprintf(reason, sizeof reason, "--threads: %s runs 256 threads per block", fixed_size[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s", args, exit_meaning(&o));
    ck_assert_msg(strstr(o.err, reason) != NULL, "%s: want '%s' in: %s", args, reason, o.err);
}
END_TEST

/* The launch column of a variant's row in the report: "NAME  3x256 ...". */
static bool row_launch(const char *out, const char *name, long *blocks, int *threads)
{
    char row[64];
    snprintf(row, sizeof row, "\n%s ", name);
    const char *line = strstr(out, row);
    return line && sscanf(line + strlen(row), " %ldx%d", blocks, threads) == 2;
}

/* Named with their own size, they run; under all with another, they keep
 * theirs (the row says 3x256) and the others take it. */
START_TEST(test_fixed_size_variants_keep_256_threads)
{
    char args[96];
    snprintf(args, sizeof args, "--variant %s --threads 256", fixed_size[_i]);
    check_matches_reference(1000003, DATA_UNIFORM, 11, args);

    struct stage_output o;
    run_stage("--size 1000003 --reps 1 --blocks 3 --threads 64", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s, stderr: %s", exit_meaning(&o), o.err);
    long blocks = 0;
    int threads = 0;
    ck_assert_msg(row_launch(o.out, fixed_size[_i], &blocks, &threads), "no row for %s in: %s",
                  fixed_size[_i], o.out);
    ck_assert_msg(blocks == 3 && threads == 256, "%s ran %ldx%d, want 3x256", fixed_size[_i],
                  blocks, threads);
    ck_assert_msg(row_launch(o.out, "unrolled", &blocks, &threads) && threads == 64,
                  "unrolled did not take --threads 64: %s", o.out);
}
END_TEST

/* one-copy-vector-loads: the last 0 to 15 bytes go round the grid as the
 * vectors do, so a grid of fewer than 15 threads must still count them all;
 * a block with nothing to count merges nothing. */
static const struct launch_case one_copy_cases[] = {
    {"--blocks 1 --threads 1", 15, DATA_UNIFORM},     /* no vector: every byte a tail byte */
    {"--blocks 1 --threads 1", 31, DATA_TEXT},        /* one vector, 15 tail bytes, 1 thread */
    {"--blocks 2 --threads 3", 1000003, DATA_SKEWED}, /* 3 tail bytes, 6 threads */
    {"--blocks 1 --threads 33", 16 * 33 + 14, DATA_CONSTANT}, /* one vector each, then 14 */
    {"--blocks 100000", 1000003, DATA_UNIFORM}, /* most blocks have nothing to count */
    {"", 1000003, DATA_CONSTANT},               /* the default grid, one bin */
};
#define ONE_COPY_CASES ((int)(sizeof one_copy_cases / sizeof one_copy_cases[0]))

/* (c) and (d) take the last bytes with count_tail: a 1x1 grid, 15 of them. */
START_TEST(test_tail_with_one_thread)
{
    static const char *const vector_variants[] = {"vector-loads", "unrolled"};
    char args[96];
    snprintf(args, sizeof args, "--variant %s --blocks 1 --threads 1", vector_variants[_i]);
    check_matches_reference(31, DATA_TEXT, 950 + (uint64_t)_i, args);
}
END_TEST

START_TEST(test_one_copy_counts_every_byte_once)
{
    const struct launch_case *c = &one_copy_cases[_i];
    char args[128];
    snprintf(args, sizeof args, "--variant one-copy-vector-loads %s", c->launch);
    check_matches_reference(c->size, c->kind, 900 + (uint64_t)_i, args);
}
END_TEST

/* size_t indices, and one bin past 2^31 bytes in one block's 32-bit bin. */
START_TEST(test_one_copy_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_CONSTANT, 12,
                            "--variant one-copy-vector-loads");
}
END_TEST

/* Not under all: the run of every variant shows the rows it always has. */
START_TEST(test_one_copy_only_when_named)
{
    struct stage_output o;
    run_stage("--size 1000003 --reps 1", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s, stderr: %s", exit_meaning(&o), o.err);
    long blocks = 0;
    int threads = 0;
    ck_assert_msg(row_launch(o.out, "vector-loads", &blocks, &threads), "no vector-loads row: %s",
                  o.out);
    ck_assert_msg(!row_launch(o.out, "one-copy-vector-loads", &blocks, &threads),
                  "one-copy-vector-loads ran under all: %s", o.out);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("05_privatized", argc, argv);
    Suite *suite = gpu_stage_suite();
    TCase *refusals = tcase_create("block sizes");
    tcase_add_loop_test(refusals, test_fixed_size_variants_refuse_other_threads, 0, FIXED_SIZE);
    add_tcase(suite, refusals, FIXED_SIZE);

    TCase *variants_tc = tcase_create("variants");
    tcase_set_timeout(variants_tc, 600);
    /* make test: each variant once (with every size and kind in turn); each
     * aggregation, round and tile case once, the variants in turn; every
     * one-copy case; past 2 GiB in test-full */
    int each = cases(VARIANTS * 4 * SIZES, VARIANTS);
    tcase_add_loop_test(variants_tc, test_each_variant_matches_reference, 0, each);
    int aggregation = cases(AGGREGATING * AGGREGATION_CASES, AGGREGATION_CASES);
    tcase_add_loop_test(variants_tc, test_aggregation_counts_every_byte_once, 0, aggregation);
    int rounds = cases(FIXED_SIZE * ROUND_AND_TILE_CASES, ROUND_AND_TILE_CASES);
    tcase_add_loop_test(variants_tc, test_rounds_and_tiles_count_every_byte_once, 0, rounds);
    tcase_add_loop_test(variants_tc, test_fixed_size_variants_keep_256_threads, 0, FIXED_SIZE);
    tcase_add_loop_test(variants_tc, test_one_copy_counts_every_byte_once, 0, ONE_COPY_CASES);
    tcase_add_test(variants_tc, test_one_copy_only_when_named);
    tcase_add_loop_test(variants_tc, test_tail_with_one_thread, 0, 2);
    int past_2_gib = cases(AGGREGATING, 0), fixed_past_2_gib = cases(FIXED_SIZE, 0);
    tcase_add_loop_test(variants_tc, test_aggregation_past_2_gib, 0, past_2_gib);
    tcase_add_loop_test(variants_tc, test_fixed_size_variants_past_2_gib, 0, fixed_past_2_gib);
    int one_copy_past_2_gib = cases(1, 0);
    tcase_add_loop_test(variants_tc, test_one_copy_past_2_gib, 0, one_copy_past_2_gib);
    add_if_runnable(suite, variants_tc,
                    each + aggregation + rounds + FIXED_SIZE + ONE_COPY_CASES + 1 + past_2_gib +
                        fixed_past_2_gib + one_copy_past_2_gib + 2);
    return run_suite(suite);
}
