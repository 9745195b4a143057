/*
 * check_pinned_streams.c - exercise 09 counts every byte of every chunk, from
 * page-locked memory, with copies that overlap kernels: its bins match the CPU
 * reference on every size and kind and for chunk counts that divide the input
 * and counts that do not; CUDA says its host buffer is page-locked; and its
 * timeline (--timeline: events on each chunk's stream, read by the GPU's clock)
 * shows some chunk's copy running while another chunk's kernel runs, and that
 * the host came back from queueing the chunks before most copies had ended.
 */
#include "stage_checks.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 chunk, chunks that leave a remainder, a prime number of them, more chunks
 * than streams, and more chunks than the small inputs have bytes. */
static const char *const chunkings[] = {"--chunks 1",
                                        "--chunks 2",
                                        "--chunks 3",
                                        "--chunks 7",
                                        "--chunks 64",
                                        "--chunks 1000",
                                        "--chunks 5 --threads 33",
                                        "--chunks 9 --threads 1024"};
#define CHUNKINGS ((int)(sizeof chunkings / sizeof chunkings[0]))

START_TEST(test_every_size_and_kind_matches_reference)
{
    check_matrix_case(_i, "");
}
END_TEST

START_TEST(test_every_chunk_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, chunkings[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, chunkings[_i]); /* one bin for all */
    check_matches_reference(17, DATA_SKEWED, 9, chunkings[_i]);
    check_matches_reference(1, DATA_TEXT, 10, chunkings[_i]);
    check_matches_reference(0, DATA_UNIFORM, 11, chunkings[_i]);
}
END_TEST

/* Page-locked at every size: a small input, and one past 2 GiB (an input
 * pinned only up to some size falls back to pageable memory there). */
static const char *const locked_runs[] = {"--size 1000003 --reps 1",
                                          "--size 2147483653 --reps 1 --data constant"};
#define LOCKED_RUNS ((int)(sizeof locked_runs / sizeof locked_runs[0]))

START_TEST(test_host_memory_is_page_locked)
{
    const char *args = locked_runs[_i];
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "host memory: ");
    ck_assert_msg(line != NULL, "%s: no 'host memory:' line in: %s", args, o.out);
    ck_assert_msg(strncmp(line, "host memory: page-locked", 24) == 0,
                  "%s: expected the input in page-locked memory, got '%.60s': "
                  "cudaPointerGetAttributes does not know the buffer the copies read",
                  args, line);
}
END_TEST

/* What --timeline printed for one chunk. */
struct chunk_times {
    size_t bytes;
    char stream[16];
    double copy_start, copy_end, kernel_start, kernel_end;
};

static int read_timeline(const char *out, struct chunk_times *chunks, int most)
{
    int count = 0;
    for (const char *line = strstr(out, "chunk "); line && count < most;
         line = strstr(line + 1, "\nchunk ")) {
        if (*line == '\n')
            line++;
        int c;
        struct chunk_times t;
        if (sscanf(line,
                   "chunk %d: %zu bytes on stream %15[^,], copy %lf to %lf ms, kernel %lf "
                   "to %lf ms",
                   &c, &t.bytes, t.stream, &t.copy_start, &t.copy_end, &t.kernel_start,
                   &t.kernel_end) != 7 ||
            c != count)
            break;
        chunks[count++] = t;
    }
    return count;
}

/* Each chunk holds at most its share, the size over the chunks rounded up
 * (the last shorter, or empty where there are more chunks than bytes), and
 * together they hold the size. Where the chunks divide the size exactly the
 * share is exact: a chunk size rounded up as size / chunks + 1 puts a byte
 * too many in each chunk there (and leaves the last short), though it is the
 * rounded-up share whenever the chunks leave a remainder. */
