/*
 * book.h - what every stage of the workbook needs, written once.
 *
 * The book's own helpers (HANDLE_ERROR, big_random_block) and what a fair,
 * honest benchmark adds to them: the other inputs, the CPU reference and the
 * book's verification, timers with a warm-up and a median, and one option
 * parser and one result printer, so that every stage has the same face.
 *
 * Host code is C11. The CUDA part at the bottom is seen only by nvcc and by
 * book_gpu.c, compiled with -DBOOK_CUDA; the OpenCL part only with -DBOOK_OPENCL.
 */
#ifndef BOOK_H
#define BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BINS 256 /* one bin per possible byte value */

/* The exit status of every stage. 77 is the automake convention for "skipped". */
enum exit_status { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 77 };

/* Bins are 32-bit counters, as in the book, so no input may be longer than this. */
#define MAX_INPUT_BYTES ((size_t)UINT32_MAX)
#define DEFAULT_SIZE    ((size_t)100 * 1024 * 1024) /* the book's 100 MB */
#define DEFAULT_SEED    1
#define DEFAULT_REPS    10
#define WARMUP_RUNS     1
#define TEXT_PHRASE     "Programming with CUDA C" /* the book's figure 9.1 */

/* ---------------------------------------------------------------- stages -- */

/* What a stage tells the shared parser and printer about itself. */
struct stage {
    const char *dir;             /* "03_shared_atomics": the CSV's stage column */
    const char *program;         /* "hist_gpu_shmem_atomics" */
    const char *summary;         /* what this stage teaches, in one line */
    bool gpu;                    /* --threads means threads per block; --blocks exists */
    bool opencl;                 /* --platform, --device and --list exist */
    const char *const *variants; /* NULL-terminated --variant names, the first is the
                                    default; NULL when the stage has only one */
    const char *help;            /* what the options mean in this program where that
                                    differs from the shared text, or NULL; --help
                                    prints it after the options */
};

/* ---------------------------------------------------------------- inputs -- */

enum data_kind { DATA_UNIFORM, DATA_CONSTANT, DATA_SKEWED, DATA_TEXT, DATA_FILE, DATA_IMAGE };

const char *data_kind_name(enum data_kind kind);

/* The book's helper, made reproducible: the same seed gives the same bytes. */
unsigned char *big_random_block(size_t size, uint64_t seed);

/* Fills buffer with size bytes of a generated kind (not DATA_FILE). */
void fill_input(enum data_kind kind, unsigned char *buffer, size_t size, uint64_t seed);

/* Reads a whole file, trusting nothing about it. Returns EXIT_OK, or EXIT_USAGE
 * (missing, a directory, too large) or EXIT_FAILED (a read error) with a
 * one-line reason in why. */
int read_file(const char *path, unsigned char **buffer, size_t *size, char *why, size_t why_len);

/* ----------------------------------------------------------------- images -- */

struct image {
    int width, height;
    unsigned char *rgb; /* width x height pixels, top row first, 3 bytes each: R, G, B */
};

/* Decodes an uncompressed BMP (8-bit paletted, 24- or 32-bit, either row order)
 * held in memory, reading nothing past file + size. Returns EXIT_OK, or
 * EXIT_USAGE with a one-line reason in why. */
int decode_bmp(const unsigned char *file, size_t size, struct image *img, char *why,
               size_t why_len);

/* read_file, then decode_bmp; the reason names the file. */
int read_bmp(const char *path, struct image *img, char *why, size_t why_len);

/* A pixel's brightness, 0 to 255 (ITU-R BT.601 weights): what --image counts. */
unsigned char luminance(unsigned char r, unsigned char g, unsigned char b);

void free_image(struct image *img);

/* ---------------------------------------------------------------- options -- */

struct options {
    size_t size;
    bool size_given;
    enum data_kind data;
    bool data_given;
    const char *file;  /* set when --file was given; data is then DATA_FILE */
    const char *image; /* set when --image was given; data is then DATA_IMAGE */
    uint64_t seed;
    int reps;
    long blocks;       /* 0: the stage's default */
    int blocks_per_sm; /* 0: the stage's default */
    int threads;       /* 0: the stage's default */
    int variant;       /* index into stage->variants */
    int platform;      /* OpenCL: -1, or the platform --platform chose */
    int device;        /* OpenCL: -1, or the device --device chose */
    bool list;         /* OpenCL: list the platforms and devices */
    bool bins;
    bool csv;
    bool help;
    char why[256]; /* the reason, when parse_options returns EXIT_USAGE */
};

/* Returns EXIT_OK, or EXIT_USAGE with a one-line reason in opt->why. */
int parse_options(int argc, char **argv, const struct stage *stage, struct options *opt);

/* What every main calls: parse, or print the reason and the usage and exit 2
 * (--help prints the usage and exits 0). */
struct options options_or_exit(int argc, char **argv, const struct stage *stage);

void print_usage(FILE *out, const struct stage *stage);

/* Reports a usage error the one way every stage does, and exits 2. */
void usage_error(const struct stage *stage, const char *why);

