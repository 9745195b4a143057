/*
 * probe.c - why does NVIDIA's OpenCL allow histo_kernel at most 256
 * work-items per work-group when the device allows 1024?
 *
 * For every NVIDIA GPU (every OpenCL device with --any-device), builds the
 * kernel file with several option sets, and for each prints the build log
 * (with -cl-nv-verbose: ptxas' register and memory use), the kernel's
 * work-group queries (CL_KERNEL_WORK_GROUP_SIZE, _PRIVATE_MEM_SIZE,
 * _LOCAL_MEM_SIZE, _PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
 * _COMPILE_WORK_GROUP_SIZE), writes the program binary (PTX text on NVIDIA)
 * to OUT_DIR/gpu<N>-<option set>.ptx, and launches the kernel at 256, 512
 * and 1024 work-items per work-group on a small input to see what the driver
 * really does past the reported limit. A last option set builds a trivial
 * control kernel instead, to tell a limit of this kernel from one of the
 * driver.
 *
 *   probe KERNEL_FILE OUT_DIR [KERNEL_NAME] [--any-device]
 *
 * C11 and the OpenCL 1.2 host API; every call is checked and an error is
 * printed in words (common/cl_error_names.c, the harness's table). Exit status: 0 when every device was probed, 1 on an
 * error, 2 for bad arguments, 77 when there is no device to probe.
 */
#define _POSIX_C_SOURCE 200809L

#include <CL/cl.h>

#include "cl_error_names.h" /* the harness's table of error names (common/) */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* cl_nv_device_attribute_query (cl_ext.h has them too; defined here so that
 * any cl.h will do). */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#define CL_DEVICE_REGISTERS_PER_BLOCK_NV      0x4002
#define CL_DEVICE_WARP_SIZE_NV                0x4003
#endif

#define BINS 256

/* A failed call that the probe cannot go on without. */
static void check_at(cl_int err, const char *call, int line)
{
    if (err != CL_SUCCESS) {
        fflush(stdout);
        fprintf(stderr, "probe.c:%d: %s failed: %s (%d)\n", line, call, cl_error_name(err), err);
        exit(1);
    }
}
#define CHECK(call)        check_at((call), #call, __LINE__)
#define CHECK_ERR(err, fn) check_at((err), fn, __LINE__)

