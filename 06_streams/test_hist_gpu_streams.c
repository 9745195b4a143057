/*
 * test_hist_gpu_streams.c - every way of 06_streams brings back the reference
 * histogram: from page-locked memory (pinned, streams with any number of
 * chunks) and from the user's malloc'd buffer (pageable, pinned-staged,
 * alloc-staged, registered, streams-staged), on sizes around the chunks' and
 * a page's edges, with every data kind, and past 2 GiB. Each way runs alone,
 * so that a staging buffer holds only what that way's own copies put there.
 * --timeline FILE writes every chunk's copy in, kernel and copy out, each on
 * its chunk's stream and in that stream's order, the bytes adding up to the
 * input. Skipped without a CUDA device, but for the usage checks.
 */
#include "stage_checks.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ways[] = {"--variant pageable",
                                   "--variant pinned",
                                   "--variant streams",
                                   "--variant streams --chunks 1",
                                   "--variant streams --chunks 3",
                                   "--variant streams --chunks 1024",
                                   "--variant pinned-staged",
                                   "--variant alloc-staged",
                                   "--variant registered",
                                   "--variant streams-staged",
                                   "--variant streams-staged --chunks 1",
                                   "--variant streams-staged --chunks 3",
                                   "--variant streams-staged --chunks 1024"};
/* 0: nothing to copy or pin; 1, 9, 17: 8 chunks with empty ones at the end
 * (9: four of 2 bytes, one of 1, three empty); 1000: 1024 chunks of 1 byte or
 * none; 4097: one byte into a second page; 1000003: a prime, and a buffer that
 * malloc maps on its own. */
static const size_t sizes[] = {0, 1, 9, 17, 1000, 4097, 1000003};
#define WAYS  ((int)(sizeof ways / sizeof ways[0]))
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_every_way_matches_reference)
{
    int way = _i % WAYS, kind = matrix_value(_i, 4, WAYS), size = matrix_value(_i, SIZES, WAYS * 4);
    check_matches_reference(sizes[size], (enum data_kind)kind, 600 + (uint64_t)_i, ways[way]);
}
END_TEST

/* The ways that start from the user's buffer index it, the staging buffer and
 * the chunks with size_t: past 2 GiB, alone (the matrix runs them all at once). */
static const char *const ways_from_malloc[] = {"--variant pinned-staged", "--variant alloc-staged",
                                               "--variant registered", "--variant streams-staged"};
#define WAYS_FROM_MALLOC ((int)(sizeof ways_from_malloc / sizeof ways_from_malloc[0]))

START_TEST(test_ways_from_malloc_index_past_2_gib)
{
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, ways_from_malloc[_i]);
}
END_TEST

/* cudaHostRegister gets the input's buffer as malloc returned it, which is not
 * on a page boundary: glibc's 16-byte header comes first, so a buffer mapped on
 * its own starts 16 bytes into a page, and one from the heap wherever there is
 * room; the sizes are a byte, a page, a byte either side of one, and 64 KiB + 1.
 * CUDA 4.0 refused such ranges; the program must not. */
START_TEST(test_registered_takes_buffers_that_are_not_page_aligned)
{
    const size_t unaligned[] = {1, 4095, 4096, 4097, 65537};
    for (int i = 0; i < 5; i++)
        check_matches_reference(unaligned[i], DATA_SKEWED, 40 + (uint64_t)i,
                                "--variant registered");
}
END_TEST

