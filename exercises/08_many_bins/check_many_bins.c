/*
 * check_many_bins.c - exercise 08 counts 16-bit values (byte pairs, little-endian,
 * an odd last byte on its own) into 4096 and into 65536 bins: on every size and
 * kind, and every launch shape, each of the bins it prints with --print-bins matches a
 * count made here, the sum is the number of values, and it says it verified.
 * The technique is read from the passes: line, which the program's own
 * launch_pass writes: 65536 bins must be counted in several launches of the
 * shared-memory kernel, each bin in exactly one (a kernel with global atomics
 * instead makes no such launch).
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOST_BINS 65536

/* What the program printed: every bin, not only the first 256 that run_stage reads. */
struct many_output {
    int exit_status;
    unsigned int bins[MOST_BINS];
    unsigned int bins_printed;
    bool has_sum, says_verified, has_approach, has_passes;
    uint64_t sum;
    unsigned int launches, most_bins, counted_once; /* from the passes: line */
    char approach[512];                             /* the approach: line, as read */
    char text[8192]; /* the lines that are not bins, stderr included */
};

static struct many_output out; /* 256 KiB: too big for the stack of a check */

/* exit_meaning takes a stage_output; this output is read another way. */
static const char *exit_meaning_of(int status)
{
    struct stage_output o = {.exit_status = status};
    return exit_meaning(&o);
}

