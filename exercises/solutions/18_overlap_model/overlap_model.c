/*
 * Exercise 18 - chapter 06's streams as a model on the CPU: each chunk's copy
 * in, kernel and copy out, chunk c on stream c % S, each step waiting for its
 * stream and for its resource (the copies in, the SMs, the copies back).
 * Write schedule; the rest reads the H100's recorded timeline of stage 06,
 * runs your model on its measured durations and sets the two ends side by side.
 *
 *   make run                      the recorded timeline: your model against the H100
 *   make run ARGS='--chunks 4 --streams 2 --in 2 --kernel 1 --out 0.5 --print-steps'
 *   make check
 */
#include "book.h"    /* fail, the exit codes */
#include "harness.h" /* options and usage errors: no need to read it */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A chunk's steps, in the order its stream runs them. Each step has a
 * resource of its own: the copies to the GPU, the SMs, the copies back. */
enum step { COPY_IN, KERNEL, COPY_OUT, STEPS };
static const char *const step_names[STEPS] = {"copy-in", "kernel", "copy-out"};
static const char *const resource_names[STEPS] = {"copies in", "kernels", "copies back"};

#define MAX_CHUNKS  4096
#define MAX_STREAMS 64
#define MAX_ENGINES 8 /* copies at once in each direction */

struct chunk {
    double ms[STEPS];    /* how long each step takes, in ms: given */
    double start[STEPS]; /* when the model starts each step, in ms from 0: yours to fill */
    double end[STEPS];   /* and when it ends */
};

/* The later of two times. */
static double later(double a, double b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------ your part -- */

/* The model (the README's task): chunk c runs on stream c % streams, and the
 * steps are issued chunk by chunk, each chunk's in order, as stage 06's
 * streams_once issues them. A step starts when the step issued before it on
 * its stream has ended and its resource can take it: the SMs run one kernel
 * at a time, each copy direction `engines` copies at a time, and a resource
 * takes its steps in issue order, each on the engine that is free first.
 * Fills every chunk's start and end; returns when the last step ends. */
static double schedule(struct chunk *chunks, int count, int streams, int engines)
{
    double stream_free[MAX_STREAMS] = {0};          /* when each stream's last step ends */
    double engine_free[STEPS][MAX_ENGINES] = {{0}}; /* when each engine of a resource is free */
    double last = 0;
    for (int c = 0; c < count; c++) {
        int stream = c % streams;
        for (int step = 0; step < STEPS; step++) {
            int at_once = step == KERNEL ? 1 : engines;
            int first_free = 0;
            for (int e = 1; e < at_once; e++)
                if (engine_free[step][e] < engine_free[step][first_free])
                    first_free = e;
            double start = later(stream_free[stream], engine_free[step][first_free]);
            double end = start + chunks[c].ms[step];
            chunks[c].start[step] = start;
            chunks[c].end[step] = end;
            stream_free[stream] = end;
            engine_free[step][first_free] = end;
            last = later(last, end);
        }
    }
    return last;
}

/* ----------------------------------------------------- what overlap can give -- */

/* Perfect overlap: the busiest resource never waits, so it ends when it has
 * done all its steps (a copy direction with several engines: its total shared
 * over them, but no less than its longest copy). No overlap: every step after
 * the one before, the sum. */
static double perfect_overlap(const struct chunk *chunks, int count, int engines, int *busiest)
{
    double best = 0;
    *busiest = COPY_IN;
    for (int step = 0; step < STEPS; step++) {
        double total = 0, longest = 0;
        for (int c = 0; c < count; c++) {
            total += chunks[c].ms[step];
            longest = later(longest, chunks[c].ms[step]);
        }
        total = later(total / (step == KERNEL ? 1 : engines), longest);
        if (total > best)
            best = total, *busiest = step;
    }
    return best;
}

static double no_overlap(const struct chunk *chunks, int count)
{
    double sum = 0;
    for (int c = 0; c < count; c++)
        for (int step = 0; step < STEPS; step++)
            sum += chunks[c].ms[step];
    return sum;
}

/* ------------------------------------------------------ made-up durations -- */

/* --in, --kernel, --out: one duration for every chunk, or a comma-separated
 * list of one per chunk. Returns how many were given, or 0 when the option
 * is absent; a bad one is a usage error. */
static int parse_durations(const struct stage *stage, const char *name, const char *text,
                           double out[MAX_CHUNKS])
{
    if (!text)
        return 0;
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end, why[192];
        errno = 0;
        double ms = strtod(p, &end);
        if (end == p || errno || !isfinite(ms) || ms < 0 || ms > 1e9 || (*end && *end != ',')) {
            snprintf(why, sizeof why,
                     "%s takes milliseconds from 0 to 1e9, one for every chunk or one per "
                     "chunk separated by commas, not '%s'",
                     name, text);
            usage_error(stage, why);
        }
        if (n == MAX_CHUNKS) {
            snprintf(why, sizeof why, "%s: more than %d chunks", name, MAX_CHUNKS);
            usage_error(stage, why);
        }
        out[n++] = ms;
        if (!*end)
            return n;
        p = end + 1;
    }
}

