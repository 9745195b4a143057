/*
 * check_rgb_histogram.c - exercise 06 counts all three channels: on the sample
 * photograph and on generated pixels of every size, kind and work-group size,
 * the red, green and blue histograms it prints are the ones counted here, on
 * the CPU, from the same bytes. And it counts them the way the exercise
 * teaches: three histograms in the work-group's local memory (the program
 * prints how much its kernel declares), each byte counted into them with one
 * atomic add and read once, in one loop over the pixels (Oclgrind counts what
 * the kernel executes and dumps it as compiled), with no race and no barrier
 * that part of a work-group misses that Oclgrind can see, on work-groups of 1
 * to 1024 work-items. Without any OpenCL device these checks are reported as
 * skipped; without Oclgrind, its groups are. Past 2 GiB, past 2^32
 * work-items, and to see which work-items merge, the check runs the kernel
 * under Oclgrind from a host of its own (check_rgb_histogram_quick.c).
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHANNELS 3
#define IMAGE    "../../data/chelsea.bmp" /* make check runs in the exercise's folder */

/* What the program printed: with --print-bins, "r0: n" ... "g0: n" ... "b255: n".
 * 768 bin lines are more than stage_output keeps, so this reads all of stdout. */
struct rgb_output {
    int exit_status;
    char err[4096];
    unsigned int bins[CHANNELS][BINS];
    int bins_printed;
    uint64_t sums[CHANNELS];
    int sums_printed;
    bool says_verified;
    bool has_local;
    uint64_t local_bytes; /* "local memory: N bytes per work-group" */
};

static void run_rgb(const char *args, struct rgb_output *r)
{
    static const char *const names[CHANNELS] = {"red", "green", "blue"};
    memset(r, 0, sizeof *r);
    r->exit_status = -1;
    char err_path[] = "/tmp/rgb_err_XXXXXX", command[4096 + 512], line[512];
    int err_fd = mkstemp(err_path);
    ck_assert(err_fd >= 0);
    close(err_fd);
    snprintf(command, sizeof command, "'%s' %s 2>'%s'", stage_program(), args, err_path);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    while (fgets(line, sizeof line, p)) {
        char letter, tail, name[8];
        int bin;
        unsigned count;
        unsigned long long sum;
        if (sscanf(line, "%c%d: %u%c", &letter, &bin, &count, &tail) == 4 && tail == '\n' &&
            strchr("rgb", letter) && bin >= 0 && bin < BINS) {
            r->bins[strchr("rgb", letter) - "rgb"][bin] = count;
            r->bins_printed++;
        } else if (sscanf(line, "%7s sum: %llu", name, &sum) == 2) {
            for (int c = 0; c < CHANNELS; c++)
                if (strcmp(name, names[c]) == 0) {
                    r->sums[c] = sum;
                    r->sums_printed++;
                }
        } else if (sscanf(line, "local memory: %llu", &sum) == 1) {
            r->local_bytes = sum;
            r->has_local = true;
        } else if (strncmp(line, "verified:   yes", 15) == 0) {
            r->says_verified = true;
        }
    }
    int status = pclose(p);
    r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE *err = fopen(err_path, "r");
    if (err) {
        r->err[fread(r->err, 1, sizeof r->err - 1, err)] = '\0';
        fclose(err);
    }
    unlink(err_path);
}

/* Asserts exit 0, the three sums, all 768 bins equal to expected, and "verified". */
static void check_rgb(const char *args, const unsigned char *rgb, size_t pixels)
{
    unsigned int expected[CHANNELS][BINS] = {{0}};
    for (size_t p = 0; p < pixels; p++)
        for (int c = 0; c < CHANNELS; c++)
            expected[c][rgb[CHANNELS * p + c]]++;
    struct rgb_output r;
    run_rgb(args, &r);
    ck_assert_msg(r.exit_status == 0, "./rgb_histogram %s: exit %d (expected 0), stderr: %s", args,
                  r.exit_status, r.err);
    ck_assert_msg(r.bins_printed == CHANNELS * BINS,
                  "./rgb_histogram %s: printed %d bins, expected 768 (r0 to b255)", args,
                  r.bins_printed);
    static const char letters[] = "rgb";
    for (int c = 0; c < CHANNELS; c++)
        for (int bin = 0; bin < BINS; bin++)
            ck_assert_msg(r.bins[c][bin] == expected[c][bin],
                          "./rgb_histogram %s: bin %c%d is %u, expected %u (the CPU's count of "
                          "the same %zu pixels)",
                          args, letters[c], bin, r.bins[c][bin], expected[c][bin], pixels);
    ck_assert_msg(r.sums_printed == CHANNELS, "./rgb_histogram %s: %d sum lines, expected three",
                  args, r.sums_printed);
    for (int c = 0; c < CHANNELS; c++)
        ck_assert_msg(r.sums[c] == pixels,
                      "./rgb_histogram %s: the %c sum is %" PRIu64 ", expected %zu (one per pixel)",
                      args, letters[c], r.sums[c], pixels);
    ck_assert_msg(r.says_verified, "./rgb_histogram %s: no 'verified:   yes' line", args);
}

