/*
 * stage_checks.h - what every stage's Check suite shares. The suites run the
 * stage's real program, as a student would, and compare the bins it prints
 * with the CPU reference computed here, in the test.
 */
#ifndef STAGE_CHECKS_H
#define STAGE_CHECKS_H

#include "harness.h"

#include <check.h>

/* The stage directory the program reports, and the program under test, which
 * the suite takes as its one argument (make test passes ./PROGRAM). */
void set_stage(const char *stage_dir, int argc, char **argv);

struct stage_output {
    int exit_status; /* -1 when the program did not exit normally */
    int signal;      /* the signal that ended it (a crash), or 0 */
    unsigned int bins[BINS];
    int bins_printed;
    bool has_sum;
    uint64_t sum;
    bool says_verified;
    char out[8192]; /* the start of stdout */
    /* stderr; a long one keeps its start and its end, with a line between
     * that says how much was cut, so that it fits in a check's message */
    char err[2048];
};

/* What the program's end means, in words: "exit 1 (an error or a wrong
 * result)", "exit 2 (it refused its arguments: bad usage)", "crashed: signal
 * 11 (Segmentation fault)". */
const char *exit_meaning(const struct stage_output *o);

/* Runs the program with args (shell words) and reads what it prints. */
void run_stage(const char *args, struct stage_output *o);

/* Limits every later run_stage to seconds (0: no limit, the default): a
 * program still running then is stopped and exits 124, which exit_meaning
 * explains. For inputs on which a wrong loop never ends. */
void set_run_time_limit(int seconds);

/* The same, from the working directory dir. */
void run_stage_in(const char *dir, const char *args, struct stage_output *o);

/* The program under test, as an absolute path; a test may point it elsewhere. */
const char *stage_program(void);
void set_stage_program(const char *path);

/* Runs the program on a generated input, with --bins, and asserts exit 0,
 * 256 bins equal to cpu_histogram's, the sum and the "verified" line. */
void check_matches_reference(size_t size, enum data_kind kind, uint64_t seed,
                             const char *extra_args);

/* Runs the program with args (which include --csv) and asserts exit 0 and
 * that every line of stdout has the header's number of commas (no report
 * line among the rows), with at least min_lines lines, the header counted. */
void check_stdout_is_only_csv(const char *args, int min_lines);

/* make test checks a sample of each matrix of cases, make test-full all of
 * them (it sets TEST_FULL=1). A sample of a matrix takes every value of each
 * dimension at least once: its case k takes value k mod n of a dimension of n
 * values, so 7 variants x 4 kinds x 6 sizes are sampled in 7 cases. A list of
 * launch shapes is sampled by its first few, which each list says. */
bool full_tests(void);

/* How many cases a loop test runs: full under make test-full, else sample
 * (at most full); the difference is counted, and run_suite says how many
 * checks make test-full would add. */
int cases(int full, int sample);

/* Which of a dimension's values (0 to values - 1) case i of a loop test over
 * a matrix takes: in the full matrix the value moves on every stride cases
 * (i / stride % values), in the sample on every case (i % values). */
int matrix_value(int i, int values, int stride);

/* The input matrix every stage is checked on: each size with each data kind,
 * case i being size i / 4 with kind i % 4. make test takes each size once,
 * the data kinds in turn: a loop test over cases(MATRIX_CASES, MATRIX_SIZES)
 * checks case matrix_case(_i). */
#define MATRIX_SIZES 9
#define MATRIX_CASES (MATRIX_SIZES * 4)
int matrix_case(int k);
void check_matrix_case(int i, const char *extra_args);

/* Test cases every stage shares. Each adds to *checks the number of checks it holds. */
TCase *usage_tcase(bool gpu_stage, int *checks); /* bad usage exits 2, --help exits 0 */
TCase *output_tcase(int *checks);                /* --csv, --size 0, --file, the default input */
TCase *matrix_tcase(int *checks);                /* every size and data kind, and past 2 GiB */
TCase *gpu_tcase(int *checks); /* matrix_tcase, and launch overrides (--blocks, --threads) */

/* Whether the program can run here: it does not exit 77 on a tiny input. */
bool can_run_stage(void);

/* Counts checks a suite leaves out (what the device cannot take) as skipped. */
void add_skipped(int checks);

/* Adds the case when the program can run here; otherwise prints why and counts
 * its checks as skipped. A stage that cannot run exits 77. */
void add_if_runnable(Suite *suite, TCase *tc, int checks);

/* The whole suite of a GPU stage: usage everywhere, the rest where a GPU is. */
Suite *gpu_stage_suite(void);

/* Adds the case whatever the machine (checks that need no GPU, such as usage). */
void add_tcase(Suite *suite, TCase *tc, int checks);