/* -------------------------------------------------- the recorded timeline -- */

#define DEFAULT_TIMELINE "../../plots/results/timeline-06_streams-nvidia-h100-80gb-hbm3.txt"
#define MAX_WAYS         8

/* One way of stage 06 (pinned, streams, ...) as its timeline recorded it. */
struct way {
    char name[32];
    int count, streams;
    struct chunk chunks[MAX_CHUNKS];
    double begin[MAX_CHUNKS][STEPS], end[MAX_CHUNKS][STEPS]; /* the events: ms */
    int stream[MAX_CHUNKS][STEPS];                           /* the stream it ran on */
    int seen[MAX_CHUNKS][STEPS];                             /* lines read for each step */
    double measured;                                         /* its last event */
};

struct timeline {
    char device[128];
    int copy_engines; /* what the file's header says the GPU reported; 0 when it does not */
    int count;
    struct way ways[MAX_WAYS];
};

/* A file this program cannot take: a usage error that names it (and the line, when not 0). */
static void bad_timeline(const struct stage *stage, const char *path, int line, const char *what)
{
    char why[512], where[32] = "";
    if (line)
        snprintf(where, sizeof where, ", line %d", line);
    snprintf(why, sizeof why, "--timeline %s%s: %s", path, where, what);
    usage_error(stage, why);
}

/* Reads the lines "variant stream chunk what start_ms end_ms bytes" that
 * stage 06 writes with --timeline FILE, and the header's device and copy
 * engines. Every step of every chunk of a way must be there once, chunk c on
 * stream c % S (S: the way's streams; "default" is the one stream of a
 * one-chunk way). */
static void read_timeline(const struct stage *stage, const char *path, struct timeline *t)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        char why[512];
        snprintf(why, sizeof why,
                 "--timeline: cannot open %s: %s (make run runs from the exercise's folder)", path,
                 strerror(errno));
        usage_error(stage, why);
    }
    char text[512];
    int line = 0;
    while (fgets(text, sizeof text, file)) {
        line++;
        if (!strchr(text, '\n') && !feof(file))
            bad_timeline(stage, path, line, "a line longer than 511 characters");
        if (sscanf(text, "# device: %127[^\n]", t->device) == 1 ||
            sscanf(text, "# copy engines: %d", &t->copy_engines) == 1 || text[0] == '#' ||
            strspn(text, " \t\r\n") == strlen(text))
            continue;
        char name[32], stream[16], what[16];
        int chunk, step = 0;
        double begin, end;
        if (sscanf(text, "%31s %15s %d %15s %lf %lf %*u", name, stream, &chunk, what, &begin,
                   &end) != 6)
            bad_timeline(stage, path, line,
                         "not 'variant stream chunk what start_ms end_ms bytes'");
        while (step < STEPS && strcmp(what, step_names[step]) != 0)
            step++;
        char *after;
        long on = strcmp(stream, "default") == 0 ? 0 : strtol(stream, &after, 10);
        if (step == STEPS || chunk < 0 || chunk >= MAX_CHUNKS || on < 0 || on >= MAX_STREAMS ||
            (strcmp(stream, "default") != 0 && *after) || !(begin >= 0) || !(end >= begin))
            bad_timeline(stage, path, line, "a step, chunk, stream or time out of range");
        int w = 0;
        while (w < t->count && strcmp(t->ways[w].name, name) != 0)
            w++;
        if (w == MAX_WAYS)
            bad_timeline(stage, path, line, "more ways than this program reads");
        struct way *way = &t->ways[w];
        if (w == t->count) {
            t->count++;
            snprintf(way->name, sizeof way->name, "%s", name);
        }
        way->count = chunk + 1 > way->count ? chunk + 1 : way->count;
        way->streams = (int)on + 1 > way->streams ? (int)on + 1 : way->streams;
        way->begin[chunk][step] = begin;
        way->end[chunk][step] = end;
        way->stream[chunk][step] = (int)on;
        way->seen[chunk][step]++;
        way->measured = later(way->measured, end);
    }
    fclose(file);
    if (t->count == 0)
        bad_timeline(stage, path, 0, "no steps in the file");
    for (int w = 0; w < t->count; w++) {
        const struct way *way = &t->ways[w];
        for (int c = 0; c < way->count; c++)
            for (int step = 0; step < STEPS; step++) {
                char why[160];
                if (way->seen[c][step] != 1)
                    snprintf(why, sizeof why, "%s: chunk %d's %s is there %d times, not once",
                             way->name, c, step_names[step], way->seen[c][step]);
                else if (way->stream[c][step] != c % way->streams)
                    snprintf(why, sizeof why,
                             "%s: chunk %d's %s ran on stream %d, not %d (chunk c on stream c %% "
                             "%d)",
                             way->name, c, step_names[step], way->stream[c][step], c % way->streams,
                             way->streams);
                else
                    continue;
                bad_timeline(stage, path, 0, why);
            }
    }
}

