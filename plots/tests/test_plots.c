/*
 * test_plots.c - make bench writes the documented columns and one verified
 * row per stage and input for every stage of stages.txt that runs here (on a
 * small size), make demo has a line for every stage, counts every run up to
 * its total and shows names whole in lined-up columns; make demo-short fits
 * 100 columns, lined up, with a row per run of brief.txt and each stage's
 * floor once, and refuses a brief line of no stage; every gnuplot script
 * renders a non-empty PNG from the fixture CSVs (four made-up machines), no
 * stages chart cuts a label, the chart of every machine names them all, the
 * coarsening chart has a line per
 * variant, and the labels and the side-by-side table follow stages.txt. The
 * table of one machine shows each GPU row as a % of the rated peak where the
 * CSV has it (empty where not) and of the read bandwidth, the stages a marker
 * names alone, and 06's chunks as its launch. make profile says why it cannot
 * run where there is no ncu or no GPU, and its parser turns recorded Nsight
 * Compute output into the documented rows. Runs from plots/ (make -C plots test).
 */
#include "command_checks.h"
#include "harness.h"

#include <check.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BENCH_COLUMNS CSV_HEADER ",pct_of_read_bw,run,date,host_cpu,gpu,driver,cuda,host,machine_id"

static int skipped, skipped_here;

static int lines_in(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    return lines;
}

/* --------------------------------------------------------------- stages -- */

/* The stages, as stages.txt (the one list) names them: a line per stage,
 * "folder program runs-on shows runs...", '#' comments and blank lines aside. */
struct listed_stage {
    char folder[64], program[192], runs_on[16];
};
static struct listed_stage listed[32];
static int listed_count;

static void read_stages_txt(void)
{
    FILE *registry = fopen("../stages.txt", "r");
    if (!registry) {
        perror("../stages.txt");
        exit(EXIT_FAILED);
    }
    char line[1024];
    while (fgets(line, sizeof line, registry)) {
        const char *start = line + strspn(line, " \t");
        if (*start == '#' || *start == '\n' || *start == '\0')
            continue;
        char folder[64], program[64], runs_on[16];
        if (listed_count == (int)(sizeof listed / sizeof listed[0]) ||
            sscanf(start, "%63s %63s %15s", folder, program, runs_on) != 3) {
            fprintf(stderr, "../stages.txt: cannot read: %s", line);
            exit(EXIT_FAILED);
        }
        struct listed_stage *stage = &listed[listed_count++];
        snprintf(stage->folder, sizeof stage->folder, "%s", folder);
        snprintf(stage->program, sizeof stage->program, "../%s/%s", folder, program);
        snprintf(stage->runs_on, sizeof stage->runs_on, "%s", runs_on);
    }
    fclose(registry);
}

/* ---------------------------------------------------------------- bench -- */

static const char *const inputs[] = {"uniform", "skewed", "constant", "text", "data/chelsea.bmp"};
#define INPUTS ((int)(sizeof inputs / sizeof inputs[0]))

static bool runs_here(const char *program)
{
    char command[512];
    snprintf(command, sizeof command, "'%s' --size 1 --reps 1 >/dev/null 2>&1", program);
    return shell(command) == EXIT_OK;
}

START_TEST(test_bench_writes_one_verified_row_per_stage_and_input)
{
    char dir[] = "/tmp/bench_test_XXXXXX", command[1024];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command,
             "BENCH_SIZE=64K BENCH_REPS=2 BENCH_SWEEPS=no BENCH_OUT=%s ./bench.sh 2>/dev/null &&"
             " ls %s/*.csv > %s/which",
             dir, dir, dir);
    ck_assert_int_eq(shell(command), 0);
    /* readable by the lab's other users (a shared folder), though mktemp's files are not */
    snprintf(command, sizeof command, "stat -c %%A $(cat %s/which) | grep -q '^-r..r..r'", dir);
    ck_assert_msg(shell(command) == 0, "the bench's CSV is not readable by all");
    snprintf(command, sizeof command, "%s/which", dir);
    char *csv_path = read_text(command);
    csv_path[strcspn(csv_path, "\n")] = '\0';
    char *csv = read_text(csv_path);

    char *line = strtok(csv, "\n");
    ck_assert_str_eq(line, BENCH_COLUMNS);
    int rows = 0, rated_rows = 0;
    bool seen[32][INPUTS] = {{false}};
    while ((line = strtok(NULL, "\n"))) {
        rows++;
        /* the yardsticks are every GPU row's 100%: no % of their own */
        if (strncmp(line, "read_bandwidth,", 15) == 0)
            ck_assert_msg(strstr(line, ",yes,,") != NULL, "a %% on a yardstick: %s", line);
        rated_rows += strncmp(line, "read_bandwidth,rated-peak,", 26) == 0;
        char stage[64], data[64];
        ck_assert_msg(sscanf(line, "%63[^,],%*[^,],%*[^,],%63[^,],", stage, data) == 2, "%s", line);
        ck_assert_msg(strstr(line, ",yes,") != NULL, "not verified: %s", line);
        for (int p = 0; p < listed_count; p++)
            for (int i = 0; i < INPUTS; i++)
                if (strcmp(stage, listed[p].folder) == 0 && strcmp(data, inputs[i]) == 0)
                    seen[p][i] = true;
    }
    ck_assert_int_gt(rows, 0);
    int stages_here = 0;
    for (int p = 0; p < listed_count; p++) {
        if (!runs_here(listed[p].program))
            continue;
        stages_here++;
        for (int i = 0; i < INPUTS; i++)
            ck_assert_msg(seen[p][i], "no row for %s on %s", listed[p].folder, inputs[i]);
    }
    ck_assert_msg(stages_here > 0, "no stage of stages.txt runs here: build first (make)");
    if (runs_here("read_bandwidth/read_bandwidth"))
        ck_assert_msg(rated_rows > 0, "read_bandwidth ran, and wrote no rated-peak row");

    /* The histograms the figures draw: ten copies of the phrase, every pixel. */
    snprintf(command, sizeof command,
             "test $(awk -F'\\t' '{ s += $2 } END { print s }' %s/bins-text.dat) = 230 &&"
             " test $(awk -F'\\t' '{ s += $2 } END { print s }' %s/bins-chelsea.dat) = 135300",
             dir, dir);
    ck_assert_int_eq(shell(command), 0);
    remove_tree(dir);
    free(csv);
    free(csv_path);
}
END_TEST

/* BENCH_ONLY re-measures the runs it matches and replaces their rows alone: a
 * recorded row of the same stage, data, bytes and run goes, every other row
 * stays as it was. Proven by two made-up rows dated OLD: the skewed one is
 * replaced, the uniform one kept. */
START_TEST(test_bench_only_replaces_the_matching_rows_alone)
{
    char dir[] = "/tmp/bench_only_XXXXXX", command[2048];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(
        command, sizeof command,
        "cd .. && . plots/machine.sh && csv=%s/only.csv &&"
        " echo '" BENCH_COLUMNS "' >$csv &&"
        " echo \"01_cpu,book,made-up,uniform,65536,1,0,0,1,1,1,1,yes,,main,OLD,,,,,,\"$machine_id"
        " >>$csv &&"
        " echo \"01_cpu,book,made-up,skewed,65536,1,0,0,1,1,1,1,yes,,main,OLD,,,,,,\"$machine_id"
        " >>$csv &&"
        " BENCH_SIZE=64K BENCH_REPS=1 BENCH_SWEEPS=no BENCH_OUT=%s BENCH_NAME=only"
        " BENCH_ONLY='^main\\|01_cpu/hist_cpu\\|--data skewed --size 64K$'"
        " plots/bench.sh 2>%s/bench.err &&"
        " grep -q '^01_cpu,book,made-up,uniform,.*,OLD,' $csv &&"
        " ! grep -q ',skewed,.*,OLD,' $csv &&"
        " grep -q '^01_cpu,book,[^,]*,skewed,65536,.*,yes,,main,' $csv &&"
        " ! grep -q '^[^,]*,[^,]*,[^,]*,constant,' $csv &&"
        " test $(grep -c ,uniform, $csv) = 1",
        dir, dir, dir);
    int status = shell(command);
    char err_path[64], csv_path[64];
    snprintf(err_path, sizeof err_path, "%s/bench.err", dir);
    snprintf(csv_path, sizeof csv_path, "%s/only.csv", dir);
    char *err = read_text(err_path), *csv = read_text(csv_path);
    ck_assert_msg(
        status == 0,
        "BENCH_ONLY did not replace the skewed row alone; bench.sh said:\n%s\nthe CSV:\n%s",
        err ? err : "(nothing)", csv ? csv : "(none)");
    free(err);
    free(csv);
    remove_tree(dir);
}
END_TEST

/* ----------------------------------------------------------------- demo -- */

/* true when a line of text starts with word and a space */
static bool has_line_starting(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, word, n) == 0 && line[n] == ' ')
            return true;
    return false;
}

START_TEST(test_demo_has_a_line_for_every_stage_in_stages_txt)
{
    /* a row, or a line saying why it was skipped */
    char *table = output_of("DEMO_ARGS='--size 1K --reps 1' ./demo.sh 2>/dev/null");
    for (int p = 0; p < listed_count; p++)
        ck_assert_msg(has_line_starting(table, listed[p].folder), "no line for %s:\n%s",
                      listed[p].folder, table);
    free(table);
}
END_TEST

START_TEST(test_demo_of_named_stages_runs_those_alone)
{
    char *table = output_of("DEMO_ARGS='--size 1K --reps 1' ./demo.sh 01_cpu 2>/dev/null");
    ck_assert_msg(has_line_starting(table, "01_cpu"), "%s", table);
    for (int p = 0; p < listed_count; p++)
        if (strcmp(listed[p].folder, "01_cpu") != 0)
            ck_assert_msg(!has_line_starting(table, listed[p].folder), "%s ran:\n%s",
                          listed[p].folder, table);
    free(table);
    struct ran refused = run_command("./demo.sh 99_no_such_stage");
    ck_assert_int_eq(refused.status, 2);
    ck_assert_str_eq(refused.err, "demo: 99_no_such_stage is not a stage in stages.txt\n");
    free_ran(&refused);
}
END_TEST

/* The progress lines count every run up to the total: the runs of a stage
 * that cannot run here are counted with the one that said so
 * ("[6-7/14] skipped with it: 03_shared_atomics's other 2 runs"). */
START_TEST(test_demo_counts_every_run_up_to_the_total)
{
    struct ran r = run_command("DEMO_ARGS='--size 1K --reps 1' ./demo.sh");
    ck_assert_msg(r.status == 0, "exit %d:\n%s%s", r.status, r.out, r.err);
    int counted = 0, total = 0;
    for (const char *line = r.err; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        int first, last, of;
        if (sscanf(line, "[%d-%d/%d]", &first, &last, &of) == 3)
            ;
        else if (sscanf(line, "[%d/%d]", &first, &of) == 2)
            last = first;
        else
            continue;
        ck_assert_msg(first == counted + 1 && last >= first, "not the next run: %.80s", line);
        ck_assert_msg(total == 0 || of == total, "another total: %.80s", line);
        counted = last;
        total = of;
    }
    ck_assert_msg(total > 0 && counted == total, "counted %d of %d:\n%s", counted, total, r.err);
    free_ran(&r);
}
END_TEST

/* The column, from 0, where a heading of the table's first line ends */
static int heading_end(const char *table, const char *heading)
{
    const char *at = strstr(table, heading);
    ck_assert_msg(at && at < strchr(table, '\n'), "no heading '%s':\n%s", heading, table);
    return (int)(at - table) + (int)strlen(heading);
}

/* Made-up rows (tab-separated, as demo.sh writes them) as demo-table.awk
 * lines them up, given its -v options */
static char *demo_table_with(const char *rows, const char *awk_options)
{
    char path[] = "/tmp/plots_demo_XXXXXX", command[1024];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert(write(fd, rows, strlen(rows)) == (ssize_t)strlen(rows));
    close(fd);
    snprintf(command, sizeof command, "awk %s -f demo-table.awk %s", awk_options, path);
    char *table = output_of(command);
    unlink(path);
    return table;
}

/* The demo's table of made-up rows on a machine whose CPU is host_cpu. */
static char *demo_table_of(const char *rows, const char *host_cpu)
{
    char options[256];
    snprintf(options, sizeof options, "-v host_cpu='%s'", host_cpu);
    return demo_table_with(rows, options);
}

/* A kernel-only median above the end-to-end one (seen on PoCL: two medians
 * of different runs) is marked and explained; an ordinary row is not. */
START_TEST(test_demo_table_explains_a_kernel_time_above_the_trip)
{
    char *table = demo_table_of(
        "04_opencl_port\topencl-local-atomics\tuniform\t4x256\t666.5405\t657.6718\t0.157\tyes\tX\n"
        "01_cpu\tbook\tuniform\t1t\t38.2509\t38.2509\t2.741\tyes\tX\n",
        "");
    ck_assert_msg(strstr(table, "657.6718 *") && !strstr(table, "38.2509 *"), "%s", table);
    ck_assert_msg(
        strstr(table, "\n* kernel above end to end: the two are medians of different runs"), "%s",
        table);
    free(table);
}
END_TEST

/* demo-table.awk lines up the demo's rows, each column as wide as its widest
 * cell: a device or an 08 variant of any length shows whole, and every number
 * ends under the end of its heading. PoCL's name for its CPU device
 * (driver-LLVM's CPU-model) is shown as the CPU's model, "(PoCL)" after it. */
