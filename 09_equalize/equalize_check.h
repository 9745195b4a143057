/*
 * equalize_check.h - what 09_equalize does besides its lesson: the check of
 * what each run made against the CPU's answer, and the files it writes
 * (--write, --chart). Included once, by hist_gpu_equalize.cu; a reader of the
 * pipeline need not read it.
 */
#ifndef EQUALIZE_CHECK_H
#define EQUALIZE_CHECK_H

#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOLD 8 /* wrong values told per run: a million would bury the reason */

enum step { HISTOGRAM = 1, TABLE, EQUALIZE }; /* how far a run goes through the pipeline */

/* What every run must make: the bins, the table, and the equalized image's
 * histogram (histo[v] pixels move to table[v]); its bytes are table[input]. */
struct expected {
    const struct input *in;
    unsigned int histo[BINS];
    unsigned char table[BINS];
    unsigned int after[BINS];
};

/* What one run made, copied back for the check. */
struct made {
    unsigned int histo[BINS];
    unsigned char table[BINS];
    unsigned char *image; /* EQUALIZE: in->size bytes */
};

/* One line of a wrong result, the first TOLD of a run. */
static void tell(FILE *report, int *told, const char *format, ...)
{
    if (!report || (*told)++ >= TOLD)
        return;
    va_list args;
    va_start(args, format);
    fprintf(report, "%s: ", program_name);
    vfprintf(report, format, args);
    fputc('\n', report);
    va_end(args);
}

/* How many of the 256 brightness values a run that went as far as steps got
 * wrong somewhere: its bin, its table entry, a byte of that brightness, or
 * its bin in the equalized image's histogram. Each difference is told on
 * report (the first TOLD), labelled with what. */
static long check_made(const struct expected *e, enum step steps, const struct made *m,
                       const char *what, FILE *report)
{
    const struct input *in = e->in;
    bool wrong[BINS] = {false};
    int told = 0;
    for (unsigned int v = 0; v < BINS; v++) {
        if (m->histo[v] != e->histo[v]) {
            wrong[v] = true;
            tell(report, &told, "%s: bin %u holds %u, the CPU counts %u", what, v, m->histo[v],
                 e->histo[v]);
        }
        if (steps >= TABLE && m->table[v] != e->table[v]) {
            wrong[v] = true;
            tell(report, &told, "%s: the table takes %u to %u, the CPU's to %u", what, v,
                 m->table[v], e->table[v]);
        }
    }
    if (steps == EQUALIZE) {
        for (size_t i = 0; i < in->size; i++)
            if (m->image[i] != e->table[in->buffer[i]]) {
                wrong[in->buffer[i]] = true;
                tell(report, &told, "%s: byte %zu is %u, the CPU's equalized image has %u", what, i,
                     m->image[i], e->table[in->buffer[i]]);
            }
        unsigned int after[BINS];
        cpu_histogram(m->image, in->size, after);
        for (unsigned int v = 0; v < BINS; v++)
            if (after[v] != e->after[v]) {
                wrong[v] = true;
                tell(report, &told, "%s: the equalized image has %u bytes of %u, the CPU's %u",
                     what, after[v], v, e->after[v]);
            }
    }
    long count = 0;
    for (unsigned int v = 0; v < BINS; v++)
        count += wrong[v];
    if (report && told > TOLD)
        fprintf(report, "%s: %s: and %d more differences\n", program_name, what, told - TOLD);
    return count;
}

/* --print-bins: a bin's count, as every stage prints it. */
static void print_count(const void *, FILE *out, const unsigned int *histo, unsigned int bin)
{
    fprintf(out, "%u", histo[bin]);
}

/* ------------------------------------------------------------- the outputs -- */

/* A file the program will write, tried now, before any GPU work: one that
 * cannot be made is a usage error, as a missing --image is. Nothing is
 * truncated, and a file made only to try is removed again. */
static void check_writable(const struct stage *stage, const char *option, const char *path)
{
    if (!path)
        return;
    bool existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "ab");
    char why[512];
    if (!f) {
        snprintf(why, sizeof why, "%s: cannot create '%.300s': %s", option, path, strerror(errno));
        usage_error(stage, why);
    }
    fclose(f);
    if (!existed)
        remove(path);
}

/* The equalized image as a BMP: each byte a grey pixel. */
static void write_equalized(const char *path, const struct input *in, const unsigned char *image)
{
    struct image img = {in->width, in->height, (unsigned char *)checked_malloc(3 * in->size)};
    for (size_t i = 0; i < in->size; i++)
        img.rgb[3 * i] = img.rgb[3 * i + 1] = img.rgb[3 * i + 2] = image[i];
    char why[512];
    int status = write_bmp(path, &img, why, sizeof why);
    free_image(&img);
    if (status != EXIT_OK)
        fail("--write: %s", why);
}

/* What plots/equalize.sh draws, as text for gnuplot: a first line that says
 * what was equalized and on which GPU (the script reads the picture's size
 * there); a line per brightness: its pixels before and after, its table
 * entry; then, for an image, two blocks (gnuplot's index 1 and 2, read as a
 * matrix): the brightness before and after, a line per row, top row first. */
static void write_chart(const char *path, const struct input *in, const char *device,
                        const struct made *m, const unsigned int after[BINS])
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail("--chart: cannot create '%s': %s", path, strerror(errno));
    fprintf(f, "# 09_equalize --chart: %s, %zu bytes", in->name, in->size);
    if (in->width)
        fprintf(f, ", %d x %d pixels", in->width, in->height);
    fprintf(f, ", equalized on %s\n# brightness pixels_before pixels_after table\n", device);
    for (int v = 0; v < BINS; v++)
        fprintf(f, "%d %u %u %u\n", v, m->histo[v], after[v], m->table[v]);
    const unsigned char *images[] = {in->buffer, m->image};
    for (int k = 0; k < 2 && in->width; k++) {
        fprintf(f, "\n\n# %s equalization: %d rows of %d\n", k ? "after" : "before", in->height,
                in->width);
        for (size_t i = 0; i < in->size; i++)
            fprintf(f, "%u%c", images[k][i], (i + 1) % (size_t)in->width ? ' ' : '\n');
    }
    bool failed = ferror(f) != 0; /* fclose may fail too: on the buffer's last write */
    if (fclose(f) != 0 || failed)
        fail("--chart: error writing '%s'", path);
}

#endif
