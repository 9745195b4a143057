/*
 * check_partitioning_quick.c - the check's own host for the two kernels, for
 * one launch each under Oclgrind (exercise 13's check has one like it).
 * Usage:
 *     partitioning-quick KERNEL_FILE SIZE GROUPS ITEMS [watch]
 * It builds histo_interleaved and histo_contiguous from KERNEL_FILE, gives
 * both one input buffer of SIZE bytes, runs each on GROUPS work-groups of
 * ITEMS work-items, and prints "counted <walk> N", the sum of the 256 bins.
 * Under `oclgrind --quick`, which runs only the first and the last
 * work-group, N is the bytes those two counted. With watch it also prints
 * "most merge atomics by one work-item <walk>: M". The rest is
 * common/tests/opencl_quick_host.h.
 */
#include "opencl_quick_host.h"

#define BINS 256

static const char *const walks[] = {"interleaved", "contiguous"};

int main(int argc, char **argv)
{
    struct quick_host host;
    quick_open(&host, "partitioning-quick", BINS, "SIZE", argc, argv);
    quick_buffers(&host, host.count);
    for (int w = 0; w < 2; w++) {
        char name[64];
        snprintf(name, sizeof name, "histo_%s", walks[w]);
        quick_launch(&host, quick_kernel(&host, name), walks[w]);
    }
    return 0;
}
