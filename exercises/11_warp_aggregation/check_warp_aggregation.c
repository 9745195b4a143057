/*
 * check_warp_aggregation.c - exercise 11 counts every byte with warp-aggregated
 * global atomics: every bin matches the CPU reference on every size, kind and
 * block size (partial warps included), and --count-atomics shows that a warp
 * adds a group of equal bytes with one atomic: on constant bytes at most one
 * per warp and step, never more than one per byte, and on text, uniform and
 * skewed bytes close to the number of groups that the warps' steps hold, as
 * worked out here from the input and the launch: not more, and not far fewer.
 */
#include "stage_checks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* Whole warps and partial ones (33, 48, 1000 threads: a last warp of 1, 16
 * and 8 lanes), one block and very many. */
static const char *const launches[] = {
    "--threads 32",
    "--threads 33",
    "--threads 48",
    "--threads 256",
    "--threads 1000",
    "--threads 1024",
    "--blocks 1",
    "--blocks 1 --threads 33",
    "--blocks 100000 --threads 32",
    /* more than 2^32 threads (4194305 x 1024): an index computed in 32 bits
     * before it is widened wraps, and threads past 2^32 count bytes again */
    "--blocks 4194305 --threads 1024",
};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]); /* one group per warp */
    check_matches_reference(100003, DATA_SKEWED, 9, launches[_i]);    /* groups of every size */
}
END_TEST

/* Runs the program with --count-atomics and reads "atomics issued: N for M bytes". */
static unsigned long long atomics_for(const char *args, size_t bytes)
{
    char all[512];
    snprintf(all, sizeof all, "%s --reps 1 --count-atomics", args);
    struct stage_output o;
    run_stage(all, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", all, exit_meaning(&o), o.err);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", all);
    const char *line = strstr(o.out, "atomics issued: ");
    ck_assert_msg(line != NULL, "%s: no 'atomics issued:' line in: %s", all, o.out);
    unsigned long long atomics;
    size_t got_bytes;
    ck_assert_msg(sscanf(line, "atomics issued: %llu for %zu bytes", &atomics, &got_bytes) == 2,
                  "%s: cannot read the line '%.60s'", all, line);
    ck_assert_msg(got_bytes == bytes, "%s: the line says %zu bytes, expected %zu", all, got_bytes,
                  bytes);
    ck_assert_msg(bytes == 0 || atomics > 0,
                  "%s: 0 atomics through add_to_bin for %zu bytes: the kernel must add to the "
                  "histogram with add_to_bin",
                  all, bytes);
    return atomics;
}

/* Constant bytes: each warp's lanes in a step all hold the same byte, so one
 * atomic per warp and step, ceil(bytes / 32) with whole warps; the slack of
 * one more per warp of the grid allows for a warp whose lanes run a step apart. */
static const struct {
    const char *args;
    size_t bytes;
    int warps; /* in the grid */
} constant_runs[] = {
    {"--size 1000003 --data constant --blocks 64 --threads 256", 1000003, 64 * 8},
    {"--size 1000003 --data constant --blocks 1 --threads 1024", 1000003, 32},
    {"--size 4000037 --data constant --seed 3 --blocks 132 --threads 128", 4000037, 132 * 4},
};
#define CONSTANT_RUNS ((int)(sizeof constant_runs / sizeof constant_runs[0]))

START_TEST(test_constant_bytes_take_one_atomic_per_warp_and_step)
{
    size_t bytes = constant_runs[_i].bytes;
    unsigned long long most = (bytes + 31) / 32 + (unsigned long long)constant_runs[_i].warps;
    unsigned long long atomics = atomics_for(constant_runs[_i].args, bytes);
    ck_assert_msg(atomics <= most,
                  "%s: %llu atomics for %zu constant bytes, expected at most %llu (one per warp "
                  "and step, %zu, and one per warp of slack): %s",
                  constant_runs[_i].args, atomics, bytes, most, (bytes + 31) / 32,
                  atomics >= bytes ? "one per byte, as without aggregation" : "too many");
}
END_TEST

/* On uniform bytes few lanes of a warp share a byte: still never more than
 * one atomic per byte (a lane that adds for another's group too would). */
