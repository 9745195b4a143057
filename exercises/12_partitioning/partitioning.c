/*
 * Exercise 12 - which work-item reads which byte: the same local-memory
 * histogram (stage 04's kernel) with two partitionings of the input, written
 * by you in partitioning.cl: interleaved (item t reads t, t + T, t + 2T, ...)
 * and contiguous slices (item t reads one unbroken run). The program checks
 * both against the CPU and then times both on the device. This host program
 * is complete; --show-pattern prints which byte each item reads at each step,
 * --show-walks each item's first, step and end at any size.
 *
 *   ./partitioning                                     both walks, side by side
 *   ./partitioning --variant contiguous --print-bins   one walk and its bins
 *   ./partitioning --show-pattern --size 10 --blocks 1 --threads 4
 *   ./partitioning --show-walks 16777217/3             3 items' walks over 2^24 + 1 bytes
 */
#include <CL/cl.h>

#include "book.h"           /* CL_CHECK, the input, the CPU's check: worth reading */
#include "harness_opencl.h" /* options, the device, repeats, the report: no need to read it */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WALKS 2
static const char *const walk_names[WALKS] = {"interleaved", "contiguous"};
static const char *const kernel_names[WALKS] = {"histo_interleaved", "histo_contiguous"};
#define MAX_PATTERN_BYTES 4096 /* --show-pattern prints every read: keep it small */
#define MAX_PATTERN_ITEMS 1024
#define MAX_WALK_ITEMS    65536 /* --show-walks prints a line per item */

struct cl_run {
    const struct opencl *cl;
    cl_kernel kernel;
    const struct input *in;
    struct launch launch;
    cl_mem dev_buffer, dev_histo; /* the kernel-only runs reuse these */
    unsigned int *histo;          /* where the end-to-end runs leave their result */
};

/* Clears the bins, sets the arguments, enqueues: global size = work-groups x work-items. */
static cl_event enqueue_histo(const struct cl_run *run, cl_mem buffer, cl_mem histo)
{
    const cl_uint zero = 0;
    cl_ulong size = run->in->size;
    size_t local = (size_t)run->launch.threads, global = (size_t)run->launch.blocks * local;
    cl_event done;
    CL_CHECK(clEnqueueFillBuffer(run->cl->queue, histo, &zero, sizeof zero, 0,
                                 BINS * sizeof(cl_uint), 0, NULL, NULL));
    CL_CHECK(clSetKernelArg(run->kernel, 0, sizeof buffer, &buffer));
    CL_CHECK(clSetKernelArg(run->kernel, 1, sizeof size, &size));
    CL_CHECK(clSetKernelArg(run->kernel, 2, sizeof histo, &histo));
    CL_CHECK(clEnqueueNDRangeKernel(run->cl->queue, run->kernel, 1, NULL, &global, &local, 0, NULL,
                                    &done));
    return done;
}

/* The kernel alone, timed by the device's event stamps. */
static double kernel_only_once(void *context)
{
    struct cl_run *run = context;
    cl_event done = enqueue_histo(run, run->dev_buffer, run->dev_histo);
    cl_ulong start, end;
    CL_CHECK(clWaitForEvents(1, &done));
    CL_CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL_CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    CL_CHECK(clReleaseEvent(done));
    return (end - start) / 1e6; /* nanoseconds to milliseconds */
}

/* What a user waits for: create the buffers, write the input, count, read back. */
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
    cl_event done = enqueue_histo(run, buffer, histo);
    CL_CHECK(clEnqueueReadBuffer(run->cl->queue, histo, CL_TRUE, 0, BINS * sizeof(cl_uint),
                                 run->histo, 0, NULL, NULL));
    double ms = now_ms() - start;
    CL_CHECK(clReleaseEvent(done));
    CL_CHECK(clReleaseMemObject(buffer));
    CL_CHECK(clReleaseMemObject(histo));
    return ms;
}

/* --show-pattern: runs show_pattern on the grid the options ask for and
 * prints, for each walk, one line per work-item, "item t: b0 b1 ...": the
 * bytes it reads, in the order it reads them (its steps). */