/* Runs the suite and prints Check's summary, then a SKIPPED line if any were. */
int run_suite(Suite *suite);

/* ------------------------------------------------------------- Oclgrind -- */

/* Oclgrind runs an OpenCL program on a simulated device and reports data
 * races (two work-items touching one address, one of them writing, with no
 * barrier or atomic between): what PoCL,
 * running a work-group's items one after another, never shows. */
bool have_oclgrind(void);

/* Adds a group that runs the program under Oclgrind, as add_if_tool does with
 * available and missing (true and NULL: nothing else needed); where Oclgrind
 * is missing its checks are counted as skipped, as the OpenCL exercises'
 * groups have always been. */
void add_if_oclgrind(Suite *suite, TCase *tc, int checks, bool available, const char *missing);

/* Runs the program under Oclgrind with args (keep the input small: it is
 * slow) and asserts that it exits 0 and that Oclgrind reported nothing, equal
 * values written at once by several items included (--uniform-writes), and
 * no value used before anything set it (--uninitialized). */
void check_no_races(const char *args);

/* The check's own OpenCL host (host: its path; built from check_*_quick.c
 * with common/tests/opencl_quick_host.h), which runs the kernel file beside
 * the program, PROGRAM.cl, on size bytes in groups x items work-items and
 * prints its counts, one a line. run_quick_host runs it under
 * Oclgrind with oclgrind_flags ("--quick": only the first and last
 * work-group), and "watch" to count the merge's atomics too; it reads the
 * count after each of the labels line by line ("counted" reads "counted 5"),
 * into count[] in the labels' order, and fails the test unless each label was
 * printed, the host exited 0, and it ended within QUICK_HOST_SECONDS. */
#define QUICK_HOST_SECONDS 60
struct quick_run {
    char command[3 * 4096];
    char said[2048]; /* what else Oclgrind and the host printed */
    unsigned long long count[4];
};
void run_quick_host(const char *host, const char *oclgrind_flags, unsigned long long size,
                    unsigned long long groups, unsigned long long items, bool watch,
                    const char *const *labels, int labels_count, struct quick_run *q);

/* What the kernel did on one launch, as Oclgrind counts it (--inst-counts):
 * the bytes it loaded from global memory, its atomics by kind and address
 * space. The first launch's counts are read; the program's later launches
 * (repeats) are the same kernel on the same input. */
struct kernel_counts {
    bool found;
    unsigned long long global_load_bytes; /* "load global (N bytes)", and each vloadN's */
    unsigned long long local_adds;        /* atomic_inc / atomic_add on __local (AS3) */
    unsigned long long local_exchanges;   /* atomic_xchg on __local: a store, not an add */
    unsigned long long global_atomics;    /* any atomic on __global (AS1) */
};

/* Runs the program under "oclgrind --inst-counts" and flags (more of
 * Oclgrind's options, or "") with args, and fills k. */
void count_kernel(const char *flags, const char *args, struct kernel_counts *k);

/* ------------------------------------------------------------ exercises -- */

/* An exercise's check is groups of checks (test cases), run in the order they
 * are made: what the exercise teaches first, the edges after. The first group
 * with a failure ends the run (CHECK_ALL=1 runs them all), and the check
 * prints one screen: the first failure, and which hint of the README to open
 * (hint 0: none). A passing check prints one line. */
TCase *exercise_tcase(const char *name, int hint);

/* The usage group of a program that takes only options of its own (exercises
 * 18 and 19): each of the count arguments in refused must exit 2, and --help
 * must exit 0 and name option. refused must outlive the run (a static array). */
void add_usage_refusals(Suite *suite, const char *const *refused, int count, const char *option);

/* One bad value refused: the program run with args exits 2, prints nothing on
 * stdout, and the first line on stderr (the reason; the usage may follow)
 * names option. */
void check_refused_naming(const char *args, const char *option);

/* Reads the report's "launch:     B blocks x T threads" line (at a line's
 * start) of a run with args, or fails the test. */
void read_launch(const char *args, const struct stage_output *o, long *blocks, int *threads);

/* The value after label on the report line that starts with it, up to the
 * line's end, into value ("" when no line starts so). */
void report_value(const char *out, const char *label, char *value, size_t size);

/* Runs an exercise's suite as above. Every failure goes to the file named by
 * the environment's CHECK_LOG, and the result (passed, failing, not checked)
 * to CHECK_RESULT, for make status; exercise.mk sets both. Returns 0 when
 * every check passed, 1 when one failed, and 77 (EXIT_CANNOT_RUN) when none
 * failed but the program cannot run here (it exited 77: no GPU), so that its
 * checks were not run: it then prints "not checked here: needs X", X from the
 * environment's CHECK_NEEDS ("an NVIDIA GPU"). Skipped is not passed. */
int run_exercise(Suite *suite);