START_TEST(test_the_photographs_three_histograms_match_reference)
{
    struct image img;
    char why[512];
    ck_assert_msg(read_bmp(IMAGE, &img, why, sizeof why) == EXIT_OK, "%s", why);
    check_rgb("--image " IMAGE " --reps 1 --print-bins", img.rgb, (size_t)img.width * img.height);
    free_image(&img);
}
END_TEST

/* Bytes of generated input: 0, 1 and 2 make no whole pixel; 3 is one; around
 * 256 pixels a work-group's share changes; a prime leaves a last partial pixel. */
static const size_t sizes[] = {0, 1, 2, 3, 767, 768, 771, 3000017};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define KINDS 4

static void check_generated(size_t size, enum data_kind kind, uint64_t seed, const char *extra)
{
    unsigned char *bytes = malloc(size ? size : 1);
    ck_assert(bytes != NULL);
    fill_input(kind, bytes, size, seed);
    char args[256];
    snprintf(args, sizeof args, "--size %zu --data %s --seed %" PRIu64 " --reps 1 --print-bins %s",
             size, data_kind_name(kind), seed, extra);
    check_rgb(args, bytes, size / CHANNELS);
    free(bytes);
}

START_TEST(test_generated_pixels_of_every_size_and_kind_match_reference)
{
    check_generated(sizes[_i / KINDS], (enum data_kind)(_i % KINDS), 600 + (uint64_t)_i, "");
}
END_TEST

/* Past 2^24 pixels a float no longer holds every pixel's number: a share of
 * the pixels worked out in float rounds, and the last pixels go uncounted.
 * 2^24 + 1 pixels (48 MiB) on 1024 work-items (a power of two) loses the last
 * one; the size is this large because the mistake needs it (a second on PoCL). */
START_TEST(test_pixels_past_2_to_the_24_match_reference)
{
    check_generated(3 * ((size_t)1 << 24) + 3, DATA_UNIFORM, 650, "--blocks 4 --threads 256");
}
END_TEST

/* One work-item over a uniform picture meets 100000 equal pixels in a row:
 * a count kept in a narrow type (65535 at most) wraps on it. */
START_TEST(test_one_work_item_counts_a_uniform_picture)
{
    check_generated(300000, DATA_CONSTANT, 1, "--blocks 1 --threads 1");
}
END_TEST

/* Work-groups smaller than 256 zero and merge with a stride, and one of 512
 * has work-items with no bin; 33 is no power of two; one work-group must
 * still cover every pixel, and 1000 of 32 are more work-items than pixels;
 * 1024 is the largest work-group the program takes. */
static const char *const launches[] = {"--threads 1",
                                       "--threads 33",
                                       "--threads 64",
                                       "--threads 512",
                                       "--blocks 1 --threads 64",
                                       "--blocks 1000 --threads 32",
                                       "--threads 1024"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_generated(300007, DATA_UNIFORM, 7, launches[_i]);
    check_generated(771, DATA_CONSTANT, 8, launches[_i]); /* every pixel in the same three bins */
}
END_TEST

/* Three local histograms of 256 four-byte bins: what the compiler reports for
 * the kernel's __local arrays. Counting green and blue straight into the
 * global bins gives the right numbers with one local histogram, not three. */
