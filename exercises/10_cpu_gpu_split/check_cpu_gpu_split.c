/*
 * check_cpu_gpu_split.c - exercise 10 counts every byte once, on the CPU or on
 * the GPU: its bins match the CPU reference for every split (none, one byte,
 * an odd middle, all but one, all) and each side counts exactly its share; the
 * split it chooses is the one its own measured times give, and moves when the
 * CPU gets slower; and the CPU counts while the GPU works (the program's
 * timeline: when the GPU's kernel was queued and done, when the CPU counted).
 */
#include "stage_checks.h"

#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the program says of its split (the lines above the table). */
struct split_report {
    double cpu_ms, gpu_ms;
    size_t cpu_bytes, gpu_bytes, cpu_counted, gpu_counted;
    double gpu_queued, gpu_done, cpu_start, cpu_end;
    bool copy_in_flight;
    bool cpu_during_copy;
    int lines;
};

static void read_split(const char *out, struct split_report *r)
{
    memset(r, 0, sizeof *r);
    const char *line;
    int threads;
    if ((line = strstr(out, "measured: ")) &&
        sscanf(line, "measured: cpu-only %lf ms on %d threads, gpu-only %lf ms", &r->cpu_ms,
               &threads, &r->gpu_ms) == 3)
        r->lines++;
    if ((line = strstr(out, "split: ")) &&
        sscanf(line, "split: cpu %zu bytes, gpu %zu bytes", &r->cpu_bytes, &r->gpu_bytes) == 2)
        r->lines++;
    if ((line = strstr(out, "counted: ")) && sscanf(line, "counted: cpu %zu bytes, gpu %zu bytes",
                                                    &r->cpu_counted, &r->gpu_counted) == 2)
        r->lines++;
    if ((line = strstr(out, "timeline: ")) &&
        sscanf(line, "timeline: gpu queued %lf ms, done %lf ms; cpu %lf to %lf ms", &r->gpu_queued,
               &r->gpu_done, &r->cpu_start, &r->cpu_end) == 4)
        r->lines++;
    if ((line = strstr(out, "copy in: "))) {
        r->copy_in_flight = strncmp(line, "copy in:    still on its way", 28) == 0;
        r->lines++;
    }
    if ((line = strstr(out, "cpu start: "))) {
        r->cpu_during_copy = strncmp(line, "cpu start:  while the copy in", 29) == 0;
        r->lines++;
    }
}

static void run_split(const char *args, struct stage_output *o, struct split_report *r)
{
    run_stage(args, o);
    ck_assert_msg(o->exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(o), o->err);
    read_split(o->out, r);
    ck_assert_msg(r->lines == 6,
                  "%s: expected the measured:, split:, counted:, timeline:, copy in: and cpu "
                  "start: lines, "
                  "read %d of them in: %.1500s",
                  args, r->lines, o->out);
}

/* Sizes around the small and the odd, and a prime; the CPU's share: none, one
 * byte, an odd middle, all but one, all. */
static const size_t sizes[] = {1, 2, 3, 17, 255, 256, 257, 1000003};
#define SIZES  ((int)(sizeof sizes / sizeof sizes[0]))
#define SHARES 5

static size_t share_for(size_t size, int which)
{
    switch (which) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return (size / 2) | 1; /* odd: a boundary inside a word */
    case 3:
        return size - 1;
    default:
        return size;
    }
}

START_TEST(test_every_split_matches_reference)
{
    size_t size = sizes[_i / SHARES];
    size_t cpu = share_for(size, _i % SHARES);
    if (cpu > size)
        cpu = size;
    char extra[96];
    snprintf(extra, sizeof extra, "--cpu-bytes %zu --cpu-threads %d", cpu, 1 + _i % 4);
    check_matches_reference(size, (enum data_kind)(_i % 4), 300 + (uint64_t)_i, extra);
}
END_TEST

START_TEST(test_measured_split_matches_reference)
{
    check_matrix_case(_i, "");
}
END_TEST