/* Prints "program: message" on stderr and exits 1: for runtime errors. */
void fail(const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

struct input {
    unsigned char *buffer;
    size_t size;
    const char *name;  /* "uniform", ... or the file's path: the CSV's data column */
    int width, height; /* for --image: the picture's size; the input is its brightness */
};

/* The input the options ask for, or a reason and exit 2 (or 1). */
struct input make_input(const struct stage *stage, const struct options *opt);
void free_input(struct input *in);

/* ------------------------------------------------------ reference, checks -- */

/* The plain single loop: the reference every result is checked against. */
void cpu_histogram(const unsigned char *buffer, size_t size, unsigned int histo[BINS]);

uint64_t histogram_sum(const unsigned int histo[BINS]);

/* The book's check: take every byte of the input away from its bin; a right
 * histogram ends with every bin at 0. Prints each bin that does not to report
 * (if not NULL), labelled with what, and returns how many bins are wrong. */
int verify_histogram(const unsigned char *buffer, size_t size, const unsigned int histo[BINS],
                     const char *what, FILE *report);

/* ----------------------------------------------------------------- timing -- */

double now_ms(void); /* a monotonic host clock, in milliseconds */

/* Sorts samples in place and returns their median. */
double median(double *samples, int count);

/* One run of the measured work; returns the milliseconds it took by its own clock. */
typedef double (*timed_run)(void *context);

/* WARMUP_RUNS untimed runs, then reps timed ones; returns their median. */
double median_ms(timed_run run, void *context, int reps);

/* Bytes over milliseconds, in GB/s (10^9 bytes per second). */
double gb_per_s(size_t bytes, double ms);

/* The grid of a GPU stage: blocks (work-groups) of threads (work-items). */
struct launch {
    long blocks;
    int threads;
};

/* ---------------------------------------------------------------- results -- */

struct result {
    const char *impl;                 /* the variant that ran */
    const char *device;               /* GPU or CPU name */
    long blocks;                      /* 0 on the CPU */
    int threads;                      /* threads per block, or CPU threads */
    double kernel_ms;                 /* the histogram alone */
    double total_ms;                  /* what a user waits for: allocations and copies included */
    const unsigned int *histo;        /* the end-to-end result (NULL: not a histogram) */
    const unsigned int *kernel_histo; /* the last kernel-only run's result, or NULL */
};

/* Verifies, prints the report (or the CSV header and row) and the bins if asked;
 * returns EXIT_OK, or EXIT_FAILED when a bin is wrong. */
int report_result(const struct stage *stage, const struct options *opt, const struct input *in,
                  const struct result *r);

/* The same for several results of one input (at most 64), side by side, the
 * bins of the first. A result with no histo is the read-bandwidth yardstick,
 * checked by its caller: the others are shown as a % of its speed. */
int report_results(const struct stage *stage, const struct options *opt, const struct input *in,
                   const struct result *results, int count);

#define CSV_HEADER                                                                                 \
    "stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified"

struct csv_row {
    const char *stage, *impl, *device, *data;
    size_t bytes;
    uint64_t seed;
    long blocks;
    int threads, reps;
    double kernel_ms, total_ms;
    bool verified;
};

/* One CSV line; text fields with a comma or a quote are quoted as RFC 4180 says. */
void print_csv_row(FILE *out, const struct csv_row *row);

/* The CPU's model name, for the device column of CPU stages. */
const char *cpu_name(void);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------- CUDA -- */
#if defined(__CUDACC__) || defined(BOOK_CUDA)
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every CUDA call goes through this; after a kernel launch, check
 * cudaGetLastError() with it too. A failure prints file:line, the call and
 * the error in words, and exits 1. */
void cuda_failed(cudaError_t err, const char *call, const char *file, int line);
#define HANDLE_ERROR(call)                                                                         \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            cuda_failed(err_, #call, __FILE__, __LINE__);                                          \
    } while (0)

struct gpu {
    int id;
    char name[256];
    int sm_count;
    int max_threads_per_block;
    int max_blocks; /* the grid's x limit */
};

/* The first CUDA device, or a one-line reason and exit 77 when there is none. */
struct gpu open_gpu(const struct stage *stage);

/* The book's launch (blocks_per_sm x SMs blocks of threads threads) unless
 * --blocks, --blocks-per-sm or --threads say otherwise; exits 2 for a shape
 * this GPU cannot launch. */
struct launch choose_launch(const struct stage *stage, const struct options *opt,
                            const struct gpu *gpu, int blocks_per_sm, int threads);

/* Launches the stage's kernel over dev_buffer into dev_histo (already zeroed). */
typedef void (*histo_launcher)(const unsigned char *dev_buffer, size_t size,
                               unsigned int *dev_histo, struct launch launch);

struct gpu_times {
    double kernel_ms;
    double total_ms;
};

/* Times the stage the two honest ways, each a median over opt->reps after a
 * warm-up: kernel only (CUDA events around the launch, the input already on
 * the GPU), and end to end (what the book timed: allocate, copy in, memset,
 * kernel, copy out). Leaves the last end-to-end result in histo and the last
 * kernel-only result in kernel_histo, for report_result to verify. */
struct gpu_times time_gpu_histogram(const struct stage *stage, const struct options *opt,
                                    const struct input *in, struct launch launch,
                                    histo_launcher launch_histo, unsigned int histo[BINS],
                                    unsigned int kernel_histo[BINS]);

#ifdef __cplusplus
}
#endif
#endif /* CUDA */

/* ----------------------------------------------------------------- OpenCL -- */
#ifdef BOOK_OPENCL
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HANDLE_ERROR's twin: every OpenCL call that returns an error code goes
 * through it; calls that return an object report through their last argument,
 * which is checked the same way right after: CL_CHECK(err). */
void opencl_failed(cl_int err, const char *call, const char *file, int line);
#define CL_CHECK(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            opencl_failed(err_, #call, __FILE__, __LINE__);                                        \
    } while (0)

/* "CL_OUT_OF_RESOURCES" for -5, and so on. */
const char *cl_error_name(cl_int err);

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
#endif /* OpenCL */

#endif /* BOOK_H */
