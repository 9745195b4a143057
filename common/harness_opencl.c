/*
 * harness_opencl.c - harness_opencl.h, and book.h's opencl_failed: errors in
 * words, choosing a platform and device, building a kernel file, choosing
 * the launch. A student need not read it.
 */
#include "harness_opencl.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void opencl_failed(cl_int err, const char *call, const char *file, int line)
{
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, cl_error_name(err), err);
    exit(EXIT_FAILED);
}

/* Every platform there is, in an array the caller frees (NULL when there is
 * none); none is not an error here (the ICD loader says
 * CL_PLATFORM_NOT_FOUND_KHR when no driver is installed). */
static cl_platform_id *get_platforms(cl_uint *count)
{
    *count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, count);
    if (err == -1001 || *count == 0) {
        *count = 0;
        return NULL;
    }
    CL_CHECK(err);
    cl_platform_id *platforms = malloc(*count * sizeof *platforms);
    if (!platforms)
        fail("out of host memory for %u OpenCL platforms", *count);
    CL_CHECK(clGetPlatformIDs(*count, platforms, NULL));
    return platforms;
}

/* Every device of a platform, in an array the caller frees (NULL when none). */
static cl_device_id *get_devices(cl_platform_id platform, cl_uint *count)
{
    *count = 0;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, count);
    if (err == CL_DEVICE_NOT_FOUND || *count == 0) {
        *count = 0;
        return NULL;
    }
    CL_CHECK(err);
    cl_device_id *devices = malloc(*count * sizeof *devices);
    if (!devices)
        fail("out of host memory for %u OpenCL devices", *count);
    CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, *count, devices, NULL));
    return devices;
}

static const char *type_name(cl_device_type type)
{
    return type & CL_DEVICE_TYPE_GPU ? "GPU" : type & CL_DEVICE_TYPE_CPU ? "CPU" : "accelerator";
}

int list_opencl_devices(FILE *out)
{
    cl_uint platform_count;
    cl_platform_id *platforms = get_platforms(&platform_count);
    int devices_seen = 0;
    for (cl_uint p = 0; p < platform_count; p++) {
        char name[256], vendor[256], version[256];
        CL_CHECK(clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL));
        CL_CHECK(clGetPlatformInfo(platforms[p], CL_PLATFORM_VENDOR, sizeof vendor, vendor, NULL));
        CL_CHECK(
            clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL));
        fprintf(out, "platform %u: %s (%s, %s)\n", p, name, vendor, version);
        cl_uint device_count;
        cl_device_id *devices = get_devices(platforms[p], &device_count);
        for (cl_uint d = 0; d < device_count; d++) {
            cl_device_type type;
            cl_uint units;
            size_t max_group;
            cl_ulong max_alloc;
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL));
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL));
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units,
                                     NULL));
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group,
                                     &max_group, NULL));
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
                                     &max_alloc, NULL));
            fprintf(out,
                    "  --platform %u --device %u: %s (%s, %u compute units, work-groups up to %zu, "
                    "buffers up to %llu MiB)\n",
                    p, d, name, type_name(type), units, max_group,
                    (unsigned long long)(max_alloc >> 20));
            devices_seen++;
        }
        free(devices);
    }
    free(platforms);
    if (devices_seen == 0)
        fprintf(out, "no OpenCL device found (install an ICD, e.g. pocl-opencl-icd)\n");
    return devices_seen;
}

/* The first device of the wanted type over all platforms. */
static bool find_device(cl_device_type wanted, cl_platform_id *platform, cl_device_id *device)
{
    cl_uint platform_count;
    cl_platform_id *platforms = get_platforms(&platform_count);
    bool found = false;
    for (cl_uint p = 0; p < platform_count && !found; p++) {
        cl_uint device_count;
        cl_device_id *devices = get_devices(platforms[p], &device_count);
        for (cl_uint d = 0; d < device_count && !found; d++) {
            cl_device_type type;
            CL_CHECK(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL));
            if (type & wanted) {
                *platform = platforms[p];
                *device = devices[d];
                found = true;
            }
        }
        free(devices);
    }
    free(platforms);
    return found;
}

static void cannot_run(const struct stage *stage)
{
    fprintf(stderr,
            "%s: cannot run here: no OpenCL device (install an ICD such as pocl-opencl-icd; "
            "--list shows what is found)\n",
            stage->program);
    exit(EXIT_CANNOT_RUN);
}