START_TEST(test_demo_table_shows_long_names_whole_and_lined_up)
{
    const char *long_gpu = "Fixture GPU whose name is much longer than 28 characters";
    char made_up[2048];
    snprintf(made_up, sizeof made_up,
             "01_cpu\tbook\tuniform\t1t\t84.6845\t84.6845\t1.238\tyes\tFixture CPU 9000\n"
             "02_global_atomics\tskipped: cannot run here: no CUDA device\n"
             "04_opencl_port\topencl-local-atomics\tuniform\t32x256\t125.7431\t208.6074\t0.834\t"
             "yes\tpthread-skylake-avx512-Fixture CPU 9000\n"
             "04_opencl_port\topencl-local-atomics\tchelsea.bmp\t264x256\t0.0078\t0.1128\t17.293\t"
             "yes\t%s\n"
             "08_generalized\tauto:per-block/u16/3000/100-60000\tuniform\t660x256\t3.9620\t"
             "143.2080\t271.000\tyes\t%s\n",
             long_gpu, long_gpu);
    char *table = demo_table_of(made_up, "Fixture CPU 9000");
    ck_assert_int_eq(lines_in(table), 6);
    char whole[128];
    snprintf(whole, sizeof whole, "  %s\n", long_gpu);
    ck_assert_msg(strstr(table, whole), "the device is cut:\n%s", table);
    ck_assert_msg(strstr(table, " auto:per-block/u16/3000/100-60000  "), "the variant is cut:\n%s",
                  table);
    ck_assert_msg(strstr(table, "  Fixture CPU 9000 (PoCL)\n") && !strstr(table, "pthread-"),
                  "PoCL's device is not named by its CPU:\n%s", table);
    ck_assert_msg(strstr(table, "\n02_global_atomics  skipped: cannot run here: no CUDA device\n"),
                  "%s", table);
    const char *numbers[] = {"kernel ms", "end-to-end ms", "GB/s"};
    int device = heading_end(table, "device") - (int)strlen("device");
    for (const char *line = strchr(table, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        if (strstr(line, "skipped: ") == line + strlen("02_global_atomics  "))
            continue;
        for (int n = 0; n < 3; n++) {
            int end = heading_end(table, numbers[n]);
            ck_assert_msg(line[end - 1] >= '0' && line[end - 1] <= '9' && line[end] == ' ',
                          "not under '%s': %.*s", numbers[n], (int)strcspn(line, "\n"), line);
        }
        ck_assert_msg(strncmp(line + device, "Fixture", 7) == 0, "not under 'device': %.*s",
                      (int)strcspn(line, "\n"), line);
    }
    free(table);
}
END_TEST

/* ----------------------------------------------------------- demo-short -- */

/* The length of text's longest line */
static int widest_line(const char *text)
{
    int widest = 0;
    for (const char *line = text; *line;) {
        int length = (int)strcspn(line, "\n");
        if (length > widest)
            widest = length;
        line += length + (line[length] == '\n');
    }
    return widest;
}

/* brief.txt's runs as plots/runs.sh (bash) reads them for the demo and the
 * bench, "folder|options" a line (from plots/, as the tests run) */
#define BRIEF_RUNS "cd .. && bash -c '. common/stages.sh && . plots/runs.sh && brief_runs'"

/* The machine and the input that make demo-short names above its table, as
 * long as a lab's are likely to be */
#define SHORT_CPU "Fixture CPU 9000 with a model name of 44 chars"
#define SHORT_GPU "Fixture GPU whose name is much longer than 28 characters"
#define SHORT_MACHINE                                                                              \
    "-v short=1 -v cores=128 -v reps=5 -v driver=580.159.04 -v host_cpu='" SHORT_CPU "'"           \
    " -v gpu='" SHORT_GPU "' -v input=\"the book's 100 MiB of uniform random bytes\""

static char *short_table_of(const char *rows)
{
    return demo_table_with(rows, SHORT_MACHINE);
}

/* The longest cells the short table may have to show: brief.txt's longest
 * variant (07's auto at 65536 bins, which chooses halves-aggregated on some
 * keys), PoCL's name for the CPU, 06 in 1024 chunks, wide numbers, a kernel
 * time above the trip (marked), a reason to skip that needs two lines. */
static const char longest_rows[] =
    "01_cpu\tsub4\tuniform\t128t\t1234.5678\t1234.5678\t0.085\tyes\t" SHORT_CPU "\t\n"
    "02_global_atomics\tskipped: cannot run here: no CUDA device (no NVIDIA driver, or one older "
    "than this program's CUDA runtime)\n"
    "03_shared_atomics\tskipped: cannot run here: no CUDA device (no NVIDIA driver, or one older "
    "than this program's CUDA runtime)\n"
    "04_opencl_port\topencl-local-atomics\tuniform\t1024x1024\t1666.5405\t1657.6718\t0.063\tyes\t"
    "pthread-skylake-avx512-" SHORT_CPU "\tCPU\n"
    "04_opencl_port\topencl-local-atomics\tuniform\t264x256\t0.5949\t21.1880\t176.267\t"
    "yes\t" SHORT_GPU "\tGPU\n"
    "05_privatized\tFAILED (exit 1): hist_gpu_privatized: unrolled: bin 17 is 409612, not 409613\n"
    "06_streams\tpinned-copy\tuniform\t-\t-\t2.1018\t-\tyes\t" SHORT_GPU "\t\n"
    "06_streams\tstreams\tuniform\t1024 chunks\t0.0640\t2.1105\t1637.990\tyes\t" SHORT_GPU "\t\n"
    "07_many_bins\tread-bandwidth\tuniform\t1056x256\t0.0423\t19.5059\t12479.607\t"
    "yes\t" SHORT_GPU "\t\n"
    "07_many_bins\tauto:halves-aggregated/65536\tuniform\t1056x1024\t10.0423\t119.5059\t"
    "10247.607\tyes\t" SHORT_GPU "\t\n";

/* make demo-short's table fits a projector: at most 100 columns on every line
 * with the longest cells it may show, where the full demo's layout of the
 * same rows is far wider. The machine is named once above it, an OpenCL row
 * says its kind of device, and on every row each column starts where its
 * heading does (a number ends where its heading ends); a reason to skip that
 * is too long goes on under its own start. */
START_TEST(test_demo_short_table_fits_100_columns_and_lines_up)
{
    char *full = demo_table_of(longest_rows, SHORT_CPU);
    ck_assert_msg(widest_line(full) > 100, "the full layout fits too (%d columns):\n%s",
                  widest_line(full), full);
    free(full);
    char *table = short_table_of(longest_rows);
    ck_assert_msg(widest_line(table) <= 100, "%d columns:\n%s", widest_line(table), table);
    const char named[] = "GPU    " SHORT_GPU " (driver 580.159.04)\n"
                         "CPU    " SHORT_CPU " (128 cores)\n"
                         "input  the book's 100 MiB of uniform random bytes;"
                         " median of 5 runs after a warm-up\n";
    ck_assert_msg(strncmp(table, named, strlen(named)) == 0,
                  "the machine and the input are not named above the table:\n%s", table);
    ck_assert_msg(strstr(table, " opencl-local-atomics (CPU) ") &&
                      strstr(table, " opencl-local-atomics (GPU) ") && !strstr(table, "pthread-"),
                  "an OpenCL row does not say its kind of device:\n%s", table);
    ck_assert_msg(strstr(table, "\n03     skipped, as above\n"), "%s", table);

    const char *heading = strstr(table, "\nstage  variant  ");
    ck_assert_msg(heading != NULL, "no heading:\n%s", table);
    heading++;
    const char *left[] = {"variant", "launch", "verified"};
    const char *right[] = {"kernel ms", "end-to-end ms", "GB/s"};
    int variant = heading_end(heading, "variant") - (int)strlen("variant"), rows = 0, wrapped = 0;
    for (const char *line = strchr(heading, '\n') + 1;
         (*line >= '0' && *line <= '9') || *line == ' '; line = strchr(line, '\n') + 1) {
        int length = (int)strcspn(line, "\n");
        ck_assert_msg(length > variant && line[variant - 1] == ' ' && line[variant] != ' ',
                      "not under 'variant': %.*s", length, line);
        if (*line == ' ' || strncmp(line + variant, "skipped", 7) == 0 ||
            strncmp(line + variant, "FAILED", 6) == 0) {
            wrapped += *line == ' ';
            continue;
        }
        rows++;
        for (int c = 0; c < 3; c++) {
            int start = heading_end(heading, left[c]) - (int)strlen(left[c]);
            ck_assert_msg(start < length && line[start - 1] == ' ' && line[start] != ' ',
                          "not under '%s': %.*s", left[c], length, line);
            int end = heading_end(heading, right[c]);
            ck_assert_msg(end < length && line[end - 1] != ' ' && line[end] == ' ',
                          "not under '%s': %.*s", right[c], length, line);
        }
    }
    ck_assert_int_eq(rows, 7);
    ck_assert_int_eq(wrapped, 1);
    free(table);
}
END_TEST

/* make demo-short's table has a row for every run of brief.txt, in its order,
 * under its stage's number (an OpenCL stage's twice: CPU and GPU), and each
 * stage's floor once, however many of its runs print it (as 05 to 08 do):
 * made-up rows, as a program would print them, for each real line. */
START_TEST(test_demo_short_table_has_a_row_per_brief_run_and_one_floor_per_stage)
{
    char *runs = output_of(BRIEF_RUNS);
    size_t size = 512 * (size_t)(lines_in(runs) + 1), used = 0;
    char *rows = malloc(size);
    ck_assert(rows != NULL);
    rows[0] = '\0';
    char folder[64][64];
    bool opencl[64], has_runs[32] = {false};
    int count = 0, stages = 0;
    for (char *run = strtok(runs, "\n"); run; run = strtok(NULL, "\n"), count++) {
        ck_assert(count < 64 && sscanf(run, "%63[^|]", folder[count]) == 1);
        int p = 0;
        while (p < listed_count && strcmp(listed[p].folder, folder[count]) != 0)
            p++;
        ck_assert_msg(p < listed_count, "%s: not a stage", run);
        opencl[count] = strcmp(listed[p].runs_on, "opencl") == 0;
        stages += !has_runs[p];
        has_runs[p] = true;
        /* the floor first, as the programs print it: a read (05, 07, 08) or a copy (06) */
        const char *floor_row = p % 2
                                    ? "read-bandwidth/u8x4/256\tuniform\t1056x256\t0.0423\t19.5059"
                                      "\t2479.607\tyes\tG\t"
                                    : "pinned-copy\tuniform\t-\t-\t2.1018\t-\tyes\tG\t";
        used += (size_t)snprintf(rows + used, size - used, "%s\t%s\n", folder[count], floor_row);
        for (int kind = 0; kind < (opencl[count] ? 2 : 1); kind++)
            used += (size_t)snprintf(
                rows + used, size - used,
                "%s\trun-%d\tuniform\t264x256\t0.6271\t21.5122\t167.218\tyes\tG\t%s\n",
                folder[count], count, opencl[count] ? (kind ? "GPU" : "CPU") : "");
        ck_assert(used < size);
    }
    ck_assert_int_gt(count, 0);
    char *table = short_table_of(rows);
    ck_assert_msg(widest_line(table) <= 100, "%d columns:\n%s", widest_line(table), table);
    const char *previous = table;
    for (int n = 0; n < count; n++)
        for (int kind = 0; kind < (opencl[n] ? 2 : 1); kind++) {
            char cell[64];
            snprintf(cell, sizeof cell, "  run-%d%s  ", n,
                     opencl[n] ? (kind ? " (GPU)" : " (CPU)") : "");
            const char *at = strstr(table, cell), *line = at;
            ck_assert_msg(at > previous, "no row '%s' after the one before:\n%s", cell, table);
            while (line > table && line[-1] != '\n')
                line--;
            size_t number = strcspn(folder[n], "_");
            ck_assert_msg(strncmp(line, folder[n], number) == 0 && line[number] == ' ',
                          "'%s' is not under %s's number:\n%s", cell, folder[n], table);
            previous = at;
        }
    int floors = 0;
    for (const char *at = strstr(table, " (floor)  "); at; at = strstr(at + 1, " (floor)  "))
        floors++;
    ck_assert_msg(floors == stages, "%d floors for %d stages:\n%s", floors, stages, table);
    free(table);
    free(rows);
    free(runs);
}
END_TEST

/* make demo-short of named stages runs their lines of brief.txt alone: here
 * 01_cpu, which runs on every machine; a verified row for each of its lines
 * and no other stage's, at most 100 columns, and the demo's own time last. */
START_TEST(test_demo_short_of_named_stages_has_a_row_per_brief_line)
{
    char *counted = output_of(BRIEF_RUNS " | grep -c '^01_cpu|'");
    int lines = atoi(counted);
    free(counted);
    ck_assert_int_gt(lines, 0);
    struct ran r = run_command("DEMO_ARGS='--size 1K --reps 1' ./demo.sh --short 01_cpu");
    ck_assert_msg(r.status == 0, "exit %d:\n%s%s", r.status, r.out, r.err);
    ck_assert_msg(widest_line(r.out) <= 100, "%d columns:\n%s", widest_line(r.out), r.out);
    int rows = 0;
    for (const char *line = r.out; *line; line += strcspn(line, "\n") + 1) {
        int length = (int)strcspn(line, "\n");
        if (*line < '0' || *line > '9')
            continue;
        ck_assert_msg(strncmp(line, "01 ", 3) == 0, "another stage ran: %.*s", length, line);
        ck_assert_msg(length > 5 && strncmp(line + length - 5, "  yes", 5) == 0,
                      "not verified: %.*s", length, line);
        rows++;
    }
    ck_assert_msg(rows == lines, "%d rows for %d lines of brief.txt:\n%s", rows, lines, r.out);
    char last[64];
    snprintf(last, sizeof last, "\ndemo-short: %d runs in ", lines);
    const char *at = strstr(r.out, last);
    ck_assert_msg(
        at && strcmp(at + strlen(last) + strspn(at + strlen(last), "0123456789"), " s\n") == 0,
        "no time last:\n%s", r.out);
    free_ran(&r);
}
END_TEST

/* A line of brief.txt that names a folder stages.txt lacks, or that sets its
 * own input (the demo and the bench choose it; 08's --rows makes a matrix of
 * its own), stops make demo-short before any run: exit 2, one line that says
 * which line and why. */
START_TEST(test_demo_short_refuses_a_brief_line_of_no_stage_or_its_own_input)
{
    const char *briefs[] = {"01_cpu --variant book\n# a comment\n99_no_such_stage -\n",
                            "01_cpu --variant book --size 1K  # its own input\n",
                            "01_cpu --variant book\n08_generalized --rows 50x1000\n"};
    const char *why[] = {":3: 99_no_such_stage is not a stage in stages.txt\n",
                         ":1: --size sets the input, which the demo and the bench choose\n",
                         ":2: --rows sets the input, which the demo and the bench choose\n"};
    for (int b = 0; b < 3; b++) {
        char path[] = "/tmp/plots_brief_XXXXXX", command[256], expected[256];
        int fd = mkstemp(path);
        ck_assert(fd >= 0);
        ck_assert(write(fd, briefs[b], strlen(briefs[b])) == (ssize_t)strlen(briefs[b]));
        close(fd);
        snprintf(command, sizeof command, "BRIEF=%s ./demo.sh --short", path);
        struct ran r = run_command(command);
        unlink(path);
        snprintf(expected, sizeof expected, "%s%s", path, why[b]);
        ck_assert_int_eq(r.status, 2);
        ck_assert_str_eq(r.err, expected);
        ck_assert_str_eq(r.out, "");
        free_ran(&r);
    }
}
END_TEST

/* Every line of brief.txt is one that its program accepts: no usage error
 * (exit 2: a variant or an option it lacks). On 1 KiB, so that it is quick
 * where the stage runs; a CUDA program checks its options before it looks
 * for a GPU, so this holds on a machine without one too. */
START_TEST(test_every_brief_line_is_accepted_by_its_program)
{
    char *runs = output_of(BRIEF_RUNS);
    int checked = 0;
    for (char *run = strtok(runs, "\n"); run; run = strtok(NULL, "\n")) {
        char folder[64];
        ck_assert(sscanf(run, "%63[^|]", folder) == 1);
        const char *options = run + strlen(folder) + 1;
        int p = 0;
        while (p < listed_count && strcmp(listed[p].folder, folder) != 0)
            p++;
        ck_assert_msg(p < listed_count, "%s: not a stage", run);
        if (access(listed[p].program, X_OK) != 0)
            continue; /* not built here: make's notes said why */
        char command[512];
        snprintf(command, sizeof command, "'%s' %s --size 1K --reps 1 --csv >/dev/null 2>&1",
                 listed[p].program, options);
        ck_assert_msg(shell(command) != EXIT_USAGE, "refused by its program: %s", run);
        checked++;
    }
    ck_assert_msg(checked > 0, "no line of brief.txt was checked: build first (make)");
    free(runs);
}
END_TEST

/* ---------------------------------------------------------------- plots -- */

static const char *const charts[] = {
    "fixture-gpu-stages-uniform", "fixture-gpu-stages-skewed",  "fixture-gpu-stages-constant",
    "fixture-gpu-stages-text",    "fixture-gpu-stages-chelsea", "fixture-gpu-contention",
    "fixture-gpu-bandwidth",      "fixture-gpu-blocks",         "fixture-gpu2-stages-uniform",
    "fixture-gpu2-contention",    "fixture-gpu2-bandwidth",     "fixture-gpu3-stages-uniform",
    "fixture-cpu-stages-uniform", "machines-uniform",           "histogram-text",
    "histogram-chelsea",          "fixture-gpu2-coarsening",
};
#define CHARTS ((int)(sizeof charts / sizeof charts[0]))

static char figures[] = "/tmp/plots_test_XXXXXX";

START_TEST(test_every_chart_renders_a_png_and_an_svg)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.png", figures, charts[_i]);
    FILE *png = fopen(path, "rb");
    ck_assert_msg(png != NULL, "%s was not drawn", path);
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, png);
    fseek(png, 0, SEEK_END);
    long size = ftell(png);
    fclose(png);
    ck_assert_msg(got == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0, "%s: not a PNG", path);
    ck_assert_msg(size > 5000, "%s: only %ld bytes", path, size);
    snprintf(path, sizeof path, "%s/%s.svg", figures, charts[_i]);
    char *svg = read_text(path);
    ck_assert_msg(strstr(svg, "<svg") != NULL, "%s: not an SVG", path);
    free(svg);
}
END_TEST

