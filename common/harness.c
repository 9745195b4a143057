/*
 * harness.c - the harness of harness.h: options and --help, the inputs they
 * ask for, repeats and medians, the report and the CSV. A student need not
 * read it.
 */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1); /* malloc(0) may return NULL */
    if (!p)
        fail("out of host memory (wanted %zu bytes)", bytes);
    return p;
}

/* ---------------------------------------------------------------- inputs -- */

static const char *const data_names[] = {"uniform", "constant", "skewed", "text", "file", "image"};

const char *data_kind_name(enum data_kind kind)
{
    return data_names[kind];
}

int read_file(const char *path, unsigned char **buffer, size_t *size, char *why, size_t why_len)
{
    *buffer = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_len, "cannot open '%s': %s", path, strerror(errno));
        return EXIT_USAGE;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "'%s' is a directory", path);
        fclose(f);
        return EXIT_USAGE;
    }
    /* Grow as we read rather than trust the size stat reports: pipes and
     * /proc files have none, and a file can change under us. */
    size_t capacity = 1 << 16, length = 0;
    unsigned char *data = checked_malloc(capacity);
    for (;;) {
        if (length == capacity) {
            if (capacity > MAX_INPUT_BYTES) {
                snprintf(why, why_len, "'%s' is larger than %zu bytes (bins are 32-bit)", path,
                         MAX_INPUT_BYTES);
                free(data);
                fclose(f);
                return EXIT_USAGE;
            }
            capacity *= 2;
            unsigned char *bigger = realloc(data, capacity);
            if (!bigger)
                fail("out of host memory reading '%s'", path);
            data = bigger;
        }
        size_t got = fread(data + length, 1, capacity - length, f);
        length += got;
        if (got == 0)
            break;
    }
    int status = EXIT_OK;
    if (ferror(f)) {
        snprintf(why, why_len, "error reading '%s'", path);
        status = EXIT_FAILED;
    } else if (length > MAX_INPUT_BYTES) {
        snprintf(why, why_len, "'%s' is larger than %zu bytes (bins are 32-bit)", path,
                 MAX_INPUT_BYTES);
        status = EXIT_USAGE;
    }
    fclose(f);
    if (status != EXIT_OK) {
        free(data);
        return status;
    }
    *buffer = data;
    *size = length;
    return EXIT_OK;
}

/* The brightness of every pixel, top row first: one byte per pixel. */
static int image_input(const char *path, struct input *in, char *why, size_t why_len)
{
    struct image img;
    int status = read_bmp(path, &img, why, why_len);
    if (status != EXIT_OK)
        return status;
    in->size = (size_t)img.width * (size_t)img.height;
    in->buffer = checked_malloc(in->size);
    for (size_t i = 0; i < in->size; i++)
        in->buffer[i] = luminance(img.rgb[3 * i], img.rgb[3 * i + 1], img.rgb[3 * i + 2]);
    in->width = img.width;
    in->height = img.height;
    free_image(&img);
    return EXIT_OK;
}

struct input make_input(const struct stage *stage, const struct options *opt)
{
    struct input in = {0};
    if (opt->data == DATA_FILE || opt->data == DATA_IMAGE) {
        char why[512], reason[480];
        const char *path = opt->data == DATA_FILE ? opt->file : opt->image;
        int status = opt->data == DATA_FILE
                         ? read_file(path, &in.buffer, &in.size, reason, sizeof reason)
                         : image_input(path, &in, reason, sizeof reason);
        snprintf(why, sizeof why, "--%s: %s", data_names[opt->data], reason);
        if (status == EXIT_USAGE)
            usage_error(stage, why);
        if (status != EXIT_OK)
            fail("%s", why);
        in.name = path;
        return in;
    }
    in.size = opt->size;
    in.buffer = checked_malloc(in.size);
    fill_input(opt->data, in.buffer, in.size, opt->seed);
    in.name = data_kind_name(opt->data);
    return in;
}

void free_input(struct input *in)
{
    free(in->buffer);
    in->buffer = NULL;
}

/* ---------------------------------------------------------------- options -- */

/* A whole unsigned decimal number, nothing before or after it. */
static bool parse_u64(const char *text, uint64_t *value)
{
    if (!isdigit((unsigned char)text[0]))
        return false; /* strtoull would accept " 5", "+5" and "-5" */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return false;
    *value = v;
    return true;
}