struct opencl open_opencl(const struct stage *stage, const struct options *opt)
{
    struct opencl cl = {0};
    char why[256];
    cl_uint platform_count;
    cl_platform_id *platforms = get_platforms(&platform_count);
    if (platform_count == 0)
        cannot_run(stage);
    if (opt->platform >= 0) {
        if ((cl_uint)opt->platform >= platform_count) {
            snprintf(why, sizeof why, "--platform %d: there %s %u platform%s (see --list)",
                     opt->platform, platform_count == 1 ? "is" : "are", platform_count,
                     platform_count == 1 ? "" : "s");
            usage_error(stage, why);
        }
        int device = opt->device >= 0 ? opt->device : 0;
        cl_uint device_count;
        cl_device_id *devices = get_devices(platforms[opt->platform], &device_count);
        if ((cl_uint)device >= device_count) {
            snprintf(why, sizeof why, "--device %d: platform %d has %u device%s (see --list)",
                     device, opt->platform, device_count, device_count == 1 ? "" : "s");
            usage_error(stage, why);
        }
        cl.platform = platforms[opt->platform];
        cl.device = devices[device];
        free(devices);
    } else if (!find_device(CL_DEVICE_TYPE_GPU, &cl.platform, &cl.device) &&
               !find_device(CL_DEVICE_TYPE_ALL, &cl.platform, &cl.device)) {
        cannot_run(stage);
    }
    free(platforms);

    CL_CHECK(clGetDeviceInfo(cl.device, CL_DEVICE_NAME, sizeof cl.name, cl.name, NULL));
    CL_CHECK(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cl.compute_units,
                             &cl.compute_units, NULL));
    CL_CHECK(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof cl.max_work_group,
                             &cl.max_work_group, NULL));
    CL_CHECK(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof cl.max_buffer,
                             &cl.max_buffer, NULL));
    cl_int err;
    cl.context = clCreateContext(NULL, 1, &cl.device, NULL, NULL, &err);
    CL_CHECK(err);
    /* clCreateCommandQueue is deprecated in OpenCL 2.0, but it is the 1.2 call
     * that every platform has, PoCL's and NVIDIA's alike. */
    cl.queue = clCreateCommandQueue(cl.context, cl.device, CL_QUEUE_PROFILING_ENABLE, &err);
    CL_CHECK(err);
    return cl;
}

cl_program build_program(const struct opencl *cl, const char *file_name)
{
    /* The directory of the running program, not the working directory. */
    char exe[4096], path[4096 + 256];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len < 0)
        fail("cannot find the running program (/proc/self/exe) to locate %s", file_name);
    exe[len] = '\0';
    snprintf(path, sizeof path, "%s/%s", dirname(exe), file_name);

    unsigned char *source;
    size_t size;
    char why[4600];
    if (read_file(path, &source, &size, why, sizeof why) != EXIT_OK)
        fail("the kernel file must sit next to the program: %s", why);
    const char *text = (const char *)source;
    cl_int err;
    cl_program program = clCreateProgramWithSource(cl->context, 1, &text, &size, &err);
    CL_CHECK(err);
    free(source);

    err = clBuildProgram(program, 1, &cl->device, "", NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE) {
        size_t log_size = 0;
        CL_CHECK(
            clGetProgramBuildInfo(program, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
        char *log = malloc(log_size + 1);
        if (log) {
            CL_CHECK(clGetProgramBuildInfo(program, cl->device, CL_PROGRAM_BUILD_LOG, log_size, log,
                                           NULL));
            log[log_size] = '\0';
            fprintf(stderr, "%s\n", log);
        }
        fail("%s does not compile for %s (the build log is above)", path, cl->name);
    }
    CL_CHECK(err);
    return program;
}

struct launch choose_opencl_launch(const struct stage *stage, const struct options *opt,
                                   const struct opencl *cl, cl_kernel kernel, int blocks_per_unit,
                                   int threads)
{
    /* A kernel may allow less than the device does (registers, local memory). */
    size_t kernel_max;
    CL_CHECK(clGetKernelWorkGroupInfo(kernel, cl->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof kernel_max, &kernel_max, NULL));
    size_t limit = kernel_max < cl->max_work_group ? kernel_max : cl->max_work_group;
    struct launch launch;
    size_t preferred = (size_t)threads < limit ? (size_t)threads : limit;
    launch.threads = opt->threads ? opt->threads : (int)preferred;
    if (opt->blocks)
        launch.blocks = opt->blocks;
    else
        launch.blocks = (long)(opt->blocks_per_sm ? opt->blocks_per_sm : blocks_per_unit) *
                        (long)cl->compute_units;
    if ((size_t)launch.threads > limit) {
        char why[512];
        snprintf(why, sizeof why, "--threads: %.200s takes at most %zu work-items per work-group",
                 cl->name, limit);
        usage_error(stage, why);
    }
    return launch;
}

void require_opencl_buffer(const struct stage *stage, const struct opencl *cl, size_t bytes)
{
    if (bytes > cl->max_buffer) {
        fprintf(stderr,
                "%s: the input (%zu bytes) is larger than the largest buffer %s allows (%llu "
                "bytes)\n",
                stage->program, bytes, cl->name, (unsigned long long)cl->max_buffer);
        exit(EXIT_FAILED);
    }
}

void close_opencl(struct opencl *cl)
{
    CL_CHECK(clReleaseCommandQueue(cl->queue));
    CL_CHECK(clReleaseContext(cl->context));
}
