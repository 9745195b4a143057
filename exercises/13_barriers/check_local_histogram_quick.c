/*
 * check_local_histogram_quick.c - the check's own host for the kernel, for
 * one launch under Oclgrind. Usage:
 *     local_histogram-quick KERNEL_FILE SIZE GROUPS ITEMS [watch]
 * It builds histo_kernel from KERNEL_FILE, gives it an input buffer of SIZE
 * bytes (Oclgrind still zeroes it: near 4 GiB that takes a few seconds and
 * as much memory), runs GROUPS work-groups of ITEMS work-items, and prints
 * "counted N", the sum of the 256 bins. Under `oclgrind --quick`, which runs
 * only the first and the last work-group, N is the bytes those two counted.
 * With watch it also prints the most merge atomics one work-item made. The
 * rest is common/tests/opencl_quick_host.h.
 */
#include "opencl_quick_host.h"

#define BINS 256

int main(int argc, char **argv)
{
    struct quick_host host;
    quick_open(&host, "local_histogram-quick", BINS, "SIZE", argc, argv);
    cl_kernel kernel = quick_kernel(&host, "histo_kernel");
    quick_buffers(&host, host.count);
    quick_launch(&host, kernel, NULL);
    return 0;
}