START_TEST(test_uniform_bytes_take_at_most_one_atomic_per_byte)
{
    static const char *const args[] = {"--size 1000003 --data uniform",
                                       "--size 1000003 --data skewed --threads 48"};
    unsigned long long atomics = atomics_for(args[_i], 1000003);
    ck_assert_msg(atomics <= 1000003,
                  "%s: %llu atomics for 1000003 bytes, expected at most one "
                  "per byte",
                  args[_i], atomics);
}
END_TEST

/* How many atomics the technique issues, worked out here from the bytes and
 * the launch: in each step, one per distinct byte among the lanes of a warp
 * that are still in the loop. Lane l of warp w of block b reads byte
 * b x threads + 32 w + l, then one grid of threads further each step; a
 * block that is not whole warps ends in a partial warp. */
static unsigned long long groups_per_step(const unsigned char *buffer, size_t size, long blocks,
                                          int threads)
{
    unsigned long long groups = 0;
    size_t grid = (size_t)blocks * (size_t)threads;
    for (long b = 0; b < blocks; b++)
        for (int w = 0; 32 * w < threads; w++) {
            int lanes = threads - 32 * w < 32 ? threads - 32 * w : 32;
            for (size_t first = (size_t)b * threads + 32 * (size_t)w; first < size; first += grid) {
                uint64_t seen[4] = {0, 0, 0, 0};
                for (int l = 0; l < lanes && first + l < size; l++) {
                    unsigned int v = buffer[first + l];
                    groups += !(seen[v / 64] >> (v % 64) & 1);
                    seen[v / 64] |= (uint64_t)1 << (v % 64);
                }
            }
        }
    return groups;
}

/* Text holds 16 different bytes in any 32 in a row (two lanes a group, on
 * average), uniform bytes about 30 (groups of one or two); a block of 48
 * threads ends every block in a warp of 16 lanes. */
static const struct {
    enum data_kind kind;
    size_t size;
    long blocks;
    int threads;
} exact_runs[] = {
    {DATA_TEXT, 1000003, 64, 256},
    {DATA_TEXT, 100003, 7, 48},
    {DATA_UNIFORM, 1000003, 64, 256},
    {DATA_SKEWED, 300007, 132, 96},
};
#define EXACT_RUNS ((int)(sizeof exact_runs / sizeof exact_runs[0]))

/* The count must be the technique's own: not more than one atomic per group
 * of each warp's step (with an eighth and one per warp of the grid of slack,
 * for a warp whose lanes run a step apart), and not fewer than half of them:
 * fewer atomics than groups means the counts were gathered somewhere else
 * first (a copy of the bins in shared memory, a run over several steps),
 * which is another technique than this exercise's. */
START_TEST(test_each_warp_step_takes_one_atomic_per_group)
{
    size_t size = exact_runs[_i].size;
    long blocks = exact_runs[_i].blocks;
    int threads = exact_runs[_i].threads;
    unsigned char *buffer = malloc(size);
    ck_assert(buffer != NULL);
    fill_input(exact_runs[_i].kind, buffer, size, 50 + (uint64_t)_i);
    unsigned long long groups = groups_per_step(buffer, size, blocks, threads);
    free(buffer);
    unsigned long long warps =
        (unsigned long long)blocks * (unsigned long long)((threads + 31) / 32);
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %d --blocks %ld --threads %d", size,
             data_kind_name(exact_runs[_i].kind), 50 + _i, blocks, threads);
    unsigned long long atomics = atomics_for(args, size);
    ck_assert_msg(atomics <= groups + groups / 8 + warps,
                  "%s: %llu atomics; this input and launch hold %llu groups of equal bytes in "
                  "the warps' steps, so one atomic per group is %llu (at most %llu with slack): "
                  "some group of equal bytes is added with more than one atomic",
                  args, atomics, groups, groups, groups + groups / 8 + warps);
    ck_assert_msg(atomics >= groups / 2,
                  "%s: %llu atomics, fewer than half the %llu groups of equal bytes in the "
                  "warps' steps: the bytes are gathered somewhere else before add_to_bin (a "
                  "copy of the bins, a run over several steps), not added by one lane per "
                  "group in each step",
                  args, atomics, groups);
}
END_TEST

/* The tail: a last step with fewer lanes than a warp; exact counts. */
static const struct {
    const char *args;
    size_t bytes;
    unsigned long long most;
} tails[] = {
    {"--size 40 --data constant --blocks 1 --threads 32", 40, 2},   /* 32 lanes, then 8 */
    {"--size 33 --data constant --blocks 1 --threads 64", 33, 2},   /* 32 in warp 0, 1 in warp 1 */
    {"--size 5 --data constant --blocks 1 --threads 256", 5, 1},    /* 5 lanes of warp 0 */
    {"--size 100 --data constant --blocks 1 --threads 48", 100, 5}, /* 32+16, 32+16, 4 */
    {"--size 1 --data constant", 1, 1},
    {"--size 0", 0, 0},
};
#define TAILS ((int)(sizeof tails / sizeof tails[0]))