/* A failed call that is itself a finding: printed, and the caller goes on. */
static bool soft_at(cl_int err, const char *call)
{
    if (err == CL_SUCCESS)
        return true;
    printf("  %s failed: %s (%d)\n", call, cl_error_name(err), err);
    return false;
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "probe: out of host memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

static char *read_text_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "probe: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 16, len = 0;
    char *text = xmalloc(cap + 1);
    size_t got;
    while ((got = fread(text + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            char *bigger = realloc(text, cap + 1);
            if (!bigger) {
                fprintf(stderr, "probe: out of host memory reading %s\n", path);
                exit(1);
            }
            text = bigger;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "probe: cannot read %s: %s\n", path, strerror(errno));
        exit(1);
    }
    fclose(f);
    text[len] = '\0';
    *size = len;
    return text;
}

/* The source with __attribute__((reqd_work_group_size(wg, 1, 1))) put after
 * the __kernel (or kernel) qualifier of kernel_name's definition: the kernel
 * file has no macro through which an attribute could be added, so this is a
 * patched copy in memory. NULL when the definition is not found. */
static char *patch_reqd_work_group_size(const char *source, const char *kernel_name, int wg)
{
    size_t name_len = strlen(kernel_name);
    const char *def = NULL;
    for (const char *p = strstr(source, kernel_name); p; p = strstr(p + 1, kernel_name)) {
        const char *q = p + name_len;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        bool starts_word =
            p == source || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                             (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
        if (*q == '(' && starts_word) {
            def = p;
            break;
        }
    }
    if (!def)
        return NULL;
    /* The nearest qualifier before the name: "__kernel", else "kernel". */
    const char *qualifier = NULL;
    size_t qualifier_len = 0, def_at = (size_t)(def - source);
    static const char *const spellings[] = {"__kernel", "kernel"};
    for (int s = 0; s < 2 && !qualifier; s++) {
        size_t len = strlen(spellings[s]);
        for (size_t at = def_at; at >= len; at--) {
            if (strncmp(source + at - len, spellings[s], len) == 0) {
                qualifier = source + at - len;
                qualifier_len = len;
                break;
            }
        }
    }
    if (!qualifier)
        return NULL;
    char attribute[96];
    snprintf(attribute, sizeof attribute, " __attribute__((reqd_work_group_size(%d, 1, 1)))", wg);
    size_t head = (size_t)(qualifier - source) + qualifier_len;
    size_t total = strlen(source) + strlen(attribute);
    char *patched = xmalloc(total + 1);
    memcpy(patched, source, head);
    strcpy(patched + head, attribute);
    strcat(patched, source + head);
    return patched;
}

/* What differs between the builds: the options, and the source. */
enum which_devices { ALL_DEVICES, NVIDIA_ONLY, OTHERS_ONLY };
struct option_set {
    const char *label;   /* also the PTX file's name */
    const char *options; /* given to clBuildProgram */
    int reqd;            /* nonzero: the source gets reqd_work_group_size(reqd, 1, 1) */
    enum which_devices devices;
    bool control; /* builds CONTROL_SOURCE instead of the kernel file, and launches nothing */
};

/* A control: a kernel with nothing in it that could need many registers. If
 * the driver allows it no more than histo_kernel, the limit is the driver's,
 * not the kernel's. */
static const char CONTROL_SOURCE[] = "__kernel void control_kernel(__global uint *out)\n"
                                     "{\n"
                                     "    out[get_global_id(0)] = (uint)get_local_id(0);\n"
                                     "}\n";

static const struct option_set option_sets[] = {
    {"default", "", 0, ALL_DEVICES, false},
    {"nv-verbose", "-cl-nv-verbose", 0, NVIDIA_ONLY, false},
    {"nv-verbose_maxrregcount-64", "-cl-nv-verbose -cl-nv-maxrregcount=64", 0, NVIDIA_ONLY, false},
    {"nv-verbose_maxrregcount-32", "-cl-nv-verbose -cl-nv-maxrregcount=32", 0, NVIDIA_ONLY, false},
    {"nv-verbose_reqd-1024", "-cl-nv-verbose", 1024, NVIDIA_ONLY, false},
    {"control_nv-verbose", "-cl-nv-verbose", 0, NVIDIA_ONLY, true},
    /* Only on other devices (--any-device), which do not know -cl-nv-*. */
    {"reqd-1024", "", 1024, OTHERS_ONLY, false},
    {"control", "", 0, OTHERS_ONLY, true},
};
#define OPTION_SETS (sizeof option_sets / sizeof option_sets[0])

static void get_device_string(cl_device_id device, cl_device_info what, char *buf, size_t size)
{
    CHECK(clGetDeviceInfo(device, what, size, buf, NULL));
    buf[size - 1] = '\0';
}

static char *get_device_extensions(cl_device_id device)
{
    size_t size = 0;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
    char *ext = xmalloc(size + 1);
    CHECK(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, ext, NULL));
    ext[size] = '\0';
    return ext;
}

static void print_device(cl_device_id device, bool nvidia)
{
    char text[1024];
    get_device_string(device, CL_DEVICE_NAME, text, sizeof text);
    printf("device: %s\n", text);
    get_device_string(device, CL_DEVICE_VENDOR, text, sizeof text);
    printf("  CL_DEVICE_VENDOR: %s\n", text);
    get_device_string(device, CL_DRIVER_VERSION, text, sizeof text);
    printf("  CL_DRIVER_VERSION: %s\n", text);
    get_device_string(device, CL_DEVICE_VERSION, text, sizeof text);
    printf("  CL_DEVICE_VERSION: %s\n", text);
    get_device_string(device, CL_DEVICE_OPENCL_C_VERSION, text, sizeof text);
    printf("  CL_DEVICE_OPENCL_C_VERSION: %s\n", text);
    cl_uint units;
    size_t max_group, item_sizes[3];
    cl_ulong local_mem;
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
    CHECK(
        clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
    CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof item_sizes, item_sizes,
                          NULL));
    CHECK(clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL));
    printf("  CL_DEVICE_MAX_COMPUTE_UNITS: %u\n", units);
    printf("  CL_DEVICE_MAX_WORK_GROUP_SIZE: %zu\n", max_group);
    printf("  CL_DEVICE_MAX_WORK_ITEM_SIZES: %zu x %zu x %zu\n", item_sizes[0], item_sizes[1],
           item_sizes[2]);
    printf("  CL_DEVICE_LOCAL_MEM_SIZE: %llu bytes\n", (unsigned long long)local_mem);
    char *ext = get_device_extensions(device);
    bool has_nv_query = strstr(ext, "cl_nv_device_attribute_query") != NULL;
    bool has_nv_options = strstr(ext, "cl_nv_compiler_options") != NULL;
    printf("  cl_nv_device_attribute_query: %s, cl_nv_compiler_options: %s\n",
           has_nv_query ? "yes" : "no", has_nv_options ? "yes" : "no");
    free(ext);
    if (nvidia && has_nv_query) {
        cl_uint major, minor, regs, warp;
        CHECK(clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                              NULL));
        CHECK(clGetDeviceInfo(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                              NULL));
        CHECK(clGetDeviceInfo(device, CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof regs, &regs, NULL));
        CHECK(clGetDeviceInfo(device, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL));
        printf("  compute capability (NV): %u.%u\n", major, minor);
        printf("  CL_DEVICE_REGISTERS_PER_BLOCK_NV: %u (%u per work-item at %zu work-items)\n",
               regs, max_group ? regs / (cl_uint)max_group : 0, max_group);
        printf("  CL_DEVICE_WARP_SIZE_NV: %u\n", warp);
    }
}

