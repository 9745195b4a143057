/*
 * check_weighted.c - exercise 07 sums every byte's weight into its bin: on
 * every size, kind and launch shape, each of the 256 float bins is within the
 * tolerance of an exact sum computed here, in double, from the same bytes.
 * The tolerance is the bound for sums that go through the block's shared bins
 * first, so 32 MiB of one byte value tells the technique from global atomics
 * alone: one float bin taking 32 Mi weights stops growing at 2^25, some 30%
 * short. Inside the kernel, the GPU's counters (ncu) for a merge by the whole
 * block with one global atomic per bin; racecheck for a barrier or an atomic
 * left out. 4 GiB - 1 bytes catch an index that wraps.
 * Without a GPU these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The program's weights, rebuilt: 1 + (i mod 256) / 256, exact in a double. */
static void reference_bins(const unsigned char *buffer, size_t size, double exact[BINS])
{
    for (int bin = 0; bin < BINS; bin++)
        exact[bin] = 0.0;
    for (size_t i = 0; i < size; i++)
        exact[buffer[i]] += 1.0 + (double)(i % 256) / 256.0;
}

/* The tolerance, recomputed from the launch the program reports rather than
 * read from its output: 2 d 2^-24 for a float sum whose terms go through at
 * most d additions, a block's share of the input and one per block. */
static double tolerance(size_t size, long blocks, int threads)
{
    double d = ceil((double)size / ((double)blocks * threads)) * threads + (double)blocks;
    return 2.0 * d * 0x1p-24;
}

/* Finds a line of the report by its label and returns the text after it. */
static const char *field(const char *out, const char *label)
{
    const char *line = strstr(out, label);
    ck_assert_msg(line != NULL, "no '%s' line in: %s", label, out);
    return line + strlen(label);
}

static void check_weighted(size_t size, enum data_kind kind, uint64_t seed, const char *extra)
{
    unsigned char *buffer = malloc(size ? size : 1);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    double exact[BINS];
    reference_bins(buffer, size, exact);
    free(buffer);

    char args[512];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %" PRIu64 " --reps 1 --print-bins %s",
             size, data_kind_name(kind), seed, extra);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
    long blocks;
    int threads;
    ck_assert_msg(sscanf(field(o.out, "\nlaunch:"), "%ld blocks x %d threads", &blocks, &threads) ==
                      2,
                  "%s: cannot read the launch", args);
    double tol = tolerance(size, blocks, threads);

    /* The bins follow the report, one "<bin>: <sum>" line each, in order. */
    const char *line = strstr(o.out, "\n0: ");
    ck_assert_msg(line != NULL, "%s: no bins in: %s", args, o.out);
    for (int bin = 0; bin < BINS; bin++) {
        int got_bin, used = 0;
        double sum;
        ck_assert_msg(line && sscanf(line, " %d: %lf%n", &got_bin, &sum, &used) == 2 &&
                          got_bin == bin,
                      "%s: bin %d missing", args, bin);
        double error = exact[bin] > 0 ? fabs(sum - exact[bin]) / exact[bin] : fabs(sum);
        ck_assert_msg(error <= tol, "%s: bin %d is %.9g, not within %.3g of %.17g%s", args, bin,
                      sum, tol, exact[bin],
                      sum > 0 ? " (if every bin has a sum and this one is simply too far off, "
                                "see also hint 4)"
                              : "");
        line += used;
    }
}

/* One byte value, 32 Mi times: every weight lands in one bin. Through a
 * block's shared bin first, each weight goes through at most a block's share
 * of additions plus one per block, and the bin is within the tolerance; with
 * one global atomicAdd per byte, the one global bin takes 32 Mi additions and
 * passes 2^24, where a float can no longer add a weight under 2 exactly, and
 * 2^25, where it stops growing: far outside it. */
static const char *const heavy_bins[] = {"--blocks 1024 --threads 256", "",
                                         /* blocks below 256 threads keep their shared bins too */
                                         "--blocks 1024 --threads 128"};
#define HEAVY_BINS ((int)(sizeof heavy_bins / sizeof heavy_bins[0]))

