/*
 * harness.h - the harness: what every program shares that no reader comes
 * for. A student need not read this file, nor harness*.c, bmp.c or the
 * other harness headers; book.h holds the helpers a stage's lesson uses.
 *
 * It gives every stage the same face: one option parser and --help, the
 * inputs the options ask for (generated, a file, a BMP's brightness), a
 * warm-up and the median of repeated runs, and one printer for the report
 * and the CSV, which also verifies every result against the CPU.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include "book.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bins are 32-bit counters, as in the book, so no input may be longer than this. */
#define MAX_INPUT_BYTES ((size_t)UINT32_MAX)
#define DEFAULT_SIZE    ((size_t)100 * 1024 * 1024) /* the book's 100 MB */
#define DEFAULT_SEED    1
#define DEFAULT_REPS    10
#define WARMUP_RUNS     1

/* What messages start with (book.c's fail and verify_histogram); set by options_or_exit. */
extern const char *program_name;

/* ---------------------------------------------------------------- stages -- */

/* An option one stage has and the others do not (07's --bins N). The parser
 * keeps its value as text in options.stage_values, in this list's order; the
 * stage reads it and reports a bad one with usage_error. A stage option takes
 * the place of a shared option of the same name. */
struct stage_option {
    const char *name;  /* "--bins" */
    const char *value; /* what --help shows for its value ("N"), or NULL: a flag */
    const char *help;  /* one line for --help */
};
#define MAX_STAGE_OPTIONS 12

/* What a stage tells the shared parser and printer about itself. */
struct stage {
    const char *dir;     /* "03_shared_atomics": the CSV's stage column */
    const char *program; /* "hist_gpu_shmem_atomics" */
    const char *summary; /* what this stage teaches, in one line */
    bool gpu;            /* --threads means threads per block; --blocks exists */
    bool opencl;         /* --platform, --device and --list exist */
    /* NULL-terminated --variant names, the first is the default; NULL when
     * the stage has only one */
    const char *const *variants;
    /* what the options mean in this program where that differs from the
     * shared text, or NULL; --help prints it after the options */
    const char *help;
    const struct stage_option *options; /* its own options, ended by {NULL}; or NULL */
    /* what --blocks and --threads default to here, where that is not the
     * book's 2 per SM of 256 threads (on a CPU: 1 thread); or NULL */
    const char *launch_default;
    /* a library picks every launch (06: CUB): --help does not list --blocks,
     * --blocks-per-sm and --threads, which the program refuses (exit 2) */
    bool own_launch;
    /* what --image counts here, where it is not the brightness; or NULL */
    const char *image_means;
};

/* malloc, or "out of host memory (wanted N bytes)" and exit 1. */
void *checked_malloc(size_t bytes);

/* ---------------------------------------------------------------- inputs -- */

const char *data_kind_name(enum data_kind kind);

/* Reads a whole file, trusting nothing about it. Returns EXIT_OK, or EXIT_USAGE
 * (missing, a directory, too large) or EXIT_FAILED (a read error) with a
 * one-line reason in why. */
int read_file(const char *path, unsigned char **buffer, size_t *size, char *why, size_t why_len);

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

/* Writes img as an uncompressed 24-bit BMP, bottom-up, rows padded to 4 bytes:
 * what decode_bmp reads back pixel for pixel, and what any image viewer opens.
 * Returns EXIT_OK, or EXIT_USAGE (a size no BMP can hold: not positive, or a
 * file past 4 GiB) or EXIT_FAILED (the file cannot be created or written)
 * with a one-line reason, naming the file, in why. A failed write may leave
 * part of the file behind. */
int write_bmp(const char *path, const struct image *img, char *why, size_t why_len);

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
    bool print_bins;   /* --print-bins: every bin, one line each, after the report */
    bool csv;
    bool help;
    /* the stage's own options (stage->options), in its order: the value given,
       "" for a flag given, NULL when not given */
    const char *stage_values[MAX_STAGE_OPTIONS];
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

/* The whole number given to the stage's own option stage->options[index]
 * (a leading '-' allowed), or fallback when it was not given; one that is no
 * number, or is outside [min, max], is a usage error with its reason. */
long long stage_option_number(const struct stage *stage, const struct options *opt, int index,
                              long long min, long long max, long long fallback);

/* A stage whose variants are the rows of one table, each a struct whose first
 * member is the row's name, makes --variant's list from it: each row's name,
 * in order, and "all" (every row), first when all_first (then it is the
 * default), else last (the first row is). */
