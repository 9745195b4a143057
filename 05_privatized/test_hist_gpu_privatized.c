/*
 * test_hist_gpu_privatized.c - every variant of 05_privatized, and CUB, gives
 * the reference histogram: the shared GPU-stage suite runs them all at once
 * (the program checks each and fails if one is wrong, and prints the first's
 * bins); here each variant's own bins are compared too, on sizes around the
 * 16-byte loads and on every data kind. Skipped without a CUDA device.
 */
#include "stage_checks.h"

static const char *const variants[] = {"book-occupancy", "lane-bins", "vector-loads", "unrolled",
                                       "cub"};
static const size_t sizes[] = {15, 16, 17, 31, 33, 1000003};
#define VARIANTS 5
#define SIZES    6

START_TEST(test_each_variant_matches_reference)
{
    int variant = _i % VARIANTS, kind = _i / VARIANTS % 4, size = _i / VARIANTS / 4;
    char args[64];
    snprintf(args, sizeof args, "--variant %s", variants[variant]);
    check_matches_reference(sizes[size], (enum data_kind)kind, 500 + (uint64_t)_i, args);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("05_privatized", argc, argv);
    Suite *suite = gpu_stage_suite();
    TCase *variants_tc = tcase_create("variants");
    tcase_set_timeout(variants_tc, 600);
    tcase_add_loop_test(variants_tc, test_each_variant_matches_reference, 0, VARIANTS * 4 * SIZES);
    add_if_runnable(suite, variants_tc, VARIANTS * 4 * SIZES);
    return run_suite(suite);
}