START_TEST(test_each_side_counts_exactly_its_share)
{
    static const char *const args[] = {
        "--size 1000003 --reps 1 --cpu-bytes 333333", "--size 1000003 --reps 1 --cpu-bytes 1",
        "--size 1000003 --reps 1 --cpu-bytes 1000002",
        "--size 4000037 --reps 1 --cpu-bytes 2000001 --cpu-threads 3"};
    struct stage_output o;
    struct split_report r;
    run_split(args[_i], &o, &r);
    size_t size = _i == 3 ? 4000037 : 1000003;
    ck_assert_msg(r.cpu_bytes + r.gpu_bytes == size, "%s: the split gives %zu + %zu bytes, not %zu",
                  args[_i], r.cpu_bytes, r.gpu_bytes, size);
    ck_assert_msg(r.cpu_counted == r.cpu_bytes,
                  "%s: the split gave the CPU %zu bytes, and it counted %zu", args[_i], r.cpu_bytes,
                  r.cpu_counted);
    ck_assert_msg(r.gpu_counted == r.gpu_bytes,
                  "%s: the split gave the GPU %zu bytes, and it counted %zu", args[_i], r.gpu_bytes,
                  r.gpu_counted);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args[_i]);
}
END_TEST

/* Runs args (an input of size bytes) and asserts the split follows its own
 * measured times: the CPU's share of the bytes is its share of the two
 * speeds, size x gpu / (cpu + gpu), computed by the program from the times it
 * prints. The check sees those times rounded to 4 decimals, each off by at
 * most d = 0.00005 ms, which moves gpu / (cpu + gpu) by at most d / (cpu +
 * gpu), less than d / cpu + d / gpu; the program cuts the bytes to a whole
 * number, one byte down at most. The tolerance is that, and one byte more:
 * on 64 MiB, with times of a few milliseconds, some thousand bytes. A share
 * cut to whole percent of the input falls short by up to 1% (671088 bytes
 * on 64 MiB, 5242 on 512 KiB) and gives an input under 100 bytes none. */
static void check_split_follows_its_times(const char *args, size_t size, struct split_report *r)
{
    struct stage_output o;
    run_split(args, &o, r);
    ck_assert_msg(r->cpu_ms > 0 && r->gpu_ms > 0, "%s: measured times %.4f and %.4f ms", args,
                  r->cpu_ms, r->gpu_ms);
    double expected = (double)size * r->gpu_ms / (r->cpu_ms + r->gpu_ms);
    double slack = size * (0.00005 / r->cpu_ms + 0.00005 / r->gpu_ms) + 2;
    double off = (double)r->cpu_bytes - expected;
    ck_assert_msg(off < slack && off > -slack,
                  "%s: cpu-only took %.4f ms and gpu-only %.4f ms, so both end together with "
                  "about %.0f bytes on the CPU (within %.0f, what the printed times' rounding "
                  "and a whole number of bytes allow); got %zu (a share rounded more coarsely "
                  "than to a byte? see hint 1)",
                  args, r->cpu_ms, r->gpu_ms, expected, slack, r->cpu_bytes);
}

#define BIG       "--size 64M --reps 3"
#define BIG_BYTES ((size_t)64 << 20)

/* The split must be the one the program's own times give: the CPU's share of
 * the bytes is its share of the two speeds, size x gpu / (cpu + gpu). */
START_TEST(test_split_follows_the_measured_times)
{
    struct split_report r;
    check_split_follows_its_times(BIG, BIG_BYTES, &r);
}
END_TEST

/* The same rule on a small input, 512 KiB, where both times are small: the
 * split still comes from them, whatever the size (a CPU left out below some
 * size is not the measured split). */
START_TEST(test_a_small_input_is_split_by_its_times_too)
{
    struct split_report r;
    check_split_follows_its_times("--size 512K --reps 3", (size_t)512 << 10, &r);
}
END_TEST

/* Under 100 bytes the rule is the same (the README: whatever the size). On
 * 99 bytes the CPU-only run starts a thread per logical CPU and the GPU-only run
 * makes one copy and one kernel: tens of microseconds each side, so the CPU's
 * share is some percent, a few bytes or more, and the tolerance about two
 * bytes. The split must give the CPU those bytes; a share cut to whole
 * percent of the input gives it none. */
START_TEST(test_an_input_under_100_bytes_is_split_by_its_times_too)
{
    struct split_report r;
    check_split_follows_its_times("--size 99 --reps 5", 99, &r);
}
END_TEST

