/*
 * test_hist_gpu_gmem_atomics.c - 02_global_atomics on the GPU gives the reference histogram on
 * every size and data kind, with the book's launch and with any other shape.
 * Without a CUDA device the GPU checks are reported as skipped.
 */
#include "stage_checks.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s ./hist_gpu_gmem_atomics\n", argv[0]);
        return EXIT_FAILED;
    }
    set_stage("02_global_atomics", argv[1]);
    Suite *suite = suite_create("02_global_atomics");
    int usage_checks = 0, gpu_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    TCase *output = output_tcase(&gpu_checks);
    add_if_runnable(suite, output, gpu_checks);
    gpu_checks = 0;
    TCase *gpu = gpu_tcase(&gpu_checks);
    add_if_runnable(suite, gpu, gpu_checks);
    return run_suite(suite);
}