static int option_error(struct options *opt, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(opt->why, sizeof opt->why, format, args);
    va_end(args);
    return EXIT_USAGE;
}

/* Digits and nothing else: a whole number, though perhaps too large for 64 bits. */
static bool all_digits(const char *text)
{
    return text[0] != '\0' && text[strspn(text, "0123456789")] == '\0';
}

/* Why parse_u64 refused text: it is no whole number, or one past max. */
static int number_error(struct options *opt, const char *name, const char *text, uint64_t min,
                        uint64_t max)
{
    if (all_digits(text))
        return option_error(opt, "%s: %s is out of range (%" PRIu64 " to %" PRIu64 ")", name, text,
                            min, max);
    return option_error(opt, "%s: '%s' is not a whole number", name, text);
}

/* --size: bytes, with binary K, M and G suffixes (100M = 104857600). */
static int parse_size(struct options *opt, const char *text)
{
    size_t len = strlen(text);
    uint64_t scale = 1;
    char digits[32];
    if (len > 0 && len < sizeof digits) {
        switch (toupper((unsigned char)text[len - 1])) {
        case 'K':
            scale = 1ull << 10;
            len--;
            break;
        case 'M':
            scale = 1ull << 20;
            len--;
            break;
        case 'G':
            scale = 1ull << 30;
            len--;
            break;
        }
    }
    uint64_t count;
    if (len == 0 || len >= sizeof digits)
        return option_error(opt, "--size: '%s' is not a size in bytes (e.g. 1000, 64K, 100M)",
                            text);
    memcpy(digits, text, len);
    digits[len] = '\0';
    if (!parse_u64(digits, &count)) {
        if (all_digits(digits))
            return option_error(opt,
                                "--size: '%s' is too large: at most %zu bytes, as bins are "
                                "32-bit",
                                text, MAX_INPUT_BYTES);
        return option_error(opt, "--size: '%s' is not a size in bytes (e.g. 1000, 64K, 100M)",
                            text);
    }
    if (count > MAX_INPUT_BYTES / scale || count * scale > MAX_INPUT_BYTES)
        return option_error(opt, "--size: '%s' is too large: at most %zu bytes, as bins are 32-bit",
                            text, MAX_INPUT_BYTES);
    opt->size = (size_t)(count * scale);
    opt->size_given = true;
    return EXIT_OK;
}

static int parse_int(struct options *opt, const char *name, const char *text, long min, long max,
                     long *value)
{
    uint64_t v;
    if (!parse_u64(text, &v))
        return number_error(opt, name, text, (uint64_t)min, (uint64_t)max);
    if (v < (uint64_t)min || v > (uint64_t)max)
        return option_error(opt, "%s: %s is out of range (%ld to %ld)", name, text, min, max);
    *value = (long)v;
    return EXIT_OK;
}

static int parse_data(struct options *opt, const char *text)
{
    for (int kind = DATA_UNIFORM; kind < DATA_FILE; kind++) {
        if (strcmp(text, data_names[kind]) == 0) {
            opt->data = (enum data_kind)kind;
            opt->data_given = true;
            return EXIT_OK;
        }
    }
    return option_error(opt, "--data: '%s' is not one of uniform, constant, skewed, text", text);
}

static int parse_variant(struct options *opt, const struct stage *stage, const char *text)
{
    for (int i = 0; stage->variants[i]; i++) {
        if (strcmp(text, stage->variants[i]) == 0) {
            opt->variant = i;
            return EXIT_OK;
        }
    }
    return option_error(opt, "--variant: '%s' is not a variant of %s", text, stage->program);
}