static void run_many_bins(const char *args, struct many_output *o)
{
    memset(o, 0, sizeof *o);
    o->exit_status = -1;
    char command[1024];
    snprintf(command, sizeof command, "'%s' %s 2>&1", stage_program(), args);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    char line[512];
    size_t used = 0;
    while (fgets(line, sizeof line, p)) {
        unsigned int bin, count;
        unsigned long long sum;
        char tail;
        if (sscanf(line, "%u: %u%c", &bin, &count, &tail) == 3 && tail == '\n' && bin < MOST_BINS) {
            o->bins[bin] = count;
            o->bins_printed++;
            continue;
        }
        if (sscanf(line, "Histogram Sum: %llu", &sum) == 1) {
            o->has_sum = true;
            o->sum = sum;
        } else if (strncmp(line, "verified:   yes", 15) == 0) {
            o->says_verified = true;
        } else if (strncmp(line, "approach:", 9) == 0) {
            o->has_approach = true;
            snprintf(o->approach, sizeof o->approach, "%s", line);
        } else if (sscanf(line,
                          "passes: %u launches of histo_kernel, at most %u bins (%*u KiB of shared "
                          "memory per block); bins counted once: %u",
                          &o->launches, &o->most_bins, &o->counted_once) == 3) {
            o->has_passes = true;
        }
        size_t len = strlen(line);
        if (used + len < sizeof o->text) {
            memcpy(o->text + used, line, len + 1);
            used += len;
        }
    }
    int status = pclose(p);
    o->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The count, made independently of the program: value k is bytes 2k and 2k + 1. */
static void reference(const unsigned char *buffer, size_t size, unsigned int bins,
                      unsigned int *histo)
{
    memset(histo, 0, bins * sizeof *histo);
    for (size_t k = 0; 2 * k < size; k++) {
        unsigned int value = buffer[2 * k];
        if (2 * k + 1 < size)
            value += 256u * buffer[2 * k + 1];
        histo[value % bins]++;
    }
}

static void check_bins(const char *args, const unsigned int *expected, unsigned int bins,
                       size_t values)
{
    run_many_bins(args, &out);
    ck_assert_msg(out.exit_status == 0, "%s: %s: %s", args, exit_meaning_of(out.exit_status),
                  out.text);
    ck_assert_msg(out.bins_printed == bins, "%s: printed %u bins, want %u", args, out.bins_printed,
                  bins);
    for (unsigned int bin = 0; bin < bins; bin++)
        ck_assert_msg(out.bins[bin] == expected[bin], "%s: bin %u is %u, expected %u", args, bin,
                      out.bins[bin], expected[bin]);
    ck_assert_msg(out.has_sum && out.sum == values, "%s: Histogram Sum missing or not %zu", args,
                  values);
    ck_assert_msg(out.has_approach, "%s: no 'approach:' line: %s", args, out.text);
    ck_assert_msg(out.says_verified, "%s: no 'verified: yes' line: %s", args, out.text);
}

static void check_many_bins(unsigned int bins, size_t size, enum data_kind kind, uint64_t seed,
                            const char *extra_args)
{
    unsigned char *buffer = malloc(size ? size : 1);
    static unsigned int expected[MOST_BINS];
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    reference(buffer, size, bins, expected);
    free(buffer);
    char args[512];
    snprintf(args, sizeof args,
             "--bins %u --size %zu --data %s --seed %" PRIu64 " --reps 1 --print-bins %s", bins,
             size, data_kind_name(kind), seed, extra_args);
    check_bins(args, expected, bins, (size + 1) / 2);
}

/* Odd sizes leave a lone last byte; 8193 and the prime cross many blocks' shares. */
static const size_t sizes[] = {0, 1, 2, 3, 17, 255, 256, 257, 8193, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_4096_bins_match_reference_for_every_size_and_kind)
{
    check_many_bins(4096, sizes[_i / 4], (enum data_kind)(_i % 4), 1000 + (uint64_t)_i, "");
}
END_TEST

START_TEST(test_65536_bins_match_reference_for_every_size_and_kind)
{
    check_many_bins(65536, sizes[_i / 4], (enum data_kind)(_i % 4), 2000 + (uint64_t)_i, "");
}
END_TEST

/* Odd block sizes break loops that assume blockDim.x divides the bins; one
 * block must still cover every value. */
static const char *const launches[] = {"--blocks 1",
                                       "--threads 33",
                                       "--threads 1000",
                                       "--threads 1024",
                                       "--blocks 1 --threads 1024",
                                       "--blocks 100000 --threads 32"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_many_bins(4096, 1000003, DATA_UNIFORM, 7, launches[_i]);
    check_many_bins(65536, 1000003, DATA_UNIFORM, 7, launches[_i]);
    /* one bin for all: with one block, 150004 counts in one counter of its copy
     * (past what 16 bits hold) */
    check_many_bins(65536, 300007, DATA_CONSTANT, 8, launches[_i]);
}
END_TEST

/* More than 2^32 threads (4194305 blocks of 1024) on small inputs: the block
 * past 2^32 threads must count nothing. The solution's size_t value index and
 * stride count each value once (bins as the count made here: 4097 bytes, 2049
 * values; 8193 constant bytes, 4097 values in one bin); a value index, start
 * and stride in unsigned int wrap (the last block starts again at value 0,
 * the stride is 1024), and values are counted twice or more: the sum is more
 * than 2049 (4097). Each pass has 4 Mi blocks with little to do: seconds. */
START_TEST(test_more_than_2_to_the_32_threads_count_each_value_once)
{
    check_many_bins(4096, 4097, DATA_UNIFORM, 11, "--blocks 4194305 --threads 1024");
    check_many_bins(65536, 8193, DATA_CONSTANT, 12, "--blocks 4194305 --threads 1024");
}
END_TEST

/* One block of one warp on 8 MiB of one byte value: 4 Mi values in one bin,
 * 131072 of them read in a row by each of the 32 threads (past 65535, the
 * most 16 bits hold). The solution counts each with a shared atomic; a thread
 * that keeps its own count of a run of equal values, or of its values, in 16
 * bits wraps it at 65536 and loses counts. One warp reads 4 Mi values in each
 * pass, the 65536 bins' 8 passes included: seconds at most. */
START_TEST(test_one_thread_counts_a_run_of_one_value_past_65535)
{
    check_many_bins(65536, (size_t)8 << 20, DATA_CONSTANT, 8, "--blocks 1 --threads 32");
    check_many_bins(4096, (size_t)8 << 20 | 1, DATA_CONSTANT, 9, "--blocks 1 --threads 32");
}
END_TEST

/* One block of 1024 threads on 32 MiB of one byte value, 4096 bins (one
 * range): 2^24 values in one counter of the block's copy. A 32-bit counter
 * holds them; one that wraps earlier (atomicInc with a limit of 2^24 - 1
 * comes back to 0 there) ends the bin at 0. 16 Mi shared atomics of one
 * block: well under a second. */
START_TEST(test_one_blocks_counter_passes_2_to_the_24)
{
    check_many_bins(4096, (size_t)32 << 20, DATA_CONSTANT, 10, "--blocks 1 --threads 1024");
}
END_TEST

/* The passes: line is launch_pass's record of the last histogram: how many
 * launches of the shared-memory kernel, the largest range, and how many bins
 * exactly one launch counted. 65536 bins cannot be one range (256 KiB), so they
 * take two launches or more; global atomics alone make none. */
START_TEST(test_65536_bins_are_counted_in_passes_of_shared_memory)
{
    static const char *const inputs[] = {"--size 1000003 --data uniform",
                                         "--size 100001 --data constant --threads 1024"};
    for (int i = 0; i < 2; i++) {
        char args[256];
        snprintf(args, sizeof args, "--bins 65536 --reps 1 %s", inputs[i]);
        run_many_bins(args, &out);
        ck_assert_msg(out.exit_status == 0, "%s: %s: %s", args, exit_meaning_of(out.exit_status),
                      out.text);
        ck_assert_msg(out.has_passes, "%s: no 'passes:' line (it is printed for you): %s", args,
                      out.text);
        ck_assert_msg(out.launches >= 2,
                      "%s: %u launches of histo_kernel through launch_pass, want 2 or more: "
                      "65536 bins do not fit in one block's shared memory, and a kernel with "
                      "global atomics is not the technique this exercise asks for",
                      args, out.launches);
        /* every pass reads the whole input again: as few as fit (ranges
         * of 8192 bins or more, 32 KiB, under the 48 KiB a block gets) */
        ck_assert_msg(out.launches <= MOST_BINS / 8192,
                      "%s: %u launches of histo_kernel, want at most %d: each pass reads the "
                      "whole input again, and ranges of 8192 bins (32 KiB) fit in the 48 KiB "
                      "a block gets without asking",
                      args, out.launches, MOST_BINS / 8192);
        ck_assert_msg(out.most_bins < MOST_BINS,
                      "%s: a launch took all %u bins at once, want ranges that fit", args,
                      out.most_bins);
        ck_assert_msg(out.counted_once == MOST_BINS,
                      "%s: %u of the 65536 bins were counted by exactly one launch, want all "
                      "(a bin in no range, or in two)",
                      args, out.counted_once);
    }
}
END_TEST

/* The 4096 bins fit (16 KiB): one launch, which counts every bin; a second
 * would read the whole input again for nothing. */
START_TEST(test_4096_bins_are_counted_in_shared_memory)
{
    const char *args = "--bins 4096 --reps 1 --size 1000003";
    run_many_bins(args, &out);
    ck_assert_msg(out.exit_status == 0, "%s: %s: %s", args, exit_meaning_of(out.exit_status),
                  out.text);
    ck_assert_msg(out.has_passes && out.launches == 1 && out.counted_once == 4096,
                  "%s: want a 'passes:' line with one launch that counts all 4096 bins (16 KiB "
                  "fit in one block's shared memory: each more pass reads the input again): %s",
                  args, out.text);
}
END_TEST

/* Finds in text every number followed by unit ("pass", "bins"): *right counts
 * those equal to want, *wrong keeps one that is not. "one pass" reads as 1
 * pass (the starter writes it so). */
static void numbers_before(const char *text, const char *unit, unsigned int want, int *right,
                           unsigned long *wrong)
{
    size_t unit_len = strlen(unit);
    *right = 0;
    for (const char *p = text; *p; p++) {
        unsigned long n;
        const char *after;
        if (*p >= '0' && *p <= '9' && (p == text || !(p[-1] >= '0' && p[-1] <= '9'))) {
            char *end;
            n = strtoul(p, &end, 10);
            after = end;
        } else if (strncmp(p, "one ", 4) == 0 && (p == text || p[-1] == ' ')) {
            n = 1;
            after = p + 3;
        } else {
            continue;
        }
        while (*after == ' ')
            after++;
        if (strncmp(after, unit, unit_len) != 0)
            continue;
        if (n == want)
            (*right)++;
        else
            *wrong = n;
    }
}

/* The approach: line says what this run did: the passes it took and the bins
 * of a pass, the same as the passes: line's launches and largest range, on a
 * count of bins that takes one pass (4096) and one that takes several (65536).
 * The solution prints "1 pass of 4096 bins" and "8 passes of 8192 bins"
 * (passes: 1 launch, at most 4096 bins; 8 launches, at most 8192): right 1,
 * wrong none. A line that always describes the 65536-bin plan says "8 passes
 * of 8192 bins" on 4096 bins too: 8 passes where the passes: line has 1 launch. */
static const unsigned int approach_bins[] = {4096, 65536};
#define APPROACH_BINS ((int)(sizeof approach_bins / sizeof approach_bins[0]))

START_TEST(test_the_approach_line_says_what_the_run_did)
{
    char args[256];
    snprintf(args, sizeof args, "--bins %u --reps 1 --size 1000003", approach_bins[_i]);
    run_many_bins(args, &out);
    ck_assert_msg(out.exit_status == 0, "%s: %s: %s", args, exit_meaning_of(out.exit_status),
                  out.text);
    ck_assert_msg(out.has_passes && out.has_approach, "%s: no 'passes:' or 'approach:' line: %s",
                  args, out.text);
    int right;
    unsigned long wrong = 0;
    int shown = (int)strcspn(out.approach, "\n");
    numbers_before(out.approach, "pass", out.launches, &right, &wrong);
    ck_assert_msg(right > 0 && wrong == 0,
                  "%s: the approach: line (%.*s) does not say %u pass(es) alone, the launches on "
                  "the passes: line: describe_approach should say what this count of bins does",
                  args, shown, out.approach, out.launches);
    numbers_before(out.approach, "bins", out.most_bins, &right, &wrong);
    ck_assert_msg(right > 0,
                  "%s: the approach: line (%.*s) does not name %u bins, the range of a pass on "
                  "the passes: line: describe_approach should say what this count of bins does",
                  args, shown, out.approach, out.most_bins);
}
END_TEST

/* ------------------------------------------ inside the kernel, by tools -- */

/* compute-sanitizer's racecheck: no two threads of a block touch one counter
 * of the shared copy, one of them writing, without an atomic or a barrier
 * between (a plain read, add and write; a missing __syncthreads between
 * zeroing, counting and merging). Small inputs: racecheck is slow. */
static const char *const race_runs[] = {
    "--bins 65536 --size 64K --blocks 4 --threads 128 --reps 1",
    "--bins 4096 --size 64K --data constant --blocks 2 --threads 96 --reps 1"};
#define RACE_RUNS ((int)(sizeof race_runs / sizeof race_runs[0]))

START_TEST(test_no_shared_memory_races)
{
    check_no_gpu_races(race_runs[_i]);
}
END_TEST

/* The same, in blocks of 1024 threads, where each thread zeroes a few bins
 * of the range: the barrier between zeroing and counting is still needed
 * there (a warp that runs late zeroes a bin after another has counted into
 * it), and racecheck reports the count that no barrier orders after the zero
 * store. */
static const char *const large_block_race_runs[] = {
    "--bins 4096 --size 16K --blocks 2 --threads 1024 --reps 1",
    "--bins 65536 --size 16K --blocks 2 --threads 1024 --reps 1"};
#define LARGE_BLOCK_RACE_RUNS                                                                      \
    ((int)(sizeof large_block_race_runs / sizeof large_block_race_runs[0]))

START_TEST(test_no_shared_memory_races_in_blocks_of_1024)
{
    check_no_gpu_races(large_block_race_runs[_i]);
}
END_TEST

/* Nsight Compute counts what histo_kernel did, summed over every launch of a
 * run (the passes of each histogram the program makes: warm-up, kernel-only,
 * end to end). Per histogram, on 8 Mi uniform 16-bit values over 16 blocks:
 * - every value is counted in shared memory: at least one shared atomic per
 *   warp and step, values / 32 warp instructions (a pass adds a warp's step
 *   in shared memory when any of its lanes holds a bin of its range);
 * - the merge is every thread's: each block adds its copy with about one
 *   global atomic instruction per 32 counters, each one or a few requests to
 *   L2 (4 sectors of 32 bytes hold 32 counters in a row; 8 allowed). Each
 *   block's share (512 Ki values, 64 Ki a pass over 8192 bins) leaves almost
 *   no counter of its copy at zero, so the floor is half the instructions.
 *   One thread that adds a whole copy sends one request per counter, 4 times
 *   the bound; a merge that only block 0 makes, a 16th of the instructions;
 * - a pass reads the input once: the SMs read the 16 MiB's 32-byte sectors
 *   from L2 once each, 524288 (a half more allowed). Counted at L2, not at
 *   L1: a value's two bytes loaded apart touch each sector twice in L1, but
 *   the second load finds it there (the solution and a 16-bit load both read
 *   524288 from L2, an H200's ncu shows). A pass that reads the input twice
 *   (a first look for values of its range, then the count) reads it twice
 *   from L2: 16 MiB does not stay in an SM's L1. */
#define PROFILED_ARGS   "--bins 65536 --size 16M --blocks 16 --threads 256 --reps 1"
#define PROFILED_VALUES (((size_t)16 << 20) / 2)
#define PROFILED_BLOCKS 16

START_TEST(test_65536_bins_are_counted_in_shared_memory_and_merged_by_every_thread)
{
    run_many_bins(PROFILED_ARGS, &out);
    ck_assert_msg(out.exit_status == 0 && out.has_passes && out.launches >= 1,
                  "%s: %s, or no 'passes:' line: %s", PROFILED_ARGS,
                  exit_meaning_of(out.exit_status), out.text);
    unsigned int passes = out.launches;
    static const char *const metrics[] = {"smsp__inst_executed_op_shared_atom.sum",
                                          "lts__t_requests_op_red.sum",
                                          "lts__t_requests_op_atom.sum",
                                          "smsp__inst_executed_op_global_red.sum",
                                          "smsp__inst_executed_op_global_red.max",
                                          "lts__t_sectors_srcunit_tex_op_read.sum",
                                          "smsp__inst_executed_op_shared_st.sum",
                                          "smsp__inst_executed_op_shared_st.max"};
    double values[8];
    profile_kernel(PROFILED_ARGS, "histo_kernel", metrics, 8, values);
    int launches = profile_launches();
    ck_assert_msg(launches % passes == 0,
                  "%s: ncu saw %d launches of histo_kernel, not a whole number of histograms "
                  "of %u passes each",
                  PROFILED_ARGS, launches, passes);
    double histograms = launches / passes;
    double shared_atomics = values[0] / histograms, requests = (values[1] + values[2]) / histograms;
    double floor_shared = PROFILED_VALUES / 32.0;
    /* warp instructions of every block's merge: 32 counters each, a pass's
     * range rounded up to whole warps */
    double merge = (double)PROFILED_BLOCKS * (MOST_BINS / 32 + passes);
    ck_assert_msg(shared_atomics >= floor_shared,
                  "%s: %.0f shared-memory atomic instructions per histogram, want at least "
                  "%.0f (one per warp and step of %zu values): the values are not counted in "
                  "the shared copy",
                  PROFILED_ARGS, shared_atomics, floor_shared, PROFILED_VALUES);
    ck_assert_msg(requests <= 8 * merge,
                  "%s: %.0f atomic requests to L2 per histogram, want at most %.0f (8 per merge "
                  "instruction of 32 counters, %d blocks x %u passes): the histogram gets more "
                  "global atomics than a merge by all of a block's threads makes (one thread "
                  "that merges a whole copy, or values added to the histogram directly?)",
                  PROFILED_ARGS, requests, 8 * merge, PROFILED_BLOCKS, passes);
    /* Where the merge's global atomics run: a block's 8 warps sit on an SM's
     * 4 schedulers (SMSPs), so a merge by all of them gives each scheduler
     * about a quarter of the block's, and the busiest of the 16 x 4 about a
     * 64th of the launch's (a 32nd where two blocks share an SM). A merge by
     * one warp puts a whole block's on one scheduler: a 16th at least. */
    ck_assert_msg(values[4] < values[3] / 24,
                  "%s: the busiest SM scheduler ran %.0f of the %.0f global atomic "
                  "instructions, more than a 24th: the merge is left to one warp of the "
                  "block, where every thread should take bins",
                  PROFILED_ARGS, values[4], values[3]);
    double sectors_per_pass = values[5] / launches, input_sectors = PROFILED_VALUES * 2 / 32.0;
    ck_assert_msg(sectors_per_pass <= 1.5 * input_sectors,
                  "%s: each pass read %.0f 32-byte sectors from L2 into the SMs, want at most "
                  "%.0f (the 16 MiB input's %.0f, and a half more): a pass reads the input once, "
                  "counting as it goes",
                  PROFILED_ARGS, sectors_per_pass, 1.5 * input_sectors, input_sectors);
    /* The copy zeroed by every thread: a pass's range of counters takes a warp
     * store instruction per 32 (fewer with wider stores); one thread zeroing it
     * alone runs one instruction for each store it makes, up to 32 times as many. */
    double range = (double)MOST_BINS / passes, stores_per_pass = values[6] / launches;
    double most_stores = 2 * PROFILED_BLOCKS * (range / 32 + 8);
    ck_assert_msg(stores_per_pass <= most_stores,
                  "%s: %.0f shared-memory store instructions per pass, want at most %.0f (%d "
                  "blocks zeroing a range of %.0f counters, a warp instruction per 32, and "
                  "twice that): the copy is zeroed by too few threads (one thread alone?)",
                  PROFILED_ARGS, stores_per_pass, most_stores, PROFILED_BLOCKS, range);
    /* ... and by the whole block: its 8 warps share the SM's 4 schedulers, so
     * the busiest scheduler stores about a 64th of a pass's zeros (16 blocks
     * on SMs of their own); one warp zeroing the copy alone, a 16th. */
    ck_assert_msg(values[7] < values[6] / 24,
                  "%s: the busiest SM scheduler ran %.0f of the %.0f shared-memory store "
                  "instructions, more than a 24th: the copy is zeroed by one warp of the block, "
                  "where every thread should take counters",
                  PROFILED_ARGS, values[7], values[6]);
    ck_assert_msg(requests >= merge / 2,
                  "%s: %.0f atomic requests to L2 per histogram, want at least %.0f (half the "
                  "merge instructions of %d blocks, whose copies are all but full): not every "
                  "block adds its copy to the histogram",
                  PROFILED_ARGS, requests, merge / 2, PROFILED_BLOCKS);
}
END_TEST

/* A file that holds every 16-bit value exactly once, high values first: each of
 * the 65536 bins must hold 1, and each of the 4096 bins 16. */
START_TEST(test_every_16_bit_value_lands_in_its_own_bin)
{
    char path[] = "/tmp/many_bins_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    static unsigned char bytes[2 * MOST_BINS];
    for (unsigned int k = 0; k < MOST_BINS; k++) {
        unsigned int value = MOST_BINS - 1 - k;
        bytes[2 * k] = (unsigned char)(value & 0xff);
        bytes[2 * k + 1] = (unsigned char)(value >> 8);
    }
    ck_assert_int_eq(write(fd, bytes, sizeof bytes), (int)sizeof bytes);
    close(fd);
    static unsigned int expected[MOST_BINS];
    for (unsigned int bins = 4096; bins <= MOST_BINS; bins *= 16) {
        for (unsigned int bin = 0; bin < bins; bin++)
            expected[bin] = MOST_BINS / bins;
        char args[128];
        snprintf(args, sizeof args, "--bins %u --file %s --reps 1 --print-bins", bins, path);
        check_bins(args, expected, bins, MOST_BINS);
    }
    unlink(path);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row_for_each_count_of_bins)
{
    for (unsigned int bins = 4096; bins <= MOST_BINS; bins *= 16) {
        char args[128];
        snprintf(args, sizeof args, "--bins %u --size 4096 --data skewed --reps 2 --csv", bins);
        struct stage_output o;
        run_stage(args, &o);
        ck_assert_msg(o.exit_status == 0, "%s: %s: %s", args, exit_meaning(&o), o.err);
        char *row = strchr(o.out, '\n');
        ck_assert_msg(row != NULL, "no header line: %s", o.out);
        *row++ = '\0';
        ck_assert_str_eq(o.out, CSV_HEADER);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "08_many_bins,%u,", bins);
        ck_assert_msg(strncmp(row, prefix, strlen(prefix)) == 0, "row starts wrong: %s", row);
        ck_assert_msg(strstr(row, ",skewed,4096,"), "data and bytes: %s", row);
        ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
    }
}
END_TEST