START_TEST(test_the_kernel_keeps_three_local_histograms)
{
    const char *args = "--size 3000 --reps 1";
    struct rgb_output r;
    run_rgb(args, &r);
    ck_assert_msg(r.exit_status == 0, "./rgb_histogram %s: exit %d (expected 0), stderr: %s", args,
                  r.exit_status, r.err);
    ck_assert_msg(r.has_local, "./rgb_histogram %s: no 'local memory: N bytes' line", args);
    ck_assert_msg(r.local_bytes >= CHANNELS * BINS * sizeof(unsigned int),
                  "./rgb_histogram %s: the kernel declares %" PRIu64 " bytes of local memory per "
                  "work-group, expected at least %zu: three histograms of 256 uint bins, one per "
                  "channel (a channel counted straight into the global bins skips the lesson)",
                  args, r.local_bytes, CHANNELS * BINS * sizeof(unsigned int));
}
END_TEST

/* ------------------------------------------- what Oclgrind counts inside -- */

/* The input's loads in the kernel as Oclgrind compiled it (--dump-spir): how
 * many separate outermost loops read it. One pass over the pixels is one. */
#define IR_BLOCKS 1024
#define IR_EDGES  8
struct kernel_ir {
    int blocks;
    char names[IR_BLOCKS][64];
    char targets[IR_BLOCKS][IR_EDGES][64];
    int edges[IR_BLOCKS];
    int succ[IR_BLOCKS][IR_EDGES];
    bool reads_input[IR_BLOCKS];
};

/* Whether an LLVM IR line loads bytes of the input: a load of i8 (or of a
 * vector of i8) from addrspace(1), or an OpenCL vload of uchar from it. */
static bool reads_input_bytes(const char *line)
{
    const char *load = strstr(line, " load ");
    if (load && strstr(line, "addrspace(1)") &&
        (strncmp(load, " load i8,", 9) == 0 ||
         (strncmp(load, " load <", 7) == 0 && strstr(load, " x i8>,") != NULL)))
        return true;
    return strstr(line, "call ") && strstr(line, "vload") && strstr(line, "AS1Kh");
}

/* Reads the kernel's function out of an LLVM IR file: its blocks, their
 * successors, and which blocks load input bytes. */
static bool read_kernel_ir(const char *path, const char *kernel, struct kernel_ir *ir)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096], define[128];
    snprintf(define, sizeof define, "@%s(", kernel);
    bool inside = false;
    memset(ir, 0, sizeof *ir);
    while (fgets(line, sizeof line, f)) {
        if (!inside) {
            if (strncmp(line, "define ", 7) == 0 && strstr(line, define)) {
                inside = true;
                ir->blocks = 1; /* the entry block, whether or not it is named */
                strcpy(ir->names[0], "entry");
            }
            continue;
        }
        if (line[0] == '}')
            break;
        size_t label =
            strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-$");
        if (label > 0 && line[label] == ':' && label < 64) {
            /* a new block, unless it names the entry block that is still empty */
            bool entry_unused = ir->blocks == 1 && ir->edges[0] == 0 && !ir->reads_input[0];
            if (!entry_unused && ir->blocks < IR_BLOCKS)
                ir->blocks++;
            snprintf(ir->names[ir->blocks - 1], 64, "%.*s", (int)label, line);
            continue;
        }
        int b = ir->blocks - 1;
        if (reads_input_bytes(line))
            ir->reads_input[b] = true;
        for (const char *t = strstr(line, "label %"); t; t = strstr(t + 1, "label %")) {
            t += strlen("label %");
            size_t n = strcspn(t, " ,]\n");
            if (ir->edges[b] < IR_EDGES && n < 64)
                snprintf(ir->targets[b][ir->edges[b]++], 64, "%.*s", (int)n, t);
        }
    }
    fclose(f);
    if (!inside)
        return false;
    for (int b = 0; b < ir->blocks; b++)
        for (int e = 0; e < ir->edges[b]; e++) {
            ir->succ[b][e] = -1;
            for (int c = 0; c < ir->blocks; c++)
                if (strcmp(ir->names[c], ir->targets[b][e]) == 0)
                    ir->succ[b][e] = c;
        }
    return true;
}

/* The number of outermost loops that hold a load of the input: the natural
 * loop of each back edge (found by a depth-first walk from the entry), and
 * for each block that reads the input, the largest loop around it. */