START_TEST(test_one_bin_of_32_mib_stays_within_the_shared_memory_bound)
{
    check_weighted((size_t)32 << 20, DATA_CONSTANT, 5, heavy_bins[_i]);
}
END_TEST

/* One block alone takes 6 MiB of one byte value: its shared bin sums 6 Mi
 * weights, some 2^23.2 in all. A float bin holds that within the tolerance
 * (0.75 of the sum, for a share this large); a bin kept as whole 256ths in
 * an int passes 2^31 there and wraps below zero, and converting it at the
 * merge cannot undo that. */
START_TEST(test_one_blocks_heavy_bin_does_not_wrap)
{
    check_weighted((size_t)6 << 20, DATA_CONSTANT, 5, "--blocks 1 --threads 1024");
}
END_TEST

/* Around the powers of two where the tail and a block's share break, and a prime. */
static const size_t sizes[] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_every_bin_matches_reference_for_every_size_and_kind)
{
    check_weighted(sizes[_i / 4], (enum data_kind)(_i % 4), 1000 + (uint64_t)_i, "");
}
END_TEST

/* The shapes a student will try: block sizes below 256 and not powers of two
 * break a merge that assumes 256 threads; one block must still cover the input;
 * 100 blocks of 1024 threads leave each thread few rounds, so a merge that does
 * not wait for the whole block reads bins other warps are still adding to. */