/* A GPU made slow (--slow-gpu: it waits 200 million cycles, about a tenth of
 * a second, before it counts): now the CPU is the faster side and must get
 * most of the bytes, as its share of the speeds says. A split that assumes the
 * GPU is the faster side, or caps the CPU's share, does not follow. */
START_TEST(test_a_slow_gpu_leaves_most_to_the_cpu)
{
    const char *args = "--size 4M --reps 3 --slow-gpu 200";
    struct split_report r;
    check_split_follows_its_times(args, (size_t)4 << 20, &r);
    ck_assert_msg(r.gpu_ms > r.cpu_ms,
                  "%s: gpu-only %.4f ms, cpu-only %.4f ms: the slowed GPU should be the slower "
                  "side",
                  args, r.gpu_ms, r.cpu_ms);
}
END_TEST

/* One CPU thread against several: the slower CPU must get the smaller share. */
START_TEST(test_a_slower_cpu_gets_a_smaller_share)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 2)
        return; /* one core: no slower CPU to make */
    char slow[96], fast[96];
    snprintf(slow, sizeof slow, "%s --cpu-threads 1", BIG);
    snprintf(fast, sizeof fast, "%s --cpu-threads %ld", BIG, cores < 8 ? cores : 8);
    struct stage_output o;
    struct split_report one, many;
    /* the one thread's own split follows its times too: it is many times
     * slower than the GPU, and still gets its small share, not none */
    check_split_follows_its_times(slow, BIG_BYTES, &one);
    run_split(fast, &o, &many);
    ck_assert_msg(one.cpu_bytes < many.cpu_bytes,
                  "expected fewer bytes on one CPU thread than on %ld: '%s' gave the CPU %zu "
                  "bytes (cpu-only %.4f ms), '%s' gave it %zu (cpu-only %.4f ms)",
                  cores < 8 ? cores : 8, slow, one.cpu_bytes, one.cpu_ms, fast, many.cpu_bytes,
                  many.cpu_ms);
}
END_TEST

/* On 64 MiB with the measured split, and with the CPU's share set under 1
 * MiB (512 KiB): the rule is the same for a small share, the GPU's work
 * queued first and the CPU counting meanwhile. The solution stamps the GPU's
 * kernel queued before the CPU starts (so before it ends), and the CPU
 * starts while the 64 MiB copy in is on its way (milliseconds). A small share
 * counted before the GPU's work is queued ends before the kernel is queued,
 * and starts before the copy in: the kernel queued after the CPU ended, and
 * the copy not on its way when the CPU started, fail below.
 *
 * And on a small input, 4 MiB, the CPU's share set to 1 MiB so that the
 * GPU's is 3 MiB whatever the machine's speeds: the rule is the same whatever
 * the size. There the GPU's share takes a tenth of a millisecond or so (3
 * MiB over PCIe, then the kernel, the bins back and the stamp of done, which
 * a driver thread runs), and the CPU starts a few tens of microseconds after
 * the start, once the GPU's calls are queued: before the GPU is done, by a
 * margin of a few times. A host that waits for the GPU's share before the CPU
 * counts (on small inputs only, say) starts the CPU after the GPU's stamp of
 * done.
 * The copy's own timing (the copy still on its way when the kernel is
 * queued, and when the CPU starts) is asked of 64 MiB only: a few MiB take
 * too few microseconds to measure it with a wide margin. */
static const struct {
    const char *args;
    bool copy_timed; /* ask for the copy in still on its way (64 MiB only) */
} overlap_runs[] = {{BIG, true},
                    {BIG " --cpu-bytes 524288", true},
                    {"--size 4M --reps 3 --cpu-bytes 1048576", false}};
#define OVERLAP_RUNS ((int)(sizeof overlap_runs / sizeof overlap_runs[0]))