/* A zero-byte range cannot be registered; an empty input has nothing to pin. */
START_TEST(test_registered_pins_nothing_for_an_empty_input)
{
    struct stage_output o;
    run_stage("--size 0 --reps 2 --variant registered", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(o.has_sum && o.sum == 0, "sum: %s", o.out);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_a_launch_is_refused_since_cub_launches)
{
    static const char *const launches[] = {"--threads 64", "--blocks 16", "--blocks-per-sm 2"};
    for (int i = 0; i < 3; i++) {
        struct stage_output o;
        run_stage(launches[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s", launches[i], exit_meaning(&o));
        ck_assert_msg(strstr(o.err, "CUB chooses its own launch"), "%s: %s", launches[i], o.err);
    }
    /* and --help does not offer them: it lists --chunks, and says why below the options */
    struct stage_output help;
    run_stage("--help", &help);
    const char *own = strstr(help.out, "In hist_gpu_streams:");
    ck_assert_msg(help.exit_status == 0 && own && strstr(help.out, "--chunks N"), "%s", help.out);
    for (int i = 0; i < 3; i++) {
        char option[32];
        snprintf(option, sizeof option, "%.*s ", (int)strcspn(launches[i], " "), launches[i]);
        const char *listed = strstr(help.out, option);
        ck_assert_msg(!listed || listed > own, "--help lists %s: %s", option, help.out);
    }
}
END_TEST

/* --chunks N: 1 to 1024 chunks, and nothing else. */
START_TEST(test_chunks_out_of_range_are_refused)
{
    static const char *const bad[] = {"--chunks 0", "--chunks 1025", "--chunks many", "--chunks"};
    static const char *const reasons[] = {
        "--chunks: 0 is out of range (1 to 1024)", "--chunks: 1025 is out of range (1 to 1024)",
        "--chunks: 'many' is not a whole number", "--chunks needs a value"};
    for (int i = 0; i < 4; i++) {
        struct stage_output o;
        run_stage(bad[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s", bad[i], exit_meaning(&o));
        ck_assert_msg(strstr(o.err, reasons[i]), "%s: %s", bad[i], o.err);
    }
}
END_TEST

/* ------------------------------------------------------------ --timeline -- */

/* One line of the timeline: one step of one chunk of one way. */
struct step {
    char variant[32], stream[16], what[16];
    int chunk;
    double start_ms, end_ms;
    unsigned long long bytes;
};
enum { COPY_IN, KERNEL, COPY_OUT };
static const char *const step_names[] = {"copy-in", "kernel", "copy-out"};
#define MOST_CHUNKS 1024
#define MOST_STEPS  (3 * 3 * MOST_CHUNKS) /* three ways record one, three steps a chunk */
/* Events on two streams need not agree to the last tick, where one stream waits for the
 * other: pinned's kernel (stream 0) follows its cudaMemcpy (the default stream). About
 * ten times cudaEventElapsedTime's resolution, and far less than any copy here. */
#define OTHER_STREAM_SLACK_MS 0.005

/* The steps in a timeline file; a line that is neither a '#' comment nor a
 * step fails the check. *engines: its "# copy engines: N" line, or -1. */
static int read_steps(const char *path, struct step *steps, int *engines)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no timeline written at %s", path);
    char line[256];
    int count = 0;
    *engines = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            sscanf(line, "# copy engines: %d (cudaDevAttrAsyncEngineCount)", engines);
            continue;
        }
        ck_assert_msg(count < MOST_STEPS, "more than %d steps in %s", MOST_STEPS, path);
        struct step *s = &steps[count++];
        int end = 0;
        int fields = sscanf(line, "%31s %15s %d %15s %lf %lf %llu%n", s->variant, s->stream,
                            &s->chunk, s->what, &s->start_ms, &s->end_ms, &s->bytes, &end);
        ck_assert_msg(fields == 7 && line[end] == '\n',
                      "not 'variant stream chunk what start_ms end_ms bytes': %s", line);
    }
    fclose(f);
    return count;
}

/* One way's steps, on size bytes cut into chunks (pinned: 1): each chunk's
 * three steps once, on stream chunk % 4 (pinned copies in with cudaMemcpy, on
 * the default stream), each ending no earlier than it starts and starting no
 * earlier than the step before it on its stream ends; every copy of bins back
 * 256 counters; the copies in carrying the whole input, the kernels counting
 * what they carried. */
static void check_way_timeline(const struct step *steps, int count, const char *way, size_t size,
                               int chunks)
{
    static const struct step *found[MOST_CHUNKS][3];
    memset(found, 0, sizeof found);
    unsigned long long copied = 0;
    for (int i = 0; i < count; i++) {
        const struct step *s = &steps[i];
        if (strcmp(s->variant, way) != 0)
            continue;
        int what = -1;
        for (int k = 0; k < 3; k++)
            what = strcmp(s->what, step_names[k]) == 0 ? k : what;
        ck_assert_msg(what >= 0, "%s: a step '%s'", way, s->what);
        ck_assert_msg(s->chunk >= 0 && s->chunk < chunks, "%s: chunk %d of %d", way, s->chunk,
                      chunks);
        ck_assert_msg(!found[s->chunk][what], "%s: chunk %d's %s twice", way, s->chunk, s->what);
        found[s->chunk][what] = s;
        ck_assert_msg(s->start_ms >= 0 && s->end_ms >= s->start_ms,
                      "%s: chunk %d's %s from %.4f to %.4f ms", way, s->chunk, s->what, s->start_ms,
                      s->end_ms);
        char stream[16] = "default";
        if (strcmp(way, "pinned") != 0 || what != COPY_IN)
            snprintf(stream, sizeof stream, "%d", s->chunk % 4);
        ck_assert_msg(strcmp(s->stream, stream) == 0, "%s: chunk %d's %s on stream %s, not %s", way,
                      s->chunk, s->what, s->stream, stream);
        copied += what == COPY_IN ? s->bytes : 0;
    }
    for (int c = 0; c < chunks; c++) {
        for (int k = 0; k < 3; k++)
            ck_assert_msg(found[c][k], "%s: chunk %d has no %s", way, c, step_names[k]);
        const struct step *in = found[c][COPY_IN], *kernel = found[c][KERNEL],
                          *out = found[c][COPY_OUT];
        ck_assert_msg(kernel->bytes == in->bytes && out->bytes == BINS * sizeof(unsigned int),
                      "%s: chunk %d copies in %llu bytes, counts %llu, copies back %llu", way, c,
                      in->bytes, kernel->bytes, out->bytes);
        double slack = strcmp(in->stream, kernel->stream) == 0 ? 0 : OTHER_STREAM_SLACK_MS;
        ck_assert_msg(kernel->start_ms >= in->end_ms - slack,
                      "%s: chunk %d's kernel starts at %.4f ms, its copy in ends at %.4f", way, c,
                      kernel->start_ms, in->end_ms);
        ck_assert_msg(out->start_ms >= kernel->end_ms,
                      "%s: chunk %d's copy out starts at %.4f ms, its kernel ends at %.4f", way, c,
                      out->start_ms, kernel->end_ms);
        if (c >= 4)
            ck_assert_msg(in->start_ms >= found[c - 4][COPY_OUT]->end_ms,
                          "%s: chunk %d starts at %.4f ms on its stream, where chunk %d ends at "
                          "%.4f",
                          way, c, in->start_ms, c - 4, found[c - 4][COPY_OUT]->end_ms);
    }
    ck_assert_msg(copied == size, "%s: the copies in carry %llu bytes of the input's %zu", way,
                  copied, size);
}

static const struct timeline_case {
    size_t size;
    int chunks;
    const char *variant; /* "": every way, so the three that record one */
} timeline_cases[] = {
    {1000003, 9, ""},            /* a prime; chunks 4 to 8 reuse streams 0 to 3 */
    {9, 8, "--variant streams"}, /* four chunks of 2 bytes, one of 1, three empty */
    {0, 3, "--variant pinned"},  /* nothing to copy */
    {((size_t)1 << 31) + 5, 16, "--variant streams-staged"}, /* bytes past 2 GiB */
};

START_TEST(test_timeline_follows_every_chunk_through_its_stream)
{
    const struct timeline_case *t = &timeline_cases[_i];
    char dir[] = "/tmp/stage_timeline_XXXXXX", path[64], args[256];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/timeline.txt", dir);
    snprintf(args, sizeof args, "--size %zu --reps 1 --chunks %d %s --timeline %s", t->size,
             t->chunks, t->variant, path);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "%s: %s: %s", args, exit_meaning(&o),
                  o.err);
    static struct step steps[MOST_STEPS];
    int engines, reported = -1;
    int count = read_steps(path, steps, &engines);
    unlink(path);
    rmdir(dir);
    const char *said = strstr(o.out, "\ncopy engines: ");
    ck_assert_msg(
        said && sscanf(said, "\ncopy engines: %d (cudaDevAttrAsyncEngineCount)", &reported) == 1,
        "%s: no 'copy engines: N (cudaDevAttrAsyncEngineCount)' line: %s", args, o.out);
    ck_assert_msg(engines == reported, "%s: the timeline says %d copy engines, the report %d", args,
                  engines, reported);
    static const char *const ways[] = {"pinned", "streams", "streams-staged"};
    int expected = 0;
    for (int w = 0; w < 3; w++) {
        if (t->variant[0] && strcmp(t->variant + strlen("--variant "), ways[w]) != 0)
            continue;
        int chunks = strcmp(ways[w], "pinned") == 0 ? 1 : t->chunks;
        check_way_timeline(steps, count, ways[w], t->size, chunks);
        expected += 3 * chunks;
    }
    ck_assert_msg(count == expected, "%s: %d steps, not %d: a way recorded that was not asked for",
                  args, count, expected);
}
END_TEST

/* The timeline is an extra run, beside the report: --csv still prints its
 * header and one row per way and the floor, nothing else, and the timeline
 * holds the three ways' steps (8 chunks: 3 + 24 + 24). */
START_TEST(test_timeline_leaves_the_csv_as_it_was)
{
    char dir[] = "/tmp/stage_timeline_XXXXXX", path[64], args[128];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/timeline.txt", dir);
    snprintf(args, sizeof args, "--size 4096 --reps 1 --csv --timeline %s", path);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s", exit_meaning(&o), o.err);
    static struct step steps[MOST_STEPS];
    int engines, count = read_steps(path, steps, &engines);
    unlink(path);
    rmdir(dir);
    ck_assert_msg(count == 51 && engines >= 0, "%d steps, %d copy engines", count, engines);
    ck_assert_msg(strncmp(o.out, CSV_HEADER "\n", strlen(CSV_HEADER) + 1) == 0, "%s", o.out);
    int rows = 0;
    for (const char *line = strchr(o.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        ck_assert_msg(strncmp(line, "06_streams,", 11) == 0 && strchr(line, '\n'),
                      "not a CSV row: %.80s", line);
        rows++;
    }
    ck_assert_msg(rows == 8, "%d rows, not 8: %s", rows, o.out);
}
END_TEST

/* A timeline that cannot be written fails before anything runs (before the
 * GPU is asked for, so on any machine): one line, exit 1. */
START_TEST(test_timeline_that_cannot_be_written_fails_in_one_line)
{
    char dir[] = "/tmp/stage_timeline_XXXXXX", missing[64];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(missing, sizeof missing, "%s/no-such-folder/timeline.txt", dir);
    const char *const paths[] = {missing, dir}; /* in a folder that is not there; a folder */
    for (int i = 0; i < 2; i++) {
        char args[160];
        snprintf(args, sizeof args, "--size 16 --reps 1 --timeline %s", paths[i]);
        struct stage_output o;
        run_stage(args, &o);
        ck_assert_msg(o.exit_status == EXIT_FAILED, "%s: %s: %s", args, exit_meaning(&o), o.err);
        ck_assert_msg(strstr(o.err, "--timeline: cannot write") &&
                          strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
                      "%s: not one line that says so: %s", args, o.err);
    }
    rmdir(dir);
}
END_TEST

/* The four ways that record no timeline, asked for alone with --timeline: exit 2, no file. */
START_TEST(test_timeline_of_a_way_that_records_none_is_refused)
{
    static const char *const none[] = {"pageable", "pinned-staged", "alloc-staged", "registered"};
    char dir[] = "/tmp/stage_timeline_XXXXXX", path[64], args[160];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/timeline.txt", dir);
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, "--variant %s --timeline %s", none[i], path);
        struct stage_output o;
        run_stage(args, &o);
        bool made = access(path, F_OK) == 0;
        unlink(path);
        ck_assert_msg(o.exit_status == EXIT_USAGE && !made, "%s: %s, %s", args, exit_meaning(&o),
                      made ? "a file made" : "no file");
        ck_assert_msg(
            strstr(o.err, "--timeline: only pinned, streams and streams-staged record one"),
            "%s: %s", args, o.err);
    }
    rmdir(dir);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_streams", argc, argv);
    Suite *suite = suite_create("06_streams");
    int usage_checks = 0, output_checks = 0, matrix_checks = 0;
    TCase *usage_tc = usage_tcase(true, &usage_checks);
    tcase_add_test(usage_tc, test_a_launch_is_refused_since_cub_launches);
    tcase_add_test(usage_tc, test_chunks_out_of_range_are_refused);
    tcase_add_test(usage_tc, test_timeline_that_cannot_be_written_fails_in_one_line);
    tcase_add_test(usage_tc, test_timeline_of_a_way_that_records_none_is_refused);
    add_tcase(suite, usage_tc, usage_checks + 4);
    TCase *output_tc = output_tcase(&output_checks); /* before add_if_runnable reads the count */
    add_if_runnable(suite, output_tc, output_checks);
    TCase *ways_tc = matrix_tcase(&matrix_checks);
    /* make test: each way once, the data kinds and sizes in turn */
    int matrix = cases(WAYS * 4 * SIZES, WAYS);
    tcase_add_loop_test(ways_tc, test_every_way_matches_reference, 0, matrix);
    int past_2_gib = cases(WAYS_FROM_MALLOC, 0);
    tcase_add_loop_test(ways_tc, test_ways_from_malloc_index_past_2_gib, 0, past_2_gib);
    tcase_add_test(ways_tc, test_registered_takes_buffers_that_are_not_page_aligned);
    tcase_add_test(ways_tc, test_registered_pins_nothing_for_an_empty_input);
    add_if_runnable(suite, ways_tc, matrix_checks + matrix + past_2_gib + 2);
    TCase *timeline_tc = tcase_create("timeline");
    tcase_set_timeout(timeline_tc, 600); /* past 2 GiB */
    int timelines = 3 + cases(1, 0);     /* make test-full adds the one past 2 GiB */
    tcase_add_loop_test(timeline_tc, test_timeline_follows_every_chunk_through_its_stream, 0,
                        timelines);
    tcase_add_test(timeline_tc, test_timeline_leaves_the_csv_as_it_was);
    add_if_runnable(suite, timeline_tc, timelines + 1);
    return run_suite(suite);
}
