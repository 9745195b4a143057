/*
 * check_race.c - exercise 02 loses no increment, and not by dodging the race:
 * every bin matches the CPU on every size, kind and launch; on inputs where
 * every thread hits one bin, the plain ++ (run first, on the same launch) is
 * seen to lose increments while yours loses none; and the work is spread over
 * the whole grid (the busiest thread counted only its grid-stride share), so
 * that many threads did race. The largest input (4 GiB - 1 bytes) last, where
 * an int or unsigned int index wraps.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What the report says beyond the shared lines. */
struct race_report {
    long blocks;
    int threads;
    int64_t racy_lost, lost; /* by the plain ++, and by yours */
    uint64_t racy_of, of;
    unsigned int busiest;
};

static void read_report(const char *args, const struct stage_output *o, struct race_report *r)
{
    const char *line = strstr(o->out, "\nlaunch:");
    ck_assert_msg(
        line && sscanf(line, "\nlaunch: %ld blocks x %d threads", &r->blocks, &r->threads) == 2,
        "%s: no 'launch: B blocks x T threads' line in: %s", args, o->out);
    line = strstr(o->out, "\nlost by ++:");
    ck_assert_msg(line && sscanf(line, "\nlost by ++: %" SCNd64 " of %" SCNu64 " increments",
                                 &r->racy_lost, &r->racy_of) == 2,
                  "%s: no 'lost by ++: N of M increments' line (the plain ++'s count) in: %s", args,
                  o->out);
    line = strstr(o->out, "\nlost:");
    ck_assert_msg(line && sscanf(line, "\nlost: %" SCNd64 " of %" SCNu64 " increments", &r->lost,
                                 &r->of) == 2,
                  "%s: no 'lost: N of M increments' line (your kernel's count) in: %s", args,
                  o->out);
    line = strstr(o->out, "\nbusiest:");
    ck_assert_msg(line && sscanf(line, "\nbusiest: %u", &r->busiest) == 1,
                  "%s: no 'busiest: N bytes counted by one thread' line in: %s", args, o->out);
}

/* ------------------------------------------------ every byte is counted -- */

/* check_matches_reference on constant bytes, and on the same run the
 * busiest: line: the busiest thread counted its grid-stride share, the size
 * over the grid's threads rounded up. On a share past 65535 a thread's count
 * kept in 16 bits wraps, though every bin comes out right. */
static void check_bins_and_busiest(size_t size, uint64_t seed, const char *launch)
{
    unsigned char *buffer = malloc(size);
    ck_assert_msg(buffer != NULL, "out of memory for %zu bytes", size);
    fill_input(DATA_CONSTANT, buffer, size, seed);
    unsigned int expected[BINS];
    cpu_histogram(buffer, size, expected);
    free(buffer);

    char args[256];
    snprintf(args, sizeof args,
             "--size %zu --data constant --seed %" PRIu64 " --reps 1 --print-bins %s", size, seed,
             launch);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified,
                  "%s: expected exit 0 and 'verified: yes', got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    ck_assert_msg(o.bins_printed == BINS, "%s: printed %d bins", args, o.bins_printed);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(o.bins[bin] == expected[bin], "%s: bin %d is %u, expected %u", args, bin,
                      o.bins[bin], expected[bin]);
    ck_assert_msg(o.has_sum && o.sum == size, "%s: Histogram Sum missing or not %zu", args, size);
    struct race_report r;
    read_report(args, &o, &r);
    size_t grid = (size_t)r.blocks * (size_t)r.threads;
    size_t share = (size + grid - 1) / grid;
    ck_assert_msg(r.busiest == share,
                  "%s: expected the busiest thread to count its grid-stride share, %zu bytes "
                  "(%zu over %ld x %d threads), got %u: keep the count of a thread's bytes as "
                  "wide as most_counted",
                  args, share, size, r.blocks, r.threads, r.busiest);
}

