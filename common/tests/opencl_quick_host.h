/*
 * opencl_quick_host.h - what the OpenCL exercises' own small hosts share
 * (check_*_quick.c in 06, 12 and 13), written once. Such a host is run by
 * its exercise's check under Oclgrind, often `oclgrind --quick`, which runs
 * only the first and the last work-group. Its usage is
 *     NAME KERNEL_FILE COUNT GROUPS ITEMS [watch]
 * It builds KERNEL_FILE, gives each kernel an input buffer that it never
 * writes (what the bytes hold does not matter, only how many are counted),
 * COUNT and the bins, runs GROUPS work-groups of ITEMS work-items, and prints
 * "counted N", the sum of the bins. Header-only, static: each host is one
 * file that includes it and keeps only its own kernels, input and bins.
 *
 * With watch, a few lines put before the kernels make each atomic_add (or
 * atom_add) on global memory also add one to the same bin of a row past the
 * bins, the row of its work-item's local id; the host then also prints "most
 * merge atomics by one work-item: M", the most any local id made, over all
 * the work-groups.
 */
#ifndef OPENCL_QUICK_HOST_H
#define OPENCL_QUICK_HOST_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The watch's lines, with %d for the bins in a row. */
static const char quick_watch_prelude[] =
    "#define WATCH_ADD(T, SPACE, EXTRA) \\\n"
    "    T __attribute__((overloadable)) watched_add(volatile SPACE T *p, T v) \\\n"
    "    { EXTRA; return atomic_add(p, v); }\n"
    "#define WATCH_ROW(p) ((p) + %d * (1 + get_local_id(0)))\n"
    "WATCH_ADD(uint, __local, (void)0)\n"
    "WATCH_ADD(int, __local, (void)0)\n"
    "WATCH_ADD(uint, __global, atomic_inc(WATCH_ROW(p)))\n"
    "WATCH_ADD(int, __global, atomic_inc(WATCH_ROW(p)))\n"
    "#define atomic_add(p, v) watched_add(p, v)\n"
    "#define atom_add(p, v) watched_add(p, v)\n"
    "#line 1\n";

struct quick_host {
    const char *name; /* what each of its errors starts with: "partitioning-quick" */
    int bins;         /* in a row: the kernel's histogram */
    bool watch;
    cl_ulong count;       /* COUNT: every kernel's second argument */
    size_t items, global; /* the launch: work-items per work-group, in all */
    size_t rows, bytes;   /* rows of bins (with watch one more per local id), their bytes */
    char prelude[sizeof quick_watch_prelude + 16];
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_mem input, bins_buffer;
    cl_uint *histo;
};

static void quick_check(const struct quick_host *host, cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "%s: %s failed: OpenCL error %d\n", host->name, what, err);
        exit(3);
    }
}

static void *quick_allocate(const struct quick_host *host, size_t bytes)
{
    void *p = calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "%s: out of host memory\n", host->name);
        exit(3);
    }
    return p;
}

static char *quick_read_file(const struct quick_host *host, const char *path)
{
    FILE *f = fopen(path, "rb");
    long length = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (length < 0) {
        fprintf(stderr, "%s: cannot read %s\n", host->name, path);
        exit(3);
    }
    rewind(f);
    char *text = quick_allocate(host, (size_t)length + 1);
    text[fread(text, 1, (size_t)length, f)] = '\0';
    fclose(f);
    return text;
}

/* Reads the arguments (count_name: what COUNT is, for the usage line), and
 * builds the kernel file, after the watch's lines with watch. */