START_TEST(test_partial_warps_take_one_atomic_per_group)
{
    unsigned long long atomics = atomics_for(tails[_i].args, tails[_i].bytes);
    ck_assert_msg(atomics <= tails[_i].most, "%s: %llu atomics, expected at most %llu",
                  tails[_i].args, atomics, tails[_i].most);
}
END_TEST

START_TEST(test_partial_warps_count_right)
{
    static const char *const args[] = {"--blocks 1 --threads 48", "--blocks 3 --threads 33",
                                       "--blocks 1 --threads 1", "--blocks 7 --threads 1000"};
    for (size_t size = 0; size < 70; size += 7)
        check_matches_reference(size, size % 2 ? DATA_CONSTANT : DATA_UNIFORM, 40 + size, args[_i]);
}
END_TEST

START_TEST(test_csv_prints_header_and_a_verified_row)
{
    struct stage_output o;
    run_stage("--size 4096 --data skewed --reps 2 --threads 128 --csv", &o);
    ck_assert_msg(o.exit_status == 0, "--csv: %s, stderr: %s", exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "--csv: no header line: %s", o.out);
    *row++ = '\0';
    ck_assert_str_eq(o.out, CSV_HEADER);
    ck_assert_msg(strncmp(row, "11_warp_aggregation,warp-aggregation,", 37) == 0,
                  "--csv: the row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "--csv: data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "--csv: not verified: %s", row);
}
END_TEST

/* The largest input the stages take, 4 GiB - 1 bytes. An int index wraps
 * past 2^31 and stops counting there; an unsigned int one wraps past 2^32,
 * where the index plus the stride falls back below the size and the loop
 * never ends: the time limit stops it. */
START_TEST(test_counts_the_largest_input)
{
    set_run_time_limit(120);
    check_matches_reference(MAX_INPUT_BYTES, DATA_UNIFORM, 9, "");
}
END_TEST

/* compute-sanitizer's memcheck and synccheck, on odd sizes and block sizes
 * (partial warps, threads that have no bin to merge): no read past the
 * input, no barrier that some threads of the block skip, no warp-wide call
 * whose mask names lanes that are not there. A run can count right and
 * still do any of these: what happens then is undefined. */
static const char *const sanitizer_runs[] = {
    "--size 4099 --threads 33 --blocks 5 --reps 1",
    "--size 1001 --data constant --threads 48 --blocks 2 --reps 1"};
#define SANITIZER_RUNS ((int)(sizeof sanitizer_runs / sizeof sanitizer_runs[0]))

START_TEST(test_no_memory_or_barrier_errors)
{
    check_no_gpu_memory_or_sync_errors(sanitizer_runs[_i]);
}
END_TEST

/* ------------------------------------ a warp's loads in a row, in ncu -- */

/* Stage 02's loop, which the solution keeps: a thread starts at its index in
 * the grid and steps a grid at a time, so a warp's 32 lanes load 32 bytes in
 * a row, one 32-byte sector for each load request (the input comes from
 * cudaMalloc, aligned; 16 Mi bytes over 64 x 256 threads leave no partial
 * step). Expected on the solution: 1.0 sector a request. A kernel whose
 * threads start at threadIdx.x * gridDim.x + blockIdx.x counts every byte
 * once, but its lanes are 64 bytes apart: one sector a lane, 32 a request
 * (and the bytes it aggregates are not neighbours). Bound: at most 4.
 *
 * And each byte is loaded once: the lanes learn who holds the same byte from
 * the warp (__match_any_sync), not by loading the warp's 32 bytes again. The
 * 16 MiB input is 524288 sectors, what the solution's loads ask of L1 per
 * launch; a kernel in which every lane reloads its warp's 32 bytes to find
 * its group asks 33 times as many (each reload one sector, all lanes on one
 * address, so the bound above does not see it). Bound: twice the input's
 * sectors. The counts are exact, not timed. */