static int parse_one(struct options *opt, const struct stage *stage, const char *name,
                     const char *value)
{
    long n;
    int status;
    if (strcmp(name, "--size") == 0)
        return parse_size(opt, value);
    if (strcmp(name, "--data") == 0)
        return parse_data(opt, value);
    if (strcmp(name, "--file") == 0 || strcmp(name, "--image") == 0) {
        if (value[0] == '\0')
            return option_error(opt, "%s: the path is empty", name);
        *(name[2] == 'f' ? &opt->file : &opt->image) = value;
        return EXIT_OK;
    }
    if (strcmp(name, "--seed") == 0) {
        if (!parse_u64(value, &opt->seed))
            return number_error(opt, "--seed", value, 0, UINT64_MAX);
        return EXIT_OK;
    }
    if (strcmp(name, "--reps") == 0) {
        status = parse_int(opt, name, value, 1, 100000, &n);
        opt->reps = (int)n;
        return status;
    }
    if (strcmp(name, "--threads") == 0) {
        status = parse_int(opt, name, value, 1, 1024, &n);
        opt->threads = (int)n;
        return status;
    }
    if ((strcmp(name, "--variant") == 0 || strcmp(name, "--impl") == 0) && stage->variants)
        return parse_variant(opt, stage, value);
    if (strcmp(name, "--blocks") == 0 && stage->gpu)
        return parse_int(opt, name, value, 1, INT32_MAX, &opt->blocks);
    if ((strcmp(name, "--platform") == 0 || strcmp(name, "--device") == 0) && stage->opencl) {
        status = parse_int(opt, name, value, 0, 1000, &n);
        *(name[2] == 'p' ? &opt->platform : &opt->device) = (int)n;
        return status;
    }
    if (strcmp(name, "--bins") == 0) { /* a stage whose bins vary declares its own --bins */
        status = parse_int(opt, name, value, 1, INT32_MAX, &n);
        if (status == EXIT_OK && n != BINS)
            return option_error(opt,
                                "--bins: %s counts %d bins, one per byte value (07_many_bins "
                                "and 08_generalized take --bins of their own)",
                                stage->program, BINS);
        return status;
    }
    if (strcmp(name, "--blocks-per-sm") == 0 && stage->gpu) {
        status = parse_int(opt, name, value, 1, 1024, &n);
        opt->blocks_per_sm = (int)n;
        return status;
    }
    return option_error(opt, "unknown option '%s'", name);
}

static bool takes_value(const char *name)
{
    static const char *const with_value[] = {
        "--size",   "--data",    "--file",          "--image",    "--seed",   "--reps", "--threads",
        "--blocks", "--variant", "--blocks-per-sm", "--platform", "--device", "--impl", "--bins"};
    for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
        if (strcmp(name, with_value[i]) == 0)
            return true;
    return false;
}

/* The index of name among the stage's own options, or -1. */
static int stage_option_index(const struct stage *stage, const char *name)
{
    for (int i = 0; stage->options && stage->options[i].name && i < MAX_STAGE_OPTIONS; i++)
        if (strcmp(name, stage->options[i].name) == 0)
            return i;
    return -1;
}

int parse_options(int argc, char **argv, const struct stage *stage, struct options *opt)
{
    *opt = (struct options){.size = DEFAULT_SIZE,
                            .data = DATA_UNIFORM,
                            .seed = DEFAULT_SEED,
                            .reps = DEFAULT_REPS,
                            .platform = -1,
                            .device = -1};
    for (int i = 1; i < argc; i++) {
        char name[64];
        const char *arg = argv[i], *value = NULL;
        const char *equals = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0)
            return option_error(opt, "unexpected argument '%s'", arg);
        if (equals && (size_t)(equals - arg) < sizeof name) { /* --size=100M */
            memcpy(name, arg, (size_t)(equals - arg));
            name[equals - arg] = '\0';
            value = equals + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        int own = stage_option_index(stage, name);
        if (own >= 0) {
            if (!stage->options[own].value) {
                if (value)
                    return option_error(opt, "%s takes no value", name);
                value = "";
            } else if (!value) {
                if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                    return option_error(opt, "%s needs a value", name);
                value = argv[++i];
            }
            opt->stage_values[own] = value;
            continue;
        }
        bool *flag = strcmp(name, "--help") == 0                    ? &opt->help
                     : strcmp(name, "--print-bins") == 0            ? &opt->print_bins
                     : strcmp(name, "--csv") == 0                   ? &opt->csv
                     : strcmp(name, "--list") == 0 && stage->opencl ? &opt->list
                                                                    : NULL;
        if (flag) {
            if (value)
                return option_error(opt, "%s takes no value", name);
            *flag = true;
            continue;
        }
        if (!takes_value(name))
            return option_error(opt, "unknown option '%s'", arg);
        if (!value) {
            /* "--bins --csv": the next option is not this one's value */
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                return option_error(opt, "%s needs a value%s", name,
                                    strcmp(name, "--bins") == 0
                                        ? " (the number of bins; --print-bins prints them)"
                                        : "");
            value = argv[++i];
        }
        int status = parse_one(opt, stage, name, value);
        if (status != EXIT_OK)
            return status;
    }
    if (opt->blocks && opt->blocks_per_sm)
        return option_error(opt, "--blocks and --blocks-per-sm both set the grid: give one");
    if (opt->file && opt->image)
        return option_error(opt, "--file and --image both set the data: give one");
    if (opt->print_bins && opt->csv)
        return option_error(opt, "--print-bins and --csv cannot be combined: the CSV would break");
    if (opt->device >= 0 && opt->platform < 0)
        return option_error(opt, "--device needs --platform (see --list)");
    const char *path = opt->file ? opt->file : opt->image;
    if (path) {
        const char *option = opt->file ? "--file" : "--image";
        if (opt->data_given || opt->size_given)
            return option_error(opt, "%s sets the data and its size: drop --data and --size",
                                option);
        /* A missing file is a usage error, found before any GPU is touched. */
        struct stat st;
        if (stat(path, &st) != 0)
            return option_error(opt, "%s: cannot open '%s': %s", option, path, strerror(errno));
        if (S_ISDIR(st.st_mode))
            return option_error(opt, "%s: '%s' is a directory", option, path);
        opt->data = opt->file ? DATA_FILE : DATA_IMAGE;
    }
    return EXIT_OK;
}