START_TEST(test_the_cpu_counts_while_the_gpu_works)
{
    const char *const args = overlap_runs[_i].args;
    struct stage_output o;
    struct split_report r;
    run_split(args, &o, &r);
    ck_assert_msg(r.cpu_counted > 0 && r.gpu_counted > 0,
                  "%s: expected both sides to count, got cpu %zu and gpu %zu bytes", args,
                  r.cpu_counted, r.gpu_counted);
    ck_assert_msg(r.cpu_counted == r.cpu_bytes && r.gpu_counted == r.gpu_bytes,
                  "%s: the split says cpu %zu and gpu %zu bytes, they counted %zu and %zu", args,
                  r.cpu_bytes, r.gpu_bytes, r.cpu_counted, r.gpu_counted);
    ck_assert_msg(r.cpu_start < r.gpu_done,
                  "%s: expected the CPU to start counting before the GPU's kernel was done; "
                  "the CPU started at %.4f ms, the GPU was done at %.4f ms",
                  args, r.cpu_start, r.gpu_done);
    ck_assert_msg(r.gpu_queued < r.cpu_end,
                  "%s: expected the GPU's kernel queued before the CPU ended; queued at %.4f "
                  "ms, the CPU ended at %.4f ms",
                  args, r.gpu_queued, r.cpu_end);
    if (!overlap_runs[_i].copy_timed)
        return;
    /* From page-locked memory cudaMemcpyAsync only queues the copy, and the
     * kernel is queued microseconds later; from pageable memory the driver
     * stages the bytes first, and the call returns near the copy's end. */
    ck_assert_msg(4 * r.gpu_queued < r.gpu_done,
                  "%s: the GPU's kernel was queued at %.4f ms and done at %.4f ms: the copy "
                  "before it held the host for most of that (a copy from pageable memory, not "
                  "the page-locked buffer, or one that waits)",
                  args, r.gpu_queued, r.gpu_done);
    ck_assert_msg(r.copy_in_flight,
                  "%s: expected the GPU's copy in still on its way when its kernel was queued "
                  "(an asynchronous copy), got: the copy was already done",
                  args);
    ck_assert_msg(r.cpu_during_copy,
                  "%s: expected the CPU to start counting while the GPU's copy in was still on "
                  "its way (the copy is most of the GPU's time: a CPU that waits for it idles "
                  "through it), got: the copy was done when the CPU started",
                  args);
}
END_TEST

START_TEST(test_reports_three_rows)
{
    const char *args = "--size 1000003 --reps 2";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    static const char *const rows[] = {"\ngpu-only ", "\ncpu-only ", "\ncpu+gpu "};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(strstr(o.out, rows[i]), "%s: no%s row in: %s", args, rows[i], o.out);
    ck_assert_msg(strstr(o.out, "combined: "), "%s: no 'combined:' line in: %s", args, o.out);
    ck_assert_msg(o.has_sum && o.sum == 1000003, "%s: expected Histogram Sum 1000003: %s", args,
                  o.out);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
}
END_TEST

START_TEST(test_csv_prints_header_and_three_verified_rows)
{
    const char *args = "--size 4097 --data skewed --reps 2 --csv";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    char *row = strchr(o.out, '\n');
    ck_assert_msg(row != NULL, "%s: no header line: %s", args, o.out);
    *row++ = '\0';
    ck_assert_msg(strcmp(o.out, CSV_HEADER) == 0, "%s: expected the header %s, got %s", args,
                  CSV_HEADER, o.out);
    static const char *const impls[] = {"gpu-only", "cpu-only", "cpu+gpu"};
    for (int i = 0; i < 3; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "10_cpu_gpu_split,%s,", impls[i]);
        char *end = strchr(row, '\n');
        ck_assert_msg(end != NULL, "%s: expected a %s row, got: %s", args, impls[i], row);
        *end = '\0';
        ck_assert_msg(strncmp(row, prefix, strlen(prefix)) == 0, "%s: expected %s..., got %s", args,
                      prefix, row);
        ck_assert_msg(strstr(row, ",skewed,4097,"), "%s: data and bytes: %s", args, row);
        ck_assert_msg(strcmp(end - 4, ",yes") == 0, "%s: not verified: %s", args, row);
        row = end + 1;
    }
}
END_TEST

static const char *const bad_splits[] = {
    "--size 100 --cpu-bytes 101", "--cpu-bytes -1", "--cpu-bytes x",   "--cpu-threads 0",
    "--cpu-threads 65",           "--slow-gpu 0",   "--slow-gpu 10001"};
#define BAD_SPLITS ((int)(sizeof bad_splits / sizeof bad_splits[0]))

START_TEST(test_bad_split_options_are_usage_errors)
{
    struct stage_output o;
    run_stage(bad_splits[_i], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "%s: expected exit 2, got %s", bad_splits[_i],
                  exit_meaning(&o));
}
END_TEST

