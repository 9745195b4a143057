/*
 * check_warp_histograms.c - exercise 05 counts every byte with a copy of the
 * bins per warp: every bin matches the CPU reference on every size and kind,
 * for one warp per block and for 32, on one block and on many; with
 * --show-copies, each warp's copy, taken before the merge, holds exactly the
 * bytes that warp's lanes read (so warps that share one copy are caught even
 * when the total is right); with --check-merge, every thread reads the whole
 * merged histogram after the block's next barrier; block sizes that are not
 * whole warps are refused.
 * Inside the kernel: compute-sanitizer's racecheck for shared-memory hazards,
 * and the GPU's counters (ncu) for a shared atomic per byte and a merge by the
 * whole block with one global atomic per bin; a kernel of the check's own
 * runs merge_warp_copies with a histogram per thread, to see that every thread
 * of the block takes bins. Last the largest input.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* One warp per block: one copy, so only the count within a warp can be wrong
 * (lanes that read the same byte value at once: constant data). */
static const char *const one_warp[] = {"--threads 32", "--blocks 1 --threads 32",
                                       "--blocks 100000 --threads 32"};
#define ONE_WARP ((int)(sizeof one_warp / sizeof one_warp[0]))

START_TEST(test_one_warp_per_block_counts_right)
{
    check_matches_reference(1000003, DATA_CONSTANT, 8, one_warp[_i]); /* lanes collide */
    check_matches_reference(1000003, DATA_UNIFORM, 7, one_warp[_i]);
    check_matches_reference(257, DATA_SKEWED, 9, one_warp[_i]);
}
END_TEST

/* One block of one warp on 20 MiB of one byte value: that warp's copy holds
 * 20 Mi (20971520) in one bin, past 2^24 and far below 2^32. The solution
 * prints 20971520 for that bin; a count that wraps its bin at 16 Mi (an
 * atomicInc with a limit of 2^24 - 1, which is not an add with a cap) prints
 * 20971520 - 2^24 = 4194304. The run's cost: 20 Mi atomics by one warp's
 * lanes on one shared address (the group's time limit is 300 s). */
START_TEST(test_one_warp_counts_past_16_mi_of_one_value)
{
    check_matches_reference((size_t)20 << 20, DATA_CONSTANT, 8, "--blocks 1 --threads 32");
}
END_TEST

/* 2, 3, 8 and 32 warps per block: a merge that forgets a copy, or reads one
 * before its warp has finished, shows up as soon as there is more than one
 * warp; one block must still cover the whole input, and 100 blocks of 1024
 * threads leave each warp few rounds, so warps finish at different times. */
static const char *const launches[] = {
    "--threads 64",
    "--threads 96",
    "--threads 256",
    "--threads 1024",
    "--blocks 1",
    "--blocks 1 --threads 1024",
    "--blocks 100 --threads 1024",
    /* more than 2^32 threads (4194305 x 1024): an index computed in 32 bits
     * before it is widened wraps, and threads past 2^32 count bytes again */
    "--blocks 4194305 --threads 1024",
};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_warp_count_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]); /* lanes collide */
    check_matches_reference(257, DATA_SKEWED, 9, launches[_i]);
}
END_TEST

/* --show-copies on one block of threads: the program prints "copy <w>: <256
 * counts>" for every warp w, taken after the count and before the merge. With
 * one block, thread t reads bytes t, t + threads, t + 2 threads, ..., so warp
 * w's copy must be the histogram of the bytes whose position mod threads lies
 * in [32 w, 32 w + 32). */
#define MOST_WARPS 32
static unsigned int expected_copies[MOST_WARPS][BINS], got_copies[MOST_WARPS][BINS];