static void print_build_log(cl_program program, cl_device_id device)
{
    cl_build_status status;
    CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                                NULL));
    size_t size = 0;
    CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
    char *log = xmalloc(size + 1);
    CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
    log[size] = '\0';
    /* Trailing blank lines and NULs out, so that an empty log reads as empty. */
    size_t len = strlen(log);
    while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' ' || log[len - 1] == '\r'))
        log[--len] = '\0';
    printf("  CL_PROGRAM_BUILD_STATUS: %s\n", status == CL_BUILD_SUCCESS ? "CL_BUILD_SUCCESS"
                                              : status == CL_BUILD_ERROR ? "CL_BUILD_ERROR"
                                              : status == CL_BUILD_NONE  ? "CL_BUILD_NONE"
                                                                         : "CL_BUILD_IN_PROGRESS");
    printf("  --- build log (%zu bytes) ---\n", len);
    if (len)
        printf("%s\n", log);
    printf("  --- end of build log ---\n");
    free(log);
}

static void print_kernel_queries(cl_kernel kernel, cl_device_id device)
{
    size_t wg, multiple, compile_wg[3];
    cl_ulong local_mem, private_mem;
    CHECK(
        clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                   sizeof compile_wg, compile_wg, NULL));
    CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                                   &local_mem, NULL));
    CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_mem,
                                   &private_mem, NULL));
    CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof multiple, &multiple, NULL));
    printf("  CL_KERNEL_WORK_GROUP_SIZE: %zu\n", wg);
    printf("  CL_KERNEL_COMPILE_WORK_GROUP_SIZE: %zu x %zu x %zu\n", compile_wg[0], compile_wg[1],
           compile_wg[2]);
    printf("  CL_KERNEL_LOCAL_MEM_SIZE: %llu bytes\n", (unsigned long long)local_mem);
    printf("  CL_KERNEL_PRIVATE_MEM_SIZE: %llu bytes\n", (unsigned long long)private_mem);
    printf("  CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: %zu\n", multiple);
}

/* CL_PROGRAM_BINARIES for the one device of the program: PTX text on NVIDIA. */
static void write_binary(cl_program program, const char *path)
{
    cl_uint devices;
    CHECK(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof devices, &devices, NULL));
    if (devices != 1) {
        printf("  the program has %u devices, expected 1: no binary written\n", devices);
        return;
    }
    size_t size;
    CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
    unsigned char *binary = xmalloc(size);
    unsigned char *binaries[1] = {binary};
    CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL));
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(binary, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "probe: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    printf("  CL_PROGRAM_BINARIES: %zu bytes written to %s\n", size, path);
    free(binary);
}

/* Runs the kernel with work-groups of `local` work-items on the input and
 * compares the bins with the CPU's. Failures are findings, not errors. */