/* The largest input, 4 GiB - 1 bytes: a byte's index no longer fits an int
 * (the book's), so a loop that keeps its index in one stops at 2^31 bytes or
 * reads before the input; and 2^31 values do not fit one either, so a loop
 * whose value index is an int never reaches the last. */
START_TEST(test_65536_bins_past_2_gib)
{
    set_run_time_limit(180);
    check_many_bins(65536, MAX_INPUT_BYTES, DATA_UNIFORM, 9, "");
}
END_TEST

START_TEST(test_bins_other_than_4096_or_65536_are_a_usage_error)
{
    struct stage_output o;
    run_stage("--bins 1024", &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "--bins 1024: %s, want exit 2", exit_meaning(&o));
    ck_assert_msg(strstr(o.err, "--bins: '1024'"), "--bins 1024: reason: %s", o.err);
}
END_TEST

/* ------------------------------------------ the atomics' scope, in PTX -- */

/* Every block adds its merge to the same global bins: an atomic of block
 * scope there (atomicAdd_block) races with the other blocks' by CUDA's rules,
 * even on a run whose bins come out right. Read in the PTX, without a GPU. */
START_TEST(test_the_merge_is_device_wide)
{
    check_global_atomics_are_device_wide();
}
END_TEST

/* compute-sanitizer's memcheck and synccheck, on odd sizes and block sizes
 * (partial warps, threads that have no bin to merge): no read past the
 * input, no barrier that some threads of the block skip, no warp-wide call
 * whose mask names lanes that are not there. A run can count right and
 * still do any of these: what happens then is undefined. */