/* ------------------------------------------------ inside a CUDA program -- */

/* Where an NVIDIA tool is: on PATH, beside nvcc, in $CUDA_HOME/bin or
 * /usr/local/cuda/bin (and, for ncu, the newest /opt/nvidia/nsight-compute/
 * folder). Each returns false where the tool is missing. */
bool have_compute_sanitizer(void);

/* Runs the program under compute-sanitizer's racecheck tool with args (keep
 * them small: racecheck runs the kernel ~100 times slower, e.g. "--size 64K
 * --reps 1") and fails the test with the sanitizer's first hazard lines when
 * it reports a shared-memory hazard (an error or a warning), or when the
 * program does not exit 0. A group that calls it is added with add_if_tool(...,
 * have_compute_sanitizer(), ...). */
void check_no_gpu_races(const char *args);

/* Runs the program under compute-sanitizer's memcheck tool (a read or write
 * outside what cudaMalloc gave, a misaligned access), then under its
 * synccheck tool (a __syncthreads() that not every thread of the block
 * reaches, a warp-synchronous call whose mask names lanes that are not
 * there), with args (small, like racecheck's), and fails the test with the
 * tool's first error lines when either reports one, or when the program does
 * not exit 0. Added with add_if_tool(..., have_compute_sanitizer(), ...). */
void check_no_gpu_memory_or_sync_errors(const char *args);

/* Whether this machine can hold a large input: gpu_bytes free on the GPU
 * (the first one nvidia-smi lists) and host_bytes of available host memory
 * (MemAvailable in /proc/meminfo). Where either cannot be read, it counts as
 * enough, and the run says for itself. memory_missing() says what is short,
 * in words, for add_if_tool: a group whose input a smaller lab GPU cannot
 * hold is reported as not run there, not as failing. */
bool have_memory_for(size_t gpu_bytes, size_t host_bytes);
const char *memory_missing(void);

/* Whether Nsight Compute's ncu can read this GPU's performance counters here:
 * tried once on a tiny run of the program (cached). False when ncu is
 * missing, when the counters may not be read (ERR_NVGPUCTRPERM), or when the
 * program cannot run here. profile_tool_missing() says which, in words. */
bool can_profile(void);
const char *profile_tool_missing(void);

/* Runs the program under ncu with args, profiling every launch of the
 * kernels whose function names match kernel_regex (an extended regular
 * expression, as ncu's --kernel-name regex: takes it), and writes into
 * values[i] the sum of metrics[i] over those launches (in base units: bytes,
 * instructions, never Kbyte). Fails the test when ncu fails, when a metric
 * is missing, or when no launch matched. The launches include the program's
 * warm-up: profile_launches() says how many were summed. */
void profile_kernel(const char *args, const char *kernel_regex, const char *const *metrics,
                    int count, double *values);
int profile_launches(void);

/* Adds the group when the program can run here and the tool it needs is
 * available; otherwise counts its checks as skipped, and says so by name:
 * "not run here: GROUP: MISSING" (at once, and again in run_exercise's
 * summary). A student without the tool still gets every other group. */
void add_if_tool(Suite *suite, TCase *tc, int checks, bool available, const char *missing);

/* How many lines of the program's PTX match the extended regular expression:
 * what nvcc was asked to do, read before any GPU runs it (an atomic's scope,
 * a load from another block's shared memory). The PTX is the file the
 * environment's CHECK_PTX names, which exercise.mk builds beside a CUDA
 * exercise's program (nvcc -ptx); the test fails when it cannot be read. A
 * group that reads only the PTX runs on a machine without a GPU too. */
int ptx_lines_matching(const char *regex);

/* Fails the test when the program's PTX holds an atomic of block scope
 * (.cta: atomicAdd_block and its kin) on global memory or on a generic
 * address: the global bins are shared by every block, and an atomic of
 * block scope is atomic only among one block's threads, so two blocks on
 * one bin race by CUDA's rules even where the hardware happens to count
 * right. Shared-memory atomics of block scope are left alone. */
void check_global_atomics_are_device_wide(void);

/* The program's PTX (the file CHECK_PTX names) as a string to free: all of
 * it, or with kernel set (a mangled name's start, "_Z12histo_kernel"), only
 * the body of the first .entry whose name starts so. */
char *read_ptx(const char *kernel);

/* Fails the test when a warp-wide call (match, vote or shfl .sync) in the PTX
 * (or in kernel's body only, as read_ptx takes it) has a constant mask of all
 * 32 lanes: -1 in the call, or a register set to -1 by a mov. In the last
 * step of a loop, or the last warp of a block that is not whole warps, such a
 * mask names lanes that are not there, which CUDA leaves undefined. why ends
 * the message (what the exercise wants instead). */
void check_no_constant_full_mask(const char *kernel, const char *why);

#endif