START_TEST(test_indexing_past_2_gib)
{
    /* the GPU's share passes 2 GiB; so does the CPU's in the second */
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, "--cpu-bytes 5");
    check_matches_reference(((size_t)1 << 31) + 5, DATA_UNIFORM, 9, "--cpu-bytes 2147483650");
}
END_TEST

/* The rule past 2 GiB: on the largest input, 4 GiB - 1 bytes, a GPU made slow
 * (--slow-gpu 2000: it waits 2 billion cycles, 1 s or more, before it
 * counts) takes longer than the CPU's threads (some 0.2 to 0.3 s for 4 GiB on
 * 16 cores, at 1.5 GB/s or so a thread), so the CPU's share of the speeds is
 * over a half: more than 2^31 bytes, as long as the CPU counts 4 GiB faster
 * than the GPU waits (3 such threads would do). A share held in an int on
 * the way does not keep those bytes (x86 turns it into INT_MIN, which as a
 * size_t gives the CPU every byte; aarch64 stops it at 2^31 - 1), and misses
 * the rule by hundreds of megabytes. The program's run: 4 GiB made and
 * copied, each side alone and the split, each once after a warm-up run, the
 * GPU's waits some 4 s of it. */
START_TEST(test_a_share_past_2_gib_follows_the_times)
{
    char args[96];
    snprintf(args, sizeof args, "--size %zu --reps 1 --slow-gpu 2000", (size_t)MAX_INPUT_BYTES);
    struct split_report r;
    check_split_follows_its_times(args, MAX_INPUT_BYTES, &r);
}
END_TEST

/* build/cpu_gpu_split-fail makes the N-th cudaStreamSynchronize of the process
 * (or, for a program that waits by events, the N-th cudaEventSynchronize)
 * wait as usual and then return cudaErrorLaunchFailure (CPU_GPU_SPLIT_FAIL=N),
 * as the wait does when the GPU's copy in, kernel or copy back faulted. With
 * --reps 1 each of the three rows runs count_split twice (a warm-up, then the
 * timed run): call 1 is the GPU-only row's first, call 6 the split's timed
 * run, whose bins are reported. The program must stop there with the reason
 * and a non-zero exit: not add the GPU's bins, stale or zero, to the CPU's. */
static char fail_program[4096]; /* linked with check_cpu_gpu_split_fail.c, beside the check */
static const struct failure {
    const char *args;
    int call;
} failures[] = {{"--size 1000003 --reps 1 --cpu-bytes 500001", 1},
                {"--size 1000003 --reps 1 --cpu-bytes 500001", 6}};
#define FAILURES ((int)(sizeof failures / sizeof failures[0]))

/* Runs the fail build with variable=call set; true when the injected
 * failure was returned (the program made that many such calls). */