static int input_loops(const struct kernel_ir *ir)
{
    static int state[IR_BLOCKS], edge_at[IR_BLOCKS], stack[IR_BLOCKS], loop_size[IR_BLOCKS];
    static bool in_loop[IR_BLOCKS][IR_BLOCKS]; /* in_loop[header][block] */
    memset(state, 0, sizeof state);
    memset(loop_size, 0, sizeof loop_size);
    memset(in_loop, 0, sizeof in_loop);
    int depth = 0;
    stack[depth++] = 0;
    state[0] = 1; /* 1: on the walk's path, 2: done */
    edge_at[0] = 0;
    while (depth > 0) {
        int b = stack[depth - 1];
        if (edge_at[b] == ir->edges[b]) {
            state[b] = 2;
            depth--;
            continue;
        }
        int s = ir->succ[b][edge_at[b]++];
        if (s < 0)
            continue;
        if (state[s] == 0) {
            state[s] = 1;
            edge_at[s] = 0;
            stack[depth++] = s;
        } else if (state[s] == 1) {
            /* a back edge b -> s: s heads a loop; its body reaches b without passing s */
            int work[IR_BLOCKS], n = 0;
            in_loop[s][s] = true;
            if (!in_loop[s][b])
                in_loop[s][work[n++] = b] = true;
            while (n > 0) {
                int x = work[--n];
                for (int p = 0; p < ir->blocks; p++)
                    for (int e = 0; e < ir->edges[p]; e++)
                        if (ir->succ[p][e] == x && !in_loop[s][p])
                            in_loop[s][work[n++] = p] = true;
            }
        }
    }
    for (int h = 0; h < ir->blocks; h++)
        for (int b = 0; b < ir->blocks; b++)
            loop_size[h] += in_loop[h][b];
    bool outer[IR_BLOCKS] = {false};
    int loops = 0;
    for (int b = 0; b < ir->blocks; b++) {
        if (!ir->reads_input[b])
            continue;
        int best = -1;
        for (int h = 0; h < ir->blocks; h++)
            if (in_loop[h][b] && (best < 0 || loop_size[h] > loop_size[best]))
                best = h;
        if (best >= 0 && !outer[best]) {
            outer[best] = true;
            loops++;
        }
    }
    return loops;
}

/* The LLVM IR files Oclgrind's --dump-spir writes, /tmp/oclgrind_<hex>.ll:
 * their names, to tell a run's new one from those that were there before. */
static int list_dumps(char names[][64], int most)
{
    int n = 0;
    FILE *ls = popen("ls /tmp 2>/dev/null", "r");
    char line[256];
    while (ls && fgets(line, sizeof line, ls)) {
        line[strcspn(line, "\n")] = '\0';
        size_t len = strlen(line);
        if (strncmp(line, "oclgrind_", 9) == 0 && len > 3 && len < 64 &&
            strcmp(line + len - 3, ".ll") == 0 && n < most)
            strcpy(names[n++], line);
    }
    if (ls)
        pclose(ls);
    return n;
}

/* Runs the program under Oclgrind, counting what its kernel executes and
 * dumping the kernel as compiled; fills counts, and input_loops (-1 when no
 * dump was found). Removes the files the dump wrote. */
static void run_counted(const char *args, struct kernel_counts *k, int *loops)
{
    static char before[4096][64], after[4096][64];
    int n_before = list_dumps(before, 4096);
    count_kernel("--dump-spir", args, k);
    *loops = -1;
    int n_after = list_dumps(after, 4096);
    for (int a = 0; a < n_after; a++) {
        bool old = false;
        for (int b = 0; b < n_before && !old; b++)
            old = strcmp(after[a], before[b]) == 0;
        if (old)
            continue;
        char path[128];
        snprintf(path, sizeof path, "/tmp/%.63s", after[a]);
        static struct kernel_ir ir;
        if (*loops < 0 && read_kernel_ir(path, "rgb_histo_kernel", &ir))
            *loops = input_loops(&ir);
        /* the dump's three files: .ll, .bc and .cl */
        size_t stem = strlen(path) - 3;
        static const char *const kinds[] = {".ll", ".bc", ".cl"};
        for (int i = 0; i < 3; i++) {
            snprintf(path + stem, sizeof path - stem, "%s", kinds[i]);
            unlink(path);
        }
    }
}

/* Oclgrind counts every instruction the kernel executes: on 10000 pixels in
 * two work-groups, every byte of the input is loaded once, in one loop over
 * the pixels, and counted with one atomic add into a local histogram; the
 * global bins take only the merge's atomics, 768 per work-group. Local arrays
 * that are declared, zeroed and merged but not counted into, a channel counted
 * into the global bins, an atomic load then store, and three loops over the
 * pixels (one per channel) each miss one of these. The same is counted on
 * three more launches, so that a kernel that takes the local path on some
 * launch shapes only (2 x 64, a power of two, at least 64 work-items) is
 * seen: 771 pixels in three work-groups of 33, 10000 in four of 256 and in
 * two of 1024, the largest the program takes. */
