/*
 * check_cluster_bins.c - exercise 15 counts 16-bit keys (byte pairs,
 * little-endian, an odd last byte on its own) into 65536 bins held by a
 * cluster of 4 blocks: every bin it prints with --print-bins matches a count made
 * here, on every size, kind and launch; --show-slices shows that block r of a
 * cluster held only bins r x 16384 to (r+1) x 16384 - 1, every key of the
 * cluster's share whatever block read it, and that the slices add up to the
 * histogram; and the bins at the slices' edges (16383, 16384, ..., 65535).
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY_BINS   65536
#define CLUSTER    4
#define SLICE      (KEY_BINS / CLUSTER)
#define MAX_BLOCKS 4096

/* What the program printed: every bin, and with --show-slices every block's slice. */
struct cluster_output {
    int exit_status;
    unsigned int bins[KEY_BINS];
    unsigned int bins_printed;
    bool has_sum, says_verified, slices_add_up, slices_do_not;
    uint64_t sum;
    char cluster_line[512];
    int slices; /* the "slice:" lines */
    struct {
        long block;
        unsigned int rank;
        uint64_t keys;
        long low, high; /* -1: empty */
    } slice[MAX_BLOCKS];
    char text[4096]; /* the start of the lines that are neither bins nor slices, stderr included */
};

static struct cluster_output out; /* too big for the stack of a check */