/* The four made-up machines of tests/fixture/, and the rows their CSVs hold
 * for the chart of every machine, in the order of stages.txt. 06's plain copy
 * has no kernel, so no bar; the floor is not a stage. */
static const char *const fixture_machines[] = {"Fixture Laptop CPU", "Fixture GPU", "Fixture GPU 2",
                                               "Fixture GPU 3"};
static const char *const fixture_rows[] = {
    "01 book",
    "01 sub4",
    "01 sub4 on every core",
    "02 global-atomics",
    "03 shared-atomics",
    "03 shared-atomics, 4x the blocks",
    "04 opencl-local-atomics on CPU",
    "04 opencl-local-atomics on GPU",
    "05 book-occupancy",
    "05 lane-bins",
    "05 vector-loads",
    "05 unrolled",
    "05 cub",
    "06 pageable",
    "06 pinned",
    "06 streams",
    "07 auto:per-block-halves/65536",
    "07 per-block-halves/65536",
    "07 halves-aggregated/65536",
    "07 cluster/65536",
    "07 global/65536",
    "07 global-plain/65536",
    "07 partition/65536",
    "07 cub/65536",
    "08 auto:per-lane/u8/256",
    "08 per-lane/u8/256",
    "08 per-block/u8/256",
    "08 cub-even/u8/256",
    "09 histogram",
    "09 equalize",
};
#define FIXTURE_MACHINES ((int)(sizeof fixture_machines / sizeof fixture_machines[0]))
#define FIXTURE_ROWS     ((int)(sizeof fixture_rows / sizeof fixture_rows[0]))

START_TEST(test_machines_chart_names_every_machine_and_every_row)
{
    char path[256], text[256];
    snprintf(path, sizeof path, "%s/machines-uniform.svg", figures);
    char *svg = read_text(path);
    for (int m = 0; m < FIXTURE_MACHINES; m++) { /* the key */
        snprintf(text, sizeof text, "<text>%s</text>", fixture_machines[m]);
        ck_assert_msg(strstr(svg, text) != NULL, "%s: no %s in the key", path, fixture_machines[m]);
    }
    for (int r = 0; r < FIXTURE_ROWS; r++) { /* the labels down the side */
        snprintf(text, sizeof text, "<text>%s</text>", fixture_rows[r]);
        ck_assert_msg(strstr(svg, text) != NULL, "%s: no label %s", path, fixture_rows[r]);
    }
    free(svg);
}
END_TEST

/* 05's coarsening sweep (fixture-gpu2.csv): a line per variant and input,
 * named with its block size, since bytes per thread depend on it; 05's own
 * read-only kernel, which runs beside every variant, is no line of it. */
START_TEST(test_coarsening_chart_has_a_line_per_variant_and_input)
{
    char path[256];
    snprintf(path, sizeof path, "%s/fixture-gpu2-coarsening.svg", figures);
    char *svg = read_text(path);
    const char *const lines[] = {
        "book-occupancy x 256 threads, uniform", "unrolled x 1024 threads, uniform",
        "book-occupancy x 256 threads, constant", "unrolled x 1024 threads, constant"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "<text>%s</text>", lines[i]);
        ck_assert_msg(strstr(svg, text), "%s: no line '%s'", path, lines[i]);
    }
    ck_assert_msg(strstr(svg, "read-bandwidth") == NULL, "%s: the read-only kernel is drawn", path);
    free(svg);
}
END_TEST

/* A PNG's width or height in pixels: its IHDR chunk follows the 8-byte
 * signature, the width first. */
static long png_size(const char *path, int height)
{
    unsigned char head[24];
    FILE *png = fopen(path, "rb");
    ck_assert_msg(png != NULL, "%s was not drawn", path);
    ck_assert(fread(head, 1, sizeof head, png) == sizeof head);
    fclose(png);
    ck_assert(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(head + 12, "IHDR", 4) == 0);
    const unsigned char *n = head + (height ? 20 : 16);
    return (long)n[0] << 24 | n[1] << 16 | n[2] << 8 | n[3];
}
static long png_height(const char *path)
{
    return png_size(path, 1);
}
static long png_width(const char *path)
{
    return png_size(path, 0);
}

START_TEST(test_machines_chart_grows_with_the_machines)
{
    char dir[] = "/tmp/plots_one_XXXXXX", command[512], one[300], four[300];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command,
             "mkdir %s/results && cp tests/fixture/fixture-gpu2.csv %s/results/ &&"
             " PLOTS_RESULTS=%s/results PLOTS_OUT=%s ./plots.sh >/dev/null 2>&1",
             dir, dir, dir, dir);
    ck_assert_int_eq(shell(command), 0);
    snprintf(one, sizeof one, "%s/machines-uniform.png", dir);
    snprintf(four, sizeof four, "%s/machines-uniform.png", figures);
    /* fixture-gpu2.csv alone has every row too: three more machines are three
     * more bars in each row, each at least 10 pixels high */
    ck_assert_int_ge(png_height(four), png_height(one) + 3 * FIXTURE_ROWS * 10);
    remove_tree(dir);
}
END_TEST

/* make profile writes results/profile-<machine>.csv beside make bench's CSVs:
 * Nsight Compute's metrics, not a machine's runs, which the charts leave out. */
START_TEST(test_plots_leave_out_make_profiles_csv)
{
    char dir[] = "/tmp/plots_profile_XXXXXX", command[2048];
    ck_assert(mkdtemp(dir) != NULL);
    const char *parse = "./profile.sh --parse tests/fixture/ncu/ncu-raw-two-kernels.txt";
    snprintf(
        command, sizeof command,
        "mkdir %s/results && cp tests/fixture/fixture-gpu2.csv %s/results/ &&"
        " { echo \"stage,impl,data,bytes,$(%s | head -1),gpu,driver,date\";"
        " %s | sed '1d; s/^/05_privatized,cub,uniform,104857600,/; s/$/,Fixture GPU 2,1.0,x/'; }"
        " > %s/results/profile-fixture-gpu-2.csv &&"
        " PLOTS_RESULTS=%s/results PLOTS_OUT=%s/figures ./plots.sh > %s/log 2>&1",
        dir, dir, parse, parse, dir, dir, dir, dir);
    ck_assert_msg(shell(command) == 0, "plots.sh failed with a profile CSV: see %s/log", dir);
    snprintf(command, sizeof command, "ls %s/figures | grep -q '^profile-'", dir);
    ck_assert_msg(shell(command) != 0, "a chart was drawn from the profile CSV in %s", dir);
    snprintf(command, sizeof command, "test -s %s/figures/fixture-gpu2-contention.png", dir);
    ck_assert_int_eq(shell(command), 0);
    remove_tree(dir);
}
END_TEST

/* The dark pixels of a PNG in its two outermost rows and columns: where a
 * label runs off the picture, its cut letters are there. gnuplot reads the
 * picture back, a line per pixel (x, y, red, green, blue); -1: it could not. */
static long dark_pixels_at_the_edges(const char *png)
{
    char command[1024];
    snprintf(command, sizeof command,
             "gnuplot -e \"set table '/dev/stdout'; plot '%s' binary filetype=png with rgbimage\""
             " 2>/dev/null | awk '/^#/ || !NF { next } { pixels++; if ($1 > w) w = $1; if ($2 > h)"
             " h = $2 } $3 + $4 + $5 < 384 { x[++n] = $1; y[n] = $2 } END { for (i = 1; i <= n;"
             " i++) edge += x[i] <= 1 || y[i] <= 1 || x[i] >= w - 1 || y[i] >= h - 1;"
             " print pixels ? edge + 0 : -1 }'",
             png);
    char *count = output_of(command);
    long dark = strtol(count, NULL, 10);
    free(count);
    return dark;
}

/* Every label of a stages chart shows whole: the picture is as wide as its
 * last labels reach (turned 30 degrees, each starts at its tick) and as deep
 * as its longest. Fixture GPU 3's last label was once cut. */
START_TEST(test_stages_charts_show_every_label_whole)
{
    int checked = 0;
    for (int c = 0; c < CHARTS; c++) {
        if (!strstr(charts[c], "-stages-"))
            continue;
        char path[256];
        snprintf(path, sizeof path, "%s/%s.png", figures, charts[c]);
        long dark = dark_pixels_at_the_edges(path);
        ck_assert_msg(dark >= 0, "gnuplot cannot read %s back (built without libgd?)", path);
        ck_assert_msg(dark == 0, "%s: %ld dark pixels at its edges: a label is cut", path, dark);
        checked++;
    }
    ck_assert_int_ge(checked, 5);
}
END_TEST

/* The same where the labels are at their longest at the end: many bars, the
 * last three of 08 with a launch and a second run ("..., 4x the blocks"). */
START_TEST(test_stages_chart_makes_room_for_long_last_labels)
{
    char dir[] = "/tmp/plots_labels_XXXXXX", path[256], command[1024];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/stages", dir);
    FILE *data = fopen(path, "w");
    ck_assert(data != NULL);
    for (int row = 0; row < 24; row++)
        fprintf(data, "\"0%d variant %d\"\t%g\t%g\n", row / 4 + 1, row, 0.1 * (row + 1), 10.0);
    for (int row = 0; row < 3; row++)
        fprintf(data, "\"08 auto:per-block/u16/3000/100-60000 660x256, %dx the blocks\"\t0.2\t15\n",
                row + 2);
    fclose(data);
    snprintf(command, sizeof command,
             "cd .. && gnuplot -e \"data='%s'; out='%s/long'; title='Long labels'\""
             " plots/gnuplot/stages.gp",
             path, dir);
    ck_assert_int_eq(shell(command), 0);
    snprintf(path, sizeof path, "%s/long.png", dir);
    long dark = dark_pixels_at_the_edges(path);
    ck_assert_msg(dark >= 0, "gnuplot cannot read %s back (built without libgd?)", path);
    ck_assert_msg(dark == 0, "%s: %ld dark pixels at its edges: a label is cut", path, dark);
    remove_tree(dir);
}
END_TEST

/* ----------------------------------------------------------------- rows -- */

/* rows.awk's output for one chart of the fixture, with the given registry */
static char *rows_of(const char *chart, const char *registry, const char *csvs)
{
    char command[512];
    snprintf(command, sizeof command, "awk -v chart=%s -v registry=%s -f rows.awk %s", chart,
             registry, csvs);
    return output_of(command);
}

START_TEST(test_machines_rows_come_in_the_order_of_stages_txt)
{
    char *rows = rows_of("machines", "../stages.txt", "tests/fixture/*.csv");
    const char *at = rows;
    char label[256];
    for (int r = 0; r < FIXTURE_ROWS; r++) {
        snprintf(label, sizeof label, "\t\"%s\"\t", fixture_rows[r]);
        const char *found = strstr(at, label);
        ck_assert_msg(found != NULL, "%s missing, or not after the row before it:\n%s",
                      fixture_rows[r], rows);
        at = found + strlen(label);
    }
    ck_assert_msg(strstr(rows, "pinned-copy") == NULL, "a copy has no kernel to draw");
    ck_assert_msg(strstr(rows, "read bandwidth") == NULL, "the floor is not a stage");
    free(rows);
}
END_TEST

/* A copy of stages.txt with 04 listed as a CUDA stage and 06 as showing its kernel */
static char other_registry[] = "/tmp/plots_stages_XXXXXX";
static const char *const other_registry_awk =
    "$1 == \"04_opencl_port\" { $3 = \"cuda\" } $1 == \"06_streams\" { $4 = \"kernel\" } 1";

START_TEST(test_labels_follow_runs_on_in_stages_txt)
{
    char *rows = rows_of("contention", "../stages.txt", "tests/fixture/fixture-gpu2.csv");
    ck_assert_msg(strstr(rows, "\"04 opencl-local-atomics on GPU\""), "%s", rows);
    ck_assert_msg(strstr(rows, "\"04 opencl-local-atomics on CPU\""), "%s", rows);
    ck_assert_msg(strstr(rows, "\"01 sub4 x32 threads\""), "%s", rows);
    free(rows);
    rows = rows_of("contention", other_registry, "tests/fixture/fixture-gpu2.csv");
    ck_assert_msg(strstr(rows, " on GPU") == NULL, "04 runs on CUDA there:\n%s", rows);
    ck_assert_msg(strstr(rows, "\"01 sub4 x32 threads\""), "%s", rows);
    free(rows);
}
END_TEST

START_TEST(test_bandwidth_chart_leaves_out_stages_that_show_the_trip)
{
    char *rows = rows_of("bandwidth", "../stages.txt", "tests/fixture/fixture-gpu2.csv");
    ck_assert_msg(strstr(rows, "\"05 vector-loads") != NULL, "%s", rows);
    ck_assert_msg(strstr(rows, "\"06 ") == NULL, "06 shows the trip:\n%s", rows);
    free(rows);
    rows = rows_of("bandwidth", other_registry, "tests/fixture/fixture-gpu2.csv");
    ck_assert_msg(strstr(rows, "\"06 pinned ") != NULL, "06 shows its kernel there:\n%s", rows);
    free(rows);
}
END_TEST

START_TEST(test_machines_table_has_a_column_per_machine_and_read_bandwidth_on_gpus)
{
    char *table = rows_of("machines-table", "../stages.txt", "tests/fixture/*.csv");
    /* a GPU machine's heading names its host CPU too: its CPU rows ran there */
    /* and says what the shares in its cells are of: Fixture GPU 2 has no rated peak */
    const char *header =
        "| stage | variant | Fixture Laptop CPU: kernel ms | Fixture GPU (host: Fixture CPU): "
        "kernel ms (% of read bandwidth, % of rated peak) | Fixture GPU 2 (host: Fixture CPU 2): "
        "kernel ms (% of read bandwidth) | Fixture GPU 3 (host: Fixture CPU 3): kernel ms (% of "
        "read bandwidth, % of rated peak) |\n"
        "|---|---|---:|---:|---:|---:|\n";
    ck_assert_msg(strncmp(table, header, strlen(header)) == 0, "%s", table);
    /* the laptop has no GPU, so no cell; a GPU's cell has its share of the read
     * bandwidth, and of the rated peak where its CSV has one (3200, none, 800 GB/s) */
    ck_assert_msg(strstr(table,
                         "| 02_global_atomics | global-atomics |  | 27.0000 (0.16%, 0.12%) | "
                         "46.1855 (0.14%) | 127.8532 (0.14%, 0.10%) |"),
                  "%s", table);
    /* a CPU row has no share */
    ck_assert_msg(strstr(table, "| 01_cpu | sub4 on every core | 9.0000 | 9.0000 |"), "%s", table);
    int lines = 0;
    for (const char *c = table; *c; c++)
        lines += *c == '\n';
    ck_assert_int_eq(lines, 2 + FIXTURE_ROWS);
    free(table);
}
END_TEST