START_TEST(test_each_warp_loads_32_bytes_in_a_row)
{
    const char *args = "--size 16M --data uniform --seed 5 --reps 1 --blocks 64 --threads 256";
    const char *const metrics[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"};
    double values[2];
    profile_kernel(args, "histo_kernel", metrics, 2, values);
    double per_request = values[1] > 0 ? values[0] / values[1] : 0;
    ck_assert_msg(values[1] > 0 && per_request <= 4,
                  "%s: the input's loads touched %.1f 32-byte sectors a request (ncu: %.0f "
                  "sectors, %.0f requests), expected about 1: a warp's lanes should read 32 "
                  "bytes in a row, as stage 02's threads do, so the bytes a warp aggregates "
                  "are neighbours",
                  args, per_request, values[0], values[1]);
    double input_sectors = 16.0 * (1 << 20) / 32;
    double sectors = values[0] / profile_launches();
    ck_assert_msg(sectors <= 2 * input_sectors,
                  "%s: the kernel's loads asked for %.0f 32-byte sectors per launch, want at most "
                  "%.0f (the 16 MiB input is %.0f sectors): each byte should be loaded once, by "
                  "its lane, and the lanes that hold the same byte found by asking the warp, not "
                  "by loading the warp's bytes again",
                  args, sectors, 2 * input_sectors, input_sectors);
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* A warp-wide call's mask must be the lanes that make the call with this one
 * here, in this step: in the last step, and in the last warp of a block that
 * is not whole warps, that is fewer than 32. A constant mask of all 32 lanes
 * names lanes that have left the loop or are not there, which the
 * Programming Guide calls undefined: an H100 happens to count right with it,
 * and synccheck does not report it, so the check reads the PTX. nvcc writes
 * a constant mask either in the call (..., -1;) or in a register set just
 * before by mov.u32 %rN, -1; both are refused, in match.any/match.all, vote
 * and shfl calls. */
START_TEST(test_no_warp_call_names_all_32_lanes_by_a_constant)
{
    check_no_constant_full_mask(NULL, " (hint 3)");
}
END_TEST

/* The exact model, with no slack for a kernel that is not the technique on
 * some steps: text on one warp (100 steps of 32 lanes, 16 groups each) and
 * on 4 blocks of 64 threads: at most one atomic per group, and one per warp. */
static const struct {
    size_t size;
    long blocks;
    int threads;
} tight_runs[] = {
    {3200, 1, 32},
    {32000, 4, 64},
};
#define TIGHT_RUNS ((int)(sizeof tight_runs / sizeof tight_runs[0]))

START_TEST(test_text_takes_one_atomic_per_group_in_every_step)
{
    size_t size = tight_runs[_i].size;
    long blocks = tight_runs[_i].blocks;
    int threads = tight_runs[_i].threads;
    unsigned char *buffer = malloc(size);
    ck_assert(buffer != NULL);
    fill_input(DATA_TEXT, buffer, size, 70 + (uint64_t)_i);
    unsigned long long groups = groups_per_step(buffer, size, blocks, threads);
    free(buffer);
    unsigned long long warps =
        (unsigned long long)blocks * (unsigned long long)((threads + 31) / 32);
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data text --seed %d --blocks %ld --threads %d", size,
             70 + _i, blocks, threads);
    unsigned long long atomics = atomics_for(args, size);
    ck_assert_msg(atomics <= groups + warps && atomics >= groups / 2,
                  "%s: %llu atomics; the warps' steps hold %llu groups of equal bytes, so one "
                  "atomic per group is %llu (at most %llu allowed, one per warp of slack): "
                  "every step must aggregate, not most of them",
                  args, atomics, groups, groups, groups + warps);
}
END_TEST

/* With no option at all, the program runs what --help and the book say: the
 * book's 100 MiB of uniform bytes (seed 1), 10 timed runs, and the book's
 * launch, 2 blocks per SM of 256 threads (the block count the given program
 * computes for --blocks-per-sm 2), verified. */
START_TEST(test_defaults_with_no_options)
{
    struct stage_output o;
    run_stage("--size 4096 --reps 1 --blocks-per-sm 2 --threads 256", &o);
    ck_assert_msg(o.exit_status == 0, "--blocks-per-sm 2 --threads 256: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    long book_blocks;
    int book_threads;
    read_launch("--blocks-per-sm 2 --threads 256", &o, &book_blocks, &book_threads);
    run_stage("", &o);
    ck_assert_msg(o.exit_status == 0, "(no options): %s, stderr: %s", exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "input:      uniform, 104857600 bytes, seed 1\n"),
                  "(no options): expected the default input, 100 MiB of uniform bytes, seed 1: %s",
                  o.out);
    ck_assert_msg(strstr(o.out, "(median of 10 runs"),
                  "(no options): expected the default 10 timed runs: %s", o.out);
    ck_assert_msg(o.has_sum && o.sum == 104857600, "(no options): the sum: %s", o.out);
    long blocks;
    int threads;
    read_launch("(no options)", &o, &blocks, &threads);
    ck_assert_msg(blocks == book_blocks && threads == 256,
                  "(no options): launch %ld blocks x %d threads, expected the book's %ld x 256 (2 "
                  "blocks per SM of 256 threads)",
                  blocks, threads, book_blocks);
    ck_assert_msg(o.says_verified, "(no options): no 'verified: yes' line: %s", o.out);
}
END_TEST

START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 100003 --data text --reps 2 --blocks 3 --threads 48 --csv", 2);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("11_warp_aggregation", argc, argv);
    Suite *suite = suite_create("exercise 11: warp-aggregated atomics");
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    TCase *bins = exercise_tcase("every bin right, on every size, kind and block size", 2);
    tcase_set_timeout(bins, 300);
    tcase_add_loop_test(bins, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_loop_test(bins, test_every_launch_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, bins, MATRIX_CASES + LAUNCHES);

    TCase *fewer = exercise_tcase("one atomic per group of equal bytes (--count-atomics)", 1);
    tcase_set_timeout(fewer, 120);
    tcase_add_loop_test(fewer, test_constant_bytes_take_one_atomic_per_warp_and_step, 0,
                        CONSTANT_RUNS);
    tcase_add_loop_test(fewer, test_uniform_bytes_take_at_most_one_atomic_per_byte, 0, 2);
    tcase_add_loop_test(fewer, test_each_warp_step_takes_one_atomic_per_group, 0, EXACT_RUNS);
    add_if_runnable(suite, fewer, CONSTANT_RUNS + 2 + EXACT_RUNS);

    TCase *coalesced = exercise_tcase("a warp's loads 32 bytes in a row (GPU counters, ncu)", 1);
    tcase_add_test(coalesced, test_each_warp_loads_32_bytes_in_a_row);
    add_if_tool(suite, coalesced, 1, can_profile(), profile_tool_missing());

    TCase *tail = exercise_tcase("partial warps: the last step, block sizes not whole warps", 3);
    tcase_set_timeout(tail, 300);
    tcase_add_loop_test(tail, test_partial_warps_take_one_atomic_per_group, 0, TAILS);
    tcase_add_loop_test(tail, test_partial_warps_count_right, 0, 4);
    tcase_add_test(tail, test_csv_prints_header_and_a_verified_row);
    add_if_runnable(suite, tail, TAILS + 4 + 1);

    TCase *large = exercise_tcase("the largest input, 4 GiB - 1 bytes: every byte counted once", 2);
    tcase_set_timeout(large, 300);
    tcase_add_test(large, test_counts_the_largest_input);
    /* 4 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, large, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());

    TCase *sanitized = exercise_tcase("no memory or barrier errors (compute-sanitizer memcheck, "
                                      "synccheck)",
                                      3);
    tcase_set_timeout(sanitized, 300);
    tcase_add_loop_test(sanitized, test_no_memory_or_barrier_errors, 0, SANITIZER_RUNS);
    add_if_tool(suite, sanitized, SANITIZER_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    /* Read in the PTX: runs without a GPU too. */
    TCase *mask = exercise_tcase("edge: no warp-wide call takes a constant mask of all 32 lanes "
                                 "(read in the PTX)",
                                 3);
    tcase_add_test(mask, test_no_warp_call_names_all_32_lanes_by_a_constant);
    add_tcase(suite, mask, 1);

    TCase *edge =
        exercise_tcase("edge: every step aggregated, the defaults, only CSV with --csv", 1);
    tcase_set_timeout(edge, 120);
    tcase_add_loop_test(edge, test_text_takes_one_atomic_per_group_in_every_step, 0, TIGHT_RUNS);
    tcase_add_test(edge, test_defaults_with_no_options);
    tcase_add_test(edge, test_csv_prints_only_csv);
    add_if_runnable(suite, edge, TIGHT_RUNS + 2);

    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    return run_exercise(suite);
}
