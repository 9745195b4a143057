/*
 * test_hist_gpu_gmem_atomics.c - 02_global_atomics gives the reference histogram on every size and
 * data kind, with the book's launch and with any other shape, and past 2 GiB;
 * bad usage exits 2. The checks live in common/tests/stage_checks.c, shared by
 * every GPU stage; without a CUDA device the GPU checks are reported as skipped.
 */
#include "stage_checks.h"

int main(int argc, char **argv)
{
    set_stage("02_global_atomics", argc, argv);
    return run_suite(gpu_stage_suite());
}