/* rows.awk's table of one machine, of the stages named (NULL: every one) */
static char *table_of(const char *stages, const char *csv)
{
    char command[512];
    snprintf(command, sizeof command,
             "awk -v chart=table -v stages='%s' -v registry=../stages.txt -f rows.awk %s",
             stages ? stages : "", csv);
    return output_of(command);
}

/* Fixture GPU 3's CSV has a rated peak of 800 GB/s: each GPU row's GB/s over it */
START_TEST(test_table_shows_each_gpu_row_as_a_share_of_the_rated_peak)
{
    char *table = table_of(NULL, "tests/fixture/fixture-gpu3.csv");
    const char *header = "| stage | variant | device | launch | kernel ms | end-to-end ms | GB/s "
                         "(kernel) | % of rated peak | % of read bandwidth | verified |\n";
    ck_assert_msg(strncmp(table, header, strlen(header)) == 0, "%s", table);
    /* 529.049 / 800 GB/s; beside it, the read bandwidth's share from the CSV */
    ck_assert_msg(strstr(table,
                         "| 05_privatized | vector-loads | Fixture GPU 3 | 80 x 1024 | 0.1982 "
                         "| 13.1386 | 529.049 | 66.13% | 93.34% | yes |\n"),
                  "%s", table);
    /* the read itself, 566.798 / 800 GB/s; the rated row: a figure, no launch or time */
    ck_assert_msg(strstr(table, "| read_bandwidth | read-bandwidth | Fixture GPU 3 | 320 x 256 | "
                                "0.1850 | 15.7276 | 566.798 | 70.85% |  | yes |\n"),
                  "%s", table);
    ck_assert_msg(strstr(table, "| read_bandwidth | rated-peak | Fixture GPU 3 | - | - | - | "
                                "800.000 |  |  | - |\n"),
                  "%s", table);
    /* a CPU row has neither share */
    ck_assert_msg(strstr(table, "| 01_cpu | book | Fixture CPU 3 | 1 thread | 116.6185 | 116.6185 "
                                "| 0.899 |  |  | yes |\n"),
                  "%s", table);
    free(table);
}
END_TEST

/* Fixture GPU 2's CSV has no rated row, as CSVs recorded before it: no share, not a wrong one */
START_TEST(test_table_leaves_the_rated_share_empty_without_a_rated_row)
{
    char *table = table_of(NULL, "tests/fixture/fixture-gpu2.csv");
    ck_assert_msg(strstr(table, "rated-peak") == NULL, "%s", table);
    ck_assert_msg(strstr(table, "| 05_privatized | vector-loads | Fixture GPU 2 | 216 x 1024 | "
                                "0.0709 | 17.7589 | 1478.951 |  | 92.81% | yes |\n"),
                  "%s", table);
    free(table);
}
END_TEST

/* Whether a Markdown table has a row of the stage: a line "| stage | ..." */
static bool has_row_of(const char *table, const char *stage)
{
    size_t n = strlen(stage);
    for (const char *line = table; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, "| ", 2) == 0 && strncmp(line + 2, stage, n) == 0 &&
            strncmp(line + 2 + n, " | ", 3) == 0)
            return true;
    return false;
}

/* Whether every row of a table (its two header lines aside) is of one of the stages */
static bool rows_only_of(const char *table, const char *const *stages, int count)
{
    const char *line = strchr(strchr(table, '\n') + 1, '\n') + 1;
    for (; *line; line = strchr(line, '\n') + 1) {
        bool listed_here = false;
        for (int s = 0; s < count; s++) {
            size_t n = strlen(stages[s]);
            listed_here |= strncmp(line, "| ", 2) == 0 && strncmp(line + 2, stages[s], n) == 0 &&
                           line[2 + n] == ' ';
        }
        if (!listed_here)
            return false;
    }
    return true;
}

START_TEST(test_table_of_named_stages_has_their_rows_and_the_yardsticks)
{
    /* 05 ran on the GPU: its five rows, and the read and the rated peak above them */
    char *table = table_of("05_privatized", "tests/fixture/fixture-gpu3.csv");
    const char *with_floor[] = {"read_bandwidth", "05_privatized"};
    ck_assert_msg(rows_only_of(table, with_floor, 2), "%s", table);
    ck_assert_int_eq(lines_in(table), 2 + 2 + 5);
    free(table);
    table = table_of("05_privatized 06_streams", "tests/fixture/fixture-gpu3.csv");
    const char *two[] = {"read_bandwidth", "05_privatized", "06_streams"};
    ck_assert_msg(rows_only_of(table, two, 3), "%s", table);
    ck_assert_int_eq(lines_in(table), 2 + 2 + 5 + 4);
    free(table);
    /* 01 ran on the CPU: no yardstick of a GPU */
    table = table_of("01_cpu", "tests/fixture/fixture-gpu3.csv");
    const char *cpu[] = {"01_cpu"};
    ck_assert_msg(rows_only_of(table, cpu, 1), "%s", table);
    ck_assert_int_eq(lines_in(table), 2 + 3);
    free(table);
    /* a name that is not a stage is an error, not an empty table */
    struct ran refused = run_command("awk -v chart=table -v stages=05_privatised "
                                     "-v registry=../stages.txt -f rows.awk "
                                     "tests/fixture/fixture-gpu3.csv");
    ck_assert_int_eq(refused.status, 2);
    ck_assert_str_eq(refused.err, "rows.awk: 05_privatised is not a stage of ../stages.txt\n");
    ck_assert_str_eq(refused.out, "");
    free_ran(&refused);
}
END_TEST

/* 06 leaves the launch to CUB (threads 0) and cuts the input into chunks (blocks) */
START_TEST(test_table_shows_chunks_where_a_library_launches)
{
    char *table = table_of(NULL, "tests/fixture/fixture-gpu3.csv");
    ck_assert_msg(strstr(table, "| 06_streams | streams | Fixture GPU 3 | 8 chunks | 0.2637 |"),
                  "%s", table);
    ck_assert_msg(strstr(table, "| 06_streams | pinned | Fixture GPU 3 | 1 chunk | 0.2525 |"), "%s",
                  table);
    /* no chunks either: a library's own launch, or a plain copy */
    ck_assert_msg(strstr(table, "| 05_privatized | cub | Fixture GPU 3 | - | 0.3015 |"), "%s",
                  table);
    ck_assert_msg(
        strstr(table, "| 06_streams | pinned-copy | Fixture GPU 3 | - | - | 1.7773 | - |"), "%s",
        table);
    ck_assert_msg(strstr(table, " x 0 |") == NULL, "%s", table);
    free(table);
}
END_TEST

/* The rated peak is a figure for the tables, not a bar: no chart draws it */
START_TEST(test_charts_leave_out_the_rated_peak)
{
    char *rows = output_of("awk -v chart=stages -v kind=uniform -v registry=../stages.txt "
                           "-f rows.awk tests/fixture/fixture-gpu3.csv");
    const char *floor = strstr(rows, "\"read bandwidth (the floor)\"\t0.1850\t");
    ck_assert_msg(floor && !strstr(floor + 10, "read bandwidth (the floor)"), "%s", rows);
    free(rows);
    rows = rows_of("bandwidth", "../stages.txt", "tests/fixture/fixture-gpu.csv");
    ck_assert_msg(strstr(rows, "read bandwidth") == NULL && strstr(rows, "rated") == NULL, "%s",
                  rows);
    free(rows);
}
END_TEST

START_TEST(test_sync_docs_fills_table_markers_old_and_new)
{
    char doc[] = "/tmp/plots_doc_XXXXXX", command[512];
    int fd = mkstemp(doc);
    ck_assert(fd >= 0);
    const char *before = "# One machine\n\n<!-- table: plots/tests/fixture/fixture-gpu3.csv -->\n"
                         "| old | table |\n|---|---|\n\nIts stage 06:\n\n"
                         "<!-- table: plots/tests/fixture/fixture-gpu3.csv 06_streams -->\n"
                         "| 06_streams | typed by hand |\n\nThe end.\n";
    ck_assert(write(fd, before, strlen(before)) == (ssize_t)strlen(before));
    close(fd);
    snprintf(command, sizeof command, "./sync-docs.sh %s", doc);
    ck_assert_int_eq(shell(command), 0);
    char *after = read_text(doc);
    /* the old form: the whole table, every stage that ran there */
    char *every = table_of(NULL, "tests/fixture/fixture-gpu3.csv");
    char expected[8192];
    snprintf(expected, sizeof expected,
             "<!-- table: plots/tests/fixture/fixture-gpu3.csv -->\n%s\nIts stage 06:\n", every);
    ck_assert_msg(strstr(after, expected), "%s", after);
    for (int p = 0; p < listed_count; p++)
        ck_assert_msg(has_row_of(every, listed[p].folder), "no %s in the whole table:\n%s",
                      listed[p].folder, every);
    /* the new form: 06's rows and the yardsticks */
    char *streams = table_of("06_streams", "tests/fixture/fixture-gpu3.csv");
    snprintf(expected, sizeof expected,
             "<!-- table: plots/tests/fixture/fixture-gpu3.csv 06_streams -->\n%s\nThe end.\n",
             streams);
    ck_assert_msg(strstr(after, expected), "%s", after);
    ck_assert_msg(strstr(after, "typed by hand") == NULL && strstr(after, "| old |") == NULL, "%s",
                  after);
    /* a stage that is not one stops it, the file as it was */
    FILE *f = fopen(doc, "a");
    ck_assert(f != NULL);
    fputs("<!-- table: plots/tests/fixture/fixture-gpu3.csv 99_no_such_stage -->\n", f);
    fclose(f);
    char *appended = read_text(doc);
    struct ran refused = run_command(command);
    ck_assert_msg(refused.status != 0, "sync-docs took a stage that is not one:\n%s", refused.err);
    ck_assert_msg(
        strstr(refused.err, "rows.awk: 99_no_such_stage is not a stage of stages.txt\n") &&
            strstr(refused.err, "sync-docs: ") && strstr(refused.err, " left as it was\n"),
        "%s", refused.err);
    free_ran(&refused);
    char *kept = read_text(doc);
    ck_assert_str_eq(kept, appended);
    free(kept);
    free(appended);
    free(streams);
    free(every);
    free(after);
    unlink(doc);
}
END_TEST

START_TEST(test_sync_docs_fills_a_machines_marker_and_keeps_the_rest)
{
    char doc[] = "/tmp/plots_doc_XXXXXX", command[512];
    int fd = mkstemp(doc);
    ck_assert(fd >= 0);
    const char *before =
        "# Every machine\n\n<!-- machines: uniform -->\n| old | table |\n|---|---|\n"
        "| 01_cpu | typed by hand |\n\nThe text after it.\n";
    ck_assert(write(fd, before, strlen(before)) == (ssize_t)strlen(before));
    close(fd);
    snprintf(command, sizeof command, "./sync-docs.sh %s", doc);
    ck_assert_int_eq(shell(command), 0);
    char *after = read_text(doc);
    ck_assert_msg(strstr(after, "typed by hand") == NULL && strstr(after, "| old |") == NULL, "%s",
                  after);
    ck_assert_msg(strstr(after, "<!-- machines: uniform -->\n| stage | variant |"), "%s", after);
    ck_assert_msg(strstr(after, "| 03_shared_atomics | shared-atomics |"), "%s", after);
    ck_assert_msg(strstr(after, "|\n\nThe text after it.\n"), "%s", after);
    /* run again: nothing changes */
    ck_assert_int_eq(shell(command), 0);
    char *again = read_text(doc);
    ck_assert_str_eq(again, after);
    free(again);
    free(after);
    unlink(doc);
}
END_TEST

START_TEST(test_plots_without_gnuplot_say_so_and_keep_the_csvs)
{
    FILE *p = popen("GNUPLOT=/nonexistent/gnuplot PLOTS_RESULTS=tests/fixture ./plots.sh", "r");
    ck_assert(p != NULL);
    char line[512] = "";
    ck_assert(fgets(line, sizeof line, p) != NULL);
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_msg(strstr(line, "skipped: gnuplot is not installed"), "%s", line);
}
END_TEST

/* ------------------------------------------------------------ many-bins -- */

/* make many-bins (many-bins.sh) on the fixture: two real sweeps of
 * 07_many_bins cut down to 2, 4096, 65536 and 2^20 bins, every group whole
 * (tests/fixture/many-bins/). The expected numbers are worked out here from
 * those CSVs, as the chapter defines them, never copied from the script. */
#define MANY_BINS_FIXTURE "tests/fixture/many-bins"

/* A fixture folder's sweep CSVs (at least two GPUs'), in the order the
 * shell's glob gives them: their count */
static int fixture_csvs(const char *folder, char csvs[][256], int most)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "%s/*.csv", folder);
    glob_t found;
    ck_assert_int_eq(glob(pattern, 0, NULL, &found), 0);
    int n = 0;
    for (size_t i = 0; i < found.gl_pathc && n < most; i++)
        snprintf(csvs[n++], 256, "%s", found.gl_pathv[i]);
    globfree(&found);
    ck_assert_int_ge(n, 2);
    return n;
}

/* A sweep script run on a copy of a fixture's CSVs in dir (a mkdtemp
 * template), line 5 of the last one marked not verified, its output folder
 * (the script's variable out) dir/out */
static struct ran run_with_a_row_unverified(const char *fixture, const char *out,
                                            const char *script, char *dir)
{
    char command[1024];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command,
             "cp %s/*.csv %s/ && csv=$(ls %s/*.csv | tail -1) &&"
             " sed -i '5s/,yes$/,no/' $csv && grep -q ',no$' $csv",
             fixture, dir, dir);
    ck_assert_int_eq(shell(command), 0);
    snprintf(command, sizeof command, "%s=%s/out %s %s/*.csv", out, dir, script, dir);
    return run_command(command);
}

/* Every line of a report ends in a newline and fits 100 columns, as a
 * chapter shows it, and there are more than at_least of them */
static void assert_fits_100_columns(const char *report, int at_least)
{
    int number = 0;
    for (const char *line = report; *line; line = strchr(line, '\n') + 1) {
        number++;
        ck_assert_msg(strchr(line, '\n'), "line %d has no newline", number);
        long length = strchr(line, '\n') - line;
        ck_assert_msg(length <= 100, "line %d: %ld columns: %.*s", number, length, (int)length,
                      line);
    }
    ck_assert_int_gt(number, at_least);
}

/* The best % of the read floor of one group of a sweep CSV: 100 x the kernel
 * ms of the read-bandwidth row that opens the group / each strategy's kernel
 * ms, the highest of them, auto's and CUB's rows aside; -1 where the CSV has
 * no such group. gpu gets the CSV's device. */