static void show_patterns(const struct stage *stage, const struct opencl *cl, cl_program program,
                          const struct options *opt)
{
    if (opt->size > MAX_PATTERN_BYTES)
        usage_error(stage, "--show-pattern: give --size 4096 or less");
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, "show_pattern", &err);
    CL_CHECK(err);
    struct launch launch = choose_opencl_launch(stage, opt, cl, kernel, 2, 256);
    size_t local = (size_t)launch.threads, items = (size_t)launch.blocks * local;
    if (items > MAX_PATTERN_ITEMS)
        usage_error(stage, "--show-pattern: give at most 1024 work-items (--blocks x --threads)");
    cl_ulong size = opt->size, steps = size + 1; /* one more than any walk needs: see over-reads */
    size_t bytes = items * steps * sizeof(cl_ulong);
    cl_ulong *pattern = malloc(bytes);
    if (!pattern)
        fail("out of memory for the pattern (%zu bytes)", bytes);
    cl_mem dev_pattern = clCreateBuffer(cl->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CL_CHECK(err);
    printf("%s: which byte each work-item reads\ndevice:     %s\n", stage->dir, cl->name);
    for (cl_uint contiguous = 0; contiguous < WALKS; contiguous++) {
        CL_CHECK(clSetKernelArg(kernel, 0, sizeof size, &size));
        CL_CHECK(clSetKernelArg(kernel, 1, sizeof contiguous, &contiguous));
        CL_CHECK(clSetKernelArg(kernel, 2, sizeof steps, &steps));
        CL_CHECK(clSetKernelArg(kernel, 3, sizeof dev_pattern, &dev_pattern));
        CL_CHECK(clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &items, &local, 0, NULL, NULL));
        CL_CHECK(
            clEnqueueReadBuffer(cl->queue, dev_pattern, CL_TRUE, 0, bytes, pattern, 0, NULL, NULL));
        printf("pattern %s: %" PRIu64 " byte%s, %ld work-group%s x %d work-item%s\n",
               walk_names[contiguous], (uint64_t)size, size == 1 ? "" : "s", launch.blocks,
               launch.blocks == 1 ? "" : "s", launch.threads, launch.threads == 1 ? "" : "s");
        for (size_t t = 0; t < items; t++) {
            printf("item %zu:", t);
            for (cl_ulong s = 0; s < steps && pattern[t * steps + s] < size; s++)
                printf(" %" PRIu64, (uint64_t)pattern[t * steps + s]);
            putchar('\n');
        }
    }
    CL_CHECK(clReleaseMemObject(dev_pattern));
    CL_CHECK(clReleaseKernel(kernel));
    free(pattern);
}

/* --show-walks S/T: runs show_walks, one work-item per item, and
 * prints each item's walk, "<walk> item t: first F step S end E". No input
 * is made, so S may be any size below 2^63, the sizes the walks promise: the
 * sizes where arithmetic narrower than 64-bit integers (a float, a double)
 * rounds. */