static void check_chunk_shares(const char *args, const struct chunk_times *chunks, int count,
                               size_t size)
{
    size_t share = (size + (size_t)count - 1) / (size_t)count, bytes = 0;
    for (int c = 0; c < count; c++) {
        bytes += chunks[c].bytes;
        ck_assert_msg(chunks[c].bytes <= share,
                      "%s: chunk %d holds %zu bytes, expected at most its share, %zu (the size "
                      "over the chunks, rounded up%s): the chunks are not cut evenly, and the "
                      "others are left short or empty (see hint 3)",
                      args, c, chunks[c].bytes, share,
                      size % (size_t)count ? "" : "; here the chunks divide the size exactly");
    }
    ck_assert_msg(bytes == size, "%s: the chunks copied %zu bytes together, expected %zu", args,
                  bytes, size);
}

/* 256 MiB in 8 and in 4 chunks: each copy takes far longer than an event's
 * resolution, so where streams overlap, a kernel runs inside another chunk's
 * copy by a wide margin. The check compares only the order of events. */
#define GIVEN_STREAMS 4 /* pinned_streams.cu's STREAMS */

static const char *const overlaps[] = {"--size 268435456 --chunks 8", "--size 268435456 --chunks 4",
                                       "--size 268435456 --chunks 16"};
static const int overlap_chunks[] = {8, 4, 16};
#define OVERLAPS    ((int)(sizeof overlaps / sizeof overlaps[0]))
#define MOST_CHUNKS 16

