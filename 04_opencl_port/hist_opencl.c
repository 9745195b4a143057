/*
 * 04_opencl_port - stage 03 in OpenCL: the same per-work-group histogram in
 * local memory (histogram.cl), driven by a C host program through the OpenCL
 * 1.2 API, so it runs on a CPU (PoCL) as well as on any vendor's GPU. What
 * CUDA's runtime does for you (contexts, queues, building the kernel, setting
 * its arguments) is written out here.
 *
 *   ./hist_opencl --list                        the platforms and devices found
 *   ./hist_opencl                               the first GPU, else the CPU
 *   ./hist_opencl --platform 1 --device 0       a device from --list
 *   ./hist_opencl --image ../data/chelsea.bmp   the brightness histogram of a photograph
 *   ./hist_opencl --variant global-atomics      stage 02's kernel: one global atomic per byte
 */
#include <CL/cl.h>

#include "book.h"           /* CL_CHECK, the input, the CPU's check: worth reading */
#include "harness_opencl.h" /* options, the device, repeats, the report: no need to read it */

#include <string.h>

/* The variants: this stage's kernel, and stage 02's for comparison. */
static const char *const variants[] = {"local-atomics", "global-atomics", NULL};
static const char *const kernel_names[] = {"histo_kernel", "histo_global_kernel"};
static const char *const impl_names[] = {"opencl-local-atomics", "opencl-global-atomics"};

struct cl_run {
    const struct opencl *cl;
    cl_kernel kernel;
    const struct input *in;
    struct launch launch;
    cl_mem dev_buffer, dev_histo; /* the kernel-only runs reuse these */
    unsigned int *histo;          /* where the end-to-end runs leave their result */
};

static void clear_bins(const struct cl_run *run, cl_mem histo)
{
    const cl_uint zero = 0;
    CL_CHECK(clEnqueueFillBuffer(run->cl->queue, histo, &zero, sizeof zero, 0,
                                 BINS * sizeof(cl_uint), 0, NULL, NULL));
}

/* Sets the kernel's arguments and enqueues it: global size = work-groups x
 * work-group size, the blocks x threads of CUDA. */
static cl_event enqueue_histo(const struct cl_run *run, cl_mem buffer, cl_mem histo)
{
    cl_ulong size = run->in->size;
    size_t local = (size_t)run->launch.threads, global = (size_t)run->launch.blocks * local;
    cl_event done;
    CL_CHECK(clSetKernelArg(run->kernel, 0, sizeof buffer, &buffer));
    CL_CHECK(clSetKernelArg(run->kernel, 1, sizeof size, &size));
    CL_CHECK(clSetKernelArg(run->kernel, 2, sizeof histo, &histo));
    CL_CHECK(clEnqueueNDRangeKernel(run->cl->queue, run->kernel, 1, NULL, &global, &local, 0, NULL,
                                    &done));
    return done;
}

/* The kernel alone, timed by the device: the event's start and end stamps. */
static double kernel_only_once(void *context)
{
    struct cl_run *run = context;
    clear_bins(run, run->dev_histo);
    cl_event done = enqueue_histo(run, run->dev_buffer, run->dev_histo);
    cl_ulong start, end;
    CL_CHECK(clWaitForEvents(1, &done));
    CL_CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL_CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    CL_CHECK(clReleaseEvent(done));
    return (end - start) / 1e6; /* nanoseconds to milliseconds */
}

/* Stage 03's end-to-end sequence, OpenCL's way: create the buffers, write the
 * input, clear the bins, run, read the bins back (a blocking read waits for
 * all of it). The releases come after the clock stops. */