static const char *const launches[] = {"--blocks 1",
                                       "--threads 32",
                                       "--threads 33",
                                       "--threads 1000",
                                       "--threads 1024",
                                       "--blocks 1 --threads 1024",
                                       "--blocks-per-sm 16",
                                       "--blocks 100000 --threads 32",
                                       "--blocks 100 --threads 1024"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_weighted(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_weighted(1000003, DATA_CONSTANT, 8, launches[_i]); /* one bin takes every weight */
}
END_TEST

/* More than 2^32 threads (4194305 blocks of 1024) on 1000 bytes: only the
 * first block has bytes to read. The tolerance grows with the blocks (each
 * adds a rounded sum): here it is half a bin's sum. A first index computed
 * in 32 bits before it is widened wraps to 0 in the last block, whose threads
 * add every byte's weight a second time: each bin that holds a byte doubles. */
START_TEST(test_more_than_2_to_the_32_threads_add_each_weight_once)
{
    check_weighted(1000, DATA_UNIFORM, 9, "--blocks 4194305 --threads 1024");
}
END_TEST

/* ------------------------------------------------ inside the kernel -- */

/* No racecheck here yet: whether it reports a right kernel's float atomicAdd
 * on shared memory as a hazard was not tried on a GPU. The counts below see
 * the merge instead. */

/* One launch as the GPU's counters see it (Nsight Compute), in warp
 * instructions, an instruction that 32 lanes run together counting once: 4
 * MiB of uniform bytes on 64 blocks of 256 threads, each block merging its
 * 256 bins with 8 global atomic instructions, 512 in all. One thread merging
 * alone runs 256 per block; a plain += runs none. The zeroing stores to
 * shared memory: 8 store instructions a block, one a warp, 512 in all (the
 * adds are atomics, counted apart; were a float atomic's compare-and-store
 * loop counted as stores, they would be spread over every warp alike). */
#define PROFILED_BLOCKS 64

START_TEST(test_the_block_merges_with_one_global_atomic_per_bin)
{
    const char *const metrics[] = {
        "smsp__inst_executed_op_global_red.sum", "smsp__inst_executed_op_generic_atom.sum",
        "smsp__inst_executed_op_global_red.max", "smsp__inst_executed_op_generic_atom.max",
        "smsp__inst_executed_op_shared_st.sum",  "smsp__inst_executed_op_shared_st.max"};
    double counts[6];
    char args[256];
    snprintf(args, sizeof args,
             "--size 4194304 --data uniform --seed 5 --reps 1 --threads 256 --blocks %d",
             PROFILED_BLOCKS);
    profile_kernel(args, "weighted_kernel", metrics, 6, counts);
    double global_atomics = (counts[0] + counts[1]) / profile_launches();
    double bin_instructions = (double)PROFILED_BLOCKS * BINS / 32;
    ck_assert_msg(global_atomics >= 0.5 * bin_instructions,
                  "%s: %.0f global atomic instructions per launch, expected about %.0f (%d blocks "
                  "x 256 bins, 32 bins to an instruction): add each shared bin to its global bin "
                  "with an atomic add, or blocks that merge one bin at once lose sums",
                  args, global_atomics, bin_instructions, PROFILED_BLOCKS);
    ck_assert_msg(global_atomics <= 2 * bin_instructions,
                  "%s: %.0f global atomic instructions per launch, expected about %.0f (%d blocks "
                  "x 256 bins, 32 bins to an instruction): let every thread of the block take "
                  "bins in the merge, one atomic per bin, as the zeroing does",
                  args, global_atomics, bin_instructions, PROFILED_BLOCKS);
    /* Where the merge's atomics run: a block's 8 warps sit on its SM's 4
     * schedulers (SMSPs), 2 each, so a merge by all of them gives the busiest
     * scheduler 2 of a block's 8 (4 where two blocks share an SM): a 256th of
     * the launch's, or a 128th. A merge by warp 0 alone puts all 8 on one: a
     * 64th. The bound is a 96th. */
    double busiest = counts[2] + counts[3], all = counts[0] + counts[1];
    ck_assert_msg(busiest < all / 96,
                  "%s: the busiest SM scheduler ran %.1f of the launch's %.0f global atomic "
                  "instructions, more than a 96th: the merge is left to one warp of the block "
                  "(its warps share an SM's four schedulers), where every thread should take "
                  "bins",
                  args, busiest, all);
    /* The zeroing by the whole block: 2 of a block's 8 stores on its busiest
     * scheduler, a 256th of the launch's (a 128th where two blocks share an
     * SM); one warp zeroing alone (or thread 0, 256 stores a block) puts a
     * whole block's on one: a 64th. The bound is a 96th. */
    ck_assert_msg(counts[5] < counts[4] / 96,
                  "%s: the busiest SM scheduler ran %.1f of the launch's %.0f shared-memory store "
                  "instructions, more than a 96th: the bins are zeroed by one warp of the block "
                  "(its warps share an SM's four schedulers), where every thread should take "
                  "bins (see hint 3)",
                  args, counts[5], counts[4]);
}
END_TEST

/* One block of 256 threads alone on the GPU, on 256 bytes, one a thread (so
 * that the adds make few instructions besides the zeroing and the merge):
 * its 8 warps sit on its SM's 4 schedulers in turn, 2 each. The merge, 8
 * global atomic instructions, one a warp, gives the busiest scheduler 2, a
 * quarter of them; a merge by two warps (four bins a lane) puts 4 on each of
 * two: a half. The bound is 3 of 8, between a quarter and a half. The
 * zeroing: 8 shared-memory store instructions, spread the same; thread 0
 * zeroing alone runs 256 (64 were the compiler to join four bins a store),
 * all on one scheduler. The count's bound is 32, four times the solution's,
 * room for a float atomic's compare-and-store loop on the adds, were it
 * counted as stores. */
#define ONE_BLOCK_ARGS "--size 256 --data uniform --seed 5 --reps 1 --threads 256 --blocks 1"

START_TEST(test_one_blocks_merge_and_zeroing_use_all_its_warps)
{
    const char *const metrics[] = {
        "smsp__inst_executed_op_global_red.sum", "smsp__inst_executed_op_generic_atom.sum",
        "smsp__inst_executed_op_global_red.max", "smsp__inst_executed_op_generic_atom.max",
        "smsp__inst_executed_op_shared_st.sum",  "smsp__inst_executed_op_shared_st.max"};
    double counts[6];
    profile_kernel(ONE_BLOCK_ARGS, "weighted_kernel", metrics, 6, counts);
    double all = counts[0] + counts[1], busiest = counts[2] + counts[3];
    ck_assert_msg(all > 0 && busiest <= all * 3 / 8,
                  "%s: the busiest SM scheduler ran %.1f of the one block's %.0f global atomic "
                  "instructions, expected a quarter (its 8 warps on 4 schedulers, 2 each), at "
                  "most 3 of 8: the merge is left to a few warps of the block, where every "
                  "thread should take bins",
                  ONE_BLOCK_ARGS, busiest, all);
    double stores = counts[4] / profile_launches();
    ck_assert_msg(stores <= 4 * BINS / 32,
                  "%s: the one block ran %.0f shared-memory store instructions, expected about "
                  "%d (256 bins, 32 bins to an instruction), at most %d: the bins are zeroed by "
                  "too few threads (one thread alone?), where every thread should take bins "
                  "(see hint 3)",
                  ONE_BLOCK_ARGS, stores, BINS / 32, 4 * BINS / 32);
    ck_assert_msg(counts[4] > 0 && counts[5] <= counts[4] * 3 / 8,
                  "%s: the busiest SM scheduler ran %.1f of the one block's %.0f shared-memory "
                  "store instructions, expected a quarter (its 8 warps on 4 schedulers, 2 "
                  "each), at most 3 of 8: the bins are zeroed by a few warps of the block (one "
                  "thread alone?), where every thread should take bins (see hint 3)",
                  ONE_BLOCK_ARGS, counts[5], counts[4]);
}
END_TEST

/* The largest input the stages take, 4 GiB - 1 bytes: a thread's index must
 * not wrap. The book's int index wraps past 2^31 and stops there, leaving
 * half the weights out; an unsigned int one wraps past 2^32, where the index
 * plus the stride falls back below the size and the loop never ends: the time
 * limit stops it. 20000 blocks keep the tolerance near 3%. */
START_TEST(test_sums_the_largest_input)
{
    set_run_time_limit(120);
    check_weighted(MAX_INPUT_BYTES, DATA_UNIFORM, 21, "--blocks 20000");
}
END_TEST

/* compute-sanitizer's racecheck: no two threads of a block touch one shared
 * bin, one of them writing, without an atomic or a barrier between them (a
 * plain +=; a bin zeroed while another thread adds to it; a merge that reads
 * a bin another thread still adds to). Small inputs: racecheck is slow. */
static const char *const race_runs[] = {"--size 64K --blocks 4 --threads 128 --reps 1",
                                        "--size 64K --data constant --blocks 2 --threads 96 "
                                        "--reps 1"};
#define RACE_RUNS ((int)(sizeof race_runs / sizeof race_runs[0]))

START_TEST(test_no_shared_memory_races)
{
    check_no_gpu_races(race_runs[_i]);
}
END_TEST

START_TEST(test_default_is_the_books_100_mib)
{
    struct stage_output o;
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "--reps 1: %s: %s", exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "uniform, 104857600 bytes"), "--reps 1: not the book's 100 MiB: %s",
                  o.out);
    ck_assert_msg(o.says_verified, "--reps 1: no 'verified: yes' line");
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "--size 4096 --data skewed --reps 2 --csv: %s: %s",
                  exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "07_weighted,mine,", 17) == 0, "row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "not verified: %s", row);
}
END_TEST

