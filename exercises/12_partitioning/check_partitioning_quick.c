/*
 * check_partitioning_quick.c - the check's own host for the two kernels, for
 * one launch each under Oclgrind (exercise 13's check has one like it).
 * Usage:
 *     partitioning-quick KERNEL_FILE SIZE GROUPS ITEMS [watch]
 *     partitioning-quick KERNEL_FILE walks S/T[:FROM+COUNT]...
 * It builds histo_interleaved and histo_contiguous from KERNEL_FILE, gives
 * both one input buffer of SIZE bytes, runs each on GROUPS work-groups of
 * ITEMS work-items, and prints "counted <walk> N", the sum of the 256 bins.
 * Under `oclgrind --quick`, which runs only the first and the last
 * work-group, N is the bytes those two counted. With watch it also prints
 * "most merge atomics by one work-item <walk>: M". The rest is
 * common/tests/opencl_quick_host.h.
 *
 * With walks, it builds KERNEL_FILE with a kernel of its own put after it,
 * which calls both walks for every item t of each S bytes shared by T
 * items, all in one work-item of one work-group: the arguments a walk is
 * given, never the launch's. With :FROM+COUNT, only items FROM to
 * FROM + COUNT - 1 of the T (any T below 2^64; COUNT up to 65536): the
 * walks of a grid too large to list. It prints a line per walk and item,
 * "<walk> S/T item t: first F step P end E".
 */
#include "opencl_quick_host.h"

#include <inttypes.h>

#define BINS 256

static const char *const walks[] = {"interleaved", "contiguous"};

/* Put after the kernel file: cases holds S, T, FROM and COUNT of each case;
 * walks gets first, step and end of the interleaved walk, then of the
 * contiguous one, for each item FROM to FROM + COUNT - 1 of each case in
 * turn. */
static const char walks_kernel[] =
    "\n#line 1 \"check_partitioning_quick.c\"\n"
    "__kernel void check_walks_unlike_the_launch(__global const ulong *cases, uint count,\n"
    "                                            __global ulong *walks)\n"
    "{\n"
    "    ulong at = 0;\n"
    "    for (uint c = 0; c < count; c++)\n"
    "        for (ulong i = 0; i < cases[4 * c + 3]; i++, at += 6) {\n"
    "            ulong t = cases[4 * c + 2] + i;\n"
    "            walk a = interleaved_walk(cases[4 * c], cases[4 * c + 1], t);\n"
    "            walk b = contiguous_walk(cases[4 * c], cases[4 * c + 1], t);\n"
    "            walks[at] = a.first, walks[at + 1] = a.step, walks[at + 2] = a.end;\n"
    "            walks[at + 3] = b.first, walks[at + 4] = b.step, walks[at + 5] = b.end;\n"
    "        }\n"
    "}\n";

static void show_walks_unlike_the_launch(int argc, char **argv)
{
    struct quick_host host;
    char *open_argv[] = {argv[0], argv[1], "0", "1", "1"};
    quick_open(&host, "partitioning-quick", BINS, "SIZE", 5, open_argv);
    cl_uint count = (cl_uint)(argc - 3);
    cl_ulong *cases = quick_allocate(&host, 4 * count * sizeof(cl_ulong)), items = 0;
    for (cl_uint c = 0; c < count; c++) {
        cl_ulong *k = cases + 4 * c;
        int n = sscanf(argv[3 + c], "%" SCNu64 "/%" SCNu64 ":%" SCNu64 "+%" SCNu64, &k[0], &k[1],
                       &k[2], &k[3]);
        if (n == 2)
            k[2] = 0, k[3] = k[1];
        if ((n != 2 && n != 4) || k[1] == 0 || k[3] == 0 || k[3] > 65536 || k[2] >= k[1] ||
            k[3] > k[1] - k[2]) {
            fprintf(stderr,
                    "partitioning-quick: walks: give S/T (T from 1 to 65536) or S/T:FROM+COUNT "
                    "(items FROM to FROM + COUNT - 1 of T, COUNT from 1 to 65536), not %s\n",
                    argv[3 + c]);
            exit(2);
        }
        items += k[3];
    }
    const char *sources[2] = {quick_read_file(&host, argv[1]), walks_kernel};
    cl_device_id device;
    cl_int err;
    quick_check(&host,
                clGetProgramInfo(host.program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL),
                "clGetProgramInfo");
    cl_program program = clCreateProgramWithSource(host.context, 2, sources, NULL, &err);
    quick_check(&host, err, "clCreateProgramWithSource (the walks)");
    quick_check(&host, clBuildProgram(program, 1, &device, "", NULL, NULL),
                "clBuildProgram (the walks)");
    cl_kernel kernel = clCreateKernel(program, "check_walks_unlike_the_launch", &err);
    quick_check(&host, err, "clCreateKernel check_walks_unlike_the_launch");
    size_t bytes = 6 * (size_t)items * sizeof(cl_ulong);
    cl_ulong *out = quick_allocate(&host, bytes);
    cl_mem cases_buffer = clCreateBuffer(host.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                         4 * count * sizeof(cl_ulong), cases, &err);
    quick_check(&host, err, "clCreateBuffer (the cases)");
    cl_mem out_buffer = clCreateBuffer(host.context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    quick_check(&host, err, "clCreateBuffer (the walks)");
    quick_check(&host, clSetKernelArg(kernel, 0, sizeof cases_buffer, &cases_buffer),
                "clSetKernelArg 0");
    quick_check(&host, clSetKernelArg(kernel, 1, sizeof count, &count), "clSetKernelArg 1");
    quick_check(&host, clSetKernelArg(kernel, 2, sizeof out_buffer, &out_buffer),
                "clSetKernelArg 2");
    size_t one = 1;
    quick_check(&host,
                clEnqueueNDRangeKernel(host.queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL),
                "clEnqueueNDRangeKernel");
    quick_check(&host,
                clEnqueueReadBuffer(host.queue, out_buffer, CL_TRUE, 0, bytes, out, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    const cl_ulong *w = out;
    for (cl_uint c = 0; c < count; c++)
        for (cl_ulong i = 0; i < cases[4 * c + 3]; i++, w += 6)
            for (int v = 0; v < 2; v++)
                printf("%s %" PRIu64 "/%" PRIu64 " item %" PRIu64 ": first %" PRIu64
                       " step %" PRIu64 " end %" PRIu64 "\n",
                       walks[v], cases[4 * c], cases[4 * c + 1], cases[4 * c + 2] + i, w[3 * v],
                       w[3 * v + 1], w[3 * v + 2]);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[2], "walks") == 0) {
        show_walks_unlike_the_launch(argc, argv);
        return 0;
    }
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
