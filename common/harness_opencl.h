/*
 * harness_opencl.h - the harness's OpenCL part: choosing a platform and a
 * device, building a kernel file, choosing the launch. A student need not
 * read it (see harness.h); the host steps a lesson is about (buffers, the
 * kernel's arguments, the launch, the reads back) stay in the stage.
 */
#ifndef HARNESS_OPENCL_H
#define HARNESS_OPENCL_H

#include <CL/cl.h> /* before book.h: CL_CHECK needs it */

#include "cl_error_names.h" /* cl_error_name: -5 is "CL_OUT_OF_RESOURCES" */
#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

struct opencl {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order, with profiling on: kernels are timed by events */
    char name[256];         /* the device's name */
    cl_uint compute_units;
    size_t max_work_group;
    cl_ulong max_buffer; /* the largest buffer the device allows */
};

/* Prints every platform and device (--list); returns how many devices there are. */
int list_opencl_devices(FILE *out);

/* The device --platform and --device name, else the first GPU, else the first
 * CPU; a one-line reason and exit 77 when there is none, exit 2 for an index
 * past the end. */
struct opencl open_opencl(const struct stage *stage, const struct options *opt);

/* Builds the OpenCL C file that sits next to the running program, so that it
 * is found from any working directory; prints the build log and exits 1 when
 * it does not compile. */
cl_program build_program(const struct opencl *cl, const char *file_name);

/* choose_launch for OpenCL: blocks_per_unit x compute units work-groups of
 * threads work-items, unless the options say otherwise; exits 2 for a
 * work-group larger than the device or the kernel allows. */
struct launch choose_opencl_launch(const struct stage *stage, const struct options *opt,
                                   const struct opencl *cl, cl_kernel kernel, int blocks_per_unit,
                                   int threads);

/* Fails with a clear message, before clCreateBuffer would, when the input
 * is larger than the device's largest buffer. */
void require_opencl_buffer(const struct stage *stage, const struct opencl *cl, size_t bytes);

void close_opencl(struct opencl *cl);

#ifdef __cplusplus
}
#endif

#endif /* HARNESS_OPENCL_H */