/* Prints text word-wrapped to 80 columns; every line but the first starts with
 * indent spaces (the first starts where the cursor is, at column first). */
static void print_wrapped(FILE *out, int first, int indent, const char *text)
{
    int column = first;
    bool line_empty = true;
    while (*text) {
        int word = (int)strcspn(text, " ");
        if (!line_empty && column + 1 + word > 80) {
            fprintf(out, "\n%*s", indent, "");
            column = indent;
            line_empty = true;
        }
        column += fprintf(out, "%s%.*s", line_empty ? "" : " ", word, text);
        line_empty = false;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void print_usage(FILE *out, const struct stage *stage)
{
    fprintf(out, "usage: %s [options]\n", stage->program);
    print_wrapped(out, fprintf(out, "%s: ", stage->dir), 2, stage->summary);
    fputc('\n', out);
    fputs("  --size N          bytes of input; K, M, G are powers of 1024 (default 100M)\n"
          "  --data KIND       uniform (default), constant, skewed or text\n"
          "  --file PATH       histogram of a file's bytes instead of generated data\n",
          out);
    print_wrapped(out, fprintf(out, "  --image FILE.bmp  "), 20,
                  stage->image_means ? stage->image_means
                                     : "histogram of a BMP's brightness (e.g. data/chelsea.bmp)");
    fputs("  --seed N          seed of the generated data (default 1)\n"
          "  --reps N          timed runs after a warm-up; prints the median (default 10)\n",
          out);
    if (stage->gpu && stage->own_launch)
        ; /* no grid options: see the stage's own help below */
    else if (stage->gpu && stage->launch_default) {
        fputs("  --blocks N        blocks in the grid\n"
              "  --blocks-per-sm K blocks in the grid = K x the GPU's SM count\n"
              "  --threads T       threads per block\n",
              out);
        print_wrapped(out, fprintf(out, "%20sdefault: ", ""), 20, stage->launch_default);
    } else if (stage->gpu)
        fputs("  --blocks N        blocks in the grid (default: 2 per SM, the book's choice)\n"
              "  --blocks-per-sm K blocks in the grid = K x the GPU's SM count\n"
              "  --threads T       threads per block (default 256)\n",
              out);
    else if (stage->launch_default) {
        fputs("  --threads N       CPU threads, each with a private histogram\n", out);
        print_wrapped(out, fprintf(out, "%20sdefault: ", ""), 20, stage->launch_default);
    } else
        fputs("  --threads N       CPU threads, each with a private histogram (default 1)\n", out);
    if (stage->opencl)
        fputs("  --list            list the OpenCL platforms and devices, then exit\n"
              "  --platform I      the OpenCL platform to use (default: the first with a GPU)\n"
              "  --device J        the device of that platform (default 0)\n",
              out);
    if (stage->variants) {
        size_t length = sizeof " (default)";
        for (int i = 0; stage->variants[i]; i++)
            length += strlen(stage->variants[i]) + 2; /* and ", " */
        char *names = checked_malloc(length);
        names[0] = '\0';
        for (int i = 0; stage->variants[i]; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, stage->variants[i]);
            if (i == 0)
                strcat(names, " (default)");
        }
        print_wrapped(out, fprintf(out, "  --variant NAME    (or --impl NAME) "), 20, names);
        free(names);
    }
    for (int i = 0; stage->options && stage->options[i].name && i < MAX_STAGE_OPTIONS; i++) {
        const struct stage_option *o = &stage->options[i];
        char left[32];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->value ? " " : "",
                 o->value ? o->value : "");
        print_wrapped(out, fprintf(out, "  %-17s ", left), 20, o->help);
    }
    if (stage_option_index(stage, "--bins") < 0)
        fputs("  --bins N          the number of bins: 256 here, one per byte value\n", out);
    if (stage_option_index(stage, "--print-bins") < 0)
        fputs("  --print-bins      print every bin, one '<bin>: <count>' line each\n", out);
    fputs("  --csv             print a CSV header and one row instead of the report\n"
          "  --help            print this help\n",
          out);
    if (stage->help) {
        fprintf(out, "\nIn %s:\n  ", stage->program);
        print_wrapped(out, 2, 2, stage->help);
    }
    fputs("\nexit: 0 verified, 1 error or wrong result, 2 bad usage, 77 cannot run here\n", out);
}