/* The durations the model takes. An event says when its stream reached the
 * step, not when the step's resource began it: the copies in of stage 06's
 * four streams all "begin" at once, though the link carries them one after
 * another. So a step's duration is taken from the later of its event and the
 * end of the step issued before it on the same resource, to its end. */
static void measured_durations(struct way *way)
{
    double resource_free[STEPS] = {0};
    for (int c = 0; c < way->count; c++)
        for (int step = 0; step < STEPS; step++) {
            double from = later(way->begin[c][step], resource_free[step]);
            way->chunks[c].ms[step] = way->end[c][step] - from;
            resource_free[step] = later(resource_free[step], way->end[c][step]);
        }
}

/* ------------------------------------------------------------ the report -- */

static void print_steps(const struct chunk *chunks, int count, int streams)
{
    printf("chunk stream step         start ms       end ms\n");
    for (int c = 0; c < count; c++)
        for (int step = 0; step < STEPS; step++)
            printf("%5d %6d %-8s %12.6f %12.6f\n", c, c % streams, step_names[step],
                   chunks[c].start[step], chunks[c].end[step]);
}

static void print_resources(int engines)
{
    printf("model:      copies: %d at a time each way; kernels: 1 at a time\n", engines);
}

static const struct stage_option own_options[] = {
    {"--timeline", "FILE",
     "stage 06's recorded timeline (default: the H100's, " DEFAULT_TIMELINE ")"},
    {"--chunks", "N", "made-up chunks instead: 1 to 4096 (default: as many as the lists)"},
    {"--in", "MS[,MS...]", "each chunk's copy in, in ms: one for all, or one per chunk"},
    {"--kernel", "MS[,MS...]", "each chunk's kernel, in ms (default 0)"},
    {"--out", "MS[,MS...]", "each chunk's copy back, in ms (default 0)"},
    {"--streams", "S", "1 to 64 streams, chunk c on stream c % S (default 4; a timeline: its own)"},
    {"--engines", "E", "1 to 8 copies at once in each direction (default 1)"},
    {"--print-steps", NULL, "print when the model starts and ends each step"},
    {NULL, NULL, NULL}};
enum { OPT_TIMELINE, OPT_CHUNKS, OPT_IN, OPT_KERNEL, OPT_OUT, OPT_STREAMS, OPT_ENGINES, OPT_STEPS };

/* Made-up durations: the model's end and what overlap could give. */
static void made_up(const struct stage *stage, const struct options *opt, int streams, int engines)
{
    static double lists[STEPS][MAX_CHUNKS];
    const char *const names[STEPS] = {"--in", "--kernel", "--out"};
    int given[STEPS], count = (int)stage_option_number(stage, opt, OPT_CHUNKS, 1, MAX_CHUNKS, 0);
    for (int step = 0; step < STEPS; step++) {
        given[step] =
            parse_durations(stage, names[step], opt->stage_values[OPT_IN + step], lists[step]);
        if (!opt->stage_values[OPT_CHUNKS] && given[step] > count)
            count = given[step];
    }
    count = count ? count : 1;
    for (int step = 0; step < STEPS; step++)
        if (given[step] > 1 && given[step] != count) {
            char why[160];
            snprintf(why, sizeof why,
                     "%s lists %d durations for %d chunks: give one, or one per "
                     "chunk",
                     names[step], given[step], count);
            usage_error(stage, why);
        }
    struct chunk *chunks = calloc((size_t)count, sizeof *chunks);
    if (!chunks)
        fail("out of host memory for %d chunks", count);
    for (int c = 0; c < count; c++)
        for (int step = 0; step < STEPS; step++)
            chunks[c].ms[step] = given[step] == 0   ? 0
                                 : given[step] == 1 ? lists[step][0]
                                                    : lists[step][c];
    double end = schedule(chunks, count, streams, engines);

    int busiest;
    double perfect = perfect_overlap(chunks, count, engines, &busiest);
    printf("%s: %s\n", stage->dir, stage->summary);
    printf("chunks:     %d on %d streams (chunk c on stream c %% %d)\n", count, streams, streams);
    print_resources(engines);
    if (opt->stage_values[OPT_STEPS])
        print_steps(chunks, count, streams);
    printf("end:        %.6f ms, when your model's last step ends\n", end);
    printf("bounds:     perfect overlap %.6f ms (the busiest resource: %s), no overlap %.6f ms "
           "(every step in turn)\n",
           perfect, resource_names[busiest], no_overlap(chunks, count));
    free(chunks);
}