const char *const *variant_names_of_rows(const void *rows, int count, size_t row_size,
                                         bool all_first);

/* Whether --variant asks for the row of this name: that name, or all. */
bool variant_wants(const struct stage *stage, const struct options *opt, const char *name);

struct input {
    unsigned char *buffer;
    size_t size;
    const char *name;  /* "uniform", ... or the file's path: the CSV's data column */
    int width, height; /* for --image: the picture's size; the input is its brightness */
};

/* The input the options ask for, or a reason and exit 2 (or 1). */
struct input make_input(const struct stage *stage, const struct options *opt);
void free_input(struct input *in);

/* ----------------------------------------------------------------- timing -- */

/* Sorts samples in place and returns their median. */
double median(double *samples, int count);

/* One run of the measured work; returns the milliseconds it took by its own clock. */
typedef double (*timed_run)(void *context);

/* WARMUP_RUNS untimed runs, then reps timed ones; returns their median. */
double median_ms(timed_run run, void *context, int reps);

/* The two times of a GPU program's run: the kernel alone (by the GPU's
 * events), and the whole trip a user waits for (by the host clock). */
struct gpu_times {
    double kernel_ms;
    double total_ms;
};

/* One run of a GPU program that measures both. */
typedef struct gpu_times (*gpu_timed_run)(void *context);

/* WARMUP_RUNS untimed runs, then reps timed ones; the median of each time,
 * each taken apart. */
struct gpu_times median_gpu_times(gpu_timed_run run, void *context, int reps);

/* Bytes over milliseconds, in GB/s (10^9 bytes per second). */
double gb_per_s(size_t bytes, double ms);

/* The grid of a GPU stage: blocks (work-groups) of threads (work-items). */
struct launch {
    long blocks;
    int threads;
};

/* ---------------------------------------------------------------- results -- */

/* Values that are not counts (08's float sums, minima, values of several
 * parts): how the report checks, sums up and prints them. A bin is words
 * 32-bit words of histo. */
struct values {
    unsigned words;
    /* how many of bins values in got are wrong, each of the first few told
     * on report as "PROGRAM: what: bin B ...", then how many more */
    long (*wrong)(const void *context, const unsigned int *got, const char *what, FILE *report);
    /* one bin's value, after "B: ", for --print-bins */
    void (*print)(const void *context, FILE *out, const unsigned int *got, unsigned bin);
    const char *sum; /* the report's line in place of "Histogram Sum: N" */
    const void *context;
};

struct result {
    const char *impl;                 /* the variant that ran */
    const char *device;               /* GPU or CPU name */
    long blocks;                      /* 0 on the CPU */
    int threads;                      /* threads per block, or CPU threads */
    double kernel_ms;                 /* the histogram alone */
    double total_ms;                  /* what a user waits for: allocations and copies included */
    const unsigned int *histo;        /* the end-to-end result (NULL: not a histogram) */
    const unsigned int *kernel_histo; /* the last kernel-only run's result, or NULL */
    /* Past the 256 bins of a byte (07): how many counters histo and
     * kernel_histo hold, and the CPU's count of each, which the report checks
     * them against. 0 and NULL: the 256 bins of the input's bytes, which the
     * report counts itself. */
    unsigned bins;
    const unsigned int *expected;
    const struct values *values; /* NULL: counts */
};

/* Verifies, prints the report (or the CSV header and row) and the bins if asked;
 * returns EXIT_OK, or EXIT_FAILED when a bin is wrong. A program that reports
 * several times (07's --sweep) prints the CSV header once. A total_ms of 0
 * means no end-to-end time was taken: the table shows "-". */
int report_result(const struct stage *stage, const struct options *opt, const struct input *in,
                  const struct result *r);

/* The same for several results of one input, side by side, the bins of the
 * first. A result with no histo is the read-bandwidth yardstick, checked by
 * its caller: the others are shown as a % of its speed. */
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

/* How many of bins counters differ from expected; each of the first few is
 * told on report as "PROGRAM: what: bin B holds X, the CPU counts Y", then
 * how many more. */
long count_wrong_bins(const unsigned int *got, const unsigned int *expected, unsigned bins,
                      const char *what, FILE *report);

/* One CSV line; text fields with a comma or a quote are quoted as RFC 4180 says. */
void print_csv_row(FILE *out, const struct csv_row *row);

/* The CPU's model name, for the device column of CPU stages. */
const char *cpu_name(void);

#ifdef __cplusplus
}
#endif

#endif /* HARNESS_H */