static bool run_failing(const char *variable, int call, const char *args, struct stage_output *o)
{
    char number[16];
    snprintf(number, sizeof number, "%d", call);
    ck_assert(setenv(variable, number, 1) == 0);
    const char *saved = strdup(stage_program());
    set_stage_program(fail_program);
    set_run_time_limit(60);
    run_stage(args, o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv(variable);
    return strstr(o->err, "check: an injected failure was returned here") != NULL;
}

START_TEST(test_a_gpu_share_that_fails_stops_the_program)
{
    const struct failure *k = &failures[_i];
    struct stage_output o;
    /* The wait for the GPU's share: cudaStreamSynchronize, or else
     * cudaEventSynchronize (the program makes one of them per run). */
    const char *wait = "cudaStreamSynchronize";
    bool injected = run_failing("CPU_GPU_SPLIT_FAIL", k->call, k->args, &o);
    if (!injected) {
        wait = "cudaEventSynchronize";
        injected = run_failing("CPU_GPU_SPLIT_FAIL_EVENT", k->call, k->args, &o);
    }
    ck_assert_msg(injected,
                  "%s %s: the program made fewer than %d calls of cudaStreamSynchronize and of "
                  "cudaEventSynchronize, so the check could not make the wait for the GPU's "
                  "share fail: wait for it with one of the two, and check what it returns",
                  fail_program, k->args, k->call);
    ck_assert_msg(o.exit_status > 0 && o.exit_status != 77 && !o.says_verified &&
                      (strstr(o.err, wait) || strstr(o.err, "unspecified launch failure")),
                  "%s %s, where %s call %d returns cudaErrorLaunchFailure (the GPU's share "
                  "faulted): %s, stdout: %.300s, stderr: %s; expected a non-zero exit with the "
                  "failed call or its error on stderr and no verified result: the wait for the "
                  "GPU's bins is where an asynchronous failure shows, and its result is checked "
                  "like any other",
                  fail_program, k->args, wait, k->call, exit_meaning(&o), o.out, o.err);
}
END_TEST

/* ------------------------------------------------------------ edges -- */

/* build/cpu_gpu_split-share: the program's choose_cpu_bytes alone, on the
 * host (check_cpu_gpu_split_share.cu), which prints the CPU's share of each
 * SIZE CPU_MS GPU_MS it is given. The share that ends both sides together is
 * size x gpu_ms / (cpu_ms + gpu_ms), computed here in long double and cut to
 * whole bytes; the program's must be within one byte of it (the last bit of
 * a double's quotient may round either way). A share kept in a float is off
 * by up to size x 2^-24: hundreds of bytes on 4 GiB, where the times' 4
 * printed decimals cannot show it. */
static char share_program[4096];
static const struct {
    unsigned long long size;
    double cpu_ms, gpu_ms;
} share_cases[] = {{4294967295ULL, 3, 1},
                   {4294967295ULL, 1, 2},
                   {4294967295ULL, 7, 3},
                   {4294967295ULL, 1, 1},
                   {4294967295ULL, 1e-3, 1e3},
                   {4294967295ULL, 1e3, 1e-3},
                   {3000000000ULL, 1.75, 1.25},
                   {67108864, 1, 1},
                   {16777217, 1, 3},
                   {1000003, 2.5, 7.25},
                   {99, 1, 1},
                   {1, 1, 1},
                   {0, 1, 1}};
#define SHARE_CASES ((int)(sizeof share_cases / sizeof share_cases[0]))

START_TEST(test_the_share_is_exact_to_the_byte)
{
    char command[8192];
    int used = snprintf(command, sizeof command, "'%s'", share_program);
    for (int i = 0; i < SHARE_CASES; i++)
        used += snprintf(command + used, sizeof command - used, " %llu %.17g %.17g",
                         share_cases[i].size, share_cases[i].cpu_ms, share_cases[i].gpu_ms);
    FILE *p = popen(command, "r");
    ck_assert_msg(p != NULL, "cannot run %s", command);
    for (int i = 0; i < SHARE_CASES; i++) {
        unsigned long long size = share_cases[i].size, got;
        double cpu_ms = share_cases[i].cpu_ms, gpu_ms = share_cases[i].gpu_ms;
        ck_assert_msg(fscanf(p, "%llu", &got) == 1,
                      "%s: no share printed for size %llu, cpu %.17g ms, gpu %.17g ms", command,
                      size, cpu_ms, gpu_ms);
        long double exact = (long double)size * gpu_ms / ((long double)cpu_ms + gpu_ms);
        long double low = floorl(exact) - 1, high = ceill(exact);
        ck_assert_msg(got <= size && (long double)got >= low && (long double)got <= high,
                      "choose_cpu_bytes(%llu, %.17g, %.17g) returned %llu; the share that ends "
                      "both sides together is %.3Lf bytes: expected it to the byte (within one), "
                      "at most the size",
                      size, cpu_ms, gpu_ms, got, exact);
    }
    ck_assert_msg(pclose(p) == 0, "%s: did not exit 0", command);
}
END_TEST

/* With no --cpu-threads the CPU counts with one thread per logical CPU (at most 64),
 * as --help says. */
START_TEST(test_the_default_is_a_cpu_thread_per_core)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int expected = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores;
    const char *args = "--size 100003 --reps 1";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: %s, stderr: %s", args, exit_meaning(&o), o.err);
    char on[64];
    snprintf(on, sizeof on, " ms on %d threads,", expected);
    ck_assert_msg(
        strstr(o.out, on),
        "%s (no --cpu-threads): expected 'measured: cpu-only ... ms on %d threads': "
        "one CPU thread per logical CPU (this machine has %ld), at most 64, by default; got: "
        "%.600s",
        args, expected, cores, o.out);
    ck_assert_msg(o.says_verified, "%s: no 'verified: yes' line", args);
}
END_TEST