static double sweep_best(const char *csv, const char *data, long bins, char *gpu, size_t gpu_size)
{
    FILE *f = fopen(csv, "r");
    ck_assert_msg(f != NULL, "cannot read %s", csv);
    char line[512];
    double floor_ms = 0, best = -1;
    while (fgets(line, sizeof line, f)) {
        char impl[128], device[128], kind[32];
        double ms;
        if (sscanf(line, "%*[^,],%127[^,],%127[^,],%31[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf",
                   impl, device, kind, &ms) != 4)
            continue; /* the header */
        snprintf(gpu, gpu_size, "%s", device);
        if (strcmp(impl, "read-bandwidth") == 0) {
            floor_ms = ms;
            continue;
        }
        const char *slash = strrchr(impl, '/');
        if (!slash || strtol(slash + 1, NULL, 10) != bins || strcmp(kind, data) != 0 ||
            strncmp(impl, "auto:", 5) == 0 || strncmp(impl, "cub/", 4) == 0)
            continue;
        double pct = 100 * floor_ms / ms;
        if (pct > best)
            best = pct;
    }
    fclose(f);
    return best;
}

/* many-bins.sh on the fixture, with no gnuplot, into a new folder: its
 * report, to free; dir gets the folder (the caller removes it) */
static char *many_bins_report(char dir[32])
{
    snprintf(dir, 32, "/tmp/many_bins_XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    char command[512], path[96];
    snprintf(command, sizeof command,
             "GNUPLOT=/nonexistent/gnuplot MANY_BINS_OUT=%s ./many-bins.sh " MANY_BINS_FIXTURE
             "/*.csv",
             dir);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    /* the report without gnuplot, and a line that says why there is no chart */
    ck_assert_msg(strstr(r.out, "no chart: gnuplot is not installed"), "%s", r.out);
    free_ran(&r);
    snprintf(path, sizeof path, "%s/many-bins-targets.txt", dir);
    return read_text(path);
}

/* A row of the report's targets and what each of its cells should say */
struct many_bins_row {
    const char *line; /* the row, within the report */
    double target;    /* its target, from the row's own target column */
    char data[32];    /* uniform, skewed, constant */
    long bins;
};

/* Every "N bins, best, DATA" row of the targets with a number for N (65536:
 * 2^20's row is written "2^20"), into rows; their count */
static int many_bins_best_rows(const char *report, struct many_bins_row *rows, int most)
{
    int n = 0;
    for (const char *line = report; line && *line && n < most;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        struct many_bins_row *row = &rows[n];
        const char *goal = strstr(line, ">= ");
        if (sscanf(line, "%ld bins, best, %31[a-z]", &row->bins, row->data) != 2 || !goal ||
            goal > strchr(line, '\n'))
            continue;
        row->line = line;
        row->target = strtod(goal + 3, NULL);
        n++;
    }
    return n;
}

/* The cell of one GPU in a row: the text under its name in the targets' heading */
static const char *many_bins_cell(const char *report, const char *line, const char *gpu)
{
    const char *heading = strstr(report, "\nTargets ");
    ck_assert_msg(heading != NULL, "no targets heading:\n%s", report);
    heading++;
    const char *name = strstr(heading, gpu);
    ck_assert_msg(name && name < strchr(heading, '\n'), "no column %s:\n%s", gpu, report);
    long column = name - heading;
    ck_assert_msg(strchr(line, '\n') - line > column, "a short row: %.100s", line);
    return line + column;
}

/* (i) each GPU's cell of 65536 bins, uniform keys among them, is the best % of
 * that group of its CSV, to one decimal */
START_TEST(test_many_bins_report_has_each_gpus_best_at_65536_bins)
{
    char dir[32], csvs[8][256], gpu[128], expected[32];
    int files = fixture_csvs(MANY_BINS_FIXTURE, csvs, 8);
    char *report = many_bins_report(dir);
    struct many_bins_row rows[16];
    int n = many_bins_best_rows(report, rows, 16), uniform = 0;
    ck_assert_msg(n > 0, "no 'N bins, best, DATA' row:\n%s", report);
    for (int r = 0; r < n; r++) {
        uniform += strcmp(rows[r].data, "uniform") == 0;
        for (int f = 0; f < files; f++) {
            double best = sweep_best(csvs[f], rows[r].data, rows[r].bins, gpu, sizeof gpu);
            ck_assert_msg(best > 0, "%s: no %s group at %ld bins", csvs[f], rows[r].data,
                          rows[r].bins);
            snprintf(expected, sizeof expected, "%.1f", best);
            const char *cell = many_bins_cell(report, rows[r].line, gpu);
            ck_assert_msg(strncmp(cell, expected, strlen(expected)) == 0 &&
                              strchr("* \n", cell[strlen(expected)]),
                          "%s, %s at %ld bins: not %s: %.100s", gpu, rows[r].data, rows[r].bins,
                          expected, rows[r].line);
        }
    }
    ck_assert_msg(uniform == 1, "no row of uniform keys:\n%s", report);
    free(report);
    remove_tree(dir);
}
END_TEST

/* (ii) a cell under its target carries '*', one at or above it does not; the
 * fixture has both (the H200's constant keys at 65536 bins are under) */
START_TEST(test_many_bins_marks_a_cell_under_its_target_alone)
{
    char dir[32], csvs[8][256], gpu[128];
    int files = fixture_csvs(MANY_BINS_FIXTURE, csvs, 8);
    char *report = many_bins_report(dir);
    struct many_bins_row rows[16];
    int n = many_bins_best_rows(report, rows, 16), under = 0, over = 0;
    for (int r = 0; r < n; r++)
        for (int f = 0; f < files; f++) {
            double best = sweep_best(csvs[f], rows[r].data, rows[r].bins, gpu, sizeof gpu);
            const char *cell = many_bins_cell(report, rows[r].line, gpu);
            char *end;
            strtod(cell, &end);
            ck_assert_msg(end > cell, "no number: %.100s", rows[r].line);
            bool marked = *end == '*';
            ck_assert_msg(marked == (best < rows[r].target),
                          "%s, %s at %ld bins: %.1f against %g %s", gpu, rows[r].data, rows[r].bins,
                          best, rows[r].target, marked ? "is marked" : "is not marked");
            under += best < rows[r].target;
            over += best >= rows[r].target;
        }
    ck_assert_msg(under > 0 && over > 0, "the fixture has %d cells under, %d over", under, over);
    /* and the footnote says what the mark means */
    ck_assert_msg(strstr(report, "\n* misses its target"), "%s", report);
    free(report);
    remove_tree(dir);
}
END_TEST

/* Every line of the report fits 100 columns, as a chapter shows it */
START_TEST(test_many_bins_report_fits_100_columns)
{
    char dir[32];
    char *report = many_bins_report(dir);
    assert_fits_100_columns(report, 20);
    free(report);
    remove_tree(dir);
}
END_TEST

/* (iii) a row whose histogram was wrong (verified no) is no result: one line
 * that says so, a non-zero exit, and no report */
START_TEST(test_many_bins_refuses_an_unverified_row_in_one_line)
{
    char dir[] = "/tmp/many_bins_no_XXXXXX", path[1024];
    struct ran r =
        run_with_a_row_unverified(MANY_BINS_FIXTURE, "MANY_BINS_OUT", "./many-bins.sh", dir);
    ck_assert_msg(r.status != 0, "exit 0 with a row not verified:\n%s", r.out);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "not verified"), "%s", r.err);
    snprintf(path, sizeof path, "%s/out/many-bins-targets.txt", dir);
    ck_assert_msg(access(path, F_OK) != 0, "a report was written all the same");
    free_ran(&r);
    remove_tree(dir);
}
END_TEST

/* exercise01.sh: a row per input, thread count and process, each verified,
 * under the stages' CSV header; and two file names are a usage error. */
START_TEST(test_exercise01_records_three_verified_rows_a_case)
{
    struct ran r = run_command("./exercise01.sh /tmp/exercise01_test.csv");
    if (access("../exercises/solutions/01_cpu_threads", F_OK) != 0) { /* a student copy */
        ck_assert_msg(r.status == 77 && strstr(r.out, "no reference solution"),
                      "without the solutions: exit %d, %s", r.status, r.out);
        free_ran(&r);
        return;
    }
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    FILE *file = fopen("/tmp/exercise01_test.csv", "r");
    ck_assert_msg(file != NULL, "no file written: %s", r.out);
    char line[512];
    int rows = 0, header = 0, one_thread = 0;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "stage,impl,", 11) == 0)
            header++;
        else if (line[0] != '#') {
            rows++;
            ck_assert_msg(strstr(line, ",yes\n") != NULL, "a row not verified: %s", line);
            one_thread += strstr(line, ",1 thread,") != NULL;
        }
    }
    fclose(file);
    unlink("/tmp/exercise01_test.csv");
    long cores = sysconf(_SC_NPROCESSORS_ONLN), counts = 0;
    for (long t = 1; t <= 2 * cores; t *= 2)
        counts++;
    /* T threads print a row for T and one for 1 thread; 1 thread prints one */
    ck_assert_int_eq(header, 1);
    ck_assert_int_eq(rows, 4 * 3 * (2 * counts - 1));
    ck_assert_int_eq(one_thread, 4 * 3 * counts);
    free_ran(&r);
    r = run_command("./exercise01.sh a.csv b.csv");
    ck_assert_int_eq(r.status, EXIT_USAGE);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "usage"), "%s", r.err);
    free_ran(&r);
}
END_TEST

/* exercise12.sh: a file per OpenCL device; in it, both walks at two launches,
 * three processes each, every row verified, the larger launch 4 times the
 * work-groups of the default (8 per compute unit against 2), and a summary
 * line per walk and launch; and two folders are a usage error. */
START_TEST(test_exercise12_records_both_walks_at_two_launches)
{
    char dir[] = "/tmp/exercise12_test_XXXXXX", command[256], pattern[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(command, sizeof command, "EXERCISE12_ARGS='--size 1M --reps 3' ./exercise12.sh %s",
             dir);
    struct ran r = run_command(command);
    if (access("../exercises/solutions/12_partitioning", F_OK) != 0 || r.status == 77) {
        const char *why = access("../exercises/solutions/12_partitioning", F_OK) != 0
                              ? "no reference solution"
                              : "no OpenCL device";
        ck_assert_msg(r.status == 77 && strstr(r.out, why), "exit %d, %s", r.status, r.out);
        free_ran(&r);
        remove_tree(dir);
        return;
    }
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    snprintf(pattern, sizeof pattern, "%s/exercise12-*.csv", dir);
    glob_t files;
    ck_assert_msg(glob(pattern, 0, NULL, &files) == 0, "no file written: %s", r.out);
    for (size_t f = 0; f < files.gl_pathc; f++) {
        FILE *file = fopen(files.gl_pathv[f], "r");
        ck_assert_ptr_nonnull(file);
        char line[512];
        int header = 0, rows = 0, walks[2] = {0, 0}, summaries = 0, crossed = 0;
        long blocks[12], fewest = 0;
        while (fgets(line, sizeof line, file)) {
            if (strncmp(line, "stage,impl,", 11) == 0) {
                header++;
            } else if (line[0] == '#') {
                summaries += strstr(line, " interleaved: ") || strstr(line, " contiguous: ");
                crossed += strstr(line, "# rows whose kernel-only median is above") != NULL;
            } else {
                ck_assert_msg(strstr(line, ",yes\n") != NULL, "a row not verified: %s", line);
                ck_assert_msg(rows < 12, "more than 12 rows: %s", line);
                walks[0] += strstr(line, ",interleaved,") != NULL;
                walks[1] += strstr(line, ",contiguous,") != NULL;
                /* blocks: the 7th field from the end (a device's name may hold commas) */
                char *field = line + strlen(line);
                for (int commas = 0; field > line && commas < 7; field--)
                    commas += field[-1] == ',';
                blocks[rows] = strtol(field + 1, NULL, 10);
                if (!fewest || blocks[rows] < fewest)
                    fewest = blocks[rows];
                rows++;
            }
        }
        fclose(file);
        ck_assert_int_eq(header, 1);
        ck_assert_int_eq(rows, 12); /* 2 launches x 3 processes x 2 walks */
        ck_assert_int_eq(walks[0], 6);
        ck_assert_int_eq(walks[1], 6);
        int at_fewest = 0, at_four_times = 0;
        for (int i = 0; i < rows; i++) {
            at_fewest += blocks[i] == fewest;
            at_four_times += blocks[i] == 4 * fewest;
        }
        ck_assert_msg(fewest > 0 && at_fewest == 6 && at_four_times == 6,
                      "%s: not 6 rows at the default launch and 6 at 4 times its work-groups",
                      files.gl_pathv[f]);
        ck_assert_int_eq(summaries, 4);
        ck_assert_int_eq(crossed, 1);
    }
    globfree(&files);
    free_ran(&r);
    remove_tree(dir);
    r = run_command("./exercise12.sh a b");
    ck_assert_int_eq(r.status, EXIT_USAGE);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "usage"), "%s", r.err);
    free_ran(&r);
}
END_TEST

/* (iv) a file that is not there: exit 2, one line naming it */
START_TEST(test_many_bins_refuses_a_missing_file_with_exit_2)
{
    struct ran r =
        run_command("MANY_BINS_OUT=/tmp/many_bins_never ./many-bins.sh " MANY_BINS_FIXTURE
                    "/no-such-sweep.csv");
    ck_assert_int_eq(r.status, EXIT_USAGE);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "no file") && strstr(r.err, "no-such-sweep.csv"),
                  "%s", r.err);
    ck_assert_int_ne(access("/tmp/many_bins_never", F_OK), 0);
    free_ran(&r);
}
END_TEST

/* With gnuplot, the chart: a PNG and an SVG whose key names every GPU of the
 * fixture, once for the stage's line and once for CUB's, in each panel */
START_TEST(test_many_bins_draws_the_chart_of_every_gpu)
{
    char dir[] = "/tmp/many_bins_chart_XXXXXX", command[512], path[96], csvs[8][256], gpu[128];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command, "MANY_BINS_OUT=%s ./many-bins.sh " MANY_BINS_FIXTURE "/*.csv",
             dir);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0 && strstr(r.out, "chart: "), "exit %d: %s%s", r.status, r.out,
                  r.err);
    free_ran(&r);
    snprintf(path, sizeof path, "%s/many-bins-gpus.png", dir);
    ck_assert_int_gt(png_width(path), png_height(path)); /* the panels side by side */
    snprintf(command, sizeof command, "test $(stat -c %%s %s) -gt 5000", path);
    ck_assert_msg(shell(command) == 0, "%s: too small to hold a chart", path);
    snprintf(path, sizeof path, "%s/many-bins-gpus.svg", dir);
    char *svg = read_text(path);
    ck_assert_msg(strstr(svg, "<svg"), "%s: not an SVG", path);
    int files = fixture_csvs(MANY_BINS_FIXTURE, csvs, 8);
    for (int f = 0; f < files; f++) {
        sweep_best(csvs[f], "uniform", 2, gpu, sizeof gpu); /* its device */
        char text[192];
        snprintf(text, sizeof text, "<text>%s: stage 07 (best)</text>", gpu);
        ck_assert_msg(strstr(svg, text), "%s: no '%s'", path, text);
        snprintf(text, sizeof text, "<text>%s: CUB</text>", gpu);
        ck_assert_msg(strstr(svg, text), "%s: no '%s'", path, text);
    }
    free(svg);
    remove_tree(dir);
}
END_TEST

/* ---------------------------------------------------------- generalized -- */

/* make generalized (generalized.sh) on the fixture: the recorded H100 sweep of
 * 08_generalized cut down to four cases on uniform, skewed and constant input,
 * each input under its own header as --sweep writes it, every group whole; a
 * made-up second GPU (the same rows, other times); and a photograph's hue
 * table (tests/fixture/generalized/). The expected numbers are worked out here
 * from those files, as chapter 08 defines them, never copied from the script. */