static const char *const sanitizer_runs[] = {
    "--bins 65536 --size 4097 --blocks 4 --threads 96 --reps 1",
    "--bins 4096 --size 65537 --data constant --blocks 2 --threads 1000 --reps 1"};
#define SANITIZER_RUNS ((int)(sizeof sanitizer_runs / sizeof sanitizer_runs[0]))

START_TEST(test_no_memory_or_barrier_errors)
{
    check_no_gpu_memory_or_sync_errors(sanitizer_runs[_i]);
}
END_TEST

/* ------------------------------------------------------------ edges -- */

/* Blocks of fewer threads than a warp, 1 and 8: a zeroing or a merge left to
 * the first warp's 32 lanes (a stride of 32, or threadIdx.x < 32) is right
 * in blocks of 33 threads or more, but here lanes 1 to 31 (or 8 to 31) do
 * not exist: their counters are never merged (or never zeroed). */
static const char *const small_blocks[] = {"--threads 1 --blocks 8", "--threads 8 --blocks 8"};
#define SMALL_BLOCKS ((int)(sizeof small_blocks / sizeof small_blocks[0]))

START_TEST(test_blocks_under_a_warp_count_every_bin)
{
    check_many_bins(65536, 4097, DATA_UNIFORM, 41, small_blocks[_i]);
    check_many_bins(4096, 4097, DATA_UNIFORM, 42, small_blocks[_i]);
    check_many_bins(65536, 1001, DATA_CONSTANT, 43, small_blocks[_i]);
}
END_TEST