static void try_launch(cl_context context, cl_command_queue queue, cl_kernel kernel, cl_mem input,
                       cl_ulong size, const unsigned int *expected, size_t local, cl_uint units)
{
    printf("    local size %4zu: ", local);
    fflush(stdout);
    cl_int err;
    cl_mem histo = clCreateBuffer(context, CL_MEM_READ_WRITE, BINS * sizeof(cl_uint), NULL, &err);
    CHECK_ERR(err, "clCreateBuffer");
    const cl_uint zero = 0;
    CHECK(clEnqueueFillBuffer(queue, histo, &zero, sizeof zero, 0, BINS * sizeof(cl_uint), 0, NULL,
                              NULL));
    CHECK(clSetKernelArg(kernel, 0, sizeof input, &input));
    CHECK(clSetKernelArg(kernel, 1, sizeof size, &size));
    CHECK(clSetKernelArg(kernel, 2, sizeof histo, &histo));
    size_t global = local * 2 * (units ? units : 1);
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        printf("refused: clEnqueueNDRangeKernel: %s (%d)\n", cl_error_name(err), err);
    } else if ((err = clFinish(queue)) != CL_SUCCESS) {
        printf("ran but failed: clFinish: %s (%d)\n", cl_error_name(err), err);
    } else {
        unsigned int got[BINS];
        err = clEnqueueReadBuffer(queue, histo, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            printf("ran, but reading the bins failed: %s (%d)\n", cl_error_name(err), err);
        } else {
            int wrong = 0;
            unsigned long long sum = 0;
            for (int b = 0; b < BINS; b++) {
                sum += got[b];
                wrong += got[b] != expected[b];
            }
            if (wrong)
                printf("ran, WRONG: %d bins differ from the CPU's (sum %llu of %llu)\n", wrong, sum,
                       (unsigned long long)size);
            else
                printf("ran, every bin matches the CPU (%zu work-groups)\n", global / local);
        }
    }
    CHECK(clReleaseMemObject(histo));
}

static void make_label_path(char *path, size_t size, const char *dir, int device_index,
                            const char *label, bool nvidia)
{
    snprintf(path, size, "%s/gpu%d-%s.%s", dir, device_index, label, nvidia ? "ptx" : "bin");
}

static void probe_option_set(cl_device_id device, int device_index, bool nvidia,
                             const struct option_set *set, const char *source,
                             const char *kernel_name, const char *out_dir,
                             const unsigned char *data, cl_ulong data_size,
                             const unsigned int *expected)
{
    printf("\n===== device %d, option set '%s': clBuildProgram options \"%s\"%s\n", device_index,
           set->label, set->options,
           set->control ? ", the control kernel below instead of the kernel file"
           : set->reqd  ? ", source patched"
                        : ", source as is");
    if (set->control) {
        printf("%s", CONTROL_SOURCE);
        source = CONTROL_SOURCE;
        kernel_name = "control_kernel";
    }
    char *patched = NULL;
    if (set->reqd) {
        patched = patch_reqd_work_group_size(source, kernel_name, set->reqd);
        if (!patched) {
            printf("  cannot find the definition of %s( after a __kernel qualifier: skipped\n",
                   kernel_name);
            return;
        }
        /* Show the patched line. */
        const char *at = strstr(patched, "reqd_work_group_size");
        const char *start = at, *end = at;
        while (start > patched && start[-1] != '\n')
            start--;
        while (*end && *end != '\n')
            end++;
        printf("  patched source line: %.*s\n", (int)(end - start), start);
    }
    const char *text = patched ? patched : source;
    size_t length = strlen(text);

    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_ERR(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK_ERR(err, "clCreateCommandQueue");
    cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &err);
    CHECK_ERR(err, "clCreateProgramWithSource");

    err = clBuildProgram(program, 1, &device, set->options, NULL, NULL);
    printf("  clBuildProgram: %s (%d)\n", cl_error_name(err), err);
    if (err == CL_INVALID_BUILD_OPTIONS && strchr(set->options, '=')) {
        /* The extension's text has both spellings: -cl-nv-maxrregcount=N and
         * -cl-nv-maxrregcount N. Try the other one. */
        char spaced[256];
        snprintf(spaced, sizeof spaced, "%s", set->options);
        for (char *c = spaced; *c; c++)
            if (*c == '=')
                *c = ' ';
        err = clBuildProgram(program, 1, &device, spaced, NULL, NULL);
        printf("  clBuildProgram again with options \"%s\": %s (%d)\n", spaced, cl_error_name(err),
               err);
    }
    if (err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE)
        print_build_log(program, device);
    if (err == CL_SUCCESS) {
        cl_kernel kernel = clCreateKernel(program, kernel_name, &err);
        if (soft_at(err, "clCreateKernel")) {
            print_kernel_queries(kernel, device);
            char path[4096];
            make_label_path(path, sizeof path, out_dir, device_index, set->label, nvidia);
            write_binary(program, path);
            if (!set->control) {
                cl_uint units;
                CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                                      NULL));
                cl_mem input = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                              (size_t)data_size, (void *)data, &err);
                CHECK_ERR(err, "clCreateBuffer");
                printf("  launches on %llu bytes (the query above says what the driver allows; "
                       "these say what it does):\n",
                       (unsigned long long)data_size);
                static const size_t locals[] = {256, 512, 1024};
                for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++)
                    try_launch(context, queue, kernel, input, data_size, expected, locals[i],
                               units);
                CHECK(clReleaseMemObject(input));
            }
            CHECK(clReleaseKernel(kernel));
        }
    }
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
    free(patched);
}

