/*
 * Exercise 12 - which work-item reads which byte: the same local-memory
 * histogram (stage 04's kernel) with two partitionings of the input, written
 * by you in partitioning.cl: interleaved (item t reads t, t + T, t + 2T, ...)
 * and contiguous slices (item t reads one unbroken run). The program checks
 * both against the CPU and then times both on the device. This host program
 * is complete; --show-pattern prints which byte each item reads at each step,
 * --show-walks each item's first, step and end at any size, --show-sectors
 * the 32-byte sectors a GPU's warp would load at each step of each walk.
 *
 *   ./partitioning                                     both walks, side by side
 *   ./partitioning --variant contiguous --print-bins   one walk and its bins
 *   ./partitioning --show-pattern --size 10 --blocks 1 --threads 4
 *   ./partitioning --show-walks 16777217/3             3 items' walks over 2^24 + 1 bytes
 *   ./partitioning --show-sectors --blocks 264 --threads 256   chapter 03's table of sectors
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
#define MAX_WALK_ITEMS    65536   /* --show-walks prints a line per item */
#define MAX_SECTOR_ITEMS  4194304 /* --show-sectors keeps every item's walk */
#define WARP              32      /* work-items a GPU runs as one (NVIDIA's warp) */
#define SECTOR            32      /* bytes a GPU's load fetches together (chapter 03) */
#define SHOWN_STEPS       48      /* --show-sectors prints warp 0's first steps */

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

/* Runs the kernel show_walks, one work-item per item: walks[3 t], walks[3 t +
 * 1] and walks[3 t + 2] are the first, step and end your walk functions give
 * item t of items over size bytes (contiguous != 0: the contiguous walk). */