/* --csv prints the header and the three rows, and nothing else on stdout. */
START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 4097 --data skewed --reps 1 --csv", 4);
}
END_TEST

/* build/cpu_gpu_split-fail again, now failing the N-th cudaMemcpyAsync (the
 * first run's copy in, then its bins back) or the N-th cudaEventSynchronize
 * (a wait a solution may use instead of cudaStreamSynchronize): the call does
 * its work and returns cudaErrorLaunchFailure, and the wrapper says so on
 * stderr. Where it did, the program must stop with the reason, a non-zero
 * exit and no verified result, not count on as if the call had succeeded. A
 * program that never makes the N-th such call has nothing to show here. */
static const struct {
    const char *variable;
    int call;
} injected[] = {{"CPU_GPU_SPLIT_FAIL_COPY", 1},
                {"CPU_GPU_SPLIT_FAIL_COPY", 2},
                {"CPU_GPU_SPLIT_FAIL_EVENT", 1},
                {"CPU_GPU_SPLIT_FAIL_EVENT", 2}};
#define INJECTED ((int)(sizeof injected / sizeof injected[0]))

START_TEST(test_a_copy_or_wait_that_fails_stops_the_program)
{
    const char *args = "--size 1000003 --reps 1 --cpu-bytes 500001";
    char call[16];
    snprintf(call, sizeof call, "%d", injected[_i].call);
    ck_assert(setenv(injected[_i].variable, call, 1) == 0);
    const char *saved = strdup(stage_program());
    struct stage_output o;
    set_stage_program(fail_program);
    set_run_time_limit(60);
    run_stage(args, &o);
    set_run_time_limit(0);
    set_stage_program(saved);
    free((void *)saved);
    unsetenv(injected[_i].variable);
    if (!strstr(o.err, "check: an injected failure was returned here"))
        return; /* the program made no such call: nothing failed */
    ck_assert_msg(o.exit_status > 0 && o.exit_status != 77 && !o.says_verified &&
                      strstr(o.err, "unspecified launch failure"),
                  "%s %s with %s=%d (that call returns cudaErrorLaunchFailure, as a call does "
                  "that reports a fault of the GPU's share): %s, stdout: %.300s, stderr: %s; "
                  "expected a non-zero exit with the error on stderr and no verified result: "
                  "the result of every CUDA call is checked",
                  fail_program, args, injected[_i].variable, injected[_i].call, exit_meaning(&o),
                  o.out, o.err);
}
END_TEST

/* Each refused before any GPU is opened: exit 2, one line on stderr that
 * names the option (the usage follows), nothing on stdout. Runs without a GPU. */