void usage_error(const struct stage *stage, const char *why)
{
    fprintf(stderr, "%s: %s\n", stage->program, why);
    print_usage(stderr, stage);
    exit(EXIT_USAGE);
}

long long stage_option_number(const struct stage *stage, const struct options *opt, int index,
                              long long min, long long max, long long fallback)
{
    const char *text = opt->stage_values[index], *name = stage->options[index].name;
    if (!text)
        return fallback;
    bool negative = text[0] == '-';
    uint64_t magnitude = 0;
    bool parsed = parse_u64(text + negative, &magnitude);
    struct options reason; /* option_error writes the reason here */
    if (!parsed && !all_digits(text + negative)) {
        option_error(&reason, "%s: '%s' is not a whole number", name, text);
        usage_error(stage, reason.why);
    }
    /* digits past 64 bits are out of range too; -2^63 has no positive twin,
     * so the sign is applied in unsigned arithmetic */
    bool fits = parsed && magnitude <= (uint64_t)INT64_MAX + negative;
    long long value = negative ? (long long)(0 - magnitude) : (long long)magnitude;
    if (!fits || value < min || value > max) {
        option_error(&reason, "%s: %s is out of range (%lld to %lld)", name, text, min, max);
        usage_error(stage, reason.why);
    }
    return value;
}

const char *const *variant_names_of_rows(const void *rows, int count, size_t row_size,
                                         bool all_first)
{
    const char **names = checked_malloc(((size_t)count + 2) * sizeof *names);
    names[all_first ? 0 : count] = "all";
    for (int i = 0; i < count; i++) /* a struct's address is its first member's */
        names[i + all_first] = *(const char *const *)((const char *)rows + (size_t)i * row_size);
    names[count + 1] = NULL;
    return names;
}

bool variant_wants(const struct stage *stage, const struct options *opt, const char *name)
{
    const char *chosen = stage->variants[opt->variant];
    return strcmp(chosen, "all") == 0 || strcmp(chosen, name) == 0;
}

struct options options_or_exit(int argc, char **argv, const struct stage *stage)
{
    struct options opt;
    program_name = stage->program;
    if (parse_options(argc, argv, stage, &opt) != EXIT_OK)
        usage_error(stage, opt.why);
    if (opt.help) {
        print_usage(stdout, stage);
        exit(EXIT_OK);
    }
    return opt;
}

/* ----------------------------------------------------------------- timing -- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *samples, int count)
{
    qsort(samples, (size_t)count, sizeof samples[0], compare_doubles);
    return count % 2 ? samples[count / 2] : (samples[count / 2 - 1] + samples[count / 2]) / 2;
}

double median_ms(timed_run run, void *context, int reps)
{
    for (int i = 0; i < WARMUP_RUNS; i++) /* first-touch, caches, clocks, lazy loading */
        run(context);
    double *samples = checked_malloc((size_t)reps * sizeof *samples);
    for (int i = 0; i < reps; i++)
        samples[i] = run(context);
    double m = median(samples, reps);
    free(samples);
    return m;
}