#define GENERALIZED_FIXTURE "tests/fixture/generalized"

/* One way's kernel ms on one case and input of a sweep CSV; way "auto" is the
 * library's own choice, whatever its placement (auto:...). -1 where the CSV
 * has no such row. gpu gets the CSV's device. */
static double generalized_ms(const char *csv, const char *data, const char *name, const char *way,
                             char *gpu, size_t gpu_size)
{
    FILE *f = fopen(csv, "r");
    ck_assert_msg(f != NULL, "cannot read %s", csv);
    char line[512];
    double way_ms = -1;
    while (fgets(line, sizeof line, f)) {
        char impl[128], device[128], kind[32];
        double ms;
        if (sscanf(line, "%*[^,],%127[^,],%127[^,],%31[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%lf",
                   impl, device, kind, &ms) != 4)
            continue; /* a header: one per input */
        snprintf(gpu, gpu_size, "%s", device);
        char *slash = strchr(impl, '/');
        if (!slash || strcmp(slash + 1, name) != 0 || strcmp(kind, data) != 0)
            continue;
        *slash = '\0';
        if (strcmp(impl, way) == 0 || (strcmp(way, "auto") == 0 && strncmp(impl, "auto:", 5) == 0))
            way_ms = ms;
    }
    fclose(f);
    return way_ms;
}

/* One way's % of the read floor on one case and input of a sweep CSV: 100 x
 * the kernel ms of the case's read-bandwidth row / the way's kernel ms. -1
 * where the CSV has no such row. gpu gets the CSV's device. */
static double generalized_pct(const char *csv, const char *data, const char *name, const char *way,
                              char *gpu, size_t gpu_size)
{
    double floor_ms = generalized_ms(csv, data, name, "read-bandwidth", gpu, gpu_size);
    double way_ms = generalized_ms(csv, data, name, way, gpu, gpu_size);
    return floor_ms > 0 && way_ms > 0 ? 100 * floor_ms / way_ms : -1;
}

/* What a target judges on one GPU and input: auto's %, or, for an "x CUB"
 * target, auto's speed over CUB's (for RGBA cub-multi-even, for row sums the
 * better of cub-segmented and cub-by-key); -1 where the CSV has none. */
static double generalized_expected(const char *csv, const char *data, const char *name, bool ratio)
{
    char gpu[128];
    double autos = generalized_pct(csv, data, name, "auto", gpu, sizeof gpu);
    if (!ratio || autos < 0)
        return autos;
    double cub = generalized_pct(csv, data, name, "cub-multi-even", gpu, sizeof gpu);
    if (strncmp(name, "rows/", 5) == 0) {
        double segmented = generalized_pct(csv, data, name, "cub-segmented", gpu, sizeof gpu);
        double by_key = generalized_pct(csv, data, name, "cub-by-key", gpu, sizeof gpu);
        cub = segmented > by_key ? segmented : by_key;
    }
    return cub > 0 ? autos / cub : -1;
}

/* generalized.sh on the fixture, with no gnuplot, into a new folder: its
 * report, to free; dir gets the folder (the caller removes it). Without
 * gnuplot it says so in a line, and draws nothing. */
static char *generalized_report(char dir[40])
{
    snprintf(dir, 40, "/tmp/generalized_XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    char command[512], path[96];
    snprintf(command, sizeof command,
             "GNUPLOT=/nonexistent/gnuplot GENERALIZED_OUT=%s ./generalized.sh " GENERALIZED_FIXTURE
             "/*.csv " GENERALIZED_FIXTURE "/*.dat",
             dir);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "no charts: gnuplot is not installed"), "%s", r.out);
    free_ran(&r);
    snprintf(command, sizeof command, "ls %s | grep -q -e '\\.png$' -e '\\.svg$'", dir);
    ck_assert_msg(shell(command) != 0, "a chart was drawn without gnuplot, in %s", dir);
    snprintf(path, sizeof path, "%s/generalized-targets.txt", dir);
    return read_text(path);
}

/* A row of the report's targets: its line, its case, its target */
struct generalized_row {
    const char *line;
    char name[64]; /* the case: u8x4/256, rows/5000x10000... */
    double target;
    bool ratio; /* an "x CUB" target: a ratio of speeds, not a % */
};

/* Every row of the targets (from the line after the inputs' to the first
 * blank one), into rows: their count */
static int generalized_target_rows(const char *report, struct generalized_row *rows, int most)
{
    const char *heading = strstr(report, "\nTarget ");
    ck_assert_msg(heading != NULL, "no targets heading:\n%s", report);
    const char *line = strchr(strchr(heading + 1, '\n') + 1, '\n') + 1;
    int n = 0;
    for (; *line && *line != '\n' && n < most; line = strchr(line, '\n') + 1) {
        const char *goal = strstr(line, ">= "), *start = goal, *end;
        ck_assert_msg(goal && goal < strchr(line, '\n'), "a target row with no target: %.100s",
                      line);
        struct generalized_row *row = &rows[n++];
        char *after;
        row->line = line;
        row->target = strtod(goal + 3, &after);
        row->ratio = *after == 'x';
        while (start > line && start[-1] == ' ') /* the case: the word before the target */
            start--;
        for (end = start; start > line && start[-1] != ' ';)
            start--;
        snprintf(row->name, sizeof row->name, "%.*s", (int)(end - start), start);
    }
    return n;
}

/* Where one GPU's cells are: from its name in the targets' heading to the next
 * name (or the line's end); and the inputs under its name, in order */
struct generalized_column {
    long from, to;
    char inputs[8][32];
    int count;
};

static struct generalized_column generalized_column_of(const char *report, const char *gpu)
{
    struct generalized_column c = {0};
    const char *heading = strstr(report, "\nTarget ");
    ck_assert_msg(heading != NULL, "no targets heading:\n%s", report);
    heading++;
    const char *end = strchr(heading, '\n'), *name = strstr(heading, gpu), *next;
    ck_assert_msg(name && name < end, "no column %s:\n%s", gpu, report);
    for (next = name + strlen(gpu); next < end && *next == ' ';)
        next++;
    c.from = name - heading;
    c.to = next - heading == end - heading ? 1000 : next - heading;
    const char *under = end + 1, *under_end = strchr(under, '\n');
    ck_assert_msg(under_end - under > c.from, "no inputs under %s:\n%s", gpu, report);
    char words[256];
    snprintf(words, sizeof words, "%.*s",
             (int)((under_end - under < c.to ? under_end - under : c.to) - c.from), under + c.from);
    for (char *word = strtok(words, " "); word && c.count < 8; word = strtok(NULL, " "))
        snprintf(c.inputs[c.count++], sizeof c.inputs[0], "%s", word);
    return c;
}

/* The values of a row under one GPU ("85.3*", "1.64x", "-"), in order: their count */
static int generalized_values(const char *line, const struct generalized_column *c,
                              char values[][16])
{
    long length = strchr(line, '\n') - line;
    char cells[256];
    ck_assert_msg(length > c->from, "a short row: %.100s", line);
    snprintf(cells, sizeof cells, "%.*s", (int)((length < c->to ? length : c->to) - c->from),
             line + c->from);
    int n = 0;
    for (char *word = strtok(cells, " "); word && n < 8; word = strtok(NULL, " "))
        snprintf(values[n++], 16, "%s", word);
    return n;
}

/* (i) each GPU's value of each target on each input is auto's % of the read
 * floor of that case, to one decimal, or its speed over CUB's, to two, worked
 * out from its CSV; "-" where the CSV has no such case */
START_TEST(test_generalized_report_has_each_gpus_auto_on_each_input)
{
    char dir[40], csvs[8][256], gpu[128], values[8][16], expected[32];
    int files = fixture_csvs(GENERALIZED_FIXTURE, csvs, 8);
    char *report = generalized_report(dir);
    struct generalized_row rows[32];
    int n = generalized_target_rows(report, rows, 32), checked = 0, ratios = 0;
    ck_assert_msg(n >= 10, "%d targets:\n%s", n, report);
    for (int f = 0; f < files; f++) {
        generalized_pct(csvs[f], "uniform", "u8/256", "auto", gpu, sizeof gpu); /* its device */
        struct generalized_column c = generalized_column_of(report, gpu);
        ck_assert_msg(c.count == 3 && strcmp(c.inputs[0], "uniform") == 0 &&
                          strcmp(c.inputs[1], "skewed") == 0 &&
                          strcmp(c.inputs[2], "constant") == 0,
                      "%s: not the inputs of its sweep:\n%s", gpu, report);
        for (int r = 0; r < n; r++) {
            ck_assert_int_eq(generalized_values(rows[r].line, &c, values), c.count);
            for (int i = 0; i < c.count; i++) {
                double want =
                    generalized_expected(csvs[f], c.inputs[i], rows[r].name, rows[r].ratio);
                if (want < 0)
                    snprintf(expected, sizeof expected, "-");
                else
                    snprintf(expected, sizeof expected, rows[r].ratio ? "%.2fx" : "%.1f", want);
                ck_assert_msg(strcspn(values[i], "*") == strlen(expected) &&
                                  strncmp(values[i], expected, strlen(expected)) == 0,
                              "%s, %s on %s: \"%s\", not %s: %.100s", gpu, rows[r].name,
                              c.inputs[i], values[i], expected, rows[r].line);
                checked += want >= 0;
                ratios += want >= 0 && rows[r].ratio;
            }
        }
    }
    ck_assert_msg(checked >= 2 * 3 * 4 && ratios >= 2 * 3 * 2, "%d values, %d ratios checked",
                  checked, ratios);
    free(report);
    remove_tree(dir);
}
END_TEST

/* (ii) a value under its target carries '*', one at or above it does not; the
 * fixture has both (the H100's u16 keys at 65536 bins are under 75%) */
START_TEST(test_generalized_marks_a_value_under_its_target_alone)
{
    char dir[40], csvs[8][256], gpu[128], values[8][16];
    int files = fixture_csvs(GENERALIZED_FIXTURE, csvs, 8);
    char *report = generalized_report(dir);
    struct generalized_row rows[32];
    int n = generalized_target_rows(report, rows, 32), under = 0, over = 0;
    for (int f = 0; f < files; f++) {
        generalized_pct(csvs[f], "uniform", "u8/256", "auto", gpu, sizeof gpu);
        struct generalized_column c = generalized_column_of(report, gpu);
        for (int r = 0; r < n; r++) {
            generalized_values(rows[r].line, &c, values);
            for (int i = 0; i < c.count; i++) {
                double want =
                    generalized_expected(csvs[f], c.inputs[i], rows[r].name, rows[r].ratio);
                bool marked = strchr(values[i], '*') != NULL;
                if (want < 0) {
                    ck_assert_msg(!marked, "%s, %s: a mark on no value", gpu, rows[r].name);
                    continue;
                }
                ck_assert_msg(marked == (want < rows[r].target), "%s, %s on %s: %g against %g %s",
                              gpu, rows[r].name, c.inputs[i], want, rows[r].target,
                              marked ? "is marked" : "is not marked");
                under += want < rows[r].target;
                over += want >= rows[r].target;
            }
        }
    }
    ck_assert_msg(under > 0 && over > 0, "the fixture has %d values under, %d over", under, over);
    ck_assert_msg(strstr(report, "\n* misses its target"), "%s", report); /* what the mark means */
    free(report);
    remove_tree(dir);
}
END_TEST

/* Every line of the report fits 100 columns with two GPUs, as a chapter
 * shows it, and its header says what every % is of */
START_TEST(test_generalized_report_fits_100_columns_and_names_the_floor)
{
    char dir[40];
    char *report = generalized_report(dir);
    assert_fits_100_columns(report, 20);
    ck_assert_msg(strstr(report, "Every % is of the read floor") &&
                      strstr(report, "read-bandwidth/<case>"),
                  "%s", report);
    free(report);
    remove_tree(dir);
}
END_TEST

/* (iii) a row whose result was wrong (verified no) is no result: one line
 * that says so, exit 1, and no report */
START_TEST(test_generalized_refuses_an_unverified_row_with_exit_1)
{
    char dir[] = "/tmp/generalized_no_XXXXXX", path[1024];
    struct ran r =
        run_with_a_row_unverified(GENERALIZED_FIXTURE, "GENERALIZED_OUT", "./generalized.sh", dir);
    ck_assert_msg(r.status == EXIT_FAILED, "exit %d with a row not verified:\n%s", r.status, r.out);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "not verified") && strstr(r.err, "line 5"), "%s",
                  r.err);
    snprintf(path, sizeof path, "%s/out/generalized-targets.txt", dir);
    ck_assert_msg(access(path, F_OK) != 0, "a report was written all the same");
    free_ran(&r);
    remove_tree(dir);
}
END_TEST

/* (vi) with two GPUs: on uniform input, each case's floor and auto in kernel
 * ms on each GPU, as its CSV has them, and the second GPU's over the first's
 * (the GPU the heading names), to two decimals */
START_TEST(test_generalized_report_compares_kernel_ms_across_gpus)
{
    char dir[40];
    char *report = generalized_report(dir);
    const char *section = strstr(report, "\nKernel ms, uniform input:");
    ck_assert_msg(section != NULL, "no kernel ms section:\n%s", report);
    const char *csvs[] = {GENERALIZED_FIXTURE "/sweep-08-generalized-made-up-gpu.csv",
                          GENERALIZED_FIXTURE "/sweep-08-generalized-nvidia-h100-80gb-hbm3.csv"};
    const char *cases[] = {"u8x4/256", "u8/256", "u16/65536", "rows/5000x10000"};
    char gpu[128];
    generalized_ms(csvs[1], "uniform", "u8/256", "auto", gpu, sizeof gpu);
    const char *over = strstr(section, "x: over "), *over_end = strchr(section + 1, '\n');
    ck_assert_msg(over && over < over_end, "no first GPU named: %.120s", section);
    int first = strncmp(over + 8, gpu, strlen(gpu)) == 0; /* which CSV is the first GPU's */
    const char *ref = csvs[first], *other = csvs[1 - first];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char start[80];
        snprintf(start, sizeof start, "\n%s ", cases[c]);
        const char *line = strstr(section, start);
        ck_assert_msg(line != NULL, "no row %s:\n%s", cases[c], section);
        double got[6];
        ck_assert_msg(sscanf(line, " %*s %lf %lf %lf %lf %lf %lf", &got[0], &got[1], &got[2],
                             &got[3], &got[4], &got[5]) == 6,
                      "not six numbers: %.100s", line + 1);
        double want[6] = {
            generalized_ms(ref, "uniform", cases[c], "read-bandwidth", gpu, sizeof gpu),
            generalized_ms(ref, "uniform", cases[c], "auto", gpu, sizeof gpu),
            generalized_ms(other, "uniform", cases[c], "read-bandwidth", gpu, sizeof gpu),
            generalized_ms(other, "uniform", cases[c], "auto", gpu, sizeof gpu)};
        want[4] = want[2] / want[0];
        want[5] = want[3] / want[1];
        for (int i = 0; i < 6; i++) {
            double slack = i < 4 ? 0.00005 : 0.005, d = got[i] - want[i];
            ck_assert_msg(want[i] > 0 && d < slack && -d < slack, "%s, column %d: %g, not %.4f",
                          cases[c], i + 1, got[i], want[i]);
        }
    }
    free(report);
    remove_tree(dir);
}
END_TEST