static const unsigned counted_launches[][3] = {
    {10000, 2, 64}, {771, 3, 33}, {10000, 4, 256}, {10000, 2, 1024}}; /* pixels, groups, items */
#define COUNTED_LAUNCHES ((int)(sizeof counted_launches / sizeof counted_launches[0]))
START_TEST(test_every_byte_read_once_and_counted_in_local_memory)
{
    const unsigned pixels = counted_launches[_i][0], groups = counted_launches[_i][1],
                   items = counted_launches[_i][2];
    char args[256];
    snprintf(args, sizeof args, "--size %u --reps 1 --blocks %u --threads %u", CHANNELS * pixels,
             groups, items);
    struct kernel_counts k;
    int loops;
    run_counted(args, &k, &loops);
    const unsigned long long bytes = CHANNELS * (unsigned long long)pixels;
    ck_assert_msg(k.found, "oclgrind --inst-counts ./rgb_histogram %s: no instruction counts",
                  args);
    ck_assert_msg(k.local_exchanges == 0,
                  "oclgrind --inst-counts ./rgb_histogram %s: %llu atomic exchanges (or stores) "
                  "on local memory: a count read, then written back, loses the increments that "
                  "other work-items make in between; a count needs one atomic add",
                  args, k.local_exchanges);
    ck_assert_msg(k.local_adds == bytes,
                  "oclgrind --inst-counts ./rgb_histogram %s: %llu atomic adds on local memory for "
                  "%u pixels, expected %llu: each of a pixel's three bytes counted once, into its "
                  "channel's local histogram, whatever the launch's shape",
                  args, k.local_adds, pixels, bytes);
    ck_assert_msg(k.global_atomics <= (unsigned long long)CHANNELS * BINS * groups,
                  "oclgrind --inst-counts ./rgb_histogram %s: %llu atomics on the global bins, "
                  "expected at most %u (the merge: 768 per work-group); the counting belongs in "
                  "local memory, whatever the launch's shape",
                  args, k.global_atomics, CHANNELS * BINS * groups);
    ck_assert_msg(
        k.global_load_bytes == bytes,
        "oclgrind --inst-counts ./rgb_histogram %s: the kernel loads %llu bytes of global "
        "memory for %llu bytes of pixels, expected each byte once and nothing else (the "
        "merge reads no global bin: it adds to it with an atomic)",
        args, k.global_load_bytes, bytes);
    ck_assert_msg(loops >= 0,
                  "oclgrind --dump-spir ./rgb_histogram %s: no dump of the kernel found", args);
    ck_assert_msg(loops <= 1,
                  "oclgrind --dump-spir ./rgb_histogram %s: the kernel reads the pixels in %d "
                  "separate loops, expected one: one pass over the pixels counts all three "
                  "channels, so that each pixel is fetched from memory once",
                  args, loops);
}
END_TEST

/* PoCL runs a work-group's items one after another, so a race gives the right
 * count there; Oclgrind simulates them and reports it, and a barrier that only
 * part of a work-group reaches. One work-group and several; a work-group
 * smaller than 256 zeroes and merges with a stride, one of 512 has work-items
 * with no bin; the fifth launch has more work-items than pixels (10); work-groups
 * of one work-item and of 1024. */
static const char *const race_launches[] = {
    "--size 30000 --reps 1 --blocks 2 --threads 64",
    "--size 3000 --reps 1 --blocks 1 --threads 256", "--size 771 --reps 1 --blocks 3 --threads 33",
    "--size 3000 --reps 1 --blocks 2 --threads 512", "--size 30 --reps 1 --blocks 4 --threads 64",
    /* one work-item zeroing and merging all 768 bins alone; and the largest
     * work-group the program takes, 256 of whose 1024 items have no bin */
    "--size 3000 --reps 1 --blocks 2 --threads 1",
    "--size 3000 --reps 1 --blocks 2 --threads 1024"};
#define RACE_LAUNCHES ((int)(sizeof race_launches / sizeof race_launches[0]))