struct gpu_times median_gpu_times(gpu_timed_run run, void *context, int reps)
{
    for (int i = 0; i < WARMUP_RUNS; i++)
        run(context);
    double *kernel = checked_malloc((size_t)reps * sizeof *kernel);
    double *total = checked_malloc((size_t)reps * sizeof *total);
    for (int i = 0; i < reps; i++) {
        struct gpu_times t = run(context);
        kernel[i] = t.kernel_ms;
        total[i] = t.total_ms;
    }
    struct gpu_times m = {median(kernel, reps), median(total, reps)};
    free(kernel);
    free(total);
    return m;
}

double gb_per_s(size_t bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/* ---------------------------------------------------------------- results -- */

static void print_csv_text(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

void print_csv_row(FILE *out, const struct csv_row *row)
{
    const char *texts[] = {row->stage, row->impl, row->device, row->data};
    for (int i = 0; i < 4; i++) {
        print_csv_text(out, texts[i]);
        fputc(',', out);
    }
    fprintf(out, "%zu,%" PRIu64 ",%ld,%d,%d,%.4f,%.4f,%.3f,%s\n", row->bytes, row->seed,
            row->blocks, row->threads, row->reps, row->kernel_ms, row->total_ms,
            gb_per_s(row->bytes, row->kernel_ms), row->verified ? "yes" : "no");
}

static void print_input(const struct options *opt, const struct input *in)
{
    const char *bytes = in->size == 1 ? "byte" : "bytes";
    if (opt->data == DATA_IMAGE)
        printf("input:      image %s, %d x %d pixels: %zu %s of brightness\n", in->name, in->width,
               in->height, in->size, bytes);
    else if (opt->data == DATA_FILE)
        printf("input:      file %s, %zu %s\n", in->name, in->size, bytes);
    else
        printf("input:      %s, %zu %s, seed %" PRIu64 "\n", in->name, in->size, bytes, opt->seed);
}

/* How many counters a result holds: its own count past 256 bins, else 256. */
static unsigned bins_of(const struct result *r)
{
    return r->bins ? r->bins : BINS;
}

/* The 32-bit words a result holds. */
static size_t words_of(const struct result *r)
{
    return (size_t)bins_of(r) * (r->values ? r->values->words : 1);
}

static uint64_t sum_of(const struct result *r)
{
    uint64_t sum = 0;
    for (unsigned bin = 0; bin < bins_of(r); bin++)
        sum += r->histo[bin];
    return sum;
}

long count_wrong_bins(const unsigned int *got, const unsigned int *expected, unsigned bins,
                      const char *what, FILE *report)
{
    enum { TOLD = 8 }; /* a million wrong bins would bury the reason */
    long wrong = 0;
    for (unsigned bin = 0; bin < bins; bin++) {
        if (got[bin] == expected[bin])
            continue;
        if (report && wrong < TOLD)
            fprintf(report, "%s: %s: bin %u holds %u, the CPU counts %u\n", program_name, what, bin,
                    got[bin], expected[bin]);
        wrong++;
    }
    if (report && wrong > TOLD)
        fprintf(report, "%s: %s: and %ld more bins differ\n", program_name, what, wrong - TOLD);
    return wrong;
}

/* The report's sum line: the counts' sum, or the stage's own for values. */
static void print_sum(const struct result *r)
{
    if (r->values)
        printf("%s\n", r->values->sum);
    else
        printf("Histogram Sum: %" PRIu64 "\n", sum_of(r));
}

/* The wrong bins of one histogram of r: the stage's own check of values,
 * against r->expected, or, for 256 bins, against the input's bytes. */
static long wrong_bins(const struct input *in, const struct result *r, const unsigned *histo,
                       const char *what)
{
    if (r->values)
        return r->values->wrong(r->values->context, histo, what, stderr);
    if (r->expected)
        return count_wrong_bins(histo, r->expected, bins_of(r), what, stderr);
    return verify_histogram(in->buffer, in->size, histo, what, stderr);
}

/* Kernel-only and end-to-end times are medians of different runs: where the
 * runs vary by more than the copies cost, the first can come out the larger. */
static void print_medians_crossed_note(const char *what)
{
    printf("note:       %s.\n"
           "            The two are medians of separate timed runs, and here those runs\n"
           "            varied by more than the copies cost. On a CPU device such as PoCL's\n"
           "            the copies cost little; on any device a busy machine does this.\n",
           what);
}

/* One result in the report's long form: what a stage with one kernel prints. */
static void print_one(const struct stage *stage, const struct options *opt, const struct input *in,
                      const struct result *r, bool verified)
{
    printf("impl:       %s\n", r->impl);
    printf("device:     %s\n", r->device);
    print_input(opt, in);
    if (stage->gpu)
        printf("launch:     %ld blocks x %d threads\n", r->blocks, r->threads);
    else
        printf("threads:    %d\n", r->threads);
    print_sum(r);
    printf("kernel only: %10.3f ms %9.2f GB/s  (median of %d run%s after %d warm-up)\n",
           r->kernel_ms, gb_per_s(in->size, r->kernel_ms), opt->reps, opt->reps == 1 ? "" : "s",
           WARMUP_RUNS);
    if (r->total_ms > 0)
        printf("end to end:  %10.3f ms %9.2f GB/s  (%s)\n", r->total_ms,
               gb_per_s(in->size, r->total_ms),
               stage->gpu ? "allocate, copy in, memset, kernel, copy out"
                          : "the same: on the CPU nothing is copied");
    if (stage->gpu && r->total_ms > 0 && r->kernel_ms > r->total_ms)
        print_medians_crossed_note("the kernel-only median is above the end-to-end one");
    printf("verified:   %s\n", verified ? "yes, every bin matches the CPU" : "NO");
}

/* Several results side by side. A row without a histogram is the floor the
 * others are measured against: a kernel that only reads the input (its kernel
 * time), or a plain copy of it (its end-to-end time). */
static void print_table(const struct options *opt, const struct input *in,
                        const struct result *results, const bool *verified, int count)
{
    const struct result *floor = NULL;
    int width = 16; /* the impl column: as wide as its longest name */
    for (int i = 0; i < count; i++) {
        if (!results[i].histo)
            floor = &results[i];
        if ((int)strlen(results[i].impl) > width)
            width = (int)strlen(results[i].impl);
    }
    printf("device:     %s\n", results[0].device);
    print_input(opt, in);
    for (int i = 0; i < count; i++)
        if (results[i].histo) {
            if (results[i].bins)
                printf("bins:       %u\n", results[i].bins);
            print_sum(&results[i]);
            break;
        }
    /* x, a trip over the floor's trip, is printed only where the floor is a copy
     * (stage 06): there the trips are the lesson. Where the floor is a kernel,
     * trips differ by the pageable copy's spread far more than by the kernels,
     * so x could not rank the rows, and the table leaves it out. */
    bool copy_floor = floor && !(floor->kernel_ms > 0);
    if (copy_floor)
        printf("medians of %d run%s after %d warm-up; %s is the floor: %%: its kernel time over "
               "the\nrow's, x: the row's end-to-end time over the floor's\n\n",
               opt->reps, opt->reps == 1 ? "" : "s", WARMUP_RUNS, floor->impl);
    else if (floor)
        printf("medians of %d run%s after %d warm-up; the floor is %s\n%%: the floor's kernel "
               "time as a share of the row's\n\n",
               opt->reps, opt->reps == 1 ? "" : "s", WARMUP_RUNS, floor->impl);
    else
        printf("medians of %d run%s after %d warm-up\n\n", opt->reps, opt->reps == 1 ? "" : "s",
               WARMUP_RUNS);
    printf("%-*s %-10s %10s %9s %7s %14s", width, "impl", "launch", "kernel ms", "GB/s", "%",
           "end-to-end ms");
    if (copy_floor)
        printf(" %7s", "x");
    printf("  verified\n");
    for (int i = 0; i < count; i++) {
        const struct result *r = &results[i];
        char launch[32] = "-", percent[16] = "", times[16] = "", total[16] = "-";
        if (r->blocks && r->threads)
            snprintf(launch, sizeof launch, "%ldx%d", r->blocks, r->threads);
        else if (r->blocks)
            snprintf(launch, sizeof launch, "%ld chunk%s", r->blocks, r->blocks > 1 ? "s" : "");
        if (floor && floor->kernel_ms > 0 && r->kernel_ms > 0)
            snprintf(percent, sizeof percent, "%.1f", 100 * floor->kernel_ms / r->kernel_ms);
        if (copy_floor && floor->total_ms > 0 && r->total_ms > 0)
            snprintf(times, sizeof times, "%.3f", r->total_ms / floor->total_ms);
        if (r->total_ms > 0)
            snprintf(total, sizeof total, "%.3f", r->total_ms);
        printf("%-*s %-10s %10.4f %9.1f %7s %14s", width, r->impl, launch, r->kernel_ms,
               gb_per_s(in->size, r->kernel_ms), percent, total);
        if (copy_floor)
            printf(" %7s", times);
        printf("  %s\n", verified[i] ? "yes" : "NO");
    }
    bool crossed = false; /* on the CPU stages both times are one and the same */
    for (int i = 0; i < count; i++)
        crossed =
            crossed || (results[i].total_ms > 0 && results[i].kernel_ms > results[i].total_ms);
    if (crossed)
        print_medians_crossed_note("a row's kernel-only median is above its end-to-end one");
    bool all = true;
    for (int i = 0; i < count; i++)
        all = all && verified[i];
    printf("verified:   %s\n", all ? "yes, every result matches the CPU" : "NO");
}

int report_results(const struct stage *stage, const struct options *opt, const struct input *in,
                   const struct result *results, int count)
{
    static bool csv_header_printed; /* one CSV, one header, however many reports */
    bool *verified = checked_malloc((size_t)count * sizeof *verified);
    long wrong = 0;
    const struct result *first_histogram = NULL;
    for (int i = 0; i < count; i++) {
        const struct result *r = &results[i];
        long bad = 0;
        if (r->histo) { /* a row without a histogram (the yardstick) checks itself */
            /* the end-to-end bins, and the last kernel-only run's where they differ
             * (the same wrong bin is reported once, not once per run) */
            bool both = r->kernel_histo &&
                        memcmp(r->kernel_histo, r->histo, words_of(r) * sizeof r->histo[0]) != 0;
            char what[160];
            snprintf(what, sizeof what, "%s%s", r->impl, both ? " (end to end)" : "");
            bad = wrong_bins(in, r, r->histo, what);
            if (both) {
                snprintf(what, sizeof what, "%s (kernel only)", r->impl);
                bad += wrong_bins(in, r, r->kernel_histo, what);
            }
            if (!first_histogram)
                first_histogram = r;
        }
        verified[i] = bad == 0;
        wrong += bad;
    }
    bool generated = opt->data != DATA_FILE && opt->data != DATA_IMAGE;

    if (opt->csv) {
        if (!csv_header_printed)
            puts(CSV_HEADER);
        csv_header_printed = true;
        for (int i = 0; i < count; i++) {
            const struct result *r = &results[i];
            struct csv_row row = {stage->dir,   r->impl,     r->device,
                                  in->name,     in->size,    generated ? opt->seed : 0,
                                  r->blocks,    r->threads,  opt->reps,
                                  r->kernel_ms, r->total_ms, verified[i]};
            print_csv_row(stdout, &row);
        }
    } else {
        printf("%s: %s\n", stage->dir, stage->summary);
        if (count == 1)
            print_one(stage, opt, in, &results[0], verified[0]);
        else
            print_table(opt, in, results, verified, count);
    }
    if (opt->print_bins && first_histogram)
        for (unsigned bin = 0; bin < bins_of(first_histogram); bin++) {
            const struct values *v = first_histogram->values;
            printf("%u: ", bin);
            if (v)
                v->print(v->context, stdout, first_histogram->histo, bin);
            else
                printf("%u", first_histogram->histo[bin]);
            putchar('\n');
        }
    free(verified);
    if (wrong) {
        fprintf(stderr, "%s: verification FAILED: %ld bin%s differ%s from the CPU reference\n",
                stage->program, wrong, wrong == 1 ? "" : "s", wrong == 1 ? "s" : "");
        return EXIT_FAILED;
    }
    return EXIT_OK;
}

int report_result(const struct stage *stage, const struct options *opt, const struct input *in,
                  const struct result *r)
{
    return report_results(stage, opt, in, r, 1);
}

const char *cpu_name(void)
{
    static char name[256] = "CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return name;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            char *start = colon + 1;
            while (*start == ' ' || *start == '\t')
                start++;
            start[strcspn(start, "\n")] = '\0';
            snprintf(name, sizeof name, "%s", start);
            break;
        }
    }
    fclose(f);
    return name;
}