START_TEST(test_copies_overlap_other_chunks_kernels)
{
    char args[128];
    snprintf(args, sizeof args, "%s --reps 1 --timeline", overlaps[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    struct chunk_times chunks[MOST_CHUNKS];
    int expected = overlap_chunks[_i];
    int count = read_timeline(o.out, chunks, MOST_CHUNKS);
    ck_assert_msg(count == expected, "%s: expected %d 'chunk N:' lines, read %d in: %.1500s", args,
                  expected, count, o.out);
    int streams = 0;
    for (int c = 0; c < count; c++) {
        bool seen = false;
        for (int d = 0; d < c; d++)
            seen = seen || strcmp(chunks[d].stream, chunks[c].stream) == 0;
        streams += !seen;
    }
    /* 256 MiB: the chunks divide it exactly, 32, 64 or 16 MiB each */
    check_chunk_shares(args, chunks, count, 268435456);
    ck_assert_msg(streams >= 2, "%s: expected the chunks on at least 2 streams, got %d (stream %s)",
                  args, streams, chunks[0].stream);
    /* the task's schedule: chunk c on stream c % STREAMS (pinned_streams.cu's 4), so that
     * every stream carries work and a chunk waits only for the one STREAMS back */
    for (int c = 0; c < count; c++) {
        char want[16];
        snprintf(want, sizeof want, "%d", c % GIVEN_STREAMS);
        ck_assert_msg(strcmp(chunks[c].stream, want) == 0,
                      "%s: chunk %d on stream %s, expected stream %s (chunk c on stream c %% "
                      "STREAMS, and STREAMS is %d)",
                      args, c, chunks[c].stream, want, GIVEN_STREAMS);
    }
    /* each chunk's own order: its kernel reads what its copy brought, so on
     * its stream the copy ends before the kernel starts; a mark recorded in
     * the wrong place (the kernel's start before the copy) shows here */
    for (int c = 0; c < count; c++)
        ck_assert_msg(chunks[c].copy_start <= chunks[c].copy_end &&
                          chunks[c].copy_end <= chunks[c].kernel_start &&
                          chunks[c].kernel_start <= chunks[c].kernel_end,
                      "%s: chunk %d's marks out of order: copy %.3f to %.3f ms, kernel %.3f to "
                      "%.3f ms; want copy start <= copy end <= kernel start <= kernel end (each "
                      "mark right after the call it closes, on the chunk's stream)",
                      args, c, chunks[c].copy_start, chunks[c].copy_end, chunks[c].kernel_start,
                      chunks[c].kernel_end);
    bool overlap = false;
    for (int c = 0; c < count && !overlap; c++)
        for (int d = 0; d < count && !overlap; d++)
            overlap = c != d && chunks[c].bytes && chunks[d].bytes &&
                      chunks[c].copy_start < chunks[d].kernel_end &&
                      chunks[d].kernel_start < chunks[c].copy_end;
    /* 256 MiB over PCIe take milliseconds; queueing 8 chunks' calls, a few
     * dozen microseconds to a few hundred: a host that only queues is back
     * before half the copies end. One that waits for each copy (cudaMemcpy,
     * a synchronize in the loop) is back after all but the last; one that
     * waits for a stream before it gives it another chunk, after all but
     * the last round of streams: past half only where there are more chunks
     * than two rounds, hence 16. */
    const char *queued = strstr(o.out, "\nqueued:");
    int ended = -1, with_bytes = -1;
    ck_assert_msg(queued && sscanf(queued + 1,
                                   "queued: when queue_chunks returned, the copies of %d of the "
                                   "%d chunks with bytes had ended",
                                   &ended, &with_bytes) == 2,
                  "%s: no 'queued:' line after the timeline in: %.1500s", args, o.out);
    ck_assert_msg(with_bytes == expected && 2 * ended <= with_bytes,
                  "%s: when queue_chunks returned, the copies of %d of its %d chunks had already "
                  "ended: the host waited for the copies in its loop (a copy the host waits for, "
                  "or a synchronize), where it should only queue each chunk's work and go on",
                  args, ended, with_bytes);
    ck_assert_msg(overlap,
                  "%s: expected some chunk's copy to run while another chunk's kernel runs, "
                  "got none: every copy began after the kernels before it ended. "
                  "Chunk 0: copy %.4f to %.4f ms, kernel %.4f to %.4f; chunk 1: copy %.4f to "
                  "%.4f, kernel %.4f to %.4f",
                  args, chunks[0].copy_start, chunks[0].copy_end, chunks[0].kernel_start,
                  chunks[0].kernel_end, chunks[1].copy_start, chunks[1].copy_end,
                  chunks[1].kernel_start, chunks[1].kernel_end);
}
END_TEST

/* Inputs far under 256 MiB: each chunk holds at most its share, the size
 * divided by the chunks and rounded up (the last shorter, or empty where
 * there are more chunks than bytes), so that every chunk gets work. 1000003
 * bytes in 8 chunks: the solution's chunks hold 125001 bytes each, the last
 * 124996; in 12, 83334 and 83329. Chunks rounded up to whole MiB put all
 * 1000003 in chunk 0 and leave the rest empty. 24 MiB + 3 in 12 chunks:
 * 2 MiB + 1 each, the last 2 MiB - 8; whole MiB give 3 MiB to chunks 0 to 7.
 * There each chunk's copy takes tens of microseconds (2 MiB over PCIe),
 * longer than the host takes to queue a chunk's calls (a few microseconds
 * each), so copies and kernels must overlap as in the group above; the
 * copies of 1000003 bytes' chunks are too short to ask that. And a size the
 * 8 chunks divide exactly, 1000000 (125000 each: a chunk of 125001 is one
 * byte past its share, and a last chunk of size % 125000 = 0 bytes leaves
 * 125000 uncounted), beside one byte under and one over it. */
static const struct {
    size_t size;
    int chunks;
    bool overlap;
} share_runs[] = {{1000003, 8, false}, {1000003, 12, false}, {((size_t)24 << 20) + 3, 12, true},
                  {1000000, 8, false}, {999999, 8, false},   {1000001, 8, false}};
#define SHARE_RUNS ((int)(sizeof share_runs / sizeof share_runs[0]))

START_TEST(test_every_chunk_holds_its_share_of_a_small_input)
{
    size_t size = share_runs[_i].size;
    int expected = share_runs[_i].chunks;
    char args[128];
    snprintf(args, sizeof args, "--size %zu --chunks %d --reps 1 --timeline", size, expected);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    struct chunk_times chunks[MOST_CHUNKS];
    int count = read_timeline(o.out, chunks, MOST_CHUNKS);
    ck_assert_msg(count == expected, "%s: expected %d 'chunk N:' lines, read %d in: %.1500s", args,
                  expected, count, o.out);
    check_chunk_shares(args, chunks, count, size);
    if (!share_runs[_i].overlap)
        return;
    bool overlap = false;
    for (int c = 0; c < count && !overlap; c++)
        for (int d = 0; d < count && !overlap; d++)
            overlap = c != d && chunks[c].bytes && chunks[d].bytes &&
                      chunks[c].copy_start < chunks[d].kernel_end &&
                      chunks[d].kernel_start < chunks[c].copy_end;
    ck_assert_msg(overlap,
                  "%s: expected some chunk's copy to run while another chunk's kernel runs, "
                  "got none: every copy began after the kernels before it ended. "
                  "Chunk 0: copy %.4f to %.4f ms, kernel %.4f to %.4f; chunk 1: copy %.4f to "
                  "%.4f, kernel %.4f to %.4f",
                  args, chunks[0].copy_start, chunks[0].copy_end, chunks[0].kernel_start,
                  chunks[0].kernel_end, chunks[1].copy_start, chunks[1].copy_end,
                  chunks[1].kernel_start, chunks[1].kernel_end);
}
END_TEST

/* More chunks than bytes: the last chunks are empty, and every one of them
 * is still a chunk of the timeline, its events recorded like the others'. */
START_TEST(test_a_timeline_with_more_chunks_than_bytes)
{
    const char *args = "--size 5 --chunks 12 --reps 1 --timeline";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    struct chunk_times chunks[MOST_CHUNKS];
    int count = read_timeline(o.out, chunks, MOST_CHUNKS);
    ck_assert_msg(count == 12,
                  "%s: expected 12 'chunk N:' lines (the empty ones too), read %d in: "
                  "%.1500s",
                  args, count, o.out);
    size_t bytes = 0;
    for (int c = 0; c < count; c++)
        bytes += chunks[c].bytes;
    ck_assert_msg(bytes == 5, "%s: the chunks copied %zu bytes together, expected 5", args, bytes);
}
END_TEST

START_TEST(test_reports_the_streams_beside_the_pinned_copy)
{
    const char *args = "--size 1000003 --reps 2";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\npinned-copy "), "%s: no pinned-copy row: %s", args, o.out);
    ck_assert_msg(strstr(o.out, "\npinned-streams "), "%s: no pinned-streams row: %s", args, o.out);
    ck_assert_msg(strstr(o.out, "8 chunks"), "%s: expected 8 chunks by default: %s", args, o.out);
    ck_assert_msg(o.has_sum && o.sum == 1000003, "%s: expected Histogram Sum 1000003: %s", args,
                  o.out);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
}
END_TEST

START_TEST(test_csv_prints_header_and_two_verified_rows)
{
    const char *args = "--size 4097 --data skewed --reps 2 --chunks 3 --csv";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "%s: no header line: %s", args, o.out);
    *row++ = '\0';
    ck_assert_msg(strcmp(o.out, CSV_HEADER) == 0, "%s: expected the header %s, got %s", args,
                  CSV_HEADER, o.out);
    ck_assert_msg(strncmp(row, "09_pinned_streams,pinned-copy,", 30) == 0, "%s: first row: %s",
                  args, row);
    row = strchr(row, '\n');
    ck_assert_msg(row != NULL, "%s: one row only", args);
    row++;
    ck_assert_msg(strncmp(row, "09_pinned_streams,pinned-streams,", 33) == 0, "%s: second row: %s",
                  args, row);
    ck_assert_msg(strstr(row, ",skewed,4097,"), "%s: data and bytes: %s", args, row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "%s: not verified: %s", args, row);
}
END_TEST

/* --chunks N is the number of chunks (1 to 1024); each chunk's grid is the
 * book's, so --blocks and --blocks-per-sm are refused, with the reason. */
START_TEST(test_chunks_is_its_own_option)
{
    static const char *const bad[] = {"--blocks 4", "--blocks-per-sm 2", "--chunks 0",
                                      "--chunks 1025"};
    static const char *const reasons[] = {
        "--chunks N sets the number of chunks", "--chunks N sets the number of chunks",
        "--chunks: 0 is out of range (1 to 1024)", "--chunks: 1025 is out of range (1 to 1024)"};
    for (int i = 0; i < 4; i++) {
        struct stage_output o;
        run_stage(bad[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: expected exit 2, got %s", bad[i],
                      exit_meaning(&o));
        ck_assert_msg(strstr(o.err, reasons[i]), "%s: expected '%s', got: %s", bad[i], reasons[i],
                      o.err);
    }
}
END_TEST

/* The book's int index overflows here; size_t must not: 2 GiB + 5 bytes in
 * 7 chunks (offsets up to 1.7 GiB), the same in one chunk (a count, and a
 * kernel's index, past 2^31), and 2 GiB + 4 MiB in 1000 chunks, whose last
 * chunk starts past 2^31 (an offset that an int cannot hold). */
static const struct {
    size_t size;
    const char *chunks;
} big_runs[] = {
    {((size_t)1 << 31) + 5, "--chunks 7"},
    {((size_t)1 << 31) + 5, "--chunks 1"},
    {((size_t)1 << 31) + ((size_t)1 << 22) + 5, "--chunks 1000"},
};
#define BIG_RUNS ((int)(sizeof big_runs / sizeof big_runs[0]))

START_TEST(test_indexing_past_2_gib)
{
    check_matches_reference(big_runs[_i].size, DATA_UNIFORM, 9 + (uint64_t)_i, big_runs[_i].chunks);
}
END_TEST

/* build/pinned_streams-refuse makes the N-th cudaHostAlloc of the process fail
 * with cudaErrorMemoryAllocation (PINNED_STREAMS_REFUSE=N), as a low
 * RLIMIT_MEMLOCK or a size near the host's memory does. The program must stop
 * there with the reason and a non-zero exit: not count from malloc'd memory
 * instead, whose copies are staged and serialised while the report still
 * times page-locked chunks. */
static char refuse_program[4096]; /* linked with check_pinned_streams_refuse.c, beside the check */
static const char *const refusals[] = {"--size 1000003 --reps 1", "--size 1000003 --reps 1 --csv"};
#define REFUSALS ((int)(sizeof refusals / sizeof refusals[0]))

START_TEST(test_memory_that_cannot_be_locked_stops_the_program)
{
    const char *args = refusals[_i];
    ck_assert(setenv("PINNED_STREAMS_REFUSE", "1", 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(refuse_program);
    set_run_time_limit(60);
    run_stage(args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv("PINNED_STREAMS_REFUSE");
    ck_assert_msg(
        o.exit_status > 0 && o.exit_status != 77 && !o.says_verified && !strstr(o.out, ",yes") &&
            (strstr(o.err, "cudaHostAlloc") || strstr(o.err, "out of memory")),
        "%s %s, where the first cudaHostAlloc returns cudaErrorMemoryAllocation (the "
        "host cannot lock the input): %s, stdout: %.300s, stderr: %s; expected a "
        "non-zero exit with the failed call or its error on stderr and no verified result: a "
        "buffer that cannot be pinned is an error, not a reason to count from "
        "pageable memory",
        refuse_program, args, exit_meaning(&o), o.out, o.err);
}
END_TEST

/* ------------------------------------------------------------ edges -- */

/* Page-locked at the smallest sizes too: 17 bytes, none (one byte is
 * allocated) and 64 KiB - 1. An input kept in malloc'd memory below some
 * size "where pinning does not pay" passed the runs above at 1000003 bytes
 * and 2 GiB + 5. */
static const char *const small_locked_runs[] = {"--size 17 --reps 1", "--size 0 --reps 1",
                                                "--size 65535 --reps 1 --chunks 3"};
#define SMALL_LOCKED_RUNS ((int)(sizeof small_locked_runs / sizeof small_locked_runs[0]))

START_TEST(test_a_small_input_is_page_locked_too)
{
    const char *args = small_locked_runs[_i];
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    const char *line = strstr(o.out, "host memory: ");
    ck_assert_msg(line != NULL, "%s: no 'host memory:' line in: %s", args, o.out);
    ck_assert_msg(strncmp(line, "host memory: page-locked", 24) == 0,
                  "%s: expected the input in page-locked memory at this size too, got '%.60s'",
                  args, line);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
}
END_TEST

/* The largest input, 4 GiB - 1 bytes, in 3 chunks: every chunk's offset and
 * count fit 32 bits here, but the rounding up of the chunk size, size +
 * chunks - 1, does not: done in unsigned int it wraps to 1, and the chunks
 * hold nothing. */
START_TEST(test_the_largest_input_in_3_chunks)
{
    set_run_time_limit(240);
    check_matches_reference(MAX_INPUT_BYTES, DATA_UNIFORM, 51, "--chunks 3");
    set_run_time_limit(0);
}
END_TEST

/* build/pinned_streams-refuse again, now failing the N-th cudaMemcpyAsync
 * (the first chunk's copy of the first streamed run, then the third) or the
 * N-th cudaFreeHost (the input's, at the end): the call does its work and
 * returns cudaErrorLaunchFailure, and the wrapper says so on stderr. Where
 * it did, the program must stop with the reason and a non-zero exit (after a
 * failed copy, before any verified result), not go on as if the call had
 * succeeded. A program that never makes the N-th such call has nothing to
 * show here. */
static const struct {
    const char *variable;
    int call;
} injected[] = {{"PINNED_STREAMS_FAIL_COPY", 1},
                {"PINNED_STREAMS_FAIL_COPY", 3},
                {"PINNED_STREAMS_FAIL_FREE", 1}};
#define INJECTED ((int)(sizeof injected / sizeof injected[0]))

START_TEST(test_a_copy_or_free_that_fails_stops_the_program)
{
    const char *args = "--size 1000003 --reps 1";
    char call[16];
    snprintf(call, sizeof call, "%d", injected[_i].call);
    ck_assert(setenv(injected[_i].variable, call, 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(refuse_program);
    set_run_time_limit(60);
    run_stage(args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv(injected[_i].variable);
    if (!strstr(o.err, "check: an injected failure was returned here"))
        return; /* the program made no such call: nothing failed */
    bool copy = strstr(injected[_i].variable, "COPY") != NULL;
    ck_assert_msg(o.exit_status > 0 && o.exit_status != 77 &&
                      strstr(o.err, "unspecified launch failure") &&
                      (!copy || (!o.says_verified && !strstr(o.out, ",yes"))),
                  "%s %s with %s=%d (that call returns cudaErrorLaunchFailure, as a call does "
                  "that reports a fault of the GPU's work): %s, stdout: %.300s, stderr: %s; "
                  "expected a non-zero exit with the error on stderr%s: the result of every "
                  "CUDA call is checked",
                  refuse_program, args, injected[_i].variable, injected[_i].call, exit_meaning(&o),
                  o.out, o.err, copy ? " and no verified result" : "");
}
END_TEST

/* Each refused before any GPU is opened: exit 2, one line on stderr that
 * names the option (the usage follows), nothing on stdout. Runs without a GPU. */
static const struct {
    const char *args, *option;
} refused_runs[] = {{"--timeline --csv", "--timeline"}, {"--chunks abc", "--chunks"},
                    {"--chunks 8x", "--chunks"},        {"--chunks -1", "--chunks"},
                    {"--chunks 0", "--chunks"},         {"--chunks 1025", "--chunks"},
                    {"--blocks 4", "--blocks"},         {"--blocks-per-sm 2", "--blocks"}};
#define REFUSED_RUNS ((int)(sizeof refused_runs / sizeof refused_runs[0]))

START_TEST(test_each_option_refuses_a_bad_value)
{
    char args[128];
    snprintf(args, sizeof args, "%s --size 1000 --reps 1", refused_runs[_i].args);
    check_refused_naming(args, refused_runs[_i].option);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("09_pinned_streams", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(refuse_program, sizeof refuse_program, "%s/pinned_streams-refuse", dirname(here));
    Suite *suite = suite_create("exercise 09: page-locked memory and streams");
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    TCase *bytes = exercise_tcase("every byte of every chunk counted once", 3);
    tcase_add_loop_test(bytes, test_every_size_and_kind_matches_reference, 0, MATRIX_CASES);
    tcase_add_loop_test(bytes, test_every_chunk_count_matches_reference, 0, CHUNKINGS);
    add_if_runnable(suite, bytes, MATRIX_CASES + CHUNKINGS);
    TCase *pinned = exercise_tcase("the input in page-locked memory, at every size", 1);
    tcase_set_timeout(pinned, 120);
    tcase_add_loop_test(pinned, test_host_memory_is_page_locked, 0, LOCKED_RUNS);
    add_if_runnable(suite, pinned, LOCKED_RUNS);
    TCase *refused = exercise_tcase("memory that cannot be page-locked stops the program", 1);
    tcase_set_timeout(refused, 120);
    tcase_add_loop_test(refused, test_memory_that_cannot_be_locked_stops_the_program, 0, REFUSALS);
    if (access(refuse_program, X_OK) == 0)
        add_if_runnable(suite, refused, REFUSALS);
    else {
        printf("%s is missing (make check builds it)\n", refuse_program);
        add_skipped(REFUSALS);
    }
    TCase *overlap = exercise_tcase("copies overlap other chunks' kernels", 2);
    tcase_add_loop_test(overlap, test_copies_overlap_other_chunks_kernels, 0, OVERLAPS);
    tcase_add_loop_test(overlap, test_every_chunk_holds_its_share_of_a_small_input, 0, SHARE_RUNS);
    tcase_add_test(overlap, test_a_timeline_with_more_chunks_than_bytes);
    add_if_runnable(suite, overlap, OVERLAPS + SHARE_RUNS + 1);
    TCase *report = exercise_tcase("the report, the CSV, the options", 0);
    tcase_add_test(report, test_reports_the_streams_beside_the_pinned_copy);
    tcase_add_test(report, test_csv_prints_header_and_two_verified_rows);
    tcase_add_test(report, test_chunks_is_its_own_option);
    add_if_runnable(suite, report, 3);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    TCase *big = exercise_tcase("past 2 GiB", 3);
    tcase_add_loop_test(big, test_indexing_past_2_gib, 0, BIG_RUNS);
    add_if_runnable(suite, big, BIG_RUNS);
    TCase *edge = exercise_tcase("edge: a small input page-locked too", 1);
    tcase_add_loop_test(edge, test_a_small_input_is_page_locked_too, 0, SMALL_LOCKED_RUNS);
    add_if_runnable(suite, edge, SMALL_LOCKED_RUNS);
    TCase *edge_large = exercise_tcase("edge: the largest input, 4 GiB - 1 bytes in 3 chunks", 3);
    tcase_add_test(edge_large, test_the_largest_input_in_3_chunks);
    /* 4 GiB on the GPU; on the host the program's input and its page-locked
     * copy (the check's own copy is freed before the program runs) */
    add_if_tool(suite, edge_large, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());
    TCase *edge_failed = exercise_tcase("edge: a copy or a free that fails stops the program", 1);
    tcase_set_timeout(edge_failed, 120);
    tcase_add_loop_test(edge_failed, test_a_copy_or_free_that_fails_stops_the_program, 0, INJECTED);
    if (access(refuse_program, X_OK) == 0)
        add_if_runnable(suite, edge_failed, INJECTED);
    else
        add_skipped(INJECTED);
    /* refused before any GPU is opened: it runs without a GPU too */
    TCase *edge_refused = exercise_tcase("edge: bad option values refused, one line each", 0);
    tcase_add_loop_test(edge_refused, test_each_option_refuses_a_bad_value, 0, REFUSED_RUNS);
    add_tcase(suite, edge_refused, REFUSED_RUNS);
    return run_exercise(suite);
}