START_TEST(test_counts_every_size_and_kind)
{
    check_matrix_case(_i, "");
}
END_TEST

/* The shapes a student will try: one block, odd and large blocks, many small ones. */
static const char *const launches[] = {
    "--blocks 1",
    "--threads 64",
    "--threads 1000",
    "--blocks 1 --threads 1024",
    "--blocks 100000 --threads 32",
    /* more than 2^32 threads (4194305 x 1024): an index computed in 32 bits
     * before it is widened wraps, and threads past 2^32 count bytes again */
    "--blocks 4194305 --threads 1024",
};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_matches_reference(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_matches_reference(1000003, DATA_CONSTANT, 8, launches[_i]);
}
END_TEST

/* One block of 256 threads on 16 MiB + 5 of one byte: each thread meets more
 * than 65535 equal bytes, so a count of them kept in 16 bits wraps; and the
 * busiest counts 65537 bytes, so a count of its bytes kept in 16 bits wraps
 * too. */
START_TEST(test_a_long_share_of_equal_bytes)
{
    check_bins_and_busiest(((size_t)16 << 20) + 5, 10, "--blocks 1 --threads 256");
}
END_TEST

/* The first seed (1, 2, ...) whose constant input is all zero bytes. */
static uint64_t seed_of_zero_bytes(void)
{
    for (uint64_t seed = 1;; seed++) {
        unsigned char byte;
        fill_input(DATA_CONSTANT, &byte, 1, seed);
        if (byte == 0)
            return seed;
    }
}

/* Zero bytes, the commonest in files, where a private count of bin 0 is
 * tempting: one thread on 64 KiB, the least input on which a count kept in 16
 * bits reaches 65536 and wraps to 0, then one block of 256 on 16 MiB, 65536
 * for each thread (the busiest: line 65536 on both). */
START_TEST(test_a_long_share_of_zero_bytes)
{
    static const struct {
        size_t size;
        const char *launch;
    } runs[] = {{(size_t)64 << 10, "--blocks 1 --threads 1"},
                {(size_t)16 << 20, "--blocks 1 --threads 256"}};
    check_bins_and_busiest(runs[_i].size, seed_of_zero_bytes(), runs[_i].launch);
}
END_TEST

/* ----------------------------------- the race is there, and yours survives it -- */

/* A grid of one warp or less (2 to 32 threads in all): the threads of one
 * step read bytes in a row, on constant bytes all one bin, and they are lanes
 * of one warp. Lanes are threads like any other: a plain ++ of theirs loads
 * one count together and keeps one increment of the step's, so every bin must
 * still match exactly. */
static const char *const one_warp_launches[] = {
    "--blocks 1 --threads 32", "--blocks 2 --threads 16", "--blocks 1 --threads 2"};
#define ONE_WARP ((int)(sizeof one_warp_launches / sizeof one_warp_launches[0]))

START_TEST(test_a_grid_of_one_warp_counts_every_byte)
{
    check_bins_and_busiest((size_t)1 << 16, 11, one_warp_launches[_i]);
}
END_TEST

/* Every byte the same: every thread of the grid increments one bin, where a
 * plain ++ loses the most (a warp's 32 threads read the same count at once). */
static const char *const crowded_launches[] = {"", "--blocks-per-sm 16", "--threads 1024",
                                               "--threads 33",
                                               /* blocks of one thread still race each other */
                                               "--threads 1 --blocks-per-sm 16"};
#define CROWDED ((int)(sizeof crowded_launches / sizeof crowded_launches[0]))