/* With no options but the size: 4096 bins, 2 blocks per SM of 256 threads
 * (the launch of --blocks-per-sm 2 --threads 256), and 10 timed runs, as
 * --help says. */
START_TEST(test_the_defaults_are_what_help_says)
{
    struct stage_output o, book;
    run_stage("--size 1001", &o);
    ck_assert_msg(o.exit_status == 0, "--size 1001: %s, stderr: %s", exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "impl:       4096 bins\n"),
                  "--size 1001 (no --bins): expected 4096 bins, the default, in: %s", o.out);
    run_stage("--size 1001 --reps 1 --bins 4096 --blocks-per-sm 2 --threads 256", &book);
    ck_assert_msg(book.exit_status == 0, "--size 1001 --blocks-per-sm 2 --threads 256: %s",
                  exit_meaning(&book));
    long blocks, book_blocks;
    int threads, book_threads;
    read_launch("--size 1001", &o, &blocks, &threads);
    read_launch("--size 1001 --blocks-per-sm 2 --threads 256", &book, &book_blocks, &book_threads);
    ck_assert_msg(blocks == book_blocks && threads == 256,
                  "--size 1001 (no launch options): launch %ld blocks x %d threads, expected the "
                  "default, 2 blocks per SM of 256 threads: %ld x 256",
                  blocks, threads, book_blocks);
    ck_assert_msg(strstr(o.out, "(median of 10 runs"),
                  "--size 1001 (no --reps): expected 10 timed runs, '(median of 10 runs', in: %s",
                  o.out);
    ck_assert_msg(o.says_verified, "--size 1001: no 'verified: yes' line");
}
END_TEST