static void read_walks(const struct opencl *cl, cl_kernel kernel, cl_ulong size, cl_ulong items,
                       cl_uint contiguous, cl_mem dev_walks, cl_ulong *walks)
{
    size_t global = (size_t)items;
    CL_CHECK(clSetKernelArg(kernel, 0, sizeof size, &size));
    CL_CHECK(clSetKernelArg(kernel, 1, sizeof items, &items));
    CL_CHECK(clSetKernelArg(kernel, 2, sizeof contiguous, &contiguous));
    CL_CHECK(clSetKernelArg(kernel, 3, sizeof dev_walks, &dev_walks));
    CL_CHECK(clEnqueueNDRangeKernel(cl->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL_CHECK(clEnqueueReadBuffer(cl->queue, dev_walks, CL_TRUE, 0, 3 * global * sizeof(cl_ulong),
                                 walks, 0, NULL, NULL));
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
        read_walks(cl, kernel, size, items, contiguous, dev_walks, walks);
        for (size_t t = 0; t < global; t++)
            printf("%s item %zu: first %" PRIu64 " step %" PRIu64 " end %" PRIu64 "\n",
                   walk_names[contiguous], t, (uint64_t)walks[3 * t], (uint64_t)walks[3 * t + 1],
                   (uint64_t)walks[3 * t + 2]);
    }
    CL_CHECK(clReleaseMemObject(dev_walks));
    CL_CHECK(clReleaseKernel(kernel));
    free(walks);
}

/* --show-sectors: what a GPU's loads would fetch for each walk (chapter 03's
 * side paths, "Which thread reads which byte"). A warp is 32 work-items in a row of one
 * work-group (local ids 0-31, 32-63, ...). At each step of the loop each of
 * its items reads one byte, and the warp's load fetches the 32-byte sectors
 * that hold them: how many distinct ones, and how many the warp's step
 * before did not touch (new ones: on a GPU, a wait for the L2 or DRAM). */
struct sectors {
    cl_ulong steps;                  /* warp steps: every warp's, while one of its items reads */
    cl_ulong touched;                /* distinct sectors, summed over those steps */
    cl_ulong fresh;                  /* of those, the ones the warp's step before did not touch */
    cl_ulong entering;               /* steps that touch at least one new sector */
    cl_ulong shown;                  /* warp 0's steps, up to SHOWN_STEPS */
    cl_ulong warp0_new[SHOWN_STEPS]; /* warp 0's new sectors, step by step */
};

/* Sorts the n sectors of one step and keeps each once: returns how many. */
static int distinct_sectors(cl_ulong *sector, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: a walk gives them nearly in order */
        for (int j = i; j > 0 && sector[j - 1] > sector[j]; j--) {
            cl_ulong swap = sector[j];
            sector[j] = sector[j - 1];
            sector[j - 1] = swap;
        }
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (kept == 0 || sector[i] != sector[kept - 1])
            sector[kept++] = sector[i];
    return kept;
}

/* One warp of lanes items, walk[3 l ..] the walk of lane l: adds its steps to c. */
static void count_warp(const cl_ulong *walk, int lanes, bool warp0, struct sectors *c)
{
    cl_ulong steps[WARP], most = 0, sector[WARP], before[WARP];
    for (int l = 0; l < lanes; l++) { /* how many bytes lane l reads */
        cl_ulong first = walk[3 * l], step = walk[3 * l + 1], end = walk[3 * l + 2];
        steps[l] = first < end ? (end - first - 1) / step + 1 : 0;
        most = steps[l] > most ? steps[l] : most;
    }
    int had = 0; /* before[0 .. had - 1]: the sectors of the step before */
    for (cl_ulong s = 0; s < most; s++) {
        int n = 0;
        for (int l = 0; l < lanes; l++)
            if (s < steps[l]) /* lane l reads byte first + s x step */
                sector[n++] = (walk[3 * l] + s * walk[3 * l + 1]) / SECTOR;
        n = distinct_sectors(sector, n);
        int fresh = 0;
        for (int i = 0, j = 0; i < n; i++) { /* both sorted: go through them together */
            while (j < had && before[j] < sector[i])
                j++;
            fresh += j == had || before[j] != sector[i];
        }
        c->steps++, c->touched += (cl_ulong)n, c->fresh += (cl_ulong)fresh;
        c->entering += fresh > 0;
        if (warp0 && s < SHOWN_STEPS)
            c->warp0_new[c->shown++] = (cl_ulong)fresh;
        memcpy(before, sector, (size_t)n * sizeof *sector);
        had = n;
    }
}

/* count / of, or 0 where there is nothing to share it by (no steps). */
static double per(cl_ulong count, cl_ulong of)
{
    return of ? (double)count / (double)of : 0;
}

/* Prints, for each walk on the launch and --size the options give (the launch
 * of its timed row), the sectors its warps touch, computed from your walks. */
static void show_sectors(const struct stage *stage, const struct opencl *cl, cl_program program,
                         const struct options *opt)
{
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, "show_walks", &err);
    CL_CHECK(err);
    cl_ulong size = opt->size;
    for (cl_uint contiguous = 0; contiguous < WALKS; contiguous++) {
        cl_kernel histo = clCreateKernel(program, kernel_names[contiguous], &err);
        CL_CHECK(err);
        struct launch launch = choose_opencl_launch(stage, opt, cl, histo, 2, 256);
        CL_CHECK(clReleaseKernel(histo));
        cl_ulong items = (cl_ulong)launch.blocks * (cl_ulong)launch.threads;
        if (items > MAX_SECTOR_ITEMS)
            usage_error(stage, "--show-sectors: give at most 4194304 work-items (--blocks x "
                               "--threads)");
        if (contiguous == 0)
            printf("%s: the %d-byte sectors a warp of %d work-items touches at each step\n"
                   "device:     %s\n",
                   stage->dir, SECTOR, WARP, cl->name);
        size_t bytes = 3 * (size_t)items * sizeof(cl_ulong);
        cl_ulong *walks = malloc(bytes);
        if (!walks)
            fail("out of memory for the walks (%zu bytes)", bytes);
        cl_mem dev_walks = clCreateBuffer(cl->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        CL_CHECK(err);
        read_walks(cl, kernel, size, items, contiguous, dev_walks, walks);
        for (cl_ulong t = 0; t < items; t++)
            if (walks[3 * t + 1] == 0 && walks[3 * t] < walks[3 * t + 2])
                fail("--show-sectors: the %s walk of item %" PRIu64 " has step 0: it never ends",
                     walk_names[contiguous], (uint64_t)t);
        struct sectors c = {0};
        for (cl_ulong t = 0; t < items;) { /* warp after warp, none across two work-groups */
            cl_ulong left = (cl_ulong)launch.threads - t % (cl_ulong)launch.threads;
            int lanes = left < WARP ? (int)left : WARP;
            count_warp(walks + 3 * t, lanes, t == 0, &c);
            t += (cl_ulong)lanes;
        }
        printf("sectors %s: %" PRIu64 " byte%s, %ld work-group%s x %d work-item%s\n",
               walk_names[contiguous], (uint64_t)size, size == 1 ? "" : "s", launch.blocks,
               launch.blocks == 1 ? "" : "s", launch.threads, launch.threads == 1 ? "" : "s");
        printf("  warp steps           %" PRIu64 "\n", (uint64_t)c.steps);
        printf("  sectors touched      %" PRIu64 ", %.2f a step\n", (uint64_t)c.touched,
               per(c.touched, c.steps));
        printf("  new sectors          %" PRIu64 ", %.2f a step\n", (uint64_t)c.fresh,
               per(c.fresh, c.steps));
        printf("  steps with new ones  %" PRIu64 ", %.1f%% of the steps, %.2f new sectors each\n",
               (uint64_t)c.entering, 100 * per(c.entering, c.steps), per(c.fresh, c.entering));
        printf("  warp 0, new sectors at its first %" PRIu64 " steps:", (uint64_t)c.shown);
        for (cl_ulong s = 0; s < c.shown; s++)
            printf(" %" PRIu64, (uint64_t)c.warp0_new[s]);
        putchar('\n');
        CL_CHECK(clReleaseMemObject(dev_walks));
        free(walks);
    }
    CL_CHECK(clReleaseKernel(kernel));
}

int main(int argc, char **argv)
{
    static const char *const variants[] = {"all", "interleaved", "contiguous", NULL};
    static const struct stage_option own[] = {
        {"--show-pattern", NULL, "print which byte each work-item reads, for --size 4096 or less"},
        {"--show-walks", "S/T",
         "print the walk (first, step, end) of each of T items over S bytes"},
        {"--show-sectors", NULL,
         "count the 32-byte sectors a GPU's warp loads at each step of each walk, at --size"},
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
    if (opt.stage_values[2]) { /* --show-sectors */
        show_sectors(&stage, &cl, program, &opt);
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