/* (iv) bad usage, exit 2 with one line that names the file, nothing written:
 * a file that is not there, one that is no sweep, a hue table that is none */
START_TEST(test_generalized_refuses_bad_usage_with_exit_2)
{
    /* a CSV where a hue table should be, made in a folder of its own */
    char dir[] = "/tmp/generalized_usage_XXXXXX", not_hue[96], command[512];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(not_hue, sizeof not_hue, GENERALIZED_FIXTURE "/*.csv %s/hue-36-chelsea.dat", dir);
    snprintf(command, sizeof command, "cp tests/fixture/fixture-gpu.csv %s/hue-36-chelsea.dat",
             dir);
    ck_assert_int_eq(shell(command), 0);
    /* the files given, and what the one line must say */
    const char *const cases[][2] = {
        {GENERALIZED_FIXTURE "/no-such-sweep.csv", "no file"},
        {GENERALIZED_FIXTURE "/README.md", "README.md: not a sweep of 08_generalized"},
        {not_hue, "not a hue table"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(command, sizeof command,
                 "GENERALIZED_OUT=/tmp/generalized_never ./generalized.sh %s", cases[i][0]);
        struct ran r = run_command(command);
        ck_assert_msg(r.status == EXIT_USAGE, "%s: exit %d", cases[i][0], r.status);
        ck_assert_msg(one_line(r.err) && strstr(r.err, cases[i][1]), "%s: %s", cases[i][0], r.err);
        ck_assert_int_ne(access("/tmp/generalized_never", F_OK), 0);
        free_ran(&r);
    }
    remove_tree(dir);
}
END_TEST

/* With gnuplot, the charts: generalized-gpus 1920 pixels wide, whose key names
 * every GPU of the fixture, once for auto and once for CUB; and the hue chart,
 * titled, with the bar of the fullest hue bin in that bin's colour */
START_TEST(test_generalized_draws_both_charts)
{
    char dir[] = "/tmp/generalized_chart_XXXXXX", command[512], path[96], csvs[8][256], gpu[128];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command,
             "GENERALIZED_OUT=%s ./generalized.sh " GENERALIZED_FIXTURE
             "/*.csv " GENERALIZED_FIXTURE "/hue-36-chelsea.dat",
             dir);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0 && strstr(r.out, "chart: "), "exit %d: %s%s", r.status, r.out,
                  r.err);
    free_ran(&r);
    snprintf(path, sizeof path, "%s/generalized-gpus.png", dir);
    ck_assert_int_eq(png_width(path), 1920);
    snprintf(command, sizeof command, "test $(stat -c %%s %s) -gt 5000", path);
    ck_assert_msg(shell(command) == 0, "%s: too small to hold a chart", path);
    snprintf(path, sizeof path, "%s/generalized-gpus.svg", dir);
    char *svg = read_text(path);
    ck_assert_msg(strstr(svg, "<svg"), "%s: not an SVG", path);
    int files = fixture_csvs(GENERALIZED_FIXTURE, csvs, 8);
    for (int f = 0; f < files; f++) {
        generalized_pct(csvs[f], "uniform", "u8/256", "auto", gpu, sizeof gpu); /* its device */
        char text[192];
        snprintf(text, sizeof text, "<text>%s: auto, the library's choice</text>", gpu);
        ck_assert_msg(strstr(svg, text), "%s: no '%s'", path, text);
        snprintf(text, sizeof text, "<text>%s: CUB, its best</text>", gpu);
        ck_assert_msg(strstr(svg, text), "%s: no '%s'", path, text);
    }
    free(svg);

    snprintf(path, sizeof path, "%s/hue-stats-chelsea.png", dir);
    ck_assert_int_gt(png_width(path), 0);
    snprintf(path, sizeof path, "%s/hue-stats-chelsea.svg", dir);
    svg = read_text(path);
    ck_assert_msg(
        strstr(svg, "<text>The photograph's hues: what a histogram of counts cannot show</text>"),
        "%s: not titled", path);
    /* the fullest bin, from the table: its colour (gnuplot's SVG writes rgb(%3d, %3d, %3d)) */
    char *colour = output_of("sort -n -k4 " GENERALIZED_FIXTURE "/hue-36-chelsea.dat | tail -1 |"
                             " awk '{ printf \"rgb(%3d, %3d, %3d)\", $7, $8, $9 }'");
    ck_assert_msg(strstr(svg, colour), "%s: no bar filled with %s", path, colour);
    free(colour);
    free(svg);
    remove_tree(dir);
}
END_TEST

/* -------------------------------------------------------------- profile -- */

/* profile.sh with these knobs, writing into a new folder: it must exit with
 * status, say why in one line on stderr that holds every word of says, and
 * leave no CSV behind. */
static void profile_refuses(const char *knobs, int status, const char *const says[])
{
    char dir[] = "/tmp/profile_test_XXXXXX", command[512];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command, "%s PROFILE_OUT=%s/results ./profile.sh", knobs, dir);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == status, "%s: exit %d, not %d:\n%s", command, r.status, status, r.err);
    ck_assert_msg(one_line(r.err), "%s: not one line:\n%s", command, r.err);
    for (int i = 0; says[i]; i++)
        ck_assert_msg(strstr(r.err, says[i]), "%s: no '%s' in: %s", command, says[i], r.err);
    snprintf(command, sizeof command, "ls %s/results/*.csv >/dev/null 2>&1", dir);
    ck_assert_msg(shell(command) != 0, "a CSV was written into %s/results", dir);
    free_ran(&r);
    remove_tree(dir);
}

START_TEST(test_profile_without_ncu_says_so_in_one_line_and_exits_77)
{
    const char *const says[] = {"profile: cannot run here: ", "ncu", "NCU=/nonexistent/ncu", NULL};
    profile_refuses("NCU=/nonexistent/ncu", 77, says);
}
END_TEST

/* Only where no GPU stage can run: where one can, profile.sh would profile. */
START_TEST(test_profile_on_this_machine_cannot_run_and_exits_77)
{
    const char *const says[] = {"profile: cannot run here: ", NULL};
    profile_refuses("", 77, says);
}
END_TEST

START_TEST(test_profile_with_ncu_but_no_gpu_says_so_and_exits_77)
{
    /* an ncu that does nothing: the first GPU stage then says there is no device */
    const char *const says[] = {"profile: cannot run here: ", "no CUDA device", NULL};
    profile_refuses("NCU=/bin/true", 77, says);
}
END_TEST

START_TEST(test_profile_refuses_an_unknown_input_with_exit_2)
{
    const char *const says[] = {"PROFILE_DATA", "'photos'", NULL};
    profile_refuses("NCU=/bin/true PROFILE_DATA='uniform photos'", 2, says);
    const char *const size_says[] = {"PROFILE_SIZE", "'lots'", NULL};
    profile_refuses("NCU=/bin/true PROFILE_SIZE=lots", 2, size_says);
}
END_TEST

START_TEST(test_profile_parses_ncu_raw_csv_into_one_row_per_kernel)
{
    /* tests/fixture/ncu/: CUB's two kernels as ncu --csv --page raw prints
     * them (quoted, a units row, 1,234 numbers, .avg beside .sum): ns become
     * ms, the L2 atomic and reduction rates add up, an empty unit (requests)
     * and a percentage are read as they are, and each row names its
     * largest stall reason (no_instruction for one kernel, long_scoreboard
     * for the other) */
    struct ran r = run_command("./profile.sh --parse tests/fixture/ncu/ncu-raw-two-kernels.txt");
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_str_eq(r.err, "");
    char *expected = read_text("tests/fixture/ncu/expected-rows.csv");
    ck_assert_str_eq(r.out, expected);
    ck_assert_msg(strstr(expected, "DeviceHistogramInitKernel,1,256,0.0026,0.03,0,0,11.92,"
                                   "no_instruction,34.53,0,0,0,0,0.00\n"),
                  "expected-rows.csv was changed: %s", expected);
    ck_assert_msg(strstr(expected, "DeviceHistogramSweepKernel,264,768,0.0629,50.85,7444528,"
                                   "10721332,65.15,long_scoreboard,12.48,50330452,52059036604,"
                                   "819372,9832416,66.67\n"),
                  "expected-rows.csv was changed: %s", expected);
    free(expected);
    free_ran(&r);
}
END_TEST

START_TEST(test_profile_parse_names_a_missing_metric_and_fails)
{
    struct ran r = run_command("./profile.sh --parse tests/fixture/ncu/ncu-raw-metric-missing.txt");
    ck_assert_int_eq(r.status, 1);
    ck_assert_msg(one_line(r.err), "not one line: %s", r.err);
    ck_assert_msg(strstr(r.err, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
                  "the missing metric is not named: %s", r.err);
    ck_assert_msg(strstr(r.out, "DeviceHistogram") == NULL, "rows were printed: %s", r.out);
    free_ran(&r);
}
END_TEST

START_TEST(test_profile_parse_without_counters_cannot_run_here)
{
    struct ran r =
        run_command("./profile.sh --parse tests/fixture/ncu/ncu-counters-not-permitted.txt");
    ck_assert_int_eq(r.status, 77);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "profile: cannot run here: ") &&
                      strstr(r.err, "ERR_NVGPUCTRPERM"),
                  "%s", r.err);
    ck_assert_str_eq(r.out, "");
    free_ran(&r);
}
END_TEST

/* plots/README.md names every metric profile.sh collects (a stall reason by
 * its name, `long_scoreboard`), so that a metric added is also explained. */
START_TEST(test_every_profiled_metric_is_explained_in_the_readme)
{
    char *readme = read_text("README.md");
    char *metrics = output_of("./profile.sh --metrics");
    int count = 0;
    for (char *metric = strtok(metrics, "\n"); metric; metric = strtok(NULL, "\n"), count++) {
        const char *stalled = "smsp__average_warps_issue_stalled_",
                   *per = "_per_issue_active.ratio";
        char reason[128];
        if (strncmp(metric, stalled, strlen(stalled)) == 0 && strstr(metric, per)) {
            snprintf(reason, sizeof reason, "`%.*s`",
                     (int)(strstr(metric, per) - metric - strlen(stalled)),
                     metric + strlen(stalled));
            ck_assert_msg(strstr(readme, reason), "README.md does not explain %s", reason);
        } else {
            ck_assert_msg(strstr(readme, metric), "README.md does not explain %s", metric);
        }
    }
    ck_assert_int_gt(count, 10);
    free(metrics);
    free(readme);
}
END_TEST

/* ------------------------------------------------------------------ lab -- */

/* make bench names its file after the machine, and never writes over a file
 * of another machine's (its machine_id column) unless BENCH_REPLACE=1: proven
 * by a file of this machine's default name made by "another machine", which
 * bench refuses before it runs anything, leaving it as it was. */
START_TEST(test_bench_refuses_another_machines_file)
{
    char dir[] = "/tmp/bench_other_XXXXXX", command[2048];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(
        command, sizeof command,
        "cd .. && . plots/machine.sh && name=$bench_name && csv=%s/$name.csv &&"
        " echo '" BENCH_COLUMNS "' >$csv &&"
        " echo '01_cpu,book,made-up,uniform,65536,1,0,0,1,1,1,1,yes,,main,OLD,,,,,pc02,other-gpu'"
        " >>$csv && cp $csv %s/before &&"
        " BENCH_SIZE=64K BENCH_REPS=1 BENCH_SWEEPS=no BENCH_OUT=%s plots/bench.sh"
        " >%s/out 2>&1; test $? = 2 && cmp -s $csv %s/before &&"
        " grep -q \"$name.csv holds another machine's results\" %s/out &&"
        " test $(grep -c . %s/out) = 1",
        dir, dir, dir, dir, dir, dir, dir);
    ck_assert_msg(shell(command) == 0, "bench wrote over another machine's file, or said more");
    /* a name that is no file name is refused with one line, exit 2 */
    struct ran bad = run_command("BENCH_NAME='../x' ./bench.sh");
    ck_assert_int_eq(bad.status, EXIT_USAGE);
    ck_assert_msg(one_line(bad.err) && strstr(bad.err, "BENCH_NAME"), "%s", bad.err);
    free_ran(&bad);
    remove_tree(dir);
}
END_TEST

static char lab[] = "/tmp/lab_test_XXXXXX";

/* make lab on a folder: its status, stdout and stderr */
static struct ran lab_of(const char *knobs)
{
    char command[1024];
    snprintf(command, sizeof command, "LAB=%s %s ./lab.sh", lab, knobs);
    return run_command(command);
}

/* the numbers of one machine and row in comparison.csv, or NULL */
static char *lab_line(const char *machine, const char *row)
{
    char command[512];
    snprintf(command, sizeof command, "grep '^%s,.*,%s,' %s/comparison.csv", machine, row, lab);
    return output_of(command);
}

/* A made-up lab of 30 machines (tests/make-lab.sh), five GPU models among
 * them: every machine is its own line, the chart is 1920 x 1080, as a
 * projector shows it, and every name is on it whole. */
START_TEST(test_lab_of_30_machines_fits_a_projector_and_keeps_each_apart)
{
    struct ran made = lab_of("");
    ck_assert_msg(made.status == 0, "%s", made.err);
    ck_assert_msg(strstr(made.out, "30 machines") && strstr(made.out, "100 MiB"), "%s", made.out);
    char path[256];
    snprintf(path, sizeof path, "%s/comparison.svg", lab);
    char *svg = read_text(path);
    for (int i = 1; i <= 30; i++) {
        char name[64];
        snprintf(name, sizeof name, "<text>pc%02d (%s)</text>", i,
                 i % 10 == 0 ? "Fixture Laptop CPU"
                             : (const char *[]){"Lab GPU A", "Lab GPU B", "Lab GPU C", "Lab GPU D",
                                                "Lab GPU E"}[(i - 1) % 5]);
        ck_assert_msg(strstr(svg, name), "%s: no line %s", path, name);
    }
    free(svg);
    snprintf(path, sizeof path, "%s/comparison.png", lab);
    ck_assert_int_eq(png_height(path), 1080);
    ck_assert_int_eq(png_width(path), 1920);
    /* pc01 and pc06 have the same GPU model and times of their own, both kept */
    char *pc01 = lab_line("pc01-lab-gpu-a", "02 global-atomics");
    char *pc06 = lab_line("pc06-lab-gpu-a", "02 global-atomics");
    ck_assert_msg(pc01 && pc06 && one_line(pc01) && one_line(pc06) &&
                      strcmp(strchr(pc01, ','), strchr(pc06, ',')) != 0,
                  "pc01: %s pc06: %s", pc01, pc06);
    free(pc01);
    free(pc06);
    /* and the table has a column for each of the 30, the stage and variant first */
    char command[512];
    snprintf(command, sizeof command, "grep -m1 '^| stage | variant |' %s/comparison.md", lab);
    char *heading = output_of(command);
    int columns = 0;
    for (const char *c = heading; *c; c++)
        columns += *c == '|';
    ck_assert_msg(columns == 2 + 30 + 1 && strstr(heading, "| pc06 (Lab GPU A) |"), "%s", heading);
    /* machines of one GPU model side by side, so that they can be compared */
    ck_assert_msg(strstr(heading, "| pc01 (Lab GPU A) | pc06 (Lab GPU A) | pc11 (Lab GPU A) |"),
                  "%s", heading);
    free(heading);
    free_ran(&made);
}
END_TEST

/* The size most machines ran, unless LAB_SIZE says; a machine of another size
 * is named, with what it ran, never drawn at a size it did not run */