START_TEST(test_the_plus_plus_loses_and_yours_loses_nothing_on_the_same_launch)
{
    const size_t size = (size_t)16 << 20;
    char args[256];
    snprintf(args, sizeof args, "--data constant --size 16M --reps 2 %s", crowded_launches[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified,
                  "%s: expected exit 0 and 'verified: yes', got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    struct race_report r;
    read_report(args, &o, &r);
    ck_assert_msg(r.racy_of == size && r.of == size,
                  "%s: expected both counts 'of %zu increments', got %" PRIu64 " and %" PRIu64,
                  args, size, r.racy_of, r.of);
    ck_assert_msg(r.racy_lost > 0,
                  "%s: expected the plain ++ to lose increments on this launch (%ld blocks x %d "
                  "threads), got 'lost by ++: %" PRId64 "': keep racy_kernel and the launch as "
                  "they are",
                  args, r.blocks, r.threads, r.racy_lost);
    ck_assert_msg(r.lost == 0,
                  "%s: expected your kernel to lose 0 of %zu increments, got %" PRId64 " lost",
                  args, size, r.lost);
    /* Thread 0 counts bytes 0, grid, 2 grid, ...: ceil(size / grid) of them, the most. */
    size_t grid = (size_t)r.blocks * (size_t)r.threads;
    size_t share = (size + grid - 1) / grid;
    ck_assert_msg(r.busiest == share,
                  "%s: expected the busiest thread to count its grid-stride share, %zu bytes "
                  "(%zu over %ld x %d threads), got %u: spread the bytes over every thread of the "
                  "launch, each counting its own",
                  args, share, size, r.blocks, r.threads, r.busiest);
}
END_TEST

/* The count the lesson rests on: the CPU's total minus the GPU's. */
START_TEST(test_lost_is_the_input_minus_the_histogram_sum)
{
    const char *args = "--data constant --size 1M --reps 1";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: expected exit 0, got %s; stderr: %s", args,
                  exit_meaning(&o), o.err);
    struct race_report r;
    read_report(args, &o, &r);
    ck_assert_msg(o.has_sum, "%s: no 'Histogram Sum' line in: %s", args, o.out);
    ck_assert_msg(r.of == 1u << 20, "%s: expected 'of 1048576 increments', got %" PRIu64, args,
                  r.of);
    ck_assert_msg(r.lost == (int64_t)(r.of - o.sum),
                  "%s: expected lost = %" PRIu64 " - the sum %" PRIu64 ", got %" PRId64, args, r.of,
                  o.sum, r.lost);
}
END_TEST

/* ------------------------------------------------- the largest input -- */

/* The largest input the stages take, 4 GiB - 1 bytes. An int index or size
 * wraps past 2^31 and stops counting there; an unsigned int one wraps past
 * 2^32, where i + stride falls back below the size and the loop never ends:
 * the time limit stops it. A size_t index counts every byte once. On constant
 * bytes one bin takes them all, past 2^31: a counter that wraps there (an int,
 * or atomicInc's limit set to INT_MAX) comes out wrong. */
START_TEST(test_counts_the_largest_input)
{
    set_run_time_limit(120);
    check_matches_reference(MAX_INPUT_BYTES, _i ? DATA_CONSTANT : DATA_UNIFORM, 9, "");
}
END_TEST

/* ------------------------------------------ the atomics' scope, in PTX -- */

/* Every block adds to the same global bins, so every add must be atomic
 * among all the GPU's threads. atomicAdd_block is atomic only among one
 * block's: by CUDA's rules two blocks on one bin then race, though a run may
 * well count right. nvcc writes that scope into the PTX as ".cta"; the scope
 * a device-wide atomicAdd has is the default, written as nothing. */
START_TEST(test_every_atomic_is_device_wide)
{
    ck_assert_msg(ptx_lines_matching("^[[:space:]]*(atom|red)(\\.[a-z:]+)*\\.(add|inc)\\.") > 0,
                  "the program's PTX has no atomic add (or increment): the bins are not added to "
                  "atomically");
    check_global_atomics_are_device_wide();
}
END_TEST

/* ------------------------------------ each thread's own bytes, in ncu -- */

/* Every thread counts its own bytes, as racy_kernel reads them: thread i reads
 * bytes i, i + stride, ..., so a warp's 32 loads of one step are 32 bytes in a
 * row, one 32-byte sector for each load request (stage 02's profile on the
 * H100 shows exactly that: plots/results/profile-nvidia-h100-80gb-hbm3.csv,
 * global_ld_sectors over global_ld_requests). A thread that counts a slice of
 * its own instead sends its warp's 32 loads to 32 places far apart: up to 32
 * sectors a request. 16 MiB on 64 blocks of 256: slices of 1 KiB. */
START_TEST(test_each_warp_reads_32_bytes_in_a_row)
{
    const char *args = "--size 16M --data uniform --seed 5 --reps 1 --blocks 64 --threads 256";
    const char *const metrics[] = {
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "smsp__inst_executed_op_global_red.sum",
        "smsp__sass_inst_executed_op_global_atom.sum", "smsp__inst_executed_op_generic_atom.sum"};
    double values[5];
    profile_kernel(args, "histo_kernel", metrics, 5, values);
    double per_request = values[1] > 0 ? values[0] / values[1] : 0;
    /* one warp instruction adds 32 threads' bytes: 16 MiB / 32 a launch, and
     * twice that allowed; a lane that adds its warp's bytes one at a time
     * issues 32 times as many */
    double atomics = (values[2] + values[3] + values[4]) / profile_launches(),
           warp_steps = (16 << 20) / 32.0;
    ck_assert_msg(atomics <= 2 * warp_steps,
                  "%s: %.0f global atomic warp instructions a launch, want at most %.0f (16 MiB "
                  "in steps of a warp's 32 bytes, twice over): each thread adds its own bytes, "
                  "not one lane for its warp",
                  args, atomics, 2 * warp_steps);
    ck_assert_msg(values[1] > 0 && per_request <= 4,
                  "%s: the input's loads touched %.1f 32-byte sectors a request (ncu: %.0f "
                  "sectors, %.0f requests); a warp whose threads read bytes i, i + stride, ... "
                  "as racy_kernel's do touches one: every thread counts its own bytes, the ones "
                  "racy_kernel gives it",
                  args, per_request, values[0], values[1]);
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* With no option at all, the program runs what --help says: the book's 100
 * MiB of uniform bytes (seed 1), 10 timed runs, and the book's launch, 2
 * blocks per SM of 256 threads (the block count the program itself gives
 * --blocks-per-sm 2), every bin verified and nothing lost. */
START_TEST(test_edge_defaults_with_no_options)
{
    const char *book = "--size 4096 --reps 1 --blocks-per-sm 2 --threads 256";
    struct stage_output o;
    run_stage(book, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", book, exit_meaning(&o), o.err);
    long book_blocks, blocks;
    int book_threads, threads;
    read_launch(book, &o, &book_blocks, &book_threads);
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
    ck_assert_msg(blocks == book_blocks && threads == 256,
                  "(no options): launch %ld blocks x %d threads, expected the book's %ld x 256 "
                  "(2 blocks per SM of 256 threads), as --help says",
                  blocks, threads, book_blocks);
    struct race_report r;
    read_report("(no options)", &o, &r);
    ck_assert_msg(r.lost == 0 && r.of == 104857600,
                  "(no options): expected 'lost: 0 of 104857600 increments', got %" PRId64
                  " of %" PRIu64,
                  r.lost, r.of);
}
END_TEST

/* --csv prints only the CSV (README: only your kernel's row, without the
 * counts below): a header and one verified row of 'mine', and no lost:,
 * lost by ++: or busiest: line among them. */
START_TEST(test_edge_csv_prints_only_csv)
{
    const char *args = "--size 1M --data constant --reps 1 --csv";
    check_stdout_is_only_csv(args, 2);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "%s: no header line: %s", args, o.out);
    *row++ = '\0';
    ck_assert_msg(strcmp(o.out, CSV_HEADER) == 0, "%s: expected the header %s, got %s", args,
                  CSV_HEADER, o.out);
    ck_assert_msg(strncmp(row, "02_race,mine,", 13) == 0,
                  "%s: expected one row, starting '02_race,mine,', got %s", args, row);
    ck_assert_msg(strstr(row, ",constant,1048576,1,"),
                  "%s: expected ',constant,1048576,1,' (data, bytes, seed), got %s", args, row);
    ck_assert_msg(strlen(row) >= 5 && strcmp(row + strlen(row) - 5, ",yes\n") == 0,
                  "%s: expected the one row to end ',yes', got %s", args, row);
}
END_TEST

/* Each option refuses a bad value: exit 2, nothing on stdout, and a first
 * line on stderr that names the option (the usage follows it). Refused
 * before the GPU is opened, so this runs anywhere. */
static const struct {
    const char *args, *option;
} refusals[] = {
    {"--size 10X", "--size"},
    {"--size 4G", "--size"},
    {"--data photo", "--data"},
    {"--seed -1", "--seed"},
    {"--reps 0", "--reps"},
    {"--reps 100001", "--reps"},
    {"--blocks 0", "--blocks"},
    {"--blocks 2147483648", "--blocks"},
    {"--blocks-per-sm 0", "--blocks-per-sm"},
    {"--blocks-per-sm 1025", "--blocks-per-sm"},
    {"--blocks 4 --blocks-per-sm 2", "--blocks-per-sm"},
    {"--threads 0", "--threads"},
    {"--threads 1025", "--threads"},
    {"--bins 255", "--bins"},
    {"--print-bins --csv", "--print-bins"},
    {"--csv=yes", "--csv"},
    {"--file /nonexistent/histogram-input", "--file"},
    {"--image /nonexistent/picture.bmp", "--image"},
};
#define REFUSALS ((int)(sizeof refusals / sizeof refusals[0]))

START_TEST(test_edge_each_option_refuses_a_bad_value)
{
    check_refused_naming(refusals[_i].args, refusals[_i].option);
}
END_TEST

/* histo_kernel writes global memory only with atomics: every block adds to
 * the same bins, and the host has already set them to 0. A plain store there
 * (block 0 zeroing the bins first, say) races with the other blocks'
 * atomics: CUDA promises no order among blocks, though block 0 nearly always
 * starts first and the bins come out right. Read in histo_kernel's PTX alone
 * (racy_kernel's ++ is a plain store, on purpose): no st.global, and no st.
 * on a generic address, which may reach global memory; a store may be
 * predicated ("@%p1 st.global..."). */
START_TEST(test_edge_histo_kernel_stores_only_with_atomics)
{
    char *entry = read_ptx("_Z12histo_kernel");
    int stores = 0;
    char first[256] = "";
    for (char *line = strtok(entry, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '@') /* a predicate: "@%p1 " or "@!%p1 " */
            line += strcspn(line, " \t"), line += strspn(line, " \t");
        if (strncmp(line, "st.", 3) != 0 || strstr(line, ".shared") || strstr(line, ".local") ||
            strstr(line, ".param"))
            continue;
        if (!stores++)
            snprintf(first, sizeof first, "%s", line);
    }
    free(entry);
    ck_assert_msg(stores == 0,
                  "histo_kernel's PTX has %d plain store%s that may reach global memory (the "
                  "first: '%s'): add to the bins only with the atomic; a plain store to them "
                  "(setting them to 0 in the kernel, say: the host already has) races with the "
                  "other blocks' atomics, and CUDA does not promise that block 0 runs first",
                  stores, stores == 1 ? "" : "s", first);
}
END_TEST

/* A warp-wide call's mask must name the lanes that make the call together:
 * in the grid-stride loop's last step, and in the last warp of a block that
 * is not whole warps (33 threads), that is fewer than 32. A constant mask of
 * all 32 lanes (0xffffffff) names lanes that have left the loop or are not
 * there, which the Programming Guide calls undefined, and a run can still
 * count right. nvcc writes a constant mask in the call (..., -1;) or in a
 * register set just before by mov.u32 %rN, -1; both are refused in
 * histo_kernel's match, vote and shfl calls. (One atomic for each byte needs
 * no warp-wide call at all.) */
START_TEST(test_edge_no_warp_call_names_all_32_lanes)
{
    check_no_constant_full_mask("_Z12histo_kernel", " (one atomic for each byte needs no warp-wide "
                                                    "call at all)");
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("02_race", argc, argv);
    Suite *suite = suite_create("exercise 02: a race made visible");

    TCase *counts = exercise_tcase("every byte counted, on every size, kind and launch", 1);
    tcase_add_loop_test(counts, test_counts_every_size_and_kind, 0, MATRIX_CASES);
    tcase_add_loop_test(counts, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(counts, test_a_long_share_of_equal_bytes);
    tcase_add_loop_test(counts, test_a_long_share_of_zero_bytes, 0, 2);
    add_if_runnable(suite, counts, MATRIX_CASES + LAUNCHES + 1 + 2);

    TCase *race = exercise_tcase("the plain ++ loses increments on your launch, yours loses none "
                                 "on the same one, every thread counting its share",
                                 2);
    tcase_add_loop_test(race, test_the_plus_plus_loses_and_yours_loses_nothing_on_the_same_launch,
                        0, CROWDED);
    tcase_add_test(race, test_lost_is_the_input_minus_the_histogram_sum);
    add_if_runnable(suite, race, CROWDED + 1);

    TCase *warp =
        exercise_tcase("a grid of one warp or less (2 to 32 threads) counts every byte of "
                       "one value",
                       2);
    tcase_add_loop_test(warp, test_a_grid_of_one_warp_counts_every_byte, 0, ONE_WARP);
    add_if_runnable(suite, warp, ONE_WARP);

    TCase *own = exercise_tcase("each thread counts its own bytes: a warp's loads 32 bytes in a "
                                "row (GPU counters, ncu)",
                                1);
    tcase_add_test(own, test_each_warp_reads_32_bytes_in_a_row);
    add_if_tool(suite, own, 1, can_profile(), profile_tool_missing());

    TCase *large = exercise_tcase("the largest input, 4 GiB - 1 bytes: every byte counted once", 3);
    tcase_add_loop_test(large, test_counts_the_largest_input, 0, 2); /* uniform, constant */
    /* 4 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, large, 2, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());

    /* read from the PTX: it runs without a GPU too */
    TCase *scope = exercise_tcase("every atomic on the bins is device-wide (read in the PTX)", 1);
    tcase_add_test(scope, test_every_atomic_is_device_wide);
    add_tcase(suite, scope, 1);

    /* refused before the GPU is opened, and read from the PTX: both run anywhere */
    TCase *refused = exercise_tcase("edge: each option refuses a bad value (exit 2, a line naming "
                                    "it)",
                                    0);
    tcase_add_loop_test(refused, test_edge_each_option_refuses_a_bad_value, 0, REFUSALS);
    add_tcase(suite, refused, REFUSALS);

    TCase *stores = exercise_tcase("edge: histo_kernel writes the bins only with atomics, and "
                                   "no warp-wide call names all 32 lanes (read in the PTX)",
                                   2);
    tcase_add_test(stores, test_edge_histo_kernel_stores_only_with_atomics);
    tcase_add_test(stores, test_edge_no_warp_call_names_all_32_lanes);
    add_tcase(suite, stores, 2);

    TCase *edge = exercise_tcase("edge: the defaults with no options, only CSV with --csv", 0);
    tcase_set_timeout(edge, 120);
    tcase_add_test(edge, test_edge_defaults_with_no_options);
    tcase_add_test(edge, test_edge_csv_prints_only_csv);
    add_if_runnable(suite, edge, 2);
    return run_exercise(suite);
}