static double end_to_end_once(void *context)
{
    struct cl_run *run = context;
    size_t size = run->in->size;
    cl_int err;
    double start = now_ms();
    cl_mem buffer = clCreateBuffer(run->cl->context, CL_MEM_READ_ONLY, size ? size : 1, NULL, &err);
    CL_CHECK(err);
    cl_mem histo =
        clCreateBuffer(run->cl->context, CL_MEM_READ_WRITE, BINS * sizeof(cl_uint), NULL, &err);
    CL_CHECK(err);
    if (size) /* a zero-byte write is an error in OpenCL */
        CL_CHECK(clEnqueueWriteBuffer(run->cl->queue, buffer, CL_FALSE, 0, size, run->in->buffer, 0,
                                      NULL, NULL));
    clear_bins(run, histo);
    cl_event done = enqueue_histo(run, buffer, histo);
    CL_CHECK(clEnqueueReadBuffer(run->cl->queue, histo, CL_TRUE, 0, BINS * sizeof(cl_uint),
                                 run->histo, 0, NULL, NULL));
    double ms = now_ms() - start;
    CL_CHECK(clReleaseEvent(done));
    CL_CHECK(clReleaseMemObject(buffer));
    CL_CHECK(clReleaseMemObject(histo));
    return ms;
}

int main(int argc, char **argv)
{
    const struct stage stage = {.dir = "04_opencl_port",
                                .program = "hist_opencl",
                                .summary = "stage 03 in OpenCL C, on any OpenCL device",
                                .gpu = true,
                                .opencl = true,
                                .variants = variants};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.list)
        return list_opencl_devices(stdout) ? EXIT_OK : EXIT_CANNOT_RUN;
    struct opencl cl = open_opencl(&stage, &opt);
    cl_program program = build_program(&cl, "histogram.cl");
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, kernel_names[opt.variant], &err);
    CL_CHECK(err);
    /* The book's launch again: two work-groups per compute unit, 256 work-items each. */
    struct launch launch = choose_opencl_launch(&stage, &opt, &cl, kernel, 2, 256);
    if (opt.data != DATA_FILE && opt.data != DATA_IMAGE)
        require_opencl_buffer(&stage, &cl, opt.size); /* before making gigabytes of input */
    struct input in = make_input(&stage, &opt);
    require_opencl_buffer(&stage, &cl, in.size);

    unsigned int histo[BINS], kernel_histo[BINS];
    struct cl_run run = {.cl = &cl, .kernel = kernel, .in = &in, .launch = launch, .histo = histo};
    run.dev_buffer =
        clCreateBuffer(cl.context, CL_MEM_READ_ONLY, in.size ? in.size : 1, NULL, &err);
    CL_CHECK(err);
    run.dev_histo =
        clCreateBuffer(cl.context, CL_MEM_READ_WRITE, BINS * sizeof(cl_uint), NULL, &err);
    CL_CHECK(err);
    if (in.size)
        CL_CHECK(clEnqueueWriteBuffer(cl.queue, run.dev_buffer, CL_TRUE, 0, in.size, in.buffer, 0,
                                      NULL, NULL));
    double kernel_ms = median_ms(kernel_only_once, &run, opt.reps);
    CL_CHECK(clEnqueueReadBuffer(cl.queue, run.dev_histo, CL_TRUE, 0, sizeof kernel_histo,
                                 kernel_histo, 0, NULL, NULL));
    CL_CHECK(clReleaseMemObject(run.dev_buffer));
    CL_CHECK(clReleaseMemObject(run.dev_histo));
    double total_ms = median_ms(end_to_end_once, &run, opt.reps);

    struct result result = {.impl = impl_names[opt.variant],
                            .device = cl.name,
                            .blocks = launch.blocks,
                            .threads = launch.threads,
                            .kernel_ms = kernel_ms,
                            .total_ms = total_ms,
                            .histo = histo,
                            .kernel_histo = kernel_histo};
    int status = report_result(&stage, &opt, &in, &result);
    CL_CHECK(clReleaseKernel(kernel));
    CL_CHECK(clReleaseProgram(program));
    close_opencl(&cl);
    free_input(&in);
    return status;
}