START_TEST(test_too_few_blocks_for_a_float_bound_is_a_usage_error)
{
    struct stage_output o;
    run_stage("--size 20M --blocks 1 --reps 1", &o); /* past 2^23 additions into one bin */
    ck_assert_msg(o.exit_status == EXIT_USAGE, "--size 20M --blocks 1: %s, want exit 2",
                  exit_meaning(&o));
    ck_assert_msg(strstr(o.err, "too few blocks"), "--size 20M --blocks 1: reason: %s", o.err);
}
END_TEST

/* The same, in blocks of 256 and 1024 threads, where each thread zeroes one
 * bin or none: the barrier between zeroing and adding is still needed there
 * (a warp that runs late zeroes a bin after another has added to it), and
 * racecheck reports the add that no barrier orders after the zero store. */
static const char *const large_block_race_runs[] = {
    "--size 64K --blocks 2 --threads 256 --reps 1",
    "--size 64K --blocks 2 --threads 1024 --reps 1"};
#define LARGE_BLOCK_RACE_RUNS                                                                      \
    ((int)(sizeof large_block_race_runs / sizeof large_block_race_runs[0]))

START_TEST(test_no_shared_memory_races_in_large_blocks)
{
    check_no_gpu_races(large_block_race_runs[_i]);
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

/* ------------------------------------------------------------ edges -- */

/* Blocks of fewer threads than a warp: 1 and 8 threads. A zeroing or a merge
 * left to the first warp's 32 lanes (a stride of 32, or threadIdx.x < 32)
 * is right in blocks of 32 or 33 threads, but here lanes 1 to 31 (or 8 to
 * 31) do not exist and their bins are never merged: sums of 0 where the
 * exact ones are not. */
static const char *const small_blocks[] = {"--threads 1 --blocks 64", "--threads 8 --blocks 64",
                                           "--threads 1"};
#define SMALL_BLOCKS ((int)(sizeof small_blocks / sizeof small_blocks[0]))

START_TEST(test_blocks_under_a_warp_merge_every_bin)
{
    check_weighted(100003, DATA_UNIFORM, 31, small_blocks[_i]);
    check_weighted(100003, DATA_CONSTANT, 32, small_blocks[_i]);
}
END_TEST

/* A grid of more than 2^32 threads on more bytes than a block has threads:
 * the stride blockDim.x * gridDim.x multiplied in 32 bits (then widened)
 * wraps to 1024 here (4194305 x 1024 = 2^32 + 1024), so each thread of the
 * first blocks comes back for bytes other blocks add too, and most weights
 * are added several times. 1000 bytes (the other group's run) are fewer than
 * the wrapped stride and cannot show it. */
START_TEST(test_a_stride_past_2_to_the_32_adds_each_weight_once)
{
    check_weighted(100003, DATA_UNIFORM, 33, "--blocks 4194305 --threads 1024");
}
END_TEST

/* The largest input one block of 256 threads may sum, the bound's own edge:
 * 2^23 additions at most into one shared bin (its share plus one), so
 * 32767 x 256 bytes of one value are taken and must sum within the
 * tolerance, and a byte more (32768 rounds of 256 threads) is refused. */
START_TEST(test_one_block_sums_up_to_the_bound_and_refuses_past_it)
{
    size_t largest = ((((size_t)1 << 23) - 1) / 256) * 256; /* rounds x threads + 1 <= 2^23 */
    check_weighted(largest, DATA_CONSTANT, 34, "--blocks 1 --threads 256");
    char args[128];
    snprintf(args, sizeof args, "--size %zu --data constant --blocks 1 --threads 256 --reps 1",
             largest + 1);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE && strstr(o.err, "too few blocks"),
                  "%s: %s, stderr: %s; expected exit 2 with 'too few blocks': one block would "
                  "take 2^23 + 1 additions into one float bin",
                  args, exit_meaning(&o), o.err);
}
END_TEST

