/*
 * check_rgb_histogram_quick.c - the check's own host for the kernel, for
 * one launch under Oclgrind. Usage:
 *     rgb_histogram-quick KERNEL_FILE PIXELS GROUPS ITEMS [watch]
 * It builds rgb_histo_kernel from KERNEL_FILE, gives it an input buffer of
 * 3 x PIXELS bytes (Oclgrind maps it lazily, so 2 GiB cost no time), runs
 * GROUPS work-groups of ITEMS work-items, and prints "counted N", the sum of
 * the 768 bins. Under `oclgrind --quick`, which runs only the first and the
 * last work-group, N is the bytes those two counted, and Oclgrind reports
 * any read or write outside the buffers. With watch it also prints the most
 * merge atomics one work-item made. The rest is common/tests/opencl_quick_host.h.
 */
#include "opencl_quick_host.h"

#define BINS (3 * 256) /* red, green, blue */

int main(int argc, char **argv)
{
    struct quick_host host;
    quick_open(&host, "rgb_histogram-quick", BINS, "PIXELS", argc, argv);
    cl_kernel kernel = quick_kernel(&host, "rgb_histo_kernel");
    quick_buffers(&host, 3 * host.count); /* three bytes a pixel */
    quick_launch(&host, kernel, NULL);
    return 0;
}