static void show_walks(const struct stage *stage, const struct opencl *cl, cl_program program,
                       const char *text)
{
    char *slash = NULL, *end = NULL;
    errno = 0;
    cl_ulong size = strtoull(text, &slash, 10), items = 0;
    if (slash != text && *slash == '/')
        items = strtoull(slash + 1, &end, 10);
    if (text[0] < '0' || text[0] > '9' || !end || end == slash + 1 || *end || errno || items == 0 ||
        items > MAX_WALK_ITEMS || size >> 63)
        usage_error(stage, "--show-walks: give S/T, a size S in bytes below 2^63 and T from 1 to "
                           "65536 work-items (e.g. 16777217/3)");
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, "show_walks", &err);
    CL_CHECK(err);
    size_t global = (size_t)items, bytes = 3 * global * sizeof(cl_ulong);
    cl_ulong *walks = malloc(bytes);
    if (!walks)
        fail("out of memory for the walks (%zu bytes)", bytes);
    cl_mem dev_walks = clCreateBuffer(cl->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CL_CHECK(err);
    printf("%s: each work-item's walk\ndevice:     %s\n", stage->dir, cl->name);
    printf("walks:      %" PRIu64 " byte%s over %" PRIu64 " work-item%s\n", (uint64_t)size,
           size == 1 ? "" : "s", (uint64_t)items, items == 1 ? "" : "s");
    for (cl_uint contiguous = 0; contiguous < WALKS; contiguous++) {
        CL_CHECK(clSetKernelArg(kernel, 0, sizeof size, &size));
        CL_CHECK(clSetKernelArg(kernel, 1, sizeof items, &items));
        CL_CHECK(clSetKernelArg(kernel, 2, sizeof contiguous, &contiguous));
        CL_CHECK(clSetKernelArg(kernel, 3, sizeof dev_walks, &dev_walks));
        CL_CHECK(clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
        CL_CHECK(
            clEnqueueReadBuffer(cl->queue, dev_walks, CL_TRUE, 0, bytes, walks, 0, NULL, NULL));
        for (size_t t = 0; t < global; t++)
            printf("%s item %zu: first %" PRIu64 " step %" PRIu64 " end %" PRIu64 "\n",
                   walk_names[contiguous], t, (uint64_t)walks[3 * t], (uint64_t)walks[3 * t + 1],
                   (uint64_t)walks[3 * t + 2]);
    }
    CL_CHECK(clReleaseMemObject(dev_walks));
    CL_CHECK(clReleaseKernel(kernel));
    free(walks);
}

int main(int argc, char **argv)
{
    static const char *const variants[] = {"all", "interleaved", "contiguous", NULL};
    static const struct stage_option own[] = {
        {"--show-pattern", NULL, "print which byte each work-item reads, for --size 4096 or less"},
        {"--show-walks", "S/T",
         "print the walk (first, step, end) of each of T items over S bytes"},
        {NULL, NULL, NULL}};
    const struct stage stage = {.dir = "12_partitioning",
                                .program = "partitioning",
                                .summary = "exercise: interleaved and contiguous partitionings",
                                .gpu = true,
                                .opencl = true,
                                .variants = variants,
                                .options = own};
    struct options opt = options_or_exit(argc, argv, &stage);
    if (opt.list)
        return list_opencl_devices(stdout) ? EXIT_OK : EXIT_CANNOT_RUN;
    struct opencl cl = open_opencl(&stage, &opt);
    cl_program program = build_program(&cl, "partitioning.cl");
    if (opt.stage_values[1]) { /* --show-walks */
        show_walks(&stage, &cl, program, opt.stage_values[1]);
        CL_CHECK(clReleaseProgram(program));
        close_opencl(&cl);
        return EXIT_OK;
    }
    if (opt.stage_values[0]) { /* --show-pattern */
        if (!opt.size_given)
            usage_error(&stage, "--show-pattern: give --size (4096 or less)");
        show_patterns(&stage, &cl, program, &opt);
        CL_CHECK(clReleaseProgram(program));
        close_opencl(&cl);
        return EXIT_OK;
    }
    if (opt.data != DATA_FILE && opt.data != DATA_IMAGE)
        require_opencl_buffer(&stage, &cl, opt.size); /* before making gigabytes of input */
    struct input in = make_input(&stage, &opt);
    require_opencl_buffer(&stage, &cl, in.size);

    /* --variant all (the default): both walks on the same input, one row each. */
    int first = opt.variant == 0 ? 0 : opt.variant - 1, count = opt.variant == 0 ? WALKS : 1;
    unsigned int histo[WALKS][BINS], kernel_histo[WALKS][BINS];
    struct result results[WALKS];
    cl_int err;
    for (int k = 0; k < count; k++) {
        int w = first + k;
        cl_kernel kernel = clCreateKernel(program, kernel_names[w], &err);
        CL_CHECK(err);
        struct launch launch = choose_opencl_launch(&stage, &opt, &cl, kernel, 2, 256);
        struct cl_run run = {
            .cl = &cl, .kernel = kernel, .in = &in, .launch = launch, .histo = histo[k]};
        run.dev_buffer =
            clCreateBuffer(cl.context, CL_MEM_READ_ONLY, in.size ? in.size : 1, NULL, &err);
        CL_CHECK(err);
        run.dev_histo =
            clCreateBuffer(cl.context, CL_MEM_READ_WRITE, BINS * sizeof(cl_uint), NULL, &err);
        CL_CHECK(err);
        if (in.size)
            CL_CHECK(clEnqueueWriteBuffer(cl.queue, run.dev_buffer, CL_TRUE, 0, in.size, in.buffer,
                                          0, NULL, NULL));
        double kernel_ms = median_ms(kernel_only_once, &run, opt.reps);
        CL_CHECK(clEnqueueReadBuffer(cl.queue, run.dev_histo, CL_TRUE, 0, sizeof kernel_histo[k],
                                     kernel_histo[k], 0, NULL, NULL));
        CL_CHECK(clReleaseMemObject(run.dev_buffer));
        CL_CHECK(clReleaseMemObject(run.dev_histo));
        double total_ms = median_ms(end_to_end_once, &run, opt.reps);
        results[k] = (struct result){.impl = walk_names[w],
                                     .device = cl.name,
                                     .blocks = launch.blocks,
                                     .threads = launch.threads,
                                     .kernel_ms = kernel_ms,
                                     .total_ms = total_ms,
                                     .histo = histo[k],
                                     .kernel_histo = kernel_histo[k]};
        CL_CHECK(clReleaseKernel(kernel));
    }
    int status = report_results(&stage, &opt, &in, results, count);
    CL_CHECK(clReleaseProgram(program));
    close_opencl(&cl);
    free_input(&in);
    return status;
}
