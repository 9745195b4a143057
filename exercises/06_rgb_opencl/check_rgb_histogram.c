/*
 * check_rgb_histogram.c - exercise 06 counts all three channels: on the sample
 * photograph and on generated pixels of every size, kind and work-group size,
 * the red, green and blue histograms it prints are the ones counted here, on
 * the CPU, from the same bytes; and it finds its kernel from any directory.
 * Without any OpenCL device these checks are reported as skipped.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHANNELS 3
#define IMAGE    "../../data/chelsea.bmp" /* make check runs in the exercise's folder */

/* What the program printed: with --bins, "r0: n" ... "g0: n" ... "b255: n".
 * 768 bin lines are more than stage_output keeps, so this reads all of stdout. */
struct rgb_output {
    int exit_status;
    char err[4096];
    unsigned int bins[CHANNELS][BINS];
    int bins_printed;
    uint64_t sums[CHANNELS];
    int sums_printed;
    bool says_verified;
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
    ck_assert_msg(r.exit_status == 0, "%s: exit %d, stderr: %s", args, r.exit_status, r.err);
    ck_assert_msg(r.bins_printed == CHANNELS * BINS, "%s: printed %d bins, not 768", args,
                  r.bins_printed);
    static const char letters[] = "rgb";
    for (int c = 0; c < CHANNELS; c++)
        for (int bin = 0; bin < BINS; bin++)
            ck_assert_msg(r.bins[c][bin] == expected[c][bin], "%s: %c%d is %u, expected %u", args,
                          letters[c], bin, r.bins[c][bin], expected[c][bin]);
    ck_assert_msg(r.sums_printed == CHANNELS, "%s: %d sums, not three", args, r.sums_printed);
    for (int c = 0; c < CHANNELS; c++)
        ck_assert_msg(r.sums[c] == pixels, "%s: the %c sum is %" PRIu64 ", not %zu pixels", args,
                      letters[c], r.sums[c], pixels);
    ck_assert_msg(r.says_verified, "%s: no 'verified: yes' line", args);
}

START_TEST(test_the_photographs_three_histograms_match_reference)
{
    struct image img;
    char why[512];
    ck_assert_msg(read_bmp(IMAGE, &img, why, sizeof why) == EXIT_OK, "%s", why);
    check_rgb("--image " IMAGE " --reps 1 --bins", img.rgb, (size_t)img.width * img.height);
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
    snprintf(args, sizeof args, "--size %zu --data %s --seed %" PRIu64 " --reps 1 --bins %s", size,
             data_kind_name(kind), seed, extra);
    check_rgb(args, bytes, size / CHANNELS);
    free(bytes);
}

START_TEST(test_generated_pixels_of_every_size_and_kind_match_reference)
{
    check_generated(sizes[_i / KINDS], (enum data_kind)(_i % KINDS), 600 + (uint64_t)_i, "");
}
END_TEST

/* Work-groups smaller than 256 zero and merge with a stride; 33 is no power of
 * two; one work-group must still cover every pixel. */
static const char *const launches[] = {"--threads 1", "--threads 33", "--threads 64",
                                       "--blocks 1 --threads 64", "--blocks 1000 --threads 32"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    check_generated(300007, DATA_UNIFORM, 7, launches[_i]);
    check_generated(771, DATA_CONSTANT, 8, launches[_i]); /* every pixel in the same three bins */
}
END_TEST

START_TEST(test_finds_its_kernel_from_another_directory)
{
    struct stage_output o;
    run_stage_in("/", "--size 3000 --reps 1", &o); /* where no rgb_histogram.cl is */
    ck_assert_msg(o.exit_status == 0, "exit %d: %s", o.exit_status, o.err);
    ck_assert(o.says_verified);
}
END_TEST

START_TEST(test_options_without_meaning_here_are_usage_errors)
{
    struct stage_output o;
    run_stage("--file ../Makefile", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    run_stage("--csv", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    run_stage("--image Makefile", &o);
    ck_assert_int_eq(o.exit_status, EXIT_USAGE);
    ck_assert_msg(strstr(o.err, "--image: ") && strstr(o.err, "not a BMP file"), "%s", o.err);
}
END_TEST

/* PoCL runs a work-group's items one after another, so a race gives the right
 * count there; Oclgrind simulates them and reports it. */
START_TEST(test_no_races_under_oclgrind)
{
    check_no_races("--size 30000 --reps 1 --blocks 2 --threads 64");
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_rgb_opencl", argc, argv);
    Suite *suite = suite_create("exercise 06: RGB histograms in OpenCL");
    TCase *tc = exercise_tcase("three histograms", 2);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_the_photographs_three_histograms_match_reference);
    tcase_add_loop_test(tc, test_generated_pixels_of_every_size_and_kind_match_reference, 0,
                        SIZES * KINDS);
    tcase_add_loop_test(tc, test_every_launch_matches_reference, 0, LAUNCHES);
    tcase_add_test(tc, test_finds_its_kernel_from_another_directory);
    tcase_add_test(tc, test_options_without_meaning_here_are_usage_errors);
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    add_if_runnable(suite, tc, 1 + SIZES * KINDS + LAUNCHES + 2);
    TCase *races = exercise_tcase("no races, under Oclgrind", 2);
    tcase_add_test(races, test_no_races_under_oclgrind);
    if (have_oclgrind())
        add_if_runnable(suite, races, 1);
    else
        add_skipped(1);
    return run_exercise(suite);
}