START_TEST(test_no_races_under_oclgrind)
{
    check_no_races(race_launches[_i]);
}
END_TEST

START_TEST(test_finds_its_kernel_from_another_directory)
{
    struct stage_output o;
    run_stage_in("/", "--size 3000 --reps 1", &o); /* where no rgb_histogram.cl is */
    ck_assert_msg(o.exit_status == 0,
                  "./rgb_histogram --size 3000 run from /: %s (expected exit 0), stderr: %s",
                  exit_meaning(&o), o.err);
    ck_assert_msg(o.says_verified, "./rgb_histogram --size 3000 run from /: no 'verified: yes'");
}
END_TEST

START_TEST(test_options_without_meaning_here_are_usage_errors)
{
    /* each refused with exit 2 and a first line of stderr that names the option */
    static const char *const refused[][2] = {{"--file ../Makefile", "--file"},
                                             {"--csv", "--csv"},
                                             {"--bins 255", "--bins"},
                                             {"--bins 768", "--bins"},
                                             {"--image Makefile", "--image"}};
    struct stage_output o;
    for (int i = 0; i < 5; i++) {
        run_stage(refused[i][0], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "./rgb_histogram %s: %s, expected exit 2",
                      refused[i][0], exit_meaning(&o));
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(o.err, "\n"), o.err);
        ck_assert_msg(strstr(first, refused[i][1]) != NULL,
                      "./rgb_histogram %s: exit 2, but the first line of stderr does not name %s: "
                      "%s",
                      refused[i][0], refused[i][1], first);
    }
    ck_assert_msg(strstr(o.err, "--image: ") && strstr(o.err, "not a BMP file"),
                  "./rgb_histogram --image Makefile: expected '--image: ... not a BMP file' on "
                  "stderr, got: %s",
                  o.err);
}
END_TEST

/* With no option but --size, the given program runs what --help says:
 * uniform data of seed 1, the median of 10 runs, and the book's launch, two
 * work-groups per compute unit (what --blocks-per-sm 2 asks for) of 256
 * work-items; with no --size either, 100 MiB (one run, to save ten). */