static void quick_open(struct quick_host *host, const char *name, int bins, const char *count_name,
                       int argc, char **argv)
{
    memset(host, 0, sizeof *host);
    host->name = name;
    host->bins = bins;
    host->watch = argc == 6 && strcmp(argv[5], "watch") == 0;
    if (argc != 5 && !host->watch) {
        fprintf(stderr, "usage: %s KERNEL_FILE %s GROUPS ITEMS [watch]\n", argv[0], count_name);
        exit(2);
    }
    snprintf(host->prelude, sizeof host->prelude, quick_watch_prelude, bins);
    const char *sources[2] = {host->prelude, quick_read_file(host, argv[1])};
    host->count = strtoull(argv[2], NULL, 10);
    host->items = strtoull(argv[4], NULL, 10);
    host->global = strtoull(argv[3], NULL, 10) * host->items;
    host->rows = host->watch ? 1 + host->items : 1;
    host->bytes = host->rows * (size_t)bins * sizeof(cl_uint);
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    quick_check(host, clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    quick_check(host, clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL),
                "clGetDeviceIDs");
    host->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    quick_check(host, err, "clCreateContext");
    host->queue = clCreateCommandQueue(host->context, device, 0, &err);
    quick_check(host, err, "clCreateCommandQueue");
    host->program = clCreateProgramWithSource(host->context, host->watch ? 2 : 1,
                                              sources + !host->watch, NULL, &err);
    quick_check(host, err, "clCreateProgramWithSource");
    quick_check(host, clBuildProgram(host->program, 1, &device, "", NULL, NULL), "clBuildProgram");
}

static cl_kernel quick_kernel(const struct quick_host *host, const char *name)
{
    char what[128];
    cl_int err;
    cl_kernel kernel = clCreateKernel(host->program, name, &err);
    snprintf(what, sizeof what, "clCreateKernel %s", name);
    quick_check(host, err, what);
    return kernel;
}

/* The input buffer (input_bytes, never written) and the bins. */
static void quick_buffers(struct quick_host *host, cl_ulong input_bytes)
{
    cl_int err;
    host->input =
        clCreateBuffer(host->context, CL_MEM_READ_ONLY, input_bytes ? input_bytes : 1, NULL, &err);
    quick_check(host, err, "clCreateBuffer (the input)");
    host->histo = quick_allocate(host, host->bytes);
    host->bins_buffer = clCreateBuffer(host->context, CL_MEM_READ_WRITE, host->bytes, NULL, &err);
    quick_check(host, err, "clCreateBuffer (the bins)");
}

/* Runs kernel (input, COUNT, bins) once on zeroed bins, prints what it
 * counted (after walk, where walk is not NULL), and releases it. */
static void quick_launch(struct quick_host *host, cl_kernel kernel, const char *walk)
{
    const char *space = walk ? " " : "";
    walk = walk ? walk : "";
    memset(host->histo, 0, host->bytes);
    quick_check(host,
                clEnqueueWriteBuffer(host->queue, host->bins_buffer, CL_TRUE, 0, host->bytes,
                                     host->histo, 0, NULL, NULL),
                "clEnqueueWriteBuffer (zero bins)");
    quick_check(host, clSetKernelArg(kernel, 0, sizeof host->input, &host->input),
                "clSetKernelArg 0");
    quick_check(host, clSetKernelArg(kernel, 1, sizeof host->count, &host->count),
                "clSetKernelArg 1");
    quick_check(host, clSetKernelArg(kernel, 2, sizeof host->bins_buffer, &host->bins_buffer),
                "clSetKernelArg 2");
    quick_check(host,
                clEnqueueNDRangeKernel(host->queue, kernel, 1, NULL, &host->global, &host->items, 0,
                                       NULL, NULL),
                "clEnqueueNDRangeKernel");
    quick_check(host,
                clEnqueueReadBuffer(host->queue, host->bins_buffer, CL_TRUE, 0, host->bytes,
                                    host->histo, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    unsigned long long counted = 0, most = 0;
    for (int bin = 0; bin < host->bins; bin++)
        counted += host->histo[bin];
    printf("counted%s%s %llu\n", space, walk, counted);
    for (size_t row = 1; row < host->rows; row++) {
        unsigned long long made = 0;
        for (int bin = 0; bin < host->bins; bin++)
            made += host->histo[row * host->bins + bin];
        most = made > most ? made : most;
    }
    if (host->watch)
        printf("most merge atomics by one work-item%s%s: %llu\n", space, walk, most);
    quick_check(host, clReleaseKernel(kernel), "clReleaseKernel");
}

#endif