static void run_cluster_bins(const char *args, struct cluster_output *o)
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
        unsigned int bin, count, rank;
        unsigned long long sum, keys;
        long block, low, high;
        char tail;
        if (sscanf(line, "%u: %u%c", &bin, &count, &tail) == 3 && tail == '\n' && bin < KEY_BINS) {
            o->bins[bin] = count;
            o->bins_printed++;
            continue;
        }
        int fields = sscanf(line, "slice: block %ld, rank %u: %llu keys, bins %ld to %ld", &block,
                            &rank, &keys, &low, &high);
        if (fields >= 3 && o->slices < MAX_BLOCKS) {
            o->slice[o->slices].block = block;
            o->slice[o->slices].rank = rank;
            o->slice[o->slices].keys = keys;
            o->slice[o->slices].low = fields == 5 ? low : -1;
            o->slice[o->slices].high = fields == 5 ? high : -1;
            o->slices++;
            continue;
        }
        if (sscanf(line, "Histogram Sum: %llu", &sum) == 1) {
            o->has_sum = true;
            o->sum = sum;
        } else if (strncmp(line, "verified:   yes", 15) == 0) {
            o->says_verified = true;
        } else if (strncmp(line, "cluster:", 8) == 0) {
            snprintf(o->cluster_line, sizeof o->cluster_line, "%s", line);
        } else if (strcmp(line, "slices add up to the histogram: yes\n") == 0) {
            o->slices_add_up = true;
        } else if (strcmp(line, "slices add up to the histogram: NO\n") == 0) {
            o->slices_do_not = true;
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

/* The count, made independently of the program: key k is bytes 2k and 2k + 1. */
static void reference(const unsigned char *buffer, size_t size, unsigned int *histo)
{
    memset(histo, 0, KEY_BINS * sizeof *histo);
    for (size_t k = 0; 2 * k < size; k++) {
        unsigned int key = buffer[2 * k];
        if (2 * k + 1 < size)
            key += 256u * buffer[2 * k + 1];
        histo[key]++;
    }
}

static unsigned int expected[KEY_BINS];

/* Runs args (with --reps 1 --print-bins) and asserts exit 0, every bin, the sum and "verified". */
static void check_bins(const char *args, size_t keys)
{
    char all[768];
    snprintf(all, sizeof all, "%s --reps 1 --print-bins", args);
    run_cluster_bins(all, &out);
    ck_assert_msg(out.exit_status == 0,
                  "%s: exit %d (1: a wrong bin or an error; 2: bad usage; "
                  "-1: crashed), output: %s",
                  all, out.exit_status, out.text);
    ck_assert_msg(out.bins_printed == KEY_BINS, "%s: printed %u bins, expected %d", all,
                  out.bins_printed, KEY_BINS);
    for (unsigned int bin = 0; bin < KEY_BINS; bin++)
        ck_assert_msg(out.bins[bin] == expected[bin], "%s: bin %u is %u, expected %u", all, bin,
                      out.bins[bin], expected[bin]);
    ck_assert_msg(out.has_sum && out.sum == keys, "%s: Histogram Sum missing or not %zu keys", all,
                  keys);
    ck_assert_msg(out.says_verified, "%s: no 'verified: yes' line: %s", all, out.text);
}

/* Generated input: fills expected and returns the arguments that make the same bytes. */
static void generated(size_t size, enum data_kind kind, uint64_t seed, const char *extra,
                      char *args, size_t args_size)
{
    unsigned char *buffer = malloc(size ? size : 1);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    reference(buffer, size, expected);
    free(buffer);
    snprintf(args, args_size, "--size %zu --data %s --seed %" PRIu64 " %s", size,
             data_kind_name(kind), seed, extra);
}

static void check_generated(size_t size, enum data_kind kind, uint64_t seed, const char *extra)
{
    char args[512];
    generated(size, kind, seed, extra, args, sizeof args);
    check_bins(args, (size + 1) / 2);
}

/* Odd sizes leave a lone last byte; 8193 and the prime spread over many blocks. */
static const size_t sizes[] = {0, 1, 2, 3, 17, 257, 8193, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_every_size_and_kind_matches_reference)
{
    check_generated(sizes[_i / 4], (enum data_kind)(_i % 4), 1500 + (uint64_t)_i, "");
}
END_TEST

/* One cluster and very many, small blocks and large; constant keys make every
 * block of a cluster add into one block's slice, so a block that reads or
 * leaves its slice early shows. */
static const char *const launches[] = {"--blocks 4",     "--blocks 4 --threads 1024",
                                       "--threads 32",   "--threads 96 --blocks 400",
                                       "--threads 1024", "--blocks 8 --threads 64"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_generated(1000003, DATA_UNIFORM, 7, launches[_i]);
    check_generated(4000001, DATA_CONSTANT, 8 + (uint64_t)_i, launches[_i]);
    check_generated(300007, DATA_SKEWED, 9, launches[_i]);
}
END_TEST

/* Constant keys over few threads: 16 MiB over 4 blocks of 32 threads gives
 * each thread 65536 equal keys in a row (8 Mi keys, 128 threads, the grid's
 * step apart). A thread that adds a run of equal keys at once must count it
 * past 65535: in 16 bits, this run wraps to 0 and adds nothing. */
START_TEST(test_long_runs_of_equal_keys)
{
    check_generated((size_t)16 << 20, DATA_CONSTANT, 12, "--blocks 4 --threads 32");
}
END_TEST

/* --show-slices: block b is rank b % 4 of its cluster; its slice may hold only
 * keys of bins rank x SLICE to (rank + 1) x SLICE - 1; the slices of rank r,
 * over all clusters, hold every key of that range (whichever block read it);
 * and they add up to the histogram. */
static void check_slices(const char *args, long blocks)
{
    char all[768];
    snprintf(all, sizeof all, "%s --reps 1 --show-slices", args);
    run_cluster_bins(all, &out);
    /* exit 1 with slices that do not add up: the checks below say what is wrong */
    ck_assert_msg(out.exit_status == 0 || (out.exit_status == 1 && out.slices_do_not),
                  "%s: exit %d (1: a wrong bin or an error; -1: crashed), output: %s", all,
                  out.exit_status, out.text);
    ck_assert_msg(strstr(out.cluster_line, "4 blocks x 65536 bytes of shared memory"),
                  "%s: the cluster line is '%s', expected 4 blocks x 65536 bytes of shared memory",
                  all, out.cluster_line);
    ck_assert_msg(out.slices == blocks, "%s: %d slice lines, expected one per block, %ld", all,
                  out.slices, blocks);
    uint64_t in_rank[CLUSTER] = {0}, expected_in_rank[CLUSTER] = {0};
    for (unsigned int bin = 0; bin < KEY_BINS; bin++)
        expected_in_rank[bin / SLICE] += expected[bin];
    for (int s = 0; s < out.slices; s++) {
        unsigned int rank = out.slice[s].rank;
        ck_assert_msg(rank == out.slice[s].block % CLUSTER && rank < CLUSTER,
                      "%s: block %ld says rank %u", all, out.slice[s].block, rank);
        in_rank[rank] += out.slice[s].keys;
        if (out.slice[s].keys)
            ck_assert_msg(out.slice[s].low >= (long)(rank * SLICE) &&
                              out.slice[s].high < (long)((rank + 1) * SLICE),
                          "%s: block %ld (rank %u) holds bins %ld to %ld, expected only %u to %u",
                          all, out.slice[s].block, rank, out.slice[s].low, out.slice[s].high,
                          rank * SLICE, (rank + 1) * SLICE - 1);
    }
    for (unsigned int r = 0; r < CLUSTER; r++)
        ck_assert_msg(in_rank[r] == expected_in_rank[r],
                      "%s: the slices of rank %u hold %" PRIu64 " keys, expected %" PRIu64
                      " (every key of bins %u to %u, whichever block read it)%s",
                      all, r, in_rank[r], expected_in_rank[r], r * SLICE, (r + 1) * SLICE - 1,
                      in_rank[r] == 0 ? ": nothing was counted in shared memory" : "");
    ck_assert_msg(out.slices_add_up, "%s: the slices do not add up to the histogram: %s", all,
                  out.slices_do_not ? "the program says NO" : "no 'slices add up' line");
}

START_TEST(test_each_block_holds_its_quarter_of_the_bins)
{
    static const struct {
        size_t size;
        enum data_kind kind;
        const char *launch;
        long blocks;
    } runs[] = {
        {1000003, DATA_UNIFORM, "--blocks 16", 16},
        {1000003, DATA_SKEWED, "--blocks 8 --threads 1024", 8},
        {65537, DATA_UNIFORM, "--blocks 4 --threads 64", 4},
    };
    char args[512];
    generated(runs[_i].size, runs[_i].kind, 20 + (uint64_t)_i, runs[_i].launch, args, sizeof args);
    check_slices(args, runs[_i].blocks);
}
END_TEST

/* Constant bytes: one key, 257 x the byte, so one bin of one rank's slices.
 * Every block reads its share of the keys, yet only the blocks of that rank
 * may hold them: the others added them across the cluster. */
START_TEST(test_constant_keys_land_in_the_owners_slices_only)
{
    size_t size = 400000;
    char args[512];
    generated(size, DATA_CONSTANT, 30 + (uint64_t)_i, "--blocks 16 --threads 128", args,
              sizeof args);
    unsigned int key = 0;
    while (expected[key] == 0)
        key++;
    check_slices(args, 16);
    for (int s = 0; s < out.slices; s++) {
        bool owner = out.slice[s].rank == key / SLICE;
        if (owner)
            ck_assert_msg(out.slice[s].keys > 0 && out.slice[s].low == key &&
                              out.slice[s].high == key,
                          "%s: block %ld (rank %u) holds %" PRIu64 " keys in bins %ld to %ld, "
                          "expected some, all of key %u",
                          args, out.slice[s].block, out.slice[s].rank, out.slice[s].keys,
                          out.slice[s].low, out.slice[s].high, key);
        else
            ck_assert_msg(out.slice[s].keys == 0,
                          "%s: block %ld (rank %u) holds %" PRIu64 " keys, expected none: key %u "
                          "belongs to rank %u",
                          args, out.slice[s].block, out.slice[s].rank, out.slice[s].keys, key,
                          key / SLICE);
    }
}
END_TEST

/* ------------------------------------------ inside the kernel, by tools -- */

/* compute-sanitizer's racecheck: no two threads touch one counter of a slice,
 * one of them writing, without an atomic or a barrier between: a plain read,
 * add and write of a count; a block that counts into another's slice before
 * the cluster's barrier says that slice is zeroed. Small inputs: racecheck is
 * slow. */
static const char *const race_runs[] = {
    "--size 64K --blocks 4 --threads 128 --reps 1",
    "--size 64K --data constant --blocks 8 --threads 64 --reps 1"};
#define RACE_RUNS ((int)(sizeof race_runs / sizeof race_runs[0]))

START_TEST(test_no_shared_memory_races)
{
    check_no_gpu_races(race_runs[_i]);
}
END_TEST

/* Nsight Compute counts the global atomics histo_kernel sends to L2, summed
 * over every launch of a run (warm-up, kernel-only, end to end) and taken per
 * launch. On 4 Mi uniform keys over 16 blocks (4 clusters), every counter of
 * every slice holds some (16 keys a bin a cluster, on average), so each block
 * merges its slice with 16384 / 32 warp instructions of 32 counters in a row,
 * each one or a few requests (4 sectors of 32 bytes; 8 allowed): at most 8 per
 * merge instruction, at least half of one. Keys added to the histogram
 * directly, or a slice merged one counter at a time by one thread, send many
 * more; a merge that some blocks leave out, fewer. */
#define PROFILED_ARGS   "--size 8M --blocks 16 --threads 256 --reps 1"
#define PROFILED_BLOCKS 16

START_TEST(test_each_slice_is_merged_by_every_thread_of_its_block)
{
    static const char *const metrics[] = {
        "lts__t_requests_op_red.sum", "lts__t_requests_op_atom.sum",
        "smsp__inst_executed_op_generic_ld.sum", "smsp__inst_executed_op_global_red.sum",
        "smsp__inst_executed_op_global_red.max"};
    double values[5];
    profile_kernel(PROFILED_ARGS, "histo_kernel", metrics, 5, values);
    double requests = (values[0] + values[1]) / profile_launches();
    double merge = (double)PROFILED_BLOCKS * SLICE / 32;
    /* A block reads its own slice as shared memory; another block's slice,
     * through cluster.map_shared_rank's pointer, only by generic loads. A
     * merge by one block of the cluster reads three slices that way: three
     * quarters of the merge's instructions. */
    double remote_loads = values[2] / profile_launches();
    ck_assert_msg(remote_loads < merge / 8,
                  "%s: %.0f generic loads per launch (reads through cluster.map_shared_rank's "
                  "pointers), want fewer than %.0f: the merge reads other blocks' slices, where "
                  "each block should merge the slice it holds",
                  PROFILED_ARGS, remote_loads, merge / 8);
    ck_assert_msg(requests <= 8 * merge,
                  "%s: %.0f atomic requests to L2 per launch, want at most %.0f (8 per merge "
                  "instruction of 32 counters, %d blocks of %d counters): more global atomics "
                  "than every thread's merge of the slices makes (keys added to the histogram "
                  "directly, or a slice merged by one thread?)",
                  PROFILED_ARGS, requests, 8 * merge, PROFILED_BLOCKS, SLICE);
    /* Where the merge's atomics run (global reductions: the counting's adds to
     * other blocks' slices are generic atomics, not counted here): a block's 8
     * warps share its SM's 4 schedulers (SMSPs), so a merge by all of them
     * gives the busiest about a 64th of the launch's (16 blocks, each on an SM
     * of its own; an H200 shows 128 of 8192); a merge by one warp of the block
     * puts a whole block's on one: a 16th (512). */
    double busiest = values[4], all = values[3];
    ck_assert_msg(busiest < all / 24,
                  "%s: the busiest SM scheduler ran %.0f of the launch's %.0f global atomic "
                  "instructions, more than a 24th: the slice is merged by one warp of its block, "
                  "where every thread should take counters",
                  PROFILED_ARGS, busiest, all);
    ck_assert_msg(requests >= merge / 2,
                  "%s: %.0f atomic requests to L2 per launch, want at least %.0f (half the merge "
                  "instructions of %d full slices): not every block adds its slice to the "
                  "histogram",
                  PROFILED_ARGS, requests, merge / 2, PROFILED_BLOCKS);
}
END_TEST

/* Nsight Compute counts the 32-byte sectors histo_kernel's global loads ask
 * of L1, per launch, on the same run, whether L1 holds them or not: each key
 * is read once, by the one thread of the grid whose step reaches it, and
 * counted into its owner's slice through cluster.map_shared_rank. The 8 MiB
 * input is 262144 sectors; a key read as two bytes touches each sector twice
 * (exercise 08's check saw that at L1), so the solution asks 262144 or
 * 524288. A kernel in which every block reads the keys of all 4 blocks of its
 * cluster, to keep those of its own slice, asks 4 times as many: 1048576 or
 * more. The bound is 3 times the input's sectors. (Not the sectors read from
 * L2: a cluster's blocks may share an SM, whose L1 then serves the repeats,
 * and the H100 showed no more L2 reads for that kernel.)
 *
 * And every block reads its share: the busiest SM's L1 (the metric's .max
 * over the SMs) asks a bounded part of the launch's sectors. 4 Mi keys over
 * 16 blocks of 256 threads are 1024 steps of the grid's 4096 threads, so
 * every block reads the same number of keys, a 16th of the sectors. An SM
 * holds at most 3 of these blocks (64 KiB of shared memory each, and 1 KiB
 * the system keeps per block, out of 228 KiB), so the busiest asks at most
 * 3/16 of them. A kernel in which one block of each cluster reads the keys
 * of all 4 (the others only holding bins) gives that block's SM 4/16 or more.
 * The bound is between: 7/32. The counts are exact, not timed. */
#define PROFILED_INPUT_SECTORS ((8.0 * (1 << 20)) / 32)

START_TEST(test_each_key_is_read_once)
{
    static const char *const metrics[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.max"};
    double values[2];
    profile_kernel(PROFILED_ARGS, "histo_kernel", metrics, 2, values);
    double sectors = values[0] / profile_launches();
    ck_assert_msg(sectors <= 3 * PROFILED_INPUT_SECTORS,
                  "%s: the kernel's loads asked for %.0f 32-byte sectors per launch, want at most "
                  "%.0f (the 8 MiB input is %.0f sectors, read as two bytes a key at most twice): "
                  "each key should be read once, by one thread of the grid, and added to the "
                  "slice of the block that owns it, not read again by every block of the cluster",
                  PROFILED_ARGS, sectors, 3 * PROFILED_INPUT_SECTORS, PROFILED_INPUT_SECTORS);
    /* summed over the launches, as the sum is: each launch keeps the bound */
    double busiest = values[1] / profile_launches();
    ck_assert_msg(busiest <= sectors * 7 / 32,
                  "%s: the busiest SM's L1 was asked %.0f of the launch's %.0f sectors of global "
                  "loads, more than 7/32 of them (each of the %d blocks reads a 16th of the keys, "
                  "and an SM holds at most 3 such blocks): a few blocks read the input for the "
                  "others, where every block of the cluster should read its own share of the "
                  "keys and add each into its owner's slice",
                  PROFILED_ARGS, busiest, sectors, PROFILED_BLOCKS);
}
END_TEST

/* The first and last bin of every slice, and a lone last byte, from a file. */
START_TEST(test_the_bins_at_the_slices_edges)
{
    static const unsigned int edges[] = {0,     1,     16383, 16384, 32767,
                                         32768, 49151, 49152, 65534, 65535};
    enum { EDGES = sizeof edges / sizeof edges[0], REPEATS = 1001 };
    char path[] = "/tmp/cluster_bins_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert(f != NULL);
    size_t size = 0;
    unsigned char *bytes = malloc(2 * EDGES * REPEATS + 1);
    ck_assert(bytes != NULL);
    for (int r = 0; r < REPEATS; r++)
        for (int e = 0; e < EDGES; e++) {
            bytes[size++] = (unsigned char)(edges[(e + r) % EDGES] & 0xff);
            bytes[size++] = (unsigned char)(edges[(e + r) % EDGES] >> 8);
        }
    bytes[size++] = 0xff; /* a lone last byte: key 255 */
    ck_assert(fwrite(bytes, 1, size, f) == size);
    fclose(f);
    reference(bytes, size, expected);
    free(bytes);
    char args[256];
    snprintf(args, sizeof args, "--file %s %s", path, _i ? "--blocks 4 --threads 32" : "");
    check_bins(args, (size + 1) / 2);
    unlink(path);
}
END_TEST

START_TEST(test_blocks_that_are_not_whole_clusters_are_usage_errors)
{
    static const char *const args[] = {"--blocks 1", "--blocks 6", "--blocks 4097"};
    struct stage_output o;
    run_stage(args[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)", args[_i],
                  exit_meaning(&o));
    ck_assert_msg(strstr(o.err, "multiple of 4"), "%s: the reason does not say 'multiple of 4': %s",
                  args[_i], o.err);
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
    ck_assert_msg(strncmp(row, "15_cluster_bins,cluster,", 24) == 0,
                  "--csv: the row starts wrong: %s", row);
    ck_assert_msg(strstr(row, ",skewed,4096,"), "--csv: data and bytes: %s", row);
    ck_assert_msg(strcmp(row + strlen(row) - 5, ",yes\n") == 0, "--csv: not verified: %s", row);
}
END_TEST

/* The largest input the stages take, 4 GiB - 1 bytes: 2^31 keys, the last a
 * lone byte. An int count of keys wraps to a negative number there and counts
 * nothing; size_t counts them all. */
START_TEST(test_counts_the_largest_input)
{
    set_run_time_limit(120);
    check_generated(MAX_INPUT_BYTES, DATA_UNIFORM, 11, "");
}
END_TEST

/* The slices are shared by the cluster's blocks: every add into one must be
 * atomic among the threads of all of them. atomicAdd_block is atomic only
 * among one block's threads; nvcc writes that scope into the PTX as ".cta". */
START_TEST(test_no_atomic_is_block_scope)
{
    int block_scope = ptx_lines_matching("^[[:space:]]*(atom|red)(\\.[a-z:]+)?\\.cta\\.");
    ck_assert_msg(block_scope == 0,
                  "the program's PTX has %d atomic%s of block scope (.cta: atomicAdd_block), "
                  "atomic only among one block's threads, on slices the cluster's blocks all "
                  "add to",
                  block_scope, block_scope == 1 ? "" : "s");
}
END_TEST

/* The cluster barrier after the zeroing must release the zeroed slices to the
 * other blocks before their adds come in: cluster.sync()'s arrive does (PTX
 * barrier.cluster.arrive, release by default). A relaxed arrive
 * (barrier.cluster.arrive.relaxed) still makes the blocks wait, but orders no
 * memory: another block's add may then meet a counter not yet zeroed. */
START_TEST(test_every_cluster_barrier_orders_memory)
{
    int relaxed = ptx_lines_matching("^[[:space:]]*barrier\\.cluster\\.arrive[.a-z:]*\\.relaxed");
    ck_assert_msg(relaxed == 0,
                  "the program's PTX has %d relaxed cluster arrive%s (barrier.cluster.arrive"
                  ".relaxed): a barrier that orders no memory, so the slices' zeroing is not "
                  "published to the other blocks before they add",
                  relaxed, relaxed == 1 ? "" : "s");
}
END_TEST

/* ----------------------------------------------------------------- edge -- */

/* More than 2^32 threads: 4194308 blocks of 1024 (whole clusters) are
 * 2^32 + 4096 threads, on 8192 keys. An index formed in 32 bits
 * (blockIdx.x * blockDim.x before it is widened) wraps past 2^32, and the
 * last blocks' threads count the first keys again; a stride formed in 32
 * bits (blockDim.x * gridDim.x) wraps to 4096, and threads 0 to 4095 take a
 * second step onto keys 4096 to 8191, which their own threads count too. */
START_TEST(test_more_than_2_to_the_32_threads)
{
    set_run_time_limit(120);
    check_generated(16384, DATA_UNIFORM, 60, "--blocks 4194308 --threads 1024");
}
END_TEST

/* Blocks that are not whole warps: 33 threads (a last warp of one lane) and
 * one thread a block, with every bin and every slice checked. A loop over a
 * slice that steps by whole warps, not by the block's threads, counts some
 * counters twice at 33 threads and never ends at 1 (the time limit stops it). */
START_TEST(test_blocks_that_are_not_whole_warps)
{
    static const struct {
        size_t size;
        const char *launch;
        long blocks;
    } runs[] = {
        {65537, "--blocks 8 --threads 33", 8},
        {4097, "--blocks 4 --threads 1", 4},
    };
    set_run_time_limit(60);
    char args[512];
    generated(runs[_i].size, DATA_UNIFORM, 61 + (uint64_t)_i, runs[_i].launch, args, sizeof args);
    check_bins(args, (runs[_i].size + 1) / 2);
    check_slices(args, runs[_i].blocks);
}
END_TEST

/* One counter past 2^24: 40 MiB of constant bytes are 2^24 + 2^22 equal keys,
 * all in one counter of one slice (4 blocks of 1024 threads: one cluster). A
 * counter kept in a float stops at 2^24, where adding 1 no longer changes it. */
START_TEST(test_one_counter_past_2_to_the_24)
{
    set_run_time_limit(120);
    check_generated((size_t)40 << 20, DATA_CONSTANT, 62, "--blocks 4 --threads 1024");
}
END_TEST

/* With no option at all, the program runs what --help and the book say: the
 * book's 100 MiB of uniform bytes (52428800 keys), 10 timed runs, and the
 * book's launch, 2 blocks per SM of 256 threads in whole clusters (the block
 * count the given program computes for --blocks-per-sm 2), verified. */
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
    ck_assert_msg(strstr(o.out, "input:      uniform, 104857600 bytes: 52428800 16-bit keys\n"),
                  "(no options): expected the default input, 100 MiB of uniform bytes: %s", o.out);
    ck_assert_msg(strstr(o.out, "(median of 10 runs"),
                  "(no options): expected the default 10 timed runs: %s", o.out);
    ck_assert_msg(o.has_sum && o.sum == 52428800, "(no options): the sum: %s", o.out);
    long blocks;
    int threads;
    read_launch("(no options)", &o, &blocks, &threads);
    ck_assert_msg(blocks == book_blocks && threads == 256 && blocks % CLUSTER == 0,
                  "(no options): launch %ld blocks x %d threads, expected the book's %ld x 256 (2 "
                  "blocks per SM of 256 threads, in whole clusters)",
                  blocks, threads, book_blocks);
    ck_assert_msg(o.says_verified, "(no options): no 'verified: yes' line: %s", o.out);
}
END_TEST

/* --bins takes only 65536 (one bin per 16-bit key): any other number is bad
 * usage, exit 2 with one line that names --bins, before the GPU is opened. */
START_TEST(test_bins_other_than_65536_are_refused)
{
    static const char *const args[] = {"--size 4096 --bins 256", "--size 4096 --bins 65535",
                                       "--size 4096 --bins 0x10000"};
    struct stage_output o;
    run_stage(args[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: %s, expected exit 2 (bad usage)", args[_i],
                  exit_meaning(&o));
    const char *newline = strchr(o.err, '\n');
    ck_assert_msg(newline && strstr(o.err, "--bins") && strstr(o.err, "--bins") < newline,
                  "%s: the first line of stderr must say why, naming --bins: %s", args[_i], o.err);
    ck_assert_msg(o.out[0] == '\0', "%s: printed on stdout: %s", args[_i], o.out);
}
END_TEST

/* ... and --bins 65536 itself is taken. */
START_TEST(test_bins_65536_is_taken)
{
    struct stage_output o;
    run_stage("--size 4096 --reps 1 --bins 65536", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified,
                  "--size 4096 --reps 1 --bins 65536: %s, expected exit 0 and verified: 65536 is "
                  "the number of bins; stderr: %s",
                  exit_meaning(&o), o.err);
}
END_TEST

START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 65537 --data text --reps 2 --blocks 8 --threads 96 --csv", 2);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("15_cluster_bins", argc, argv);
    Suite *suite = suite_create("exercise 15: 65536 bins over a cluster of blocks");
    /* Without a GPU (or one before sm_90) the program exits 77 and every check
     * is counted as skipped. */
    TCase *bins = exercise_tcase("every bin right, on every size, kind and launch", 2);
    tcase_set_timeout(bins, 300);
    tcase_add_loop_test(bins, test_every_size_and_kind_matches_reference, 0, SIZES * 4);
    tcase_add_loop_test(bins, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(bins, test_long_runs_of_equal_keys);
    add_if_runnable(suite, bins, SIZES * 4 + LAUNCHES + 1);

    TCase *slices = exercise_tcase("each block's slice holds its quarter (--show-slices)", 1);
    tcase_set_timeout(slices, 120);
    tcase_add_loop_test(slices, test_each_block_holds_its_quarter_of_the_bins, 0, 3);
    tcase_add_loop_test(slices, test_constant_keys_land_in_the_owners_slices_only, 0, 3);
    add_if_runnable(suite, slices, 3 + 3);

    TCase *races = exercise_tcase("no shared-memory races (compute-sanitizer racecheck)", 0);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_shared_memory_races, 0, RACE_RUNS);
    add_if_tool(suite, races, RACE_RUNS, have_compute_sanitizer(),
                "compute-sanitizer (CUDA toolkit)");

    TCase *once = exercise_tcase("each key read once, into its owner's slice (ncu)", 1);
    tcase_add_test(once, test_each_key_is_read_once);
    add_if_tool(suite, once, 1, can_profile(), profile_tool_missing());

    TCase *merged = exercise_tcase("each slice merged by all its block's threads (ncu)", 3);
    tcase_set_timeout(merged, 300);
    tcase_add_test(merged, test_each_slice_is_merged_by_every_thread_of_its_block);
    add_if_tool(suite, merged, 1, can_profile(), profile_tool_missing());

    TCase *edges = exercise_tcase("the slices' edges, whole clusters, the CSV", 3);
    tcase_set_timeout(edges, 120);
    tcase_add_loop_test(edges, test_the_bins_at_the_slices_edges, 0, 2);
    tcase_add_loop_test(edges, test_blocks_that_are_not_whole_clusters_are_usage_errors, 0, 3);
    tcase_add_test(edges, test_csv_prints_header_and_a_verified_row);
    add_if_runnable(suite, edges, 2 + 3 + 1);

    TCase *large = exercise_tcase("the largest input, 4 GiB - 1 bytes: 2^31 keys", 2);
    tcase_set_timeout(large, 300);
    tcase_add_test(large, test_counts_the_largest_input);
    /* 4 GiB on the GPU; on the host the program's input and the check's */
    add_if_tool(suite, large, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());

    TCase *edge = exercise_tcase("edge: past 2^32 threads, partial warps, a counter past 2^24", 3);
    tcase_set_timeout(edge, 300);
    tcase_add_test(edge, test_more_than_2_to_the_32_threads);
    tcase_add_loop_test(edge, test_blocks_that_are_not_whole_warps, 0, 2);
    tcase_add_test(edge, test_one_counter_past_2_to_the_24);
    add_if_runnable(suite, edge, 1 + 2 + 1);

    TCase *given = exercise_tcase("edge: the defaults, --bins 65536 taken, only CSV with --csv", 0);
    tcase_set_timeout(given, 120);
    tcase_add_test(given, test_defaults_with_no_options);
    tcase_add_test(given, test_bins_65536_is_taken);
    tcase_add_test(given, test_csv_prints_only_csv);
    add_if_runnable(suite, given, 1 + 1 + 1);

    /* refused before the GPU is opened: runs without a GPU too */
    TCase *bins_refused = exercise_tcase("edge: --bins other than 65536 refused, in one line", 0);
    tcase_add_loop_test(bins_refused, test_bins_other_than_65536_are_refused, 0, 3);
    add_tcase(suite, bins_refused, 3);

    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);

    /* read from the PTX: it runs without a GPU too */
    TCase *scope = exercise_tcase("no atomic of block scope, no relaxed cluster barrier (read in "
                                  "the PTX)",
                                  2);
    tcase_add_test(scope, test_no_atomic_is_block_scope);
    tcase_add_test(scope, test_every_cluster_barrier_orders_memory);
    add_tcase(suite, scope, 2);
    return run_exercise(suite);
}