static bool is_nvidia(cl_platform_id platform, cl_device_id device)
{
    char vendor[512], platform_name[512];
    get_device_string(device, CL_DEVICE_VENDOR, vendor, sizeof vendor);
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL));
    platform_name[sizeof platform_name - 1] = '\0';
    return strstr(vendor, "NVIDIA") || strstr(platform_name, "NVIDIA");
}

int main(int argc, char **argv)
{
    const char *kernel_file = NULL, *out_dir = NULL, *kernel_name = "histo_kernel";
    bool any_device = false;
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--any-device") == 0)
            any_device = true;
        else if (positional == 0 && ++positional)
            kernel_file = argv[i];
        else if (positional == 1 && ++positional)
            out_dir = argv[i];
        else if (positional == 2 && ++positional)
            kernel_name = argv[i];
        else {
            fprintf(stderr, "probe: unexpected argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!kernel_file || !out_dir) {
        fprintf(stderr, "usage: %s KERNEL_FILE OUT_DIR [KERNEL_NAME] [--any-device]\n", argv[0]);
        return 2;
    }
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "probe: cannot create %s: %s\n", out_dir, strerror(errno));
        return 1;
    }
    size_t source_size;
    char *source = read_text_file(kernel_file, &source_size);
    printf("kernel file: %s (%zu bytes), kernel %s\n", kernel_file, source_size, kernel_name);
    if (strstr(source, "reqd_work_group_size"))
        printf("note: the kernel file already has a reqd_work_group_size attribute\n");

    /* A small input, and the CPU's histogram of it, for the launches. */
    const cl_ulong data_size = 1u << 20;
    unsigned char *data = xmalloc((size_t)data_size);
    unsigned int expected[BINS] = {0};
    uint32_t state = 12345u;
    for (cl_ulong i = 0; i < data_size; i++) {
        state = state * 1664525u + 1013904223u;
        data[i] = (unsigned char)(state >> 24);
        expected[data[i]]++;
    }

    cl_uint platform_count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &platform_count);
    if (err == -1001 || platform_count == 0) {
        printf("no OpenCL platform found\n");
        return 77;
    }
    CHECK_ERR(err, "clGetPlatformIDs");
    cl_platform_id *platforms = xmalloc(platform_count * sizeof *platforms);
    CHECK(clGetPlatformIDs(platform_count, platforms, NULL));

    int probed = 0, device_index = 0;
    for (cl_uint p = 0; p < platform_count; p++) {
        char name[512], version[512];
        CHECK(clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
        CHECK(clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL));
        name[sizeof name - 1] = version[sizeof version - 1] = '\0';
        printf("platform %u: %s (%s)\n", p, name, version);
        cl_uint device_count = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &device_count);
        if (err == CL_DEVICE_NOT_FOUND || device_count == 0)
            continue;
        CHECK_ERR(err, "clGetDeviceIDs");
        cl_device_id *devices = xmalloc(device_count * sizeof *devices);
        CHECK(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, devices, NULL));
        for (cl_uint d = 0; d < device_count; d++) {
            cl_device_type type;
            CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL));
            bool nvidia = is_nvidia(platforms[p], devices[d]) && (type & CL_DEVICE_TYPE_GPU);
            if (!nvidia && !any_device) {
                char dev_name[512];
                get_device_string(devices[d], CL_DEVICE_NAME, dev_name, sizeof dev_name);
                printf("  skipping %s: not an NVIDIA GPU (--any-device probes it)\n", dev_name);
                continue;
            }
            printf("\n##### device %d (platform %u, device %u)\n", device_index, p, d);
            print_device(devices[d], nvidia);
            for (size_t s = 0; s < OPTION_SETS; s++) {
                const struct option_set *set = &option_sets[s];
                if ((set->devices == NVIDIA_ONLY && !nvidia) ||
                    (set->devices == OTHERS_ONLY && nvidia))
                    continue;
                probe_option_set(devices[d], device_index, nvidia, set, source, kernel_name,
                                 out_dir, data, data_size, expected);
            }
            device_index++;
            probed++;
        }
        free(devices);
    }
    free(platforms);
    free(data);
    free(source);
    if (!probed) {
        printf("no NVIDIA GPU found among the OpenCL devices (--any-device probes the others)\n");
        return 77;
    }
    printf("\nprobed %d device(s); binaries in %s\n", probed, out_dir);
    return 0;
}
