/*
 * check_rgb_histogram.c - exercise 06 counts all three channels: on the sample
 * photograph and on generated pixels of every size, kind and work-group size,
 * the red, green and blue histograms it prints are the ones counted here, on
 * the CPU, from the same bytes. And it counts them the way the exercise
 * teaches: three histograms in the work-group's local memory (the program
 * prints how much its kernel declares), with no race that Oclgrind can see.
 * Without any OpenCL device these checks are reported as skipped; without
 * Oclgrind, its group is.
 */
#include "stage_checks.h"

#include <inttypes.h>
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

/* PoCL runs a work-group's items one after another, so a race gives the right
 * count there; Oclgrind simulates them and reports it. One work-group and
 * several; a work-group smaller than 256 zeroes and merges with a stride. */
static const char *const race_launches[] = {"--size 30000 --reps 1 --blocks 2 --threads 64",
                                            "--size 3000 --reps 1 --blocks 1 --threads 256",
                                            "--size 771 --reps 1 --blocks 3 --threads 33"};
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
    static const char *const refused[] = {"--file ../Makefile", "--csv", "--image Makefile"};
    struct stage_output o;
    for (int i = 0; i < 3; i++) {
        run_stage(refused[i], &o);
        ck_assert_msg(o.exit_status == EXIT_USAGE, "./rgb_histogram %s: %s, expected exit 2",
                      refused[i], exit_meaning(&o));
    }
    ck_assert_msg(strstr(o.err, "--image: ") && strstr(o.err, "not a BMP file"),
                  "./rgb_histogram --image Makefile: expected '--image: ... not a BMP file' on "
                  "stderr, got: %s",
                  o.err);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("06_rgb_opencl", argc, argv);
    Suite *suite = suite_create("exercise 06: RGB histograms in OpenCL");
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    TCase *counts = exercise_tcase("three histograms: the photograph and generated pixels", 1);
    tcase_set_timeout(counts, 300);
    tcase_add_test(counts, test_the_photographs_three_histograms_match_reference);
    tcase_add_loop_test(counts, test_generated_pixels_of_every_size_and_kind_match_reference, 0,
                        SIZES * KINDS);
    add_if_runnable(suite, counts, 1 + SIZES * KINDS);

    TCase *local = exercise_tcase("each channel counted in local memory", 2);
    tcase_add_test(local, test_the_kernel_keeps_three_local_histograms);
    add_if_runnable(suite, local, 1);

    TCase *races = exercise_tcase("no races, under Oclgrind", 3);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_races_under_oclgrind, 0, RACE_LAUNCHES);
    if (have_oclgrind())
        add_if_runnable(suite, races, RACE_LAUNCHES);
    else
        add_skipped(RACE_LAUNCHES);

    TCase *sizes = exercise_tcase("every work-group size", 3);
    tcase_set_timeout(sizes, 300);
    tcase_add_loop_test(sizes, test_every_launch_matches_reference, 0, LAUNCHES);
    add_if_runnable(suite, sizes, LAUNCHES);

    TCase *program = exercise_tcase("the program: its kernel file and its options", 0);
    tcase_add_test(program, test_finds_its_kernel_from_another_directory);
    tcase_add_test(program, test_options_without_meaning_here_are_usage_errors);
    add_if_runnable(suite, program, 2);
    return run_exercise(suite);
}