/* With no launch options the grid is what --help says: 2 blocks per SM of
 * 256 threads (the same launch as --blocks-per-sm 2 --threads 256), and 10
 * timed runs. */
START_TEST(test_the_defaults_are_the_books)
{
    struct stage_output o, book;
    run_stage("--size 1000", &o);
    ck_assert_msg(o.exit_status == 0, "--size 1000: %s, stderr: %s", exit_meaning(&o), o.err);
    run_stage("--size 1000 --reps 1 --blocks-per-sm 2 --threads 256", &book);
    ck_assert_msg(book.exit_status == 0,
                  "--size 1000 --blocks-per-sm 2 --threads 256: %s, "
                  "stderr: %s",
                  exit_meaning(&book), book.err);
    long blocks, book_blocks;
    int threads, book_threads;
    ck_assert_msg(sscanf(field(o.out, "\nlaunch:"), "%ld blocks x %d threads", &blocks, &threads) ==
                      2,
                  "--size 1000: cannot read the launch");
    ck_assert_msg(sscanf(field(book.out, "\nlaunch:"), "%ld blocks x %d threads", &book_blocks,
                         &book_threads) == 2,
                  "--size 1000 --blocks-per-sm 2 --threads 256: cannot read the launch");
    ck_assert_msg(blocks == book_blocks && threads == 256,
                  "--size 1000 (no launch options): launch %ld blocks x %d threads, expected "
                  "the default, 2 blocks per SM of 256 threads: %ld x 256",
                  blocks, threads, book_blocks);
    ck_assert_msg(strstr(o.out, "(median of 10 runs"),
                  "--size 1000 (no --reps): expected 10 timed runs, '(median of 10 runs', in: %s",
                  o.out);
    ck_assert_msg(o.says_verified, "--size 1000: no 'verified: yes' line");
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("07_weighted", argc, argv);
    Suite *suite = suite_create("exercise 07: weighted histogram");

    TCase *sums = exercise_tcase("every bin within tolerance, for every size and kind", 1);
    tcase_set_timeout(sums, 300);
    tcase_add_loop_test(sums, test_every_bin_matches_reference_for_every_size_and_kind, 0,
                        SIZES * 4);
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, sums, SIZES * 4);

    TCase *shapes = exercise_tcase("every bin within tolerance, for every launch shape", 3);
    tcase_set_timeout(shapes, 300);
    tcase_add_loop_test(shapes, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(shapes, test_more_than_2_to_the_32_threads_add_each_weight_once);
    add_if_runnable(suite, shapes, LAUNCHES + 1);

    TCase *shared = exercise_tcase("the block's shared bins keep a heavy bin's error small", 4);
    tcase_set_timeout(shared, 300);
    tcase_add_loop_test(shared, test_one_bin_of_32_mib_stays_within_the_shared_memory_bound, 0,
                        HEAVY_BINS);
    tcase_add_test(shared, test_one_blocks_heavy_bin_does_not_wrap);
    add_if_runnable(suite, shared, HEAVY_BINS + 1);

    TCase *merge = exercise_tcase("the whole block merges, one global atomic per bin (GPU "
                                  "counters, ncu)",
                                  3);
    tcase_add_test(merge, test_the_block_merges_with_one_global_atomic_per_bin);
    tcase_add_test(merge, test_one_blocks_merge_and_zeroing_use_all_its_warps);
    add_if_tool(suite, merge, 2, can_profile(), profile_tool_missing());

    TCase *edges = exercise_tcase("the CSV row, and too few blocks refused", 0);
    tcase_add_test(edges, test_csv_prints_header_and_a_verified_row);
    tcase_add_test(edges, test_too_few_blocks_for_a_float_bound_is_a_usage_error);
    add_if_runnable(suite, edges, 2);

    TCase *races = exercise_tcase("no shared-memory races (compute-sanitizer racecheck)", 2);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_shared_memory_races, 0, RACE_RUNS);
    add_if_tool(suite, races, RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    TCase *large_races = exercise_tcase("no shared-memory races in blocks of 256 and 1024 threads "
                                        "(racecheck)",
                                        2);
    tcase_set_timeout(large_races, 300);
    tcase_add_loop_test(large_races, test_no_shared_memory_races_in_large_blocks, 0,
                        LARGE_BLOCK_RACE_RUNS);
    add_if_tool(suite, large_races, LARGE_BLOCK_RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    TCase *large = exercise_tcase("the largest input, 4 GiB - 1 bytes: every weight summed", 0);
    tcase_set_timeout(large, 600);
    tcase_add_test(large, test_sums_the_largest_input);
    /* 4 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, large, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());

    TCase *big = exercise_tcase("the default input, the book's 100 MiB", 0);
    tcase_set_timeout(big, 300);
    tcase_add_test(big, test_default_is_the_books_100_mib);
    add_if_runnable(suite, big, 1);

    TCase *edge = exercise_tcase("edge: blocks under a warp, a stride past 2^32, one block's "
                                 "largest sum, the defaults",
                                 3);
    tcase_set_timeout(edge, 300);
    tcase_add_loop_test(edge, test_blocks_under_a_warp_merge_every_bin, 0, SMALL_BLOCKS);
    tcase_add_test(edge, test_a_stride_past_2_to_the_32_adds_each_weight_once);
    tcase_add_test(edge, test_one_block_sums_up_to_the_bound_and_refuses_past_it);
    tcase_add_test(edge, test_the_defaults_are_the_books);
    add_if_runnable(suite, edge, SMALL_BLOCKS + 3);

    /* read from the PTX: it runs without a GPU too */
    TCase *scope = exercise_tcase("the merge's atomics are device-wide (read in the PTX)", 2);
    tcase_add_test(scope, test_the_merge_is_device_wide);
    add_tcase(suite, scope, 1);
    return run_exercise(suite);
}