START_TEST(test_lab_takes_any_size_and_says_which)
{
    char command[1024];
    snprintf(command, sizeof command,
             "sed 's/,104857600,/,16777216,/' %s/pc02-lab-gpu-b.csv > %s/small.csv", lab, lab);
    ck_assert_int_eq(shell(command), 0);
    struct ran most = lab_of("");
    ck_assert_msg(most.status == 0 && strstr(most.out, "30 machines") &&
                      strstr(most.out, "100 MiB of uniform bytes (the size most machines ran)") &&
                      strstr(most.out, "left out: small.csv: no run of 100 MiB of uniform bytes "
                                       "(it ran: 16 MiB)"),
                  "%s", most.out);
    struct ran small = lab_of("LAB_SIZE=16M");
    ck_assert_msg(small.status == 0 && strstr(small.out, "1 machine in ") &&
                      strstr(small.out, "16 MiB of uniform bytes (LAB_SIZE)"),
                  "%s", small.out);
    char *row = lab_line("small", "02 global-atomics");
    ck_assert_msg(row && strstr(row, ",16777216,"), "%s", row ? row : "no row");
    free(row);
    struct ran none = lab_of("LAB_SIZE=4M");
    ck_assert_int_eq(none.status, EXIT_USAGE);
    ck_assert_msg(strstr(none.err, "no machine ran 4 MiB"), "%s", none.err);
    struct ran bad = lab_of("LAB_SIZE=lots");
    ck_assert_int_eq(bad.status, EXIT_USAGE);
    ck_assert_msg(one_line(bad.err) && strstr(bad.err, "LAB_SIZE"), "%s", bad.err);
    snprintf(command, sizeof command, "rm -f %s/small.csv", lab);
    shell(command);
    free_ran(&most);
    free_ran(&small);
    free_ran(&none);
    free_ran(&bad);
}
END_TEST

/* A weighted run's bytes count its weights (08_generalized --weights: twice its keys'), so
 * each machine also "ran" twice its size once: a machine's size is that of most of its rows,
 * never the larger of the two (which would leave a table of that one run) */
START_TEST(test_lab_size_is_where_most_of_a_machines_rows_are)
{
    char command[2048];
    snprintf(
        command, sizeof command,
        "rm -rf %s/weighted && mkdir %s/weighted && for m in pc01-lab-gpu-a pc06-lab-gpu-a; do "
        "{ cat %s/$m.csv; grep -m1 '^02_global_atomics,' %s/$m.csv | "
        "sed 's/^02_global_atomics,/08_generalized,/; s/,104857600,/,209715200,/'; } "
        "> %s/weighted/$m.csv; done",
        lab, lab, lab, lab, lab);
    ck_assert_int_eq(shell(command), 0);
    snprintf(command, sizeof command, "LAB=%s/weighted ./lab.sh", lab);
    struct ran made = run_command(command);
    ck_assert_msg(made.status == 0 && strstr(made.out, "2 machines") &&
                      strstr(made.out, "100 MiB of uniform bytes (the size most machines ran)"),
                  "%s%s", made.out, made.err);
    snprintf(command, sizeof command,
             "grep -c '^pc01-lab-gpu-a,.*,03_shared_atomics,' %s/weighted/comparison.csv", lab);
    char *rows = output_of(command);
    ck_assert_msg(rows && atoi(rows) > 0, "pc01's 03_shared_atomics rows: %s",
                  rows ? rows : "none");
    free(rows);
    snprintf(command, sizeof command, "rm -rf %s/weighted", lab);
    shell(command);
    free_ran(&made);
}
END_TEST

/* LAB_STAGES: those stages' rows alone, in the chart's numbers and the table */
START_TEST(test_lab_shows_the_stages_asked_for_alone)
{
    struct ran made = lab_of("LAB_STAGES='03_shared_atomics 06_streams'");
    ck_assert_msg(made.status == 0, "%s", made.err);
    /* the machines without a GPU have no such run: said, not dropped silently */
    ck_assert_msg(strstr(made.out,
                         "not in the chart: pc10-fixture-laptop-cpu pc20-fixture-laptop-cpu "
                         "pc30-fixture-laptop-cpu: no run of 03_shared_atomics 06_streams"),
                  "%s", made.out);
    char command[512];
    snprintf(command, sizeof command,
             "cut -d, -f4 %s/comparison.csv | sed 1d | sort -u | paste -sd' ' -", lab);
    char *stages = output_of(command);
    ck_assert_str_eq(stages, "03_shared_atomics 06_streams\n");
    snprintf(command, sizeof command,
             "grep '^| 0' %s/comparison.md | cut -d'|' -f2 | sort -u | paste -sd' ' -", lab);
    char *table = output_of(command);
    ck_assert_str_eq(table, " 03_shared_atomics   06_streams \n");
    free(stages);
    free(table);
    struct ran bad = lab_of("LAB_STAGES='03_shared_atomics 99_nothing'");
    ck_assert_int_eq(bad.status, EXIT_USAGE);
    ck_assert_msg(one_line(bad.err) && strstr(bad.err, "99_nothing is not a stage"), "%s", bad.err);
    free_ran(&made);
    free_ran(&bad);
}
END_TEST

/* A folder with no make bench CSV, or none at all: one line, exit 2 */
START_TEST(test_lab_refuses_a_folder_without_results)
{
    char dir[] = "/tmp/lab_empty_XXXXXX", command[512];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(command, sizeof command, "echo 'a,b' > %s/notes.csv && LAB=%s ./lab.sh", dir, dir);
    struct ran empty = run_command(command);
    ck_assert_int_eq(empty.status, EXIT_USAGE);
    ck_assert_msg(strstr(empty.out, "notes.csv is not a CSV of make bench") &&
                      one_line(empty.err) && strstr(empty.err, "no CSV of make bench"),
                  "%s%s", empty.out, empty.err);
    snprintf(command, sizeof command, "LAB=%s/none ./lab.sh", dir);
    struct ran missing = run_command(command);
    ck_assert_int_eq(missing.status, EXIT_USAGE);
    ck_assert_msg(one_line(missing.err) && strstr(missing.err, "no folder"), "%s", missing.err);
    remove_tree(dir);
    free_ran(&empty);
    free_ran(&missing);
}
END_TEST

int main(void)
{
    /* demo.sh's line on a busy machine (load average above the cores) would
     * change the stderr that the demo's tests compare: make test runs other
     * suites beside this one, so leave it out here */
    setenv("DEMO_LOAD_WARNING", "no", 1);
    read_stages_txt();
    Suite *suite = suite_create("plots");
    TCase *bench = tcase_create("bench");
    tcase_set_timeout(bench, 600);
    tcase_add_test(bench, test_bench_writes_one_verified_row_per_stage_and_input);
    tcase_add_test(bench, test_bench_only_replaces_the_matching_rows_alone);
    tcase_add_test(bench, test_demo_has_a_line_for_every_stage_in_stages_txt);
    tcase_add_test(bench, test_demo_of_named_stages_runs_those_alone);
    tcase_add_test(bench, test_demo_counts_every_run_up_to_the_total);
    tcase_add_test(bench, test_demo_table_shows_long_names_whole_and_lined_up);
    tcase_add_test(bench, test_demo_table_explains_a_kernel_time_above_the_trip);
    tcase_add_test(bench, test_demo_short_table_fits_100_columns_and_lines_up);
    tcase_add_test(bench, test_demo_short_table_has_a_row_per_brief_run_and_one_floor_per_stage);
    tcase_add_test(bench, test_demo_short_of_named_stages_has_a_row_per_brief_line);
    tcase_add_test(bench, test_demo_short_refuses_a_brief_line_of_no_stage_or_its_own_input);
    tcase_add_test(bench, test_every_brief_line_is_accepted_by_its_program);
    suite_add_tcase(suite, bench);

    TCase *rows = tcase_create("rows");
    char command[512];
    int fd = mkstemp(other_registry);
    snprintf(command, sizeof command, "awk '%s' ../stages.txt > %s", other_registry_awk,
             other_registry);
    if (fd < 0 || close(fd) != 0 || shell(command) != 0) {
        fprintf(stderr, "cannot write a copy of stages.txt into %s\n", other_registry);
        return EXIT_FAILED;
    }
    tcase_add_test(rows, test_machines_rows_come_in_the_order_of_stages_txt);
    tcase_add_test(rows, test_labels_follow_runs_on_in_stages_txt);
    tcase_add_test(rows, test_bandwidth_chart_leaves_out_stages_that_show_the_trip);
    tcase_add_test(rows, test_machines_table_has_a_column_per_machine_and_read_bandwidth_on_gpus);
    tcase_add_test(rows, test_sync_docs_fills_a_machines_marker_and_keeps_the_rest);
    tcase_add_test(rows, test_table_shows_each_gpu_row_as_a_share_of_the_rated_peak);
    tcase_add_test(rows, test_table_leaves_the_rated_share_empty_without_a_rated_row);
    tcase_add_test(rows, test_table_of_named_stages_has_their_rows_and_the_yardsticks);
    tcase_add_test(rows, test_table_shows_chunks_where_a_library_launches);
    tcase_add_test(rows, test_charts_leave_out_the_rated_peak);
    tcase_add_test(rows, test_sync_docs_fills_table_markers_old_and_new);
    suite_add_tcase(suite, rows);

    TCase *profile = tcase_create("profile");
    tcase_set_timeout(profile, 120);
    tcase_add_test(profile, test_profile_without_ncu_says_so_in_one_line_and_exits_77);
    tcase_add_test(profile, test_profile_refuses_an_unknown_input_with_exit_2);
    tcase_add_test(profile, test_profile_parses_ncu_raw_csv_into_one_row_per_kernel);
    tcase_add_test(profile, test_profile_parse_names_a_missing_metric_and_fails);
    tcase_add_test(profile, test_profile_parse_without_counters_cannot_run_here);
    tcase_add_test(profile, test_every_profiled_metric_is_explained_in_the_readme);
    bool gpu_here = false;
    for (int p = 0; p < listed_count; p++)
        if (strcmp(listed[p].runs_on, "cuda") == 0 && runs_here(listed[p].program))
            gpu_here = true;
    if (gpu_here) {
        skipped_here += 2; /* profile.sh would profile for real: make profile does that */
    } else {
        tcase_add_test(profile, test_profile_on_this_machine_cannot_run_and_exits_77);
        tcase_add_test(profile, test_profile_with_ncu_but_no_gpu_says_so_and_exits_77);
    }
    suite_add_tcase(suite, profile);

    TCase *plots = tcase_create("plots");
    tcase_set_timeout(plots, 60);
    tcase_add_test(plots, test_plots_without_gnuplot_say_so_and_keep_the_csvs);
    bool drawn = false;
    if (shell("command -v gnuplot >/dev/null") == 0 && mkdtemp(figures)) {
        /* Draw once, here; each check then looks at one chart. */
        snprintf(command, sizeof command,
                 "PLOTS_RESULTS=tests/fixture PLOTS_OUT=%s ./plots.sh >/dev/null", figures);
        if (shell(command) != 0)
            fprintf(stderr, "plots.sh failed on the fixture\n"); /* every chart check fails */
        tcase_add_loop_test(plots, test_every_chart_renders_a_png_and_an_svg, 0, CHARTS);
        tcase_add_test(plots, test_machines_chart_names_every_machine_and_every_row);
        tcase_add_test(plots, test_machines_chart_grows_with_the_machines);
        tcase_add_test(plots, test_coarsening_chart_has_a_line_per_variant_and_input);
        tcase_add_test(plots, test_plots_leave_out_make_profiles_csv);
        tcase_add_test(plots, test_stages_charts_show_every_label_whole);
        tcase_add_test(plots, test_stages_chart_makes_room_for_long_last_labels);
        drawn = true;
    } else {
        skipped += CHARTS + 6;
    }
    suite_add_tcase(suite, plots);

    TCase *exercise01 = tcase_create("exercise01");
    tcase_set_timeout(exercise01, 120);
    tcase_add_test(exercise01, test_exercise01_records_three_verified_rows_a_case);
    suite_add_tcase(suite, exercise01);

    TCase *exercise12 = tcase_create("exercise12");
    tcase_set_timeout(exercise12, 120);
    tcase_add_test(exercise12, test_exercise12_records_both_walks_at_two_launches);
    suite_add_tcase(suite, exercise12);

    TCase *many_bins = tcase_create("many-bins");
    tcase_set_timeout(many_bins, 60);
    tcase_add_test(many_bins, test_many_bins_report_has_each_gpus_best_at_65536_bins);
    tcase_add_test(many_bins, test_many_bins_marks_a_cell_under_its_target_alone);
    tcase_add_test(many_bins, test_many_bins_report_fits_100_columns);
    tcase_add_test(many_bins, test_many_bins_refuses_an_unverified_row_in_one_line);
    tcase_add_test(many_bins, test_many_bins_refuses_a_missing_file_with_exit_2);
    if (shell("command -v gnuplot >/dev/null") == 0)
        tcase_add_test(many_bins, test_many_bins_draws_the_chart_of_every_gpu);
    else
        skipped += 1;
    suite_add_tcase(suite, many_bins);

    TCase *generalized = tcase_create("generalized");
    tcase_set_timeout(generalized, 60);
    tcase_add_test(generalized, test_generalized_report_has_each_gpus_auto_on_each_input);
    tcase_add_test(generalized, test_generalized_marks_a_value_under_its_target_alone);
    tcase_add_test(generalized, test_generalized_report_fits_100_columns_and_names_the_floor);
    tcase_add_test(generalized, test_generalized_refuses_an_unverified_row_with_exit_1);
    tcase_add_test(generalized, test_generalized_refuses_bad_usage_with_exit_2);
    tcase_add_test(generalized, test_generalized_report_compares_kernel_ms_across_gpus);
    if (shell("command -v gnuplot >/dev/null") == 0)
        tcase_add_test(generalized, test_generalized_draws_both_charts);
    else
        skipped += 1;
    suite_add_tcase(suite, generalized);

    TCase *lab_case = tcase_create("lab");
    tcase_set_timeout(lab_case, 60);
    tcase_add_test(lab_case, test_bench_refuses_another_machines_file);
    tcase_add_test(lab_case, test_lab_refuses_a_folder_without_results);
    bool lab_made = false;
    if (shell("command -v gnuplot >/dev/null") == 0 && mkdtemp(lab)) {
        snprintf(command, sizeof command, "tests/make-lab.sh %s 30", lab);
        if (shell(command) != 0)
            fprintf(stderr, "make-lab.sh failed\n"); /* every lab check fails */
        tcase_add_test(lab_case, test_lab_of_30_machines_fits_a_projector_and_keeps_each_apart);
        tcase_add_test(lab_case, test_lab_takes_any_size_and_says_which);
        tcase_add_test(lab_case, test_lab_size_is_where_most_of_a_machines_rows_are);
        tcase_add_test(lab_case, test_lab_shows_the_stages_asked_for_alone);
        lab_made = true;
    } else {
        skipped += 3;
    }
    suite_add_tcase(suite, lab_case);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    unlink(other_registry);
    if (drawn) {
        remove_tree(figures);
    }
    if (lab_made) {
        remove_tree(lab);
    }
    if (skipped || skipped_here)
        printf("SKIPPED: %d checks of plots:%s%s\n", skipped + skipped_here,
               skipped ? " gnuplot is not installed;" : "",
               skipped_here ? " a GPU is here, where profile.sh without a GPU cannot be tried"
                            : "");
    return failed ? EXIT_FAILED : EXIT_OK;
}