static void check_copies(size_t size, enum data_kind kind, uint64_t seed, int threads)
{
    int warps = threads / 32;
    unsigned char *bytes = malloc(size ? size : 1);
    ck_assert(bytes != NULL);
    fill_input(kind, bytes, size, seed);
    memset(expected_copies, 0, sizeof expected_copies);
    for (size_t i = 0; i < size; i++)
        expected_copies[(i % (size_t)threads) / 32][bytes[i]]++;
    free(bytes);

    char args[256], command[4096 + 512];
    snprintf(args, sizeof args,
             "--size %zu --data %s --seed %" PRIu64 " --reps 1 --threads %d --show-copies", size,
             data_kind_name(kind), seed, threads);
    snprintf(command, sizeof command, "'%s' %s 2>/dev/null", stage_program(), args);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    memset(got_copies, 0, sizeof got_copies);
    bool seen[MOST_WARPS] = {false};
    char *line = NULL;
    size_t line_size = 0;
    while (getline(&line, &line_size, p) > 0) {
        int w, used;
        if (sscanf(line, "copy %d:%n", &w, &used) != 1 || w < 0 || w >= warps)
            continue;
        seen[w] = true;
        char *at = line + used;
        for (int bin = 0; bin < BINS; bin++)
            got_copies[w][bin] = (unsigned int)strtoul(at, &at, 10);
    }
    free(line);
    int status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s: did not exit 0 (run it to see why)", args);
    for (int w = 0; w < warps; w++) {
        ck_assert_msg(seen[w], "%s: no 'copy %d:' line", args, w);
        uint64_t want = 0, got = 0;
        for (int bin = 0; bin < BINS; bin++) {
            want += expected_copies[w][bin];
            got += got_copies[w][bin];
        }
        ck_assert_msg(got == want,
                      "%s: warp %d's copy holds %" PRIu64 " counts before the merge; its 32 lanes "
                      "read %" PRIu64 " bytes (a copy shared by several warps holds more, one "
                      "nobody counts into holds 0, a racy ++ loses some)",
                      args, w, got, want);
        for (int bin = 0; bin < BINS; bin++)
            ck_assert_msg(got_copies[w][bin] == expected_copies[w][bin],
                          "%s: warp %d's copy has %u in bin %d; its lanes read %u such bytes", args,
                          w, got_copies[w][bin], bin, expected_copies[w][bin]);
    }
}

START_TEST(test_each_warp_counts_into_its_own_copy)
{
    check_copies(100003, DATA_UNIFORM, 11, 256);
    check_copies(30011, DATA_CONSTANT, 12, 64); /* every lane of a warp on one bin at once */
    check_copies(1000003, DATA_SKEWED, 13, 96);
    check_copies(257, DATA_UNIFORM, 14, 1024); /* warps 9 to 31 read nothing */
    /* 32 warps that all read bytes: past 16 warps (512 threads) every copy
     * still belongs to one warp alone, so copies 16 to 31 hold counts too */
    check_copies(100003, DATA_UNIFORM, 15, 1024);
}
END_TEST

/* --check-merge: one block counts the input and merges, then meets at one more
 * __syncthreads(), after which every thread reads all 256 merged bins. They
 * must all be right. A merge with a barrier that threads meet unequally often
 * (inside a loop that some threads run fewer times) counts right on its own,
 * but that extra barrier pairs with the next one and lets threads out early.
 * Block sizes whose threads share the 256 bins unequally: 1024 (768 threads
 * have no bin), 288, 96; 32 (one warp, 8 bins each) as a control. */
static const char *const merge_reads[] = {
    "--size 100003 --threads 1024", "--size 30011 --data skewed --threads 288",
    "--size 5003 --data constant --threads 96", "--size 1000 --threads 32"};
#define MERGE_READS ((int)(sizeof merge_reads / sizeof merge_reads[0]))

