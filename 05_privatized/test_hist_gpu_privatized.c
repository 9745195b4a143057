/*
 * test_hist_gpu_privatized.c - every variant of 05_privatized, and CUB, gives
 * the reference histogram: the shared GPU-stage suite runs them all at once
 * (the program checks each and fails if one is wrong, and prints the first's
 * bins); here each variant's own bins are compared too, on sizes around the
 * 16-byte loads and on every data kind. The two that aggregate (run-length,
 * warp-aggregated) also get the inputs that break aggregation: warps with
 * lanes that have no byte, the longest runs, whole warps on one bin, and past
 * 2 GiB. Skipped without a CUDA device.
 */
#include "stage_checks.h"

static const char *const variants[] = {
    "book-occupancy", "lane-bins", "run-length", "warp-aggregated",
    "vector-loads",   "unrolled",  "cub"};
static const size_t sizes[] = {15, 16, 17, 31, 33, 1000003};
#define VARIANTS 7
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

/* A launch and an input where aggregation could lose or repeat a count. */
struct aggregation_case {
    const char *launch;
    size_t size;
    enum data_kind kind;
};

static const struct aggregation_case aggregation_cases[] = {
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
    const struct aggregation_case *c =
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

int main(int argc, char **argv)
{
    set_stage("05_privatized", argc, argv);
    Suite *suite = gpu_stage_suite();
    TCase *variants_tc = tcase_create("variants");
    tcase_set_timeout(variants_tc, 600);
    /* make test: each variant once (with every size and kind in turn); each
     * aggregation case once, the two variants in turn; past 2 GiB in test-full */
    int each = cases(VARIANTS * 4 * SIZES, VARIANTS);
    tcase_add_loop_test(variants_tc, test_each_variant_matches_reference, 0, each);
    int aggregation = cases(AGGREGATING * AGGREGATION_CASES, AGGREGATION_CASES);
    tcase_add_loop_test(variants_tc, test_aggregation_counts_every_byte_once, 0, aggregation);
    int past_2_gib = cases(AGGREGATING, 0);
    tcase_add_loop_test(variants_tc, test_aggregation_past_2_gib, 0, past_2_gib);
    add_if_runnable(suite, variants_tc, each + aggregation + past_2_gib);
    return run_suite(suite);
}
