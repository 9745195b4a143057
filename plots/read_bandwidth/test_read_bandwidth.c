/*
 * test_read_bandwidth.c - the yardstick reads every byte: its XOR matches the
 * CPU's on every size and data kind (odd tails included), with any launch;
 * beside it comes the memory's rated speed, a second CSV row, above the read.
 * Without a CUDA device these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_reads_every_byte_of_every_size)
{
    static const size_t sizes[] = {0, 1, 15, 16, 17, 255, 256, 257, 1000003, 64 << 20};
    char args[128];
    snprintf(args, sizeof args, "--size %zu --data %s --reps 1 --csv", sizes[_i / 4],
             data_kind_name((enum data_kind)(_i % 4)));
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, ",read-bandwidth,") && strstr(o.out, ",yes\n"), "%s: %s", args,
                  o.out);
}
END_TEST

START_TEST(test_any_launch_reads_every_byte)
{
    static const char *const launches[] = {"--blocks 1 --threads 32", "--threads 1000",
                                           "--blocks-per-sm 1"};
    char args[128];
    snprintf(args, sizeof args, "--size 1000003 --reps 1 --csv %s", launches[_i]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0 && strstr(o.out, ",yes\n"), "%s: %s %s", args, o.out, o.err);
}
END_TEST

/* The CSV row of the given impl in out, split at its commas (no field of
 * read_bandwidth's is quoted: a GPU's name has no comma) into fields[13]. */
static bool csv_row_of(const char *out, const char *impl, char fields[13][128])
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\nread_bandwidth,%s,", impl);
    const char *line = strstr(out, pattern);
    if (!line)
        return false;
    line++;
    for (int f = 0; f < 13; f++) {
        size_t n = strcspn(line, f < 12 ? ",\n" : "\n");
        snprintf(fields[f], 128, "%.*s", (int)n, line);
        line += n;
        if (f < 12 && *line++ != ',')
            return false;
    }
    return true;
}

START_TEST(test_rated_peak_row_is_above_the_read)
{
    /* 1 GiB: more than any GPU's L2 cache, so that the read comes from memory,
     * which it cannot read faster than the memory's rated speed */
    const char *args = "--size 1G --reps 3 --csv";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "%s: exit %d: %s", args, o.exit_status, o.err);
    char read[13][128], rated[13][128];
    ck_assert_msg(csv_row_of(o.out, "read-bandwidth", read), "no read row: %s", o.out);
    ck_assert_msg(csv_row_of(o.out, "rated-peak", rated), "no rated-peak row: %s", o.out);
    /* the same input, no launch, nothing timed, nothing end to end */
    ck_assert_str_eq(rated[2], read[2]);
    ck_assert_str_eq(rated[4], "1073741824");
    ck_assert_str_eq(rated[6], "0");
    ck_assert_str_eq(rated[7], "0");
    ck_assert_str_eq(rated[8], "0");
    ck_assert_str_eq(rated[10], "0.0000");
    ck_assert_str_eq(rated[12], "yes");
    double rated_gbps = atof(rated[11]), read_gbps = atof(read[11]);
    ck_assert_msg(rated_gbps > 0 && read_gbps > 0, "%s", o.out);
    ck_assert_msg(rated_gbps > read_gbps, "the read (%.3f GB/s) beat the rated peak (%.3f GB/s)",
                  read_gbps, rated_gbps);
    /* kernel_ms is those bytes' time at the rated speed, to four decimals */
    ck_assert_msg(fabs(atof(rated[9]) - 1073741824 / (rated_gbps * 1e6)) < 1e-4, "%s", o.out);
}
END_TEST

START_TEST(test_report_says_the_rated_peak)
{
    struct stage_output o;
    run_stage("--size 1M --reps 1", &o);
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert_msg(strstr(o.out, "\nrated peak: ") && strstr(o.out, "MHz memory clock x "), "%s",
                  o.out);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("read_bandwidth", argc, argv);
    Suite *suite = suite_create("read_bandwidth");
    int usage_checks = 0;
    suite_add_tcase(suite, usage_tcase(true, &usage_checks));
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_loop_test(gpu, test_reads_every_byte_of_every_size, 0, 40);
    tcase_add_loop_test(gpu, test_any_launch_reads_every_byte, 0, 3);
    tcase_add_test(gpu, test_rated_peak_row_is_above_the_read);
    tcase_add_test(gpu, test_report_says_the_rated_peak);
    add_if_runnable(suite, gpu, 45);
    return run_suite(suite);
}
