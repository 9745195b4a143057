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
 *
 * The kernel is built after a few lines of its own: mad24 and mul24 keep
 * only the low 24 bits of each factor, as a device with 24-bit multipliers
 * does. OpenCL leaves their result past 24 bits to the implementation, and
 * Oclgrind multiplies all 32: without these lines a kernel that numbers its
 * work-items with them looks right on every launch here. Inside 24 bits
 * they give what the builtins give.
 */
#include "opencl_quick_host.h"

#define BINS (3 * 256) /* red, green, blue */

/* mad24 and mul24, scalar int and uint, on the low 24 bits of x and y. */
static const char narrow_multiplies[] =
    "static uint __attribute__((overloadable)) narrow_mad24(uint x, uint y, uint z)\n"
    "{ return (x & 0xFFFFFFu) * (y & 0xFFFFFFu) + z; }\n"
    "static int __attribute__((overloadable)) narrow_mad24(int x, int y, int z)\n"
    "{ return (int)((long)((x << 8) >> 8) * (long)((y << 8) >> 8) + (long)z); }\n"
    "static uint __attribute__((overloadable)) narrow_mul24(uint x, uint y)\n"
    "{ return narrow_mad24(x, y, 0u); }\n"
    "static int __attribute__((overloadable)) narrow_mul24(int x, int y)\n"
    "{ return narrow_mad24(x, y, 0); }\n"
    "#define mad24(x, y, z) narrow_mad24(x, y, z)\n"
    "#define mul24(x, y) narrow_mul24(x, y)\n"
    "#line 1\n";

/* Builds the kernel file again, after narrow_multiplies (and the watch's
 * lines, with watch), in place of the program quick_open built. */
static void build_with_narrow_multiplies(struct quick_host *host, const char *path)
{
    const char *sources[3] = {narrow_multiplies, host->prelude, quick_read_file(host, path)};
    if (!host->watch)
        sources[1] = sources[0];
    cl_device_id device;
    cl_int err;
    quick_check(host,
                clGetProgramInfo(host->program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL),
                "clGetProgramInfo");
    quick_check(host, clReleaseProgram(host->program), "clReleaseProgram");
    host->program = clCreateProgramWithSource(host->context, host->watch ? 3 : 2,
                                              sources + !host->watch, NULL, &err);
    quick_check(host, err, "clCreateProgramWithSource (24-bit mad24)");
    quick_check(host, clBuildProgram(host->program, 1, &device, "", NULL, NULL),
                "clBuildProgram (24-bit mad24)");
}

int main(int argc, char **argv)
{
    struct quick_host host;
    quick_open(&host, "rgb_histogram-quick", BINS, "PIXELS", argc, argv);
    build_with_narrow_multiplies(&host, argv[1]);
    cl_kernel kernel = quick_kernel(&host, "rgb_histo_kernel");
    quick_buffers(&host, 3 * host.count); /* three bytes a pixel */
    quick_launch(&host, kernel, NULL);
    return 0;
}