static const struct {
    const char *args, *option;
} refused_runs[] = {{"--cpu-threads 4x", "--cpu-threads"}, {"--cpu-threads abc", "--cpu-threads"},
                    {"--cpu-threads 0", "--cpu-threads"},  {"--cpu-threads 65", "--cpu-threads"},
                    {"--cpu-threads ''", "--cpu-threads"}, {"--cpu-bytes 12abc", "--cpu-bytes"},
                    {"--cpu-bytes -1", "--cpu-bytes"},     {"--cpu-bytes 1.5", "--cpu-bytes"},
                    {"--cpu-bytes ''", "--cpu-bytes"},     {"--slow-gpu 5x", "--slow-gpu"},
                    {"--slow-gpu 0", "--slow-gpu"},        {"--slow-gpu 10001", "--slow-gpu"}};
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
    set_stage("10_cpu_gpu_split", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(fail_program, sizeof fail_program, "%s/cpu_gpu_split-fail", dirname(here));
    snprintf(here, sizeof here, "%s", argv[0]); /* dirname may have written into it */
    snprintf(share_program, sizeof share_program, "%s/cpu_gpu_split-share", dirname(here));
    Suite *suite = suite_create("exercise 10: the CPU and the GPU at once");
    /* Without a GPU the program exits 77 and every check is counted as skipped. */
    TCase *bytes = exercise_tcase("every byte counted once, on one side or the other", 3);
    tcase_add_loop_test(bytes, test_every_split_matches_reference, 0, SIZES * SHARES);
    tcase_add_loop_test(bytes, test_measured_split_matches_reference, 0, MATRIX_CASES);
    tcase_add_loop_test(bytes, test_each_side_counts_exactly_its_share, 0, 4);
    add_if_runnable(suite, bytes, SIZES * SHARES + MATRIX_CASES + 4);
    TCase *split = exercise_tcase("the split follows the measured speeds", 1);
    tcase_add_test(split, test_split_follows_the_measured_times);
    tcase_add_test(split, test_a_small_input_is_split_by_its_times_too);
    tcase_add_test(split, test_an_input_under_100_bytes_is_split_by_its_times_too);
    tcase_add_test(split, test_a_slower_cpu_gets_a_smaller_share);
    tcase_add_test(split, test_a_slow_gpu_leaves_most_to_the_cpu);
    add_if_runnable(suite, split, 5);
    TCase *overlap = exercise_tcase("the CPU counts while the GPU works", 2);
    tcase_add_loop_test(overlap, test_the_cpu_counts_while_the_gpu_works, 0, OVERLAP_RUNS);
    add_if_runnable(suite, overlap, OVERLAP_RUNS);
    TCase *failed = exercise_tcase("a GPU share that fails stops the program", 2);
    tcase_set_timeout(failed, 120);
    tcase_add_loop_test(failed, test_a_gpu_share_that_fails_stops_the_program, 0, FAILURES);
    if (access(fail_program, X_OK) == 0)
        add_if_runnable(suite, failed, FAILURES);
    else {
        printf("%s is missing (make check builds it)\n", fail_program);
        add_skipped(FAILURES);
    }
    TCase *report = exercise_tcase("the report, the CSV, the options", 0);
    tcase_add_test(report, test_reports_three_rows);
    tcase_add_test(report, test_csv_prints_header_and_three_verified_rows);
    tcase_add_loop_test(report, test_bad_split_options_are_usage_errors, 0, BAD_SPLITS);
    add_if_runnable(suite, report, 2 + BAD_SPLITS);
    int usage_checks = 0;
    TCase *usage = usage_tcase(true, &usage_checks);
    add_if_runnable(suite, usage, usage_checks);
    TCase *big = exercise_tcase("past 2 GiB", 3);
    tcase_add_test(big, test_indexing_past_2_gib);
    add_if_runnable(suite, big, 1);
    TCase *big_share =
        exercise_tcase("a measured share past 2 GiB (a slow GPU, 4 GiB - 1 bytes)", 3);
    tcase_add_test(big_share, test_a_share_past_2_gib_follows_the_times);
    /* 4 GiB on the GPU; on the host the input and its page-locked copy */
    add_if_tool(suite, big_share, 1, have_memory_for((size_t)4 << 30, (size_t)9 << 30),
                memory_missing());
    /* the split's arithmetic, on the host: it runs without a GPU too */
    TCase *edge_share = exercise_tcase("edge: the measured share to the byte, on the host", 1);
    tcase_add_test(edge_share, test_the_share_is_exact_to_the_byte);
    if (access(share_program, X_OK) == 0)
        add_tcase(suite, edge_share, 1);
    else {
        printf("%s is missing (make check builds it)\n", share_program);
        add_skipped(1);
    }
    TCase *edge_failed = exercise_tcase("edge: a copy or an event wait that fails stops the "
                                        "program",
                                        2);
    tcase_set_timeout(edge_failed, 120);
    tcase_add_loop_test(edge_failed, test_a_copy_or_wait_that_fails_stops_the_program, 0, INJECTED);
    if (access(fail_program, X_OK) == 0)
        add_if_runnable(suite, edge_failed, INJECTED);
    else {
        printf("%s is missing (make check builds it)\n", fail_program);
        add_skipped(INJECTED);
    }
    TCase *edge = exercise_tcase("edge: the default CPU threads, only CSV with --csv", 0);
    tcase_add_test(edge, test_the_default_is_a_cpu_thread_per_core);
    tcase_add_test(edge, test_csv_prints_only_csv);
    add_if_runnable(suite, edge, 2);
    /* refused before any GPU is opened: it runs without a GPU too */
    TCase *edge_refused = exercise_tcase("edge: bad option values refused, one line each", 0);
    tcase_add_loop_test(edge_refused, test_each_option_refuses_a_bad_value, 0, REFUSED_RUNS);
    add_tcase(suite, edge_refused, REFUSED_RUNS);
    return run_exercise(suite);
}
