/*
 * check_partitioning_quick.c - the check's own host for the two kernels, for
 * one launch each under Oclgrind (exercise 13's check has one like it).
 * Usage:
 *     partitioning-quick KERNEL_FILE SIZE GROUPS ITEMS [watch]
 * It builds histo_interleaved and histo_contiguous from KERNEL_FILE, gives
 * both one input buffer of SIZE bytes that it never writes (what the bytes
 * hold does not matter, only how many are counted), runs each on GROUPS
 * work-groups of ITEMS work-items, and prints "counted <walk> N", the sum of
 * the 256 bins. Under `oclgrind --quick`, which runs only the first and the
 * last work-group, N is the bytes those two counted.
 *
 * With watch, a few lines put before the kernels make each atomic_add (or
 * atom_add) on global memory also add one to the same bin of a row past the
 * 256 bins, the row of its work-item's local id; it then prints "most merge
 * atomics by one work-item <walk>: M", the most any local id made, over all
 * the work-groups.
 */
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 256

static const char watch_prelude[] =
    "#define WATCH_ADD(T, SPACE, EXTRA) \\\n"
    "    T __attribute__((overloadable)) watched_add(volatile SPACE T *p, T v) \\\n"
    "    { EXTRA; return atomic_add(p, v); }\n"
    "#define WATCH_ROW(p) ((p) + 256 * (1 + get_local_id(0)))\n"
    "WATCH_ADD(uint, __local, (void)0)\n"
    "WATCH_ADD(int, __local, (void)0)\n"
    "WATCH_ADD(uint, __global, atomic_inc(WATCH_ROW(p)))\n"
    "WATCH_ADD(int, __global, atomic_inc(WATCH_ROW(p)))\n"
    "#define atomic_add(p, v) watched_add(p, v)\n"
    "#define atom_add(p, v) watched_add(p, v)\n"
    "#line 1\n";

static const char *const walks[] = {"interleaved", "contiguous"};

static void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        fprintf(stderr, "partitioning-quick: %s failed: OpenCL error %d\n", what, err);
        exit(3);
    }
}

static void *allocate(size_t bytes)
{
    void *p = calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "partitioning-quick: out of host memory\n");
        exit(3);
    }
    return p;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long length = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (length < 0) {
        fprintf(stderr, "partitioning-quick: cannot read %s\n", path);
        exit(3);
    }
    rewind(f);
    char *text = allocate((size_t)length + 1);
    text[fread(text, 1, (size_t)length, f)] = '\0';
    fclose(f);
    return text;
}

int main(int argc, char **argv)
{
    bool watch = argc == 6 && strcmp(argv[5], "watch") == 0;
    if (argc != 5 && !watch) {
        fprintf(stderr, "usage: %s KERNEL_FILE SIZE GROUPS ITEMS [watch]\n", argv[0]);
        return 2;
    }
    const char *sources[2] = {watch_prelude, read_file(argv[1])};
    cl_ulong size = strtoull(argv[2], NULL, 10);
    size_t items = strtoull(argv[4], NULL, 10), global = strtoull(argv[3], NULL, 10) * items;
    size_t rows = watch ? 1 + items : 1; /* the bins, then a row per local id */
    size_t bytes = rows * BINS * sizeof(cl_uint);
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    check(err, "clCreateCommandQueue");
    cl_program program =
        clCreateProgramWithSource(context, watch ? 2 : 1, sources + !watch, NULL, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    cl_mem input = clCreateBuffer(context, CL_MEM_READ_ONLY, size ? size : 1, NULL, &err);
    check(err, "clCreateBuffer (the input)");
    cl_uint *histo = allocate(bytes);
    cl_mem bins = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    check(err, "clCreateBuffer (the bins)");
    for (int w = 0; w < 2; w++) {
        char name[64];
        snprintf(name, sizeof name, "histo_%s", walks[w]);
        cl_kernel kernel = clCreateKernel(program, name, &err);
        check(err, name);
        memset(histo, 0, bytes);
        check(clEnqueueWriteBuffer(queue, bins, CL_TRUE, 0, bytes, histo, 0, NULL, NULL),
              "clEnqueueWriteBuffer (zero bins)");
        check(clSetKernelArg(kernel, 0, sizeof input, &input), "clSetKernelArg 0");
        check(clSetKernelArg(kernel, 1, sizeof size, &size), "clSetKernelArg 1");
        check(clSetKernelArg(kernel, 2, sizeof bins, &bins), "clSetKernelArg 2");
        check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &items, 0, NULL, NULL),
              "clEnqueueNDRangeKernel");
        check(clEnqueueReadBuffer(queue, bins, CL_TRUE, 0, bytes, histo, 0, NULL, NULL),
              "clEnqueueReadBuffer");
        unsigned long long counted = 0, most = 0;
        for (int bin = 0; bin < BINS; bin++)
            counted += histo[bin];
        printf("counted %s %llu\n", walks[w], counted);
        for (size_t row = 1; row < rows; row++) {
            unsigned long long made = 0;
            for (int bin = 0; bin < BINS; bin++)
                made += histo[row * BINS + bin];
            most = made > most ? made : most;
        }
        if (watch)
            printf("most merge atomics by one work-item %s: %llu\n", walks[w], most);
        check(clReleaseKernel(kernel), "clReleaseKernel");
    }
    return 0;
}