START_TEST(test_the_defaults_are_the_ones_help_gives)
{
    struct stage_output o, book;
    run_stage("--size 30000", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--size 30000: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    run_stage("--size 30000 --reps 1 --blocks-per-sm 2 --threads 256", &book);
    ck_assert_msg(book.exit_status == 0,
                  "--size 30000 --reps 1 --blocks-per-sm 2 --threads 256: %s, stderr: %s",
                  exit_meaning(&book), book.err);
    char got[256], expected[256];
    report_value(o.out, "input:", got, sizeof got);
    ck_assert_msg(strcmp(got, "uniform, 30000 bytes, seed 1: 10000 pixels of 3 bytes") == 0,
                  "--size 30000 (no --data, no --seed): the input line reads '%s', expected "
                  "'uniform, 30000 bytes, seed 1: 10000 pixels of 3 bytes' (the defaults --help "
                  "gives)",
                  got);
    report_value(o.out, "launch:", got, sizeof got);
    report_value(book.out, "launch:", expected, sizeof expected);
    ck_assert_msg(*expected && strcmp(got, expected) == 0,
                  "--size 30000 (no --blocks, no --threads): the launch line reads '%s', "
                  "expected '%s', the book's launch that --help gives (2 work-groups per compute "
                  "unit, as --blocks-per-sm 2, of 256 work-items)",
                  got, expected);
    ck_assert_msg(strstr(o.out, "(median of 10 runs") != NULL,
                  "--size 30000 (no --reps): expected the median of 10 runs, as --help says; "
                  "got: %s",
                  o.out);
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--reps 1: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    report_value(o.out, "input:", got, sizeof got);
    ck_assert_msg(strncmp(got, "uniform, 104857600 bytes, seed 1:", 33) == 0,
                  "--reps 1 (no --size): the input line reads '%s', expected 'uniform, "
                  "104857600 bytes, seed 1: ...' (100M, the default --help gives)",
                  got);
}
END_TEST

/* ----------------------------------- the check's own host, under Oclgrind -- */

enum { COUNTED, MOST }; /* its counts: the bytes counted; the most merge atomics by one work-item */

static char quick_program[4096]; /* check_rgb_histogram_quick.c, built beside the check */

/* The check's own host under Oclgrind (run_quick_host, common/tests), on the
 * kernel beside the program. */
static void run_quick(const char *oclgrind_flags, unsigned long long size,
                      unsigned long long groups, unsigned long long items, bool watch,
                      struct quick_run *q)
{
    static const char *const labels[] = {"counted", "most merge atomics by one work-item:"};
    run_quick_host(quick_program, oclgrind_flags, size, groups, items, watch, labels, 1 + watch, q);
}

/* Past 2^31 bytes an int no longer holds every byte offset. A whole run on
 * 2 GiB takes PoCL about half a minute, so the check runs the kernel under
 * `oclgrind --quick`, which runs only the first and the last work-group:
 * 43 x 2^24 pixels (2 GiB and 16 MiB of bytes) in 65536 work-groups of 256,
 * so that with the starter's loop over the pixels the last work-group counts
 * the last pixels, whose bytes lie past 2^31. Oclgrind reports a read or a
 * write outside the buffers, which an offset that wrapped makes. (Which
 * pixels the two work-groups count is the kernel's choice: only what Oclgrind
 * reports, and that the kernel ran, are checked.) */
START_TEST(test_pixels_past_2_gib_read_inside_the_buffer)
{
    const unsigned long long pixels = 43ull << 24, groups = 65536, items = 256;
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick --global-mem-size 4294967295", pixels, groups, items, false, q);
    ck_assert_msg(q->said[strspn(q->said, " \t\n")] == '\0',
                  "%s: %llu pixels (%llu bytes), the first and the last work-group run: Oclgrind "
                  "reports an error, where the pixels past 2^31 bytes are read:\n%s",
                  q->command, pixels, 3 * pixels, q->said);
    free(q);
}
END_TEST

/* The pixels the starter's loop (work-item g of G counts pixels g, g + G,
 * ...) gives the first and the last work-group, which `oclgrind --quick`
 * runs. */
static unsigned long long first_and_last_groups_pixels(unsigned long long pixels,
                                                       unsigned long long groups,
                                                       unsigned long long items)
{
    const unsigned long long global = groups * items;
    unsigned long long counted = 0;
    for (unsigned long long g = 0; g < global; g = g + 1 == items ? global - items : g + 1)
        counted += g < pixels ? (pixels - g + global - 1) / global : 0;
    return counted;
}

/* More than 2^24 work-groups and more than 2^32 work-items: 2^24 + 1
 * work-groups of 256 (the program takes --blocks up to 2^31 - 1 of up to
 * 1024 work-items) on 300 pixels, under `oclgrind --quick`. With the
 * starter's loop, the first work-group counts pixels 0 to 255, once each,
 * and the last none: 768 bytes. A grid size kept in 32 bits wraps to 256
 * there, and the walk goes on from each item's first pixel; the check's
 * host builds the kernel with mad24 and mul24 that keep the low 24 bits of
 * each factor, as a device with 24-bit multipliers does, and a work-item
 * number or grid size worked out with them gives the last work-group number
 * 0 and a stride of 256: pixels are counted more than once. */
START_TEST(test_more_than_2_to_the_32_work_items_count_their_own_pixels)
{
    const unsigned long long groups = (1ull << 24) + 1, items = 256, pixels = 300;
    const unsigned long long expected =
        CHANNELS * first_and_last_groups_pixels(pixels, groups, items);
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick", pixels, groups, items, false, q);
    ck_assert_msg(q->count[COUNTED] == expected,
                  "%s: the first and the last of %llu work-groups of %llu counted %llu bytes, "
                  "expected %llu, the pixels the starter's loop gives them, each once (a grid "
                  "size or work-item number kept in 32 bits wraps past 2^32 work-items; one "
                  "worked out with mad24 or mul24, exact only below 2^24, is wrong past 2^24 "
                  "work-groups on a device that multiplies 24 bits)%s%s",
                  q->command, groups, items, q->count[COUNTED], expected,
                  *q->said ? "; Oclgrind says: " : "", q->said);
    free(q);
}
END_TEST

/* Red's merge is shared by the work-group, each work-item adding every
 * get_local_size(0)-th bin; green's and blue's must be too (the task). A
 * merge done by fewer work-items gives the same bins, one after another. The
 * check's host counts the global atomics of each work-item (its watch). */
static const unsigned long long merge_items[] = {64, 33};
#define MERGE_LAUNCHES ((int)(sizeof merge_items / sizeof merge_items[0]))

START_TEST(test_the_merge_is_shared_by_the_work_group)
{
    const unsigned long long groups = 2, items = merge_items[_i];
    const unsigned long long share = CHANNELS * ((BINS + items - 1) / items);
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("", 1000, groups, items, true, q);
    ck_assert_msg(q->count[COUNTED] == 3000, "%s: counted %llu bytes of 3000", q->command,
                  q->count[COUNTED]);
    ck_assert_msg(q->count[MOST] <= groups * share,
                  "%s: one work-item made %llu atomic adds on the global bins in %llu "
                  "work-groups of %llu, expected at most %llu per work-group (three channels' "
                  "%d bins shared by %llu work-items, as red's are in the starter) (hint 2)",
                  q->command, q->count[MOST], groups, items, share, BINS, items);
    free(q);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_rgb_opencl", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(quick_program, sizeof quick_program, "%s/rgb_histogram-quick", dirname(here));
    Suite *suite = suite_create("exercise 06: RGB histograms in OpenCL");
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    TCase *counts = exercise_tcase("three histograms: the photograph and generated pixels", 1);
    tcase_set_timeout(counts, 300);
    tcase_add_test(counts, test_the_photographs_three_histograms_match_reference);
    tcase_add_loop_test(counts, test_generated_pixels_of_every_size_and_kind_match_reference, 0,
                        SIZES * KINDS);
    tcase_add_test(counts, test_pixels_past_2_to_the_24_match_reference);
    tcase_add_test(counts, test_one_work_item_counts_a_uniform_picture);
    add_if_runnable(suite, counts, 3 + SIZES * KINDS);

    TCase *local = exercise_tcase("each channel counted in local memory", 2);
    tcase_add_test(local, test_the_kernel_keeps_three_local_histograms);
    add_if_runnable(suite, local, 1);

    TCase *counted =
        exercise_tcase("every byte read once and counted in local memory, by Oclgrind's "
                       "counts",
                       2);
    tcase_set_timeout(counted, 300);
    tcase_add_loop_test(counted, test_every_byte_read_once_and_counted_in_local_memory, 0,
                        COUNTED_LAUNCHES);
    add_if_oclgrind(suite, counted, COUNTED_LAUNCHES, true, NULL);

    TCase *races = exercise_tcase("no races, under Oclgrind", 3);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_races_under_oclgrind, 0, RACE_LAUNCHES);
    add_if_oclgrind(suite, races, RACE_LAUNCHES, true, NULL);

    TCase *past = exercise_tcase(
        "pixels past 2 GiB, read by the first and last work-groups (oclgrind --quick)", 0);
    tcase_set_timeout(past, 120);
    tcase_add_test(past, test_pixels_past_2_gib_read_inside_the_buffer);
    /* Oclgrind zeroes the whole buffer: about 2 GiB of host memory at its peak */
    add_if_oclgrind(suite, past, 1, have_memory_for(0, (size_t)3 << 30), memory_missing());

    TCase *merge = exercise_tcase("the merge shared by the work-group, as red's (watched under "
                                  "Oclgrind)",
                                  2);
    tcase_set_timeout(merge, 120);
    tcase_add_loop_test(merge, test_the_merge_is_shared_by_the_work_group, 0, MERGE_LAUNCHES);
    add_if_oclgrind(suite, merge, MERGE_LAUNCHES, true, NULL);

    TCase *many = exercise_tcase("more than 2^32 work-items in more than 2^24 work-groups, the "
                                 "first and last counting their own pixels (oclgrind --quick)",
                                 0);
    tcase_set_timeout(many, 120);
    tcase_add_test(many, test_more_than_2_to_the_32_work_items_count_their_own_pixels);
    add_if_oclgrind(suite, many, 1, true, NULL);

    TCase *sizes = exercise_tcase("every work-group size", 3);
    tcase_set_timeout(sizes, 300);
    tcase_add_loop_test(sizes, test_every_launch_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, sizes, LAUNCHES);

    TCase *program = exercise_tcase("the program: its kernel file and its options", 0);
    tcase_add_test(program, test_finds_its_kernel_from_another_directory);
    tcase_add_test(program, test_options_without_meaning_here_are_usage_errors);
    tcase_add_test(program, test_the_defaults_are_the_ones_help_gives);
    tcase_set_timeout(program, 120);
    add_if_runnable(suite, program, 3);
    return run_exercise(suite);
}