/* The recorded timeline: each way's measured durations through your model. */
static void recorded(const struct stage *stage, const struct options *opt, const char *path,
                     int streams, int engines)
{
    static struct timeline t; /* static: large, and zeroed */
    read_timeline(stage, path, &t);
    printf("%s: %s\n", stage->dir, stage->summary);
    printf("timeline:   %s\n", path);
    printf("device:     %s, copy engines: %d (cudaDevAttrAsyncEngineCount)\n",
           t.device[0] ? t.device : "not named", t.copy_engines);
    print_resources(engines);
    if (streams)
        printf("streams:    the model puts every way's chunks on %d (the GPU ran the way's own)\n",
               streams);
    printf("way             chunks streams   model ms  measured ms    diff  perfect overlap ms"
           "  no overlap ms\n");
    for (int w = 0; w < t.count; w++) {
        struct way *way = &t.ways[w];
        measured_durations(way);
        int on = streams ? streams : way->streams, busiest;
        double model = schedule(way->chunks, way->count, on, engines);
        printf("%-15s %6d %7d %10.3f %12.3f %6.1f%% %19.3f %14.3f\n", way->name, way->count, on,
               model, way->measured, 100 * (model - way->measured) / way->measured,
               perfect_overlap(way->chunks, way->count, engines, &busiest),
               no_overlap(way->chunks, way->count));
    }
    printf("measured:   each way's last event, in ms from its start; each step's duration: from\n"
           "            when its stream and its resource were both free, to its end\n");
    if (opt->stage_values[OPT_STEPS])
        for (int w = 0; w < t.count; w++) {
            struct way *way = &t.ways[w];
            printf("%s (events: when the stream reached the step, and its end):\n", way->name);
            printf("chunk stream step         start ms       end ms   event ms   event end\n");
            for (int c = 0; c < way->count; c++)
                for (int step = 0; step < STEPS; step++)
                    printf("%5d %6d %-8s %12.6f %12.6f %10.4f %11.4f\n", c,
                           c % (streams ? streams : way->streams), step_names[step],
                           way->chunks[c].start[step], way->chunks[c].end[step],
                           way->begin[c][step], way->end[c][step]);
        }
}

int main(int argc, char **argv)
{
    const struct stage stage = {
        .dir = "18_overlap_model",
        .program = "overlap_model",
        .summary = "exercise: a model of chunks on streams: when each copy and kernel can run",
        .help = "nothing is read or counted: the input and histogram options above mean nothing "
                "here, and --size, --data, --file, --image, --reps, --threads, --csv and "
                "--print-bins are refused (exit 2).",
        .options = own_options};
    struct options opt = options_or_exit(argc, argv, &stage);
    const char *const *v = opt.stage_values;
    if (opt.size_given || opt.data_given || opt.file || opt.image || opt.reps != DEFAULT_REPS ||
        opt.threads || opt.csv || opt.print_bins)
        usage_error(&stage, "--size, --data, --file, --image, --reps, --threads, --csv and "
                            "--print-bins have no meaning here: nothing is counted");
    int streams = (int)stage_option_number(&stage, &opt, OPT_STREAMS, 1, MAX_STREAMS, 0);
    int engines = (int)stage_option_number(&stage, &opt, OPT_ENGINES, 1, MAX_ENGINES, 1);
    bool made_up_durations = v[OPT_CHUNKS] || v[OPT_IN] || v[OPT_KERNEL] || v[OPT_OUT];
    if (made_up_durations && v[OPT_TIMELINE])
        usage_error(&stage, "--timeline, or made-up durations (--chunks, --in, --kernel, --out): "
                            "give one");
    if (made_up_durations)
        made_up(&stage, &opt, streams ? streams : 4, engines);
    else
        recorded(&stage, &opt, v[OPT_TIMELINE] ? v[OPT_TIMELINE] : DEFAULT_TIMELINE, streams,
                 engines);
    /* The model's answer needs the model, which is the exercise: make check holds it. */
    printf("verified:   not here: make check holds the model's rules and compares every step\n");
    return EXIT_OK;
}