/* --bins takes 4096 or 65536, written so, and nothing else: each of these
 * exits 2, before any GPU is opened, with one line on stderr that names
 * --bins (the usage follows it), and nothing on stdout. Runs without a GPU. */
static const char *const bad_bins[] = {"--bins 4096x",  "--bins 65536.0", "--bins 1024",
                                       "--bins 131072", "--bins -4096",   "--bins abc",
                                       "--bins ''"};
#define BAD_BINS ((int)(sizeof bad_bins / sizeof bad_bins[0]))

START_TEST(test_a_count_of_bins_not_4096_or_65536_is_refused)
{
    char args[128];
    snprintf(args, sizeof args, "%s --size 1000 --reps 1", bad_bins[_i]);
    check_refused_naming(args, "--bins");
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("08_many_bins", argc, argv);
    Suite *suite = suite_create("exercise 08: many bins");

    TCase *small = exercise_tcase("4096 bins, every size and kind", 0);
    tcase_set_timeout(small, 300);
    tcase_add_loop_test(small, test_4096_bins_match_reference_for_every_size_and_kind, 0,
                        SIZES * 4);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, small, SIZES * 4);

    TCase *large = exercise_tcase("65536 bins, every size and kind, every 16-bit value", 1);
    tcase_set_timeout(large, 300);
    tcase_add_loop_test(large, test_65536_bins_match_reference_for_every_size_and_kind, 0,
                        SIZES * 4);
    tcase_add_test(large, test_every_16_bit_value_lands_in_its_own_bin);
    add_if_runnable(suite, large, SIZES * 4 + 1);

    TCase *passes = exercise_tcase("the bins counted in shared memory, a range per launch", 2);
    tcase_add_test(passes, test_65536_bins_are_counted_in_passes_of_shared_memory);
    tcase_add_test(passes, test_4096_bins_are_counted_in_shared_memory);
    tcase_add_loop_test(passes, test_the_approach_line_says_what_the_run_did, 0, APPROACH_BINS);
    add_if_runnable(suite, passes, 2 + APPROACH_BINS);

    TCase *races = exercise_tcase("no shared-memory races (compute-sanitizer racecheck)", 0);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_shared_memory_races, 0, RACE_RUNS);
    add_if_tool(suite, races, RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    TCase *large_races = exercise_tcase("no shared-memory races in blocks of 1024 threads "
                                        "(racecheck)",
                                        0);
    tcase_set_timeout(large_races, 300);
    tcase_add_loop_test(large_races, test_no_shared_memory_races_in_blocks_of_1024, 0,
                        LARGE_BLOCK_RACE_RUNS);
    add_if_tool(suite, large_races, LARGE_BLOCK_RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    TCase *inside = exercise_tcase("counted in shared memory, merged by every thread (ncu)", 2);
    tcase_set_timeout(inside, 300);
    tcase_add_test(inside, test_65536_bins_are_counted_in_shared_memory_and_merged_by_every_thread);
    add_if_tool(suite, inside, 1, can_profile(), profile_tool_missing());

    TCase *shapes = exercise_tcase("every launch shape", 0);
    tcase_set_timeout(shapes, 600);
    tcase_add_loop_test(shapes, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(shapes, test_more_than_2_to_the_32_threads_count_each_value_once);
    add_if_runnable(suite, shapes, LAUNCHES + 1);

    TCase *runs = exercise_tcase("one thread reads a run of one value past 65535", 0);
    tcase_set_timeout(runs, 120);
    tcase_add_test(runs, test_one_thread_counts_a_run_of_one_value_past_65535);
    tcase_add_test(runs, test_one_blocks_counter_passes_2_to_the_24);
    add_if_runnable(suite, runs, 2);

    TCase *edges = exercise_tcase("the CSV row and a count of bins refused", 0);
    tcase_add_test(edges, test_csv_prints_header_and_a_verified_row_for_each_count_of_bins);
    tcase_add_test(edges, test_bins_other_than_4096_or_65536_are_a_usage_error);
    add_if_runnable(suite, edges, 2);
    TCase *sanitized = exercise_tcase("no memory or barrier errors (compute-sanitizer memcheck, "
                                      "synccheck)",
                                      2);
    tcase_set_timeout(sanitized, 300);
    tcase_add_loop_test(sanitized, test_no_memory_or_barrier_errors, 0, SANITIZER_RUNS);
    add_if_tool(suite, sanitized, SANITIZER_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);

    TCase *big = exercise_tcase("the largest input, 4 GiB - 1 bytes", 0);
    tcase_add_test(big, test_65536_bins_past_2_gib);
    add_if_runnable(suite, big, 1);

    TCase *edge = exercise_tcase("edge: blocks under a warp, the defaults", 3);
    tcase_set_timeout(edge, 300);
    tcase_add_loop_test(edge, test_blocks_under_a_warp_count_every_bin, 0, SMALL_BLOCKS);
    tcase_add_test(edge, test_the_defaults_are_what_help_says);
    add_if_runnable(suite, edge, SMALL_BLOCKS + 1);

    /* refused before any GPU is opened: it runs without a GPU too */
    TCase *edge_bins = exercise_tcase("edge: --bins other than 4096 or 65536 refused", 0);
    tcase_add_loop_test(edge_bins, test_a_count_of_bins_not_4096_or_65536_is_refused, 0, BAD_BINS);
    add_tcase(suite, edge_bins, BAD_BINS);

    /* read from the PTX: it runs without a GPU too */
    TCase *scope = exercise_tcase("the merge's atomics are device-wide (read in the PTX)", 2);
    tcase_add_test(scope, test_the_merge_is_device_wide);
    add_tcase(suite, scope, 1);
    return run_exercise(suite);
}