START_TEST(test_the_merge_is_whole_when_it_returns)
{
    char args[160];
    snprintf(args, sizeof args, "%s --reps 1 --check-merge", merge_reads[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == EXIT_OK && strstr(o.out, "bins after the barrier that follows "
                                                            "the merge: 0 reads wrong"),
                  "%s: %s; some threads read the merged bins before every thread had added its "
                  "part, though all had returned from merge_warp_copies and met at one more "
                  "barrier: %s%s",
                  args, exit_meaning(&o), o.out, o.err);
}
END_TEST

/* ------------------------------------------------ inside the kernel -- */

/* compute-sanitizer's racecheck watches every shared-memory access: a merge
 * that reads a copy while a warp may still be counting into it (no
 * __syncthreads() between), or a plain ++ two lanes make at once, is a hazard
 * even on a run whose histogram came out right. Small inputs: it is slow. */
static const char *const race_runs[] = {
    "--size 65536 --reps 1 --threads 256 --blocks 4",
    "--size 100003 --data constant --reps 1 --threads 1024 --blocks 2",
    "--size 3001 --data skewed --reps 1 --threads 96 --blocks 3",
    /* one warp a block: a control, the merge with no other warp to wait for */
    "--size 3001 --data constant --reps 1 --threads 32 --blocks 2"};
#define RACE_RUNS ((int)(sizeof race_runs / sizeof race_runs[0]))

START_TEST(test_no_shared_memory_races)
{
    check_no_gpu_races(race_runs[_i]);
}
END_TEST

/* One launch as the GPU's counters see it (Nsight Compute), in warp
 * instructions: an instruction that 32 lanes run together counts once. 4 MiB
 * of uniform bytes on 64 blocks of 256 threads: each block reads 64 KiB, so
 * every bin of every block gets bytes. */
#define PROFILED_SIZE    ((size_t)4 << 20)
#define PROFILED_BLOCKS  64
#define PROFILED_THREADS 256

/* The per-launch means of metrics over the program's launches of histo_kernel. */
static void profile_one_launch(const char *const *metrics, int count, double *per_launch,
                               char *args, size_t args_size)
{
    snprintf(args, args_size,
             "--size %zu --data uniform --seed 5 --reps 1 --threads %d --blocks %d", PROFILED_SIZE,
             PROFILED_THREADS, PROFILED_BLOCKS);
    profile_kernel(args, "histo_kernel", metrics, count, per_launch);
    for (int i = 0; i < count; i++)
        per_launch[i] /= profile_launches();
}

/* Each byte is counted with a shared-memory atomic: a warp's 32 lanes count
 * 32 bytes with one instruction, so a launch runs at least size / 32 of them.
 * Lanes that take turns with plain ++, or counts kept anywhere but shared
 * memory, run none. */
START_TEST(test_each_byte_counted_with_a_shared_atomic)
{
    const char *const metrics[] = {"smsp__inst_executed_op_shared_atom.sum"};
    double shared_atomics;
    char args[256];
    profile_one_launch(metrics, 1, &shared_atomics, args, sizeof args);
    double least = 0.9 * (double)PROFILED_SIZE / 32;
    ck_assert_msg(shared_atomics >= least,
                  "%s: %.0f shared-memory atomic instructions per launch, expected at least %.0f "
                  "(one per 32 bytes, a warp's lanes counting together): count each byte into its "
                  "warp's copy with an atomic add on shared memory",
                  args, shared_atomics, least);
}
END_TEST

/* Each byte is loaded once: a warp's 32 lanes load 32 bytes in a row, one
 * 32-byte sector a load request (the input comes from cudaMalloc, aligned;
 * 4 MiB over 64 x 256 threads leave no partial step), so the launch asks L1
 * for the input's 131072 sectors, cache hits included, and the merge loads
 * nothing from global memory (its reads are of shared copies, its writes
 * atomics). A kernel that walks the input twice (one pass per half of the
 * bins, say) asks for twice as many, even where the second walk hits in
 * cache. Bound: 1.5 times the input's sectors. The counts are exact, not
 * timed. */
START_TEST(test_each_byte_of_the_input_loaded_once)
{
    const char *const metrics[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"};
    double sectors;
    char args[256];
    profile_one_launch(metrics, 1, &sectors, args, sizeof args);
    double input_sectors = (double)PROFILED_SIZE / 32;
    ck_assert_msg(sectors <= 1.5 * input_sectors,
                  "%s: the kernel's loads asked for %.0f 32-byte sectors per launch, want at most "
                  "%.0f (the 4 MiB input is %.0f sectors): each thread should read each of its "
                  "bytes once, in one walk over the input, and count it there",
                  args, sectors, 1.5 * input_sectors, input_sectors);
}
END_TEST

/* The merge as the lesson has it: every thread of the block takes bins, reads
 * each warp's copy of them, and sends one global atomic per bin. A block of
 * 256 threads merges its 256 bins with 8 warp instructions of each kind per
 * copy: 8 global atomics and 8 x 8 copy reads. One thread merging alone runs
 * 256 of each; an atomic per copy runs 8 x 8 global atomics; a plain += none. */
START_TEST(test_the_block_merges_with_one_global_atomic_per_bin)
{
    const char *const metrics[] = {
        "smsp__inst_executed_op_global_red.sum", "smsp__inst_executed_op_generic_atom.sum",
        "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_global_red.max"};
    double counts[4];
    char args[256];
    profile_one_launch(metrics, 4, counts, args, sizeof args);
    double global_atomics = counts[0] + counts[1], shared_loads = counts[2];
    int warps = PROFILED_THREADS / 32;
    double bin_instructions = (double)PROFILED_BLOCKS * BINS / 32; /* 8 per block */
    ck_assert_msg(global_atomics >= 0.5 * bin_instructions,
                  "%s: %.0f global atomic instructions per launch, expected about %.0f (%d blocks "
                  "x 256 bins, 32 bins to an instruction): the merge must add each block's sum to "
                  "its global bin with an atomic add, or blocks that merge one bin at once lose "
                  "counts",
                  args, global_atomics, bin_instructions, PROFILED_BLOCKS);
    ck_assert_msg(global_atomics <= 2 * bin_instructions,
                  "%s: %.0f global atomic instructions per launch, expected about %.0f (%d blocks "
                  "x 256 bins, 32 bins to an instruction): add up the %d copies of a bin first, "
                  "then send one atomic per bin, with every thread of the block taking bins",
                  args, global_atomics, bin_instructions, PROFILED_BLOCKS, warps);
    ck_assert_msg(shared_loads <= 4 * bin_instructions * warps,
                  "%s: %.0f shared-memory reads per launch (warp instructions), expected about "
                  "%.0f (%d blocks x 256 bins x %d copies, 32 bins to an instruction): the whole "
                  "block must merge, each thread taking bins, not one thread or one lane per warp "
                  "reading them all",
                  args, shared_loads, bin_instructions * warps, PROFILED_BLOCKS, warps);
    /* Where the merge's global atomics run: a block's 8 warps sit on its SM's 4
     * schedulers (SMSPs), 2 each, so a merge by all of them gives the busiest
     * scheduler 2 of a block's 8 (4 where two blocks share an SM): a 256th of
     * the launch's, or a 128th. A merge by warp 0 alone puts all 8 on one: a
     * 64th. The bound is a 96th. */
    ck_assert_msg(counts[3] < counts[0] / 96,
                  "%s: the busiest SM scheduler ran %.1f of the launch's %.0f global atomic "
                  "instructions, more than a 96th: the merge is left to one warp of the block "
                  "(its warps share an SM's four schedulers), where every thread should take "
                  "bins",
                  args, counts[3], counts[0]);
}
END_TEST

/* The merge, run by the check's own kernel (warp_histograms-merge, built
 * beside the program from check_warp_histograms_merge.cu): one block fills
 * every warp's copy itself, never with a 0, and each thread calls
 * merge_warp_copies with a histogram of its own, so the check sees which
 * threads added which bins. The whole block takes bins: on 256 threads every
 * thread adds one bin, on 1024 no thread adds more than one (768 have none),
 * on 96 none more than three. A merge left to the first four warps (one per
 * scheduler, which the GPU's counters above cannot tell from the whole
 * block: the same instructions, as many on each scheduler) has 128 threads
 * add two bins each. */
static char merge_program[4096]; /* beside the check: main sets it */

static const int merge_threads[] = {256, 1024, 96};
#define MERGE_THREADS ((int)(sizeof merge_threads / sizeof merge_threads[0]))

START_TEST(test_every_thread_of_the_block_takes_bins_to_merge)
{
    int threads = merge_threads[_i];
    char command[4096 + 64];
    snprintf(command, sizeof command, "'%s' %d 2>&1", merge_program, threads);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    int right = -1, adders = -1, most = -1, of;
    char line[512], said[2048] = "";
    while (fgets(line, sizeof line, p)) {
        if (sscanf(line, "bins right: %d of %d", &right, &of) == 2 ||
            sscanf(line, "threads that added: %d of %d", &adders, &of) == 2 ||
            sscanf(line, "most bins one thread added: %d", &most) == 1)
            continue;
        if (strlen(said) + strlen(line) < sizeof said)
            strcat(said, line);
    }
    int status = pclose(p);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 && right >= 0 && adders >= 0 &&
                      most >= 0,
                  "%s: did not run (make check builds it): %s", command, said);
    ck_assert_msg(right == BINS,
                  "the check's kernel, one block of %d threads: %d of the %d bins merged right "
                  "(each copy's count of a bin, summed over the copies, added once)",
                  threads, right, BINS);
    int fair = (BINS + threads - 1) / threads;
    ck_assert_msg(most <= fair,
                  "the check's kernel, one block of %d threads: one thread added %d bins to the "
                  "histogram and only %d of the %d threads added any; the whole block should "
                  "merge, every thread taking bins (at most %d each here), not a few warps taking "
                  "them all while the others wait",
                  threads, most, adders, threads, fair);
}
END_TEST

/* The largest input the stages take, 4 GiB - 1 bytes. The book's int index
 * wraps past 2^31 and stops counting; an unsigned int one wraps past 2^32,
 * where i + stride falls back below the size and the loop never ends: the
 * time limit stops it. A size_t index counts every byte once. */
START_TEST(test_counts_the_largest_input)
{
    set_run_time_limit(120);
    check_matches_reference(MAX_INPUT_BYTES, DATA_UNIFORM, 9, "");
}
END_TEST

static const char *const partial_warps[] = {"--threads 1", "--threads 16", "--threads 33",
                                            "--threads 1000"};
#define PARTIAL_WARPS ((int)(sizeof partial_warps / sizeof partial_warps[0]))

START_TEST(test_threads_that_are_not_whole_warps_are_usage_errors)
{
    struct stage_output o;
    run_stage(partial_warps[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, want exit 2", partial_warps[_i],
                  exit_meaning(&o));
    char *first_newline = strchr(o.err, '\n');
    ck_assert_msg(first_newline != NULL, "%s: nothing on stderr", partial_warps[_i]);
    *first_newline = '\0'; /* the reason is the first line; the usage follows */
    ck_assert_msg(strstr(o.err, "is not a multiple of 32"), "%s: reason: %s", partial_warps[_i],
                  o.err);
    ck_assert_msg(strstr(first_newline + 1, "usage:"), "%s: no usage", partial_warps[_i]);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --threads 128 --csv", &o);
    ck_assert_msg(o.exit_status == 0,
                  "--size 4096 --data skewed --reps 2 --threads 128 --csv: %s: %s",
                  exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "05_warp_histograms,warp-histograms,", 35) == 0,
                  "row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
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
    "--size 100003 --data constant --reps 1 --threads 1024 --blocks 2",
    "--size 3001 --data skewed --reps 1 --threads 96 --blocks 3"};
#define SANITIZER_RUNS ((int)(sizeof sanitizer_runs / sizeof sanitizer_runs[0]))

START_TEST(test_no_memory_or_barrier_errors)
{
    check_no_gpu_memory_or_sync_errors(sanitizer_runs[_i]);
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* One block of 32 warps on 2 GiB + 1 bytes of one value: each warp's copy
 * holds 2^26 of them, and the merge adds the 32 copies into one sum of 2^31
 * + 1, which one global atomic adds to a bin: past what an int holds. A sum
 * kept in an int turns negative there, and a merge that adds only positive
 * sums (or compares the count as signed) drops it. Seconds: one SM reads 2
 * GiB. */
START_TEST(test_edge_one_block_sums_past_2_gi_of_one_value)
{
    set_run_time_limit(120);
    check_matches_reference(((size_t)1 << 31) + 1, DATA_CONSTANT, 8, "--blocks 1 --threads 1024");
}
END_TEST

/* With no option at all, the program runs what --help says: the book's 100
 * MiB of uniform bytes (seed 1), 10 timed runs, blocks of 256 threads and as
 * many on each SM as fit at once (the occupancy API's count for 8 KiB of
 * copies a block): a whole number of blocks per SM (the SMs read from
 * --blocks-per-sm 1), at least 4 (every GPU this workbook builds for holds
 * 1024 threads an SM or more) and at most 8 (2048 threads an SM at most), so
 * not the book's 2. */
START_TEST(test_edge_defaults_with_no_options)
{
    const char *one = "--size 4096 --reps 1 --blocks-per-sm 1";
    struct stage_output o;
    run_stage(one, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", one, exit_meaning(&o), o.err);
    long sms, blocks;
    int threads;
    read_launch(one, &o, &sms, &threads);
    run_stage("", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified,
                  "(no options): expected exit 0 and 'verified: yes', got %s; stderr: %s",
                  exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\ninput:      uniform, 104857600 bytes, seed 1\n"),
                  "(no options): expected the default input, 100 MiB of uniform bytes, seed 1: %s",
                  o.out);
    ck_assert_msg(strstr(o.out, "(median of 10 runs after 1 warm-up)"),
                  "(no options): expected the default 10 timed runs: %s", o.out);
    ck_assert_msg(o.has_sum && o.sum == 104857600, "(no options): the sum: %s", o.out);
    read_launch("(no options)", &o, &blocks, &threads);
    ck_assert_msg(threads == 256 && sms > 0 && blocks % sms == 0 && blocks / sms >= 4 &&
                      blocks / sms <= 8,
                  "(no options): launch %ld blocks x %d threads, expected 256 threads a block and "
                  "as many blocks as fit on each of the %ld SMs (4 to 8 per SM), as --help says, "
                  "not the book's 2 per SM",
                  blocks, threads, sms);
}
END_TEST

START_TEST(test_edge_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 100003 --data skewed --reps 1 --threads 1024 --blocks 3 --csv",
                             2);
}
END_TEST

/* Each option refuses a bad value: exit 2, nothing on stdout, and a first
 * line on stderr that names the option (the usage follows it). */
static const struct {
    const char *args, *option;
} refusals[] = {
    {"--size 10X", "--size"},
    {"--data photo", "--data"},
    {"--seed x", "--seed"},
    {"--reps 0", "--reps"},
    {"--blocks 0", "--blocks"},
    {"--blocks-per-sm 0", "--blocks-per-sm"},
    {"--blocks 4 --blocks-per-sm 2", "--blocks-per-sm"},
    {"--threads 0", "--threads"},
    {"--threads 48", "--threads"},
    {"--threads 1056", "--threads"},
    {"--bins 255", "--bins"},
    {"--print-bins --csv", "--print-bins"},
    {"--show-copies=yes", "--show-copies"},
    {"--check-merge=yes", "--check-merge"},
    {"--file /nonexistent/histogram-input", "--file"},
};
#define REFUSALS ((int)(sizeof refusals / sizeof refusals[0]))

START_TEST(test_edge_each_option_refuses_a_bad_value)
{
    check_refused_naming(refusals[_i].args, refusals[_i].option);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("05_warp_histograms", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(merge_program, sizeof merge_program, "%s/warp_histograms-merge", dirname(here));
    Suite *suite = suite_create("exercise 05: a private histogram per warp");

    TCase *warp = exercise_tcase("one warp per block: the count within a warp", 2);
    tcase_set_timeout(warp, 300);
    tcase_add_loop_test(warp, test_one_warp_per_block_counts_right, 0, ONE_WARP);
    tcase_add_test(warp, test_one_warp_counts_past_16_mi_of_one_value);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, warp, ONE_WARP + 1);

    TCase *counts = exercise_tcase("every bin right, for every size, kind and block size", 3);
    tcase_set_timeout(counts, 600);
    tcase_add_loop_test(counts, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_loop_test(counts, test_every_warp_count_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, counts, MATRIX_CASES + LAUNCHES);

    TCase *copies = exercise_tcase("each warp counts into its own copy (--show-copies)", 1);
    tcase_set_timeout(copies, 300);
    tcase_add_test(copies, test_each_warp_counts_into_its_own_copy);
    add_if_runnable(suite, copies, 1);

    TCase *whole = exercise_tcase("the merge is whole for every thread once it returns "
                                  "(--check-merge)",
                                  3);
    tcase_add_loop_test(whole, test_the_merge_is_whole_when_it_returns, 0, MERGE_READS);
    add_if_runnable(suite, whole, MERGE_READS);

    TCase *races = exercise_tcase("no shared-memory races, under compute-sanitizer's racecheck", 3);
    tcase_add_loop_test(races, test_no_shared_memory_races, 0, RACE_RUNS);
    add_if_tool(suite, races, RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (part of the CUDA toolkit)");

    TCase *atomics =
        exercise_tcase("each byte counted with a shared atomic (GPU counters, ncu)", 2);
    tcase_add_test(atomics, test_each_byte_counted_with_a_shared_atomic);
    add_if_tool(suite, atomics, 1, can_profile(), profile_tool_missing());

    TCase *loaded = exercise_tcase("each byte of the input loaded once (GPU counters, ncu)", 2);
    tcase_add_test(loaded, test_each_byte_of_the_input_loaded_once);
    add_if_tool(suite, loaded, 1, can_profile(), profile_tool_missing());

    TCase *merge = exercise_tcase("the whole block merges, one global atomic per bin (GPU "
                                  "counters, ncu)",
                                  3);
    tcase_add_test(merge, test_the_block_merges_with_one_global_atomic_per_bin);
    add_if_tool(suite, merge, 1, can_profile(), profile_tool_missing());

    TCase *takes = exercise_tcase("every thread of the block takes bins to merge (the check's "
                                  "own kernel)",
                                  3);
    tcase_add_loop_test(takes, test_every_thread_of_the_block_takes_bins_to_merge, 0,
                        MERGE_THREADS);
    add_if_runnable(suite, takes, MERGE_THREADS);

    TCase *edges = exercise_tcase("block sizes that are not whole warps, and the CSV row", 0);
    tcase_add_loop_test(edges, test_threads_that_are_not_whole_warps_are_usage_errors, 0,
                        PARTIAL_WARPS);
    tcase_add_test(edges, test_csv_prints_header_and_a_verified_row);
    add_if_runnable(suite, edges, PARTIAL_WARPS + 1);
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

    TCase *big = exercise_tcase("the largest input, 4 GiB - 1 bytes: every byte counted once", 0);
    tcase_set_timeout(big, 600);
    tcase_add_test(big, test_counts_the_largest_input);
    /* 4 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, big, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30), memory_missing());

    /* read from the PTX: it runs without a GPU too */
    TCase *scope = exercise_tcase("the merge's atomics are device-wide (read in the PTX)", 2);
    tcase_add_test(scope, test_the_merge_is_device_wide);
    add_tcase(suite, scope, 1);

    TCase *refused = exercise_tcase("edge: each option refuses a bad value (exit 2, a line naming "
                                    "it)",
                                    0);
    tcase_add_loop_test(refused, test_edge_each_option_refuses_a_bad_value, 0, REFUSALS);
    add_tcase(suite, refused, REFUSALS); /* refused before the GPU is opened: runs anywhere */

    TCase *edge = exercise_tcase("edge: the defaults with no options, only CSV with --csv", 0);
    tcase_set_timeout(edge, 120);
    tcase_add_test(edge, test_edge_defaults_with_no_options);
    tcase_add_test(edge, test_edge_csv_prints_only_csv);
    add_if_runnable(suite, edge, 2);

    TCase *past_int = exercise_tcase("edge: one block's merge past 2^31 counts of one value (2 GiB "
                                     "+ 1 bytes)",
                                     3);
    tcase_set_timeout(past_int, 300);
    tcase_add_test(past_int, test_edge_one_block_sums_past_2_gi_of_one_value);
    /* 2 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, past_int, 1, have_memory_for((size_t)3 << 30, (size_t)5 << 30),
                memory_missing());
    return run_exercise(suite);
}
