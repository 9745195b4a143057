/*
 * test_book.c - the shared helpers behave as every stage relies on: inputs,
 * file reading, the option parser, the book's verification, timing and CSV.
 */
#include "harness.h"

#include <check.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const test_variants[] = {"book", "sub4", NULL};
static const struct stage cpu_stage = {
    .dir = "01_cpu", .program = "hist_cpu", .summary = "test", .variants = test_variants};
static const struct stage gpu_stage = {.dir = "03_shared_atomics",
                                       .program = "hist_gpu_shmem_atomics",
                                       .summary = "test",
                                       .gpu = true};
static const struct stage opencl_stage = {.dir = "04_opencl_port",
                                          .program = "hist_opencl",
                                          .summary = "test",
                                          .gpu = true,
                                          .opencl = true};

/* ----------------------------------------------------------------- inputs -- */

START_TEST(test_every_kind_is_deterministic_per_seed)
{
    enum data_kind kind = (enum data_kind)_i;
    unsigned char a[4099], b[4099];
    fill_input(kind, a, sizeof a, 42);
    fill_input(kind, b, sizeof b, 42);
    ck_assert_mem_eq(a, b, sizeof a);
}
END_TEST

START_TEST(test_different_seeds_give_different_random_bytes)
{
    unsigned char a[4096], b[4096];
    fill_input(_i ? DATA_SKEWED : DATA_UNIFORM, a, sizeof a, 1);
    fill_input(_i ? DATA_SKEWED : DATA_UNIFORM, b, sizeof b, 2);
    ck_assert(memcmp(a, b, sizeof a) != 0);
}
END_TEST

START_TEST(test_big_random_block_is_uniform_data)
{
    unsigned char expected[1001];
    fill_input(DATA_UNIFORM, expected, sizeof expected, 5);
    unsigned char *block = big_random_block(sizeof expected, 5);
    ck_assert_mem_eq(block, expected, sizeof expected);
    free(block);
}
END_TEST

static unsigned int *histogram_of(enum data_kind kind, size_t size, uint64_t seed)
{
    static unsigned int histo[BINS];
    unsigned char *buffer = malloc(size);
    ck_assert(buffer != NULL);
    fill_input(kind, buffer, size, seed);
    cpu_histogram(buffer, size, histo);
    free(buffer);
    return histo;
}

START_TEST(test_uniform_fills_every_bin_evenly)
{
    const size_t size = 1 << 20; /* 4096 per bin expected; sd 64 */
    unsigned int *histo = histogram_of(DATA_UNIFORM, size, 3);
    for (int bin = 0; bin < BINS; bin++)
        ck_assert_msg(histo[bin] > 3686 && histo[bin] < 4506, "bin %d: %u", bin, histo[bin]);
}
END_TEST

START_TEST(test_constant_fills_one_bin)
{
    unsigned int *histo = histogram_of(DATA_CONSTANT, 100000, 11);
    int full = 0;
    for (int bin = 0; bin < BINS; bin++)
        full += histo[bin] == 100000;
    ck_assert_int_eq(full, 1);
    ck_assert_uint_eq(histogram_sum(histo), 100000);
}
END_TEST

START_TEST(test_skewed_is_bell_shaped_around_the_middle)
{
    const size_t size = 1 << 20;
    unsigned int *histo = histogram_of(DATA_SKEWED, size, 4);
    uint64_t middle = 0, tails = 0, low = 0;
    for (int bin = 0; bin < BINS; bin++) {
        if (bin >= 96 && bin < 160)
            middle += histo[bin];
        if (bin < 32 || bin >= 224)
            tails += histo[bin];
        if (bin < 128)
            low += histo[bin];
    }
    ck_assert_msg(middle > size * 55 / 100, "middle quarter holds only %llu",
                  (unsigned long long)middle);
    ck_assert_msg(tails < size / 100, "outer quarter holds %llu", (unsigned long long)tails);
    ck_assert_msg(low > size * 48 / 100 && low < size * 52 / 100, "not symmetric: %llu below 128",
                  (unsigned long long)low);
    /* rises to the peak, then falls: compare sums of 16-bin steps */
    for (int step = 0; step < 8; step++) {
        uint64_t left = 0, right = 0;
        for (int k = 0; k < 16; k++) {
            left += histo[step * 16 + k];
            right += histo[255 - step * 16 - k];
        }
        uint64_t next_left = 0, next_right = 0;
        for (int k = 0; k < 16 && step < 7; k++) {
            next_left += histo[(step + 1) * 16 + k];
            next_right += histo[255 - (step + 1) * 16 - k];
        }
        if (step < 7)
            ck_assert_msg(next_left > left && next_right > right, "not rising at step %d", step);
    }
}
END_TEST

START_TEST(test_text_counts_match_the_phrase)
{
    const char *phrase = TEXT_PHRASE;
    const size_t length = strlen(phrase), copies = 1000;
    unsigned int *histo = histogram_of(DATA_TEXT, length * copies + 4, 0);
    unsigned int expected[BINS] = {0};
    for (size_t i = 0; i < length; i++)
        expected[(unsigned char)phrase[i]] += copies;
    for (size_t i = 0; i < 4; i++) /* the last, partial copy: "Prog" */
        expected[(unsigned char)phrase[i]]++;
    ck_assert_mem_eq(histo, expected, sizeof expected);
    ck_assert_uint_eq(expected['r'], 2 * copies + 1); /* two in each phrase, one in "Prog" */
}
END_TEST

/* ------------------------------------------------------------------ files -- */

static void write_temp(char *path, const void *bytes, size_t size)
{
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, bytes, size), (ssize_t)size);
    close(fd);
}

START_TEST(test_read_file_returns_every_byte)
{
    static unsigned char bytes[200003]; /* more than one read, less than two buffers */
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 7 + 3);
    char path[] = "/tmp/book_file_XXXXXX";
    write_temp(path, bytes, sizeof bytes);
    unsigned char *got;
    size_t size;
    char why[256];
    ck_assert_int_eq(read_file(path, &got, &size, why, sizeof why), EXIT_OK);
    unlink(path);
    ck_assert_uint_eq(size, sizeof bytes);
    ck_assert_mem_eq(got, bytes, size);
    free(got);
}
END_TEST

START_TEST(test_read_file_of_an_empty_file_gives_zero_bytes)
{
    char path[] = "/tmp/book_file_XXXXXX";
    write_temp(path, "", 0);
    unsigned char *got;
    size_t size = 99;
    char why[256];
    ck_assert_int_eq(read_file(path, &got, &size, why, sizeof why), EXIT_OK);
    unlink(path);
    ck_assert_uint_eq(size, 0);
    free(got);
}
END_TEST

START_TEST(test_read_file_rejects_missing_files_and_directories)
{
    unsigned char *got;
    size_t size;
    char why[256];
    ck_assert_int_eq(read_file("/nonexistent/x.bin", &got, &size, why, sizeof why), EXIT_USAGE);
    ck_assert_msg(strstr(why, "/nonexistent/x.bin") != NULL, "why: %s", why);
    ck_assert_ptr_null(got);
    ck_assert_int_eq(read_file("/tmp", &got, &size, why, sizeof why), EXIT_USAGE);
    ck_assert_msg(strstr(why, "is a directory") != NULL, "why: %s", why);
}
END_TEST

/* ---------------------------------------------------------------- options -- */

/* The options keep pointers into argv's words (a stage option's value, a
 * path): the words live until the next parse, as argv's do in a program. */
static int parse(const struct stage *stage, struct options *opt, const char *args)
{
    static char copy[512];
    char *argv[32] = {"program"};
    int argc = 1;
    snprintf(copy, sizeof copy, "%s", args);
    for (char *word = strtok(copy, " "); word && argc < 31; word = strtok(NULL, " "))
        argv[argc++] = word;
    return parse_options(argc, argv, stage, opt);
}

START_TEST(test_defaults_reproduce_the_book)
{
    struct options opt;
    ck_assert_int_eq(parse(&gpu_stage, &opt, ""), EXIT_OK);
    ck_assert_uint_eq(opt.size, 104857600);
    ck_assert_int_eq(opt.data, DATA_UNIFORM);
    ck_assert_int_eq(opt.reps, DEFAULT_REPS);
    ck_assert(opt.blocks == 0 && opt.blocks_per_sm == 0 && opt.threads == 0);
    ck_assert(!opt.print_bins && !opt.csv && !opt.help);
}
END_TEST

struct good_size {
    const char *args;
    size_t size;
};
static const struct good_size good_sizes[] = {
    {"--size 0", 0},
    {"--size 1000003", 1000003},
    {"--size 1K", 1024},
    {"--size 100M", 104857600},
    {"--size=3g", 3221225472u},
    {"--size 4194303K", 4294966272u},
    {"--size 4294967295", 4294967295u},
};

START_TEST(test_sizes_take_binary_suffixes)
{
    struct options opt;
    ck_assert_int_eq(parse(&gpu_stage, &opt, good_sizes[_i].args), EXIT_OK);
    ck_assert_uint_eq(opt.size, good_sizes[_i].size);
}
END_TEST

/* A stage's own options: values kept as text in its order, a flag as "", and
 * its --bins N takes the place of the shared --bins N (which takes 256 only). */
static const struct stage_option own_options[] = {
    {"--bins", "N", "bins of the histogram"}, {"--print-bins", NULL, "print them"}, {NULL}};
static const struct stage own_stage = {
    .dir = "07_x", .program = "x", .summary = "s", .gpu = true, .options = own_options};

START_TEST(test_a_stages_own_options_are_kept_as_given)
{
    struct options opt;
    ck_assert_int_eq(parse(&own_stage, &opt, "--bins 4096 --print-bins --size 1K"), EXIT_OK);
    ck_assert_str_eq(opt.stage_values[0], "4096");
    ck_assert_str_eq(opt.stage_values[1], "");
    ck_assert(!opt.print_bins);
    ck_assert_uint_eq(opt.size, 1024);
    ck_assert_int_eq(parse(&own_stage, &opt, "--bins=7"), EXIT_OK);
    ck_assert_str_eq(opt.stage_values[0], "7");
    ck_assert_ptr_null(opt.stage_values[1]);
    ck_assert_int_eq(parse(&own_stage, &opt, "--bins"), EXIT_USAGE);
    ck_assert_msg(strstr(opt.why, "--bins needs a value") != NULL, "why: %s", opt.why);
    ck_assert_int_eq(parse(&own_stage, &opt, "--print-bins=1"), EXIT_USAGE);
    ck_assert_msg(strstr(opt.why, "takes no value") != NULL, "why: %s", opt.why);
    /* the other stages keep the shared options: --print-bins, and --bins 256 */
    ck_assert_int_eq(parse(&gpu_stage, &opt, "--print-bins --bins 256"), EXIT_OK);
    ck_assert(opt.print_bins);
    ck_assert_int_eq(parse(&gpu_stage, &opt, "--bins 4096"), EXIT_USAGE);
    ck_assert_msg(strstr(opt.why, "counts 256 bins") != NULL, "why: %s", opt.why);
}
END_TEST

/* A stage's own numeric option, read once for every stage by the harness. */
static const struct stage_option numbered_options[] = {
    {"--chunks", "N", "chunks"}, {"--lo", "L", "low edge"}, {NULL}};
static const struct stage numbered_stage = {
    .dir = "06_x", .program = "x", .summary = "s", .gpu = true, .options = numbered_options};

START_TEST(test_stage_option_numbers_are_read_with_their_range)
{
    struct options opt;
    ck_assert_int_eq(parse(&numbered_stage, &opt, "--chunks 16 --lo -9223372036854775808"),
                     EXIT_OK);
    ck_assert_int_eq(stage_option_number(&numbered_stage, &opt, 0, 1, 1024, 8), 16);
    ck_assert(stage_option_number(&numbered_stage, &opt, 1, INT64_MIN, 0, 0) == INT64_MIN);
    ck_assert_int_eq(parse(&numbered_stage, &opt, "--lo=-5"), EXIT_OK);
    ck_assert_int_eq(stage_option_number(&numbered_stage, &opt, 0, 1, 1024, 8), 8); /* fallback */
    ck_assert_int_eq(stage_option_number(&numbered_stage, &opt, 1, -10, 10, 0), -5);
}
END_TEST

/* Each bad value exits 2 (the reason's words are checked by hand in --help's test). */
static const char *const bad_numbers[] = {"--chunks 0",   "--chunks 1025",
                                          "--chunks abc", "--chunks 99999999999999999999",
                                          "--chunks -1",  "--chunks 5x"};

START_TEST(test_a_bad_stage_option_number_is_a_usage_error)
{
    struct options opt;
    ck_assert_int_eq(parse(&numbered_stage, &opt, bad_numbers[_i]), EXIT_OK);
    ck_assert(freopen("/dev/null", "w", stderr) != NULL);
    stage_option_number(&numbered_stage, &opt, 0, 1, 1024, 8);
}
END_TEST

/* --variant's names from a table's rows, "all" first (the default) or last. */
START_TEST(test_variant_names_come_from_the_table)
{
    static const struct row {
        const char *name;
        int payload;
    } rows[] = {{"pageable", 1}, {"pinned", 2}, {"streams", 3}};
    const char *const *names = variant_names_of_rows(rows, 3, sizeof rows[0], true);
    ck_assert_str_eq(names[0], "all");
    ck_assert_str_eq(names[1], "pageable");
    ck_assert_str_eq(names[3], "streams");
    ck_assert_ptr_null(names[4]);
    const struct stage stage = {.dir = "06_x", .program = "x", .summary = "s", .variants = names};
    struct options opt;
    ck_assert_int_eq(parse(&stage, &opt, "--variant pinned"), EXIT_OK);
    ck_assert(!variant_wants(&stage, &opt, "pageable") && variant_wants(&stage, &opt, "pinned"));
    ck_assert_int_eq(parse(&stage, &opt, ""), EXIT_OK); /* all */
    ck_assert(variant_wants(&stage, &opt, "pageable") && variant_wants(&stage, &opt, "streams"));

    names = variant_names_of_rows(rows, 3, sizeof rows[0], false);
    ck_assert_str_eq(names[0], "pageable");
    ck_assert_str_eq(names[3], "all");
    ck_assert_ptr_null(names[4]);
    const struct stage last = {.dir = "03_x", .program = "x", .summary = "s", .variants = names};
    ck_assert_int_eq(parse(&last, &opt, ""), EXIT_OK); /* the first row alone */
    ck_assert(variant_wants(&last, &opt, "pageable") && !variant_wants(&last, &opt, "pinned"));
    ck_assert_int_eq(parse(&last, &opt, "--variant all"), EXIT_OK);
    ck_assert(variant_wants(&last, &opt, "pinned"));
}
END_TEST

START_TEST(test_every_option_is_read)
{
    struct options opt;
    ck_assert_int_eq(
        parse(&gpu_stage, &opt,
              "--data constant --seed 99 --reps 3 --blocks 7 --threads 64 --print-bins"),
        EXIT_OK);
    ck_assert_int_eq(opt.data, DATA_CONSTANT);
    ck_assert_uint_eq(opt.seed, 99);
    ck_assert_int_eq(opt.reps, 3);
    ck_assert_int_eq(opt.blocks, 7);
    ck_assert_int_eq(opt.threads, 64);
    ck_assert(opt.print_bins);
    ck_assert_int_eq(parse(&gpu_stage, &opt, "--blocks-per-sm 16 --csv --data=text"), EXIT_OK);
    ck_assert_int_eq(opt.blocks_per_sm, 16);
    ck_assert(opt.csv);
    ck_assert_int_eq(opt.data, DATA_TEXT);
    ck_assert_int_eq(parse(&cpu_stage, &opt, "--variant sub4 --threads 8"), EXIT_OK);
    ck_assert_int_eq(opt.variant, 1);
    ck_assert_int_eq(opt.threads, 8);
    ck_assert_int_eq(parse(&cpu_stage, &opt, "--file /etc/passwd"), EXIT_OK);
    ck_assert_int_eq(opt.data, DATA_FILE);
    ck_assert_int_eq(parse(&cpu_stage, &opt, "--image ../data/chelsea.bmp"), EXIT_OK);
    ck_assert_int_eq(opt.data, DATA_IMAGE);
    ck_assert_str_eq(opt.image, "../data/chelsea.bmp");
    ck_assert_int_eq(parse(&opencl_stage, &opt, "--list --platform 1 --device 2"), EXIT_OK);
    ck_assert(opt.list);
    ck_assert_int_eq(opt.platform, 1);
    ck_assert_int_eq(opt.device, 2);
}
END_TEST

struct bad_option {
    const struct stage *stage;
    const char *args;
    const char *reason;
};
static const struct bad_option bad_options[] = {
    {&gpu_stage, "--size", "--size needs a value"},
    {&gpu_stage, "--size abc", "not a size"},
    {&gpu_stage, "--size 12Q", "not a size"},
    {&gpu_stage, "--size -1", "not a size"},
    {&gpu_stage, "--size +1", "not a size"},
    {&gpu_stage, "--size 1.5M", "not a size"},
    {&gpu_stage, "--size K", "not a size"},
    {&gpu_stage, "--size 4G", "too large"},
    {&gpu_stage, "--size 4294967296", "too large"},
    {&gpu_stage, "--size 99999999999999999999999", "is too large"},
    {&gpu_stage, "--size 99999999999999999999999K", "is too large"},
    {&gpu_stage, "--size 18014398509481984K", "too large"},
    {&gpu_stage, "--data random", "--data: 'random'"},
    {&gpu_stage, "--seed x", "--seed: 'x'"},
    {&gpu_stage, "--seed 99999999999999999999999",
     "--seed: 99999999999999999999999 is out of range"},
    {&gpu_stage, "--reps 99999999999999999999", "--reps: 99999999999999999999 is out of range"},
    {&gpu_stage, "--reps 0", "out of range"},
    {&gpu_stage, "--reps 1000001", "out of range"},
    {&gpu_stage, "--reps 5x", "not a whole number"},
    {&gpu_stage, "--threads 0", "out of range"},
    {&gpu_stage, "--threads 1025", "out of range"},
    {&gpu_stage, "--blocks 0", "out of range"},
    {&gpu_stage, "--blocks 2147483648", "out of range"},
    {&gpu_stage, "--blocks-per-sm 0", "out of range"},
    {&gpu_stage, "--blocks 8 --blocks-per-sm 2", "give one"},
    {&gpu_stage, "--variant sub4", "unknown option '--variant'"},
    {&gpu_stage, "--print-bins=yes", "takes no value"},
    {&gpu_stage, "--print-bins --csv", "cannot be combined"},
    {&gpu_stage, "--bins", "--bins needs a value (the number of bins; --print-bins prints them)"},
    {&gpu_stage, "--bins --csv", "--bins needs a value"},
    {&gpu_stage, "--bins 255", "--bins: hist_gpu_shmem_atomics counts 256 bins"},
    {&gpu_stage, "--bins many", "--bins: 'many' is not a whole number"},
    {&gpu_stage, "--seed --csv", "--seed needs a value"},
    {&gpu_stage, "--file /etc/passwd --data text", "drop --data"},
    {&gpu_stage, "--file /etc/passwd --size 5", "drop --data and --size"},
    {&gpu_stage, "--file /no/such/file", "cannot open '/no/such/file'"},
    {&gpu_stage, "--file /tmp", "is a directory"},
    {&gpu_stage, "--file=", "the path is empty"},
    {&gpu_stage, "-s 5", "unexpected argument '-s'"},
    {&gpu_stage, "--sizes 5", "unknown option '--sizes'"},
    {&cpu_stage, "--blocks 4", "unknown option '--blocks'"},
    {&cpu_stage, "--blocks-per-sm 4", "unknown option '--blocks-per-sm'"},
    {&cpu_stage, "--variant fast", "--variant: 'fast' is not a variant of hist_cpu"},
    {&gpu_stage, "--platform 0", "unknown option '--platform'"},
    {&gpu_stage, "--list", "unknown option '--list'"},
    {&opencl_stage, "--list=1", "--list takes no value"},
    {&opencl_stage, "--device 1", "--device needs --platform"},
    {&opencl_stage, "--platform x", "--platform: 'x' is not a whole number"},
    {&gpu_stage, "--image /no/such.bmp", "--image: cannot open '/no/such.bmp'"},
    {&gpu_stage, "--image ../data/chelsea.bmp --file /etc/passwd", "give one"},
    {&gpu_stage, "--image ../data/chelsea.bmp --size 5", "--image sets the data"},
};
#define BAD_OPTIONS ((int)(sizeof bad_options / sizeof bad_options[0]))

START_TEST(test_every_bad_value_is_a_usage_error_with_a_reason)
{
    struct options opt;
    const struct bad_option *bad = &bad_options[_i];
    ck_assert_msg(parse(bad->stage, &opt, bad->args) == EXIT_USAGE, "'%s' accepted", bad->args);
    ck_assert_msg(strstr(opt.why, bad->reason) != NULL, "'%s': reason '%s' lacks '%s'", bad->args,
                  opt.why, bad->reason);
    ck_assert_msg(strchr(opt.why, '\n') == NULL, "reason is not one line: %s", opt.why);
}
END_TEST

START_TEST(test_options_or_exit_exits_2_on_bad_usage)
{
    char *argv[] = {"program", "--reps", "zero", NULL};
    ck_assert(freopen("/dev/null", "w", stderr) != NULL);
    options_or_exit(3, argv, &gpu_stage);
}
END_TEST

START_TEST(test_help_exits_0)
{
    char *argv[] = {"program", "--help", NULL};
    ck_assert(freopen("/dev/null", "w", stdout) != NULL);
    options_or_exit(2, argv, &cpu_stage);
}
END_TEST

START_TEST(test_help_prints_a_programs_own_notes_wrapped)
{
    const char *words = "--blocks N cuts the input into N chunks (default 8, at most 1024), queued "
                        "over 4 streams; --threads sets the block size of the chunks' kernels; "
                        "--blocks-per-sm is refused.";
    struct stage stage = gpu_stage;
    stage.help = words;
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    print_usage(out, &stage);
    rewind(out);
    char line[256], joined[1024] = "";
    bool in_notes = false;
    while (fgets(line, sizeof line, out)) {
        ck_assert_msg(strlen(line) <= 81, "a help line over 80 columns: %s", line);
        if (strncmp(line, "In ", 3) == 0)
            in_notes = true;
        else if (in_notes && strncmp(line, "  ", 2) == 0)
            snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%.*s",
                     joined[0] ? " " : "", (int)strcspn(line + 2, "\n"), line + 2);
        else
            in_notes = false;
    }
    fclose(out);
    ck_assert_str_eq(joined, words); /* every word, in order, nothing lost at the breaks */
}
END_TEST

/* ----------------------------------------------------------- verification -- */

START_TEST(test_verification_passes_a_right_histogram)
{
    unsigned char *buffer = big_random_block(100000, 8);
    unsigned int histo[BINS];
    cpu_histogram(buffer, 100000, histo);
    ck_assert_int_eq(verify_histogram(buffer, 100000, histo, "test", NULL), 0);
    free(buffer);
}
END_TEST

START_TEST(test_verification_catches_a_planted_wrong_bin)
{
    unsigned char *buffer = big_random_block(100000, 8);
    unsigned int histo[BINS];
    cpu_histogram(buffer, 100000, histo);
    histo[65]++;
    histo[200] -= 3;
    FILE *report = tmpfile();
    ck_assert_int_eq(verify_histogram(buffer, 100000, histo, "gpu", report), 2);
    char text[512] = {0};
    rewind(report);
    ck_assert(fread(text, 1, sizeof text - 1, report) > 0);
    fclose(report);
    ck_assert_msg(strstr(text, "bin 65 holds") && strstr(text, "bin 200 holds"), "%s", text);
    free(buffer);
}
END_TEST

START_TEST(test_verification_catches_a_histogram_of_zeros)
{
    unsigned char byte = 7;
    unsigned int histo[BINS] = {0};
    ck_assert_int_eq(verify_histogram(&byte, 1, histo, "gpu", NULL), 1);
    ck_assert_int_eq(verify_histogram(&byte, 0, histo, "gpu", NULL), 0);
}
END_TEST

/* --------------------------------------------------------- timing and CSV -- */

START_TEST(test_median_of_odd_and_even_counts)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};
    ck_assert_double_eq(median(odd, 3), 3);
    ck_assert_double_eq(median(even, 4), 2.5);
    ck_assert_double_eq(median(one, 1), 7);
}
END_TEST

static double counted_run(void *context)
{
    int *calls = context;
    return (double)++*calls; /* the runs "take" 1, 2, 3, ... ms */
}

START_TEST(test_median_ms_warms_up_then_takes_the_median)
{
    int calls = 0;
    double m = median_ms(counted_run, &calls, 5);
    ck_assert_int_eq(calls, WARMUP_RUNS + 5);
    ck_assert_double_eq(m, WARMUP_RUNS + 3); /* the warm-up's 1 ms is not counted */
}
END_TEST

/* Runs whose kernel time falls as their total rises: the two medians must
 * each come from their own column, not from one "median run". */
static struct gpu_times counted_trip(void *context)
{
    int *calls = context;
    ++*calls;
    struct gpu_times t = {.kernel_ms = 100.0 - *calls, .total_ms = (double)*calls};
    return t;
}

START_TEST(test_median_gpu_times_takes_each_median_apart_after_a_warm_up)
{
    int calls = 0;
    struct gpu_times m = median_gpu_times(counted_trip, &calls, 4);
    ck_assert_int_eq(calls, WARMUP_RUNS + 4);
    /* timed runs are calls 2..5: totals 2, 3, 4, 5; kernels 98, 97, 96, 95 */
    ck_assert_double_eq(m.total_ms, WARMUP_RUNS + 2.5);
    ck_assert_double_eq(m.kernel_ms, 100 - (WARMUP_RUNS + 2.5));
}
END_TEST

START_TEST(test_gb_per_s_is_bytes_over_time)
{
    ck_assert_double_eq_tol(gb_per_s(104857600, 1.0), 104.8576, 1e-9);
    ck_assert_double_eq(gb_per_s(100, 0), 0);
}
END_TEST

/* More results than the old fixed array of 64 held: every one is verified
 * and gets its own row, and a wrong one far down fails the run. */
START_TEST(test_report_results_verifies_every_one_of_many_results)
{
    enum { COUNT = 100, WRONG = 80 };
    unsigned char *buffer = big_random_block(5000, 3);
    unsigned int right[BINS], wrong[BINS];
    cpu_histogram(buffer, 5000, right);
    memcpy(wrong, right, sizeof wrong);
    wrong[9]++;
    struct result results[COUNT];
    for (int i = 0; i < COUNT; i++)
        results[i] = (struct result){
            .impl = "x", .device = "d", .kernel_ms = 1, .total_ms = 1, .histo = right};
    results[WRONG].histo = wrong;
    char *argv[] = {"program", "--csv", NULL};
    struct options opt;
    ck_assert_int_eq(parse_options(2, argv, &cpu_stage, &opt), EXIT_OK);
    struct input in = {.buffer = buffer, .size = 5000, .name = "uniform"};
    char path[] = "/tmp/report_test_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_ptr_nonnull(freopen(path, "w", stdout));
    ck_assert(freopen("/dev/null", "w", stderr) != NULL);
    ck_assert_int_eq(report_results(&cpu_stage, &opt, &in, results, COUNT), EXIT_FAILED);
    fflush(stdout);
    FILE *csv = fopen(path, "r");
    char line[512];
    int row = -1; /* the header comes first */
    while (fgets(line, sizeof line, csv)) {
        if (row >= 0)
            ck_assert_msg(strstr(line, row == WRONG ? ",no\n" : ",yes\n"), "row %d: %s", row, line);
        row++;
    }
    fclose(csv);
    unlink(path);
    close(fd);
    ck_assert_int_eq(row, COUNT);
    free(buffer);
}
END_TEST

/* Runs report_results on one result with stdout and stderr sent to files;
 * returns its status and what each stream got (the start of it). */
static int report_many_captured(const struct stage *stage, const struct options *opt,
                                const struct input *in, const struct result *r, int count,
                                char *out, char *err, size_t size)
{
    char out_path[] = "/tmp/report_out_XXXXXX", err_path[] = "/tmp/report_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    ck_assert(out_fd >= 0 && err_fd >= 0);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    int status = report_results(stage, opt, in, r, count);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    char *texts[2] = {out, err};
    int fds[2] = {out_fd, err_fd};
    for (int i = 0; i < 2; i++) {
        ssize_t got = pread(fds[i], texts[i], size - 1, 0);
        texts[i][got > 0 ? got : 0] = '\0';
        close(fds[i]);
    }
    unlink(out_path);
    unlink(err_path);
    return status;
}

static int report_captured(const struct stage *stage, const struct options *opt,
                           const struct input *in, const struct result *r, char *out, char *err,
                           size_t size)
{
    return report_many_captured(stage, opt, in, r, 1, out, err, size);
}

/* One wrong bin, the same in the end-to-end result and the last kernel-only
 * run, is one wrong bin: reported once, and counted once ("1 bin differs"). */
START_TEST(test_a_wrong_bin_shared_by_both_runs_is_reported_once)
{
    unsigned char byte = 7;
    unsigned int histo[BINS] = {0}, kernel[BINS] = {0};
    histo[7] = kernel[7] = 2; /* one byte, counted twice */
    struct result r = {.impl = "x", .device = "d", .histo = histo, .kernel_histo = kernel};
    char *argv[] = {"program", "--reps", "1", NULL};
    struct options opt;
    ck_assert_int_eq(parse_options(3, argv, &cpu_stage, &opt), EXIT_OK);
    struct input in = {.buffer = &byte, .size = 1, .name = "uniform"};
    char out[4096], err[4096];
    ck_assert_int_eq(report_captured(&cpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_FAILED);
    char *first = strstr(err, "bin 7 holds 2");
    ck_assert_msg(first && !strstr(first + 1, "bin 7 holds"), "stderr: %s", err);
    ck_assert_msg(strstr(err, "verification FAILED: 1 bin differs from"), "stderr: %s", err);
    /* and one run, one byte: singular words in the report */
    ck_assert_msg(strstr(out, "1 byte, seed") && strstr(out, "median of 1 run after"), "%s", out);

    /* where the two runs differ, each is named */
    kernel[7] = 1;
    kernel[8] = 1;
    ck_assert_int_eq(report_captured(&cpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_FAILED);
    ck_assert_msg(strstr(err, "x (end to end): bin 7 holds 2") &&
                      strstr(err, "x (kernel only): bin 8 holds 1") &&
                      strstr(err, "FAILED: 2 bins differ from"),
                  "stderr: %s", err);
}
END_TEST

/* Past 256 bins (07) a result is checked against the CPU's count it carries:
 * a right one passes, one wrong bin of 70000 fails the run and is named, and
 * a million wrong bins are told as a few lines and a count, not a million. */
START_TEST(test_a_result_of_many_bins_is_checked_against_its_expected_count)
{
    enum { MANY = 70000 };
    unsigned *expected = calloc(MANY, sizeof *expected), *got = calloc(MANY, sizeof *got);
    ck_assert(expected && got);
    for (unsigned b = 0; b < MANY; b++)
        expected[b] = got[b] = b % 7;
    unsigned char byte = 0; /* the input's bytes are not what these bins count */
    struct result r = {.impl = "x",
                       .device = "d",
                       .kernel_ms = 1,
                       .total_ms = 2,
                       .histo = got,
                       .kernel_histo = got,
                       .bins = MANY,
                       .expected = expected};
    char *argv[] = {"program", "--reps", "1", NULL};
    struct options opt;
    ck_assert_int_eq(parse_options(3, argv, &gpu_stage, &opt), EXIT_OK);
    struct input in = {.buffer = &byte, .size = 1, .name = "uniform"};
    char out[4096], err[4096];
    ck_assert_int_eq(report_captured(&gpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_OK);
    uint64_t sum = 0;
    for (unsigned b = 0; b < MANY; b++)
        sum += expected[b];
    char line[64];
    snprintf(line, sizeof line, "Histogram Sum: %llu\n", (unsigned long long)sum);
    ck_assert_msg(strstr(out, line), "%s", out);

    got[65536]++;
    ck_assert_int_eq(report_captured(&gpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_FAILED);
    ck_assert_msg(strstr(err, "x: bin 65536 holds 3, the CPU counts 2"), "stderr: %s", err);

    for (unsigned b = 0; b < MANY; b++)
        got[b] = expected[b] + 1;
    ck_assert_int_eq(report_captured(&gpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_FAILED);
    int lines = 0;
    for (const char *c = err; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines <= 12 && strstr(err, "and 69992 more bins differ") &&
                      strstr(err, "FAILED: 70000 bins differ"),
                  "%d lines: %s", lines, err);
    free(expected);
    free(got);
}
END_TEST

/* A kernel-only median above the end-to-end one is explained where it is
 * printed (two medians of different runs), and only then. */
START_TEST(test_a_kernel_time_above_the_trip_is_explained)
{
    unsigned char byte = 7;
    unsigned int histo[BINS] = {0};
    histo[7] = 1;
    struct result r = {
        .impl = "x", .device = "d", .kernel_ms = 0.65, .total_ms = 0.44, .histo = histo};
    char *argv[] = {"program", "--reps", "1", NULL};
    struct options opt;
    ck_assert_int_eq(parse_options(3, argv, &gpu_stage, &opt), EXIT_OK);
    struct input in = {.buffer = &byte, .size = 1, .name = "uniform"};
    char out[4096], err[4096];
    ck_assert_int_eq(report_captured(&gpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_OK);
    ck_assert_msg(strstr(out, "note:       the kernel-only median is above the end-to-end one"),
                  "%s", out);
    r.total_ms = 0.70;
    ck_assert_int_eq(report_captured(&gpu_stage, &opt, &in, &r, out, err, sizeof out), EXIT_OK);
    ck_assert_msg(!strstr(out, "note:"), "%s", out);
}
END_TEST

/* The x column (a trip over the floor's trip) is printed where the floor is a
 * copy, and left out where the floor is a kernel: there the pageable copy's
 * spread, not the kernels, would order the rows. */
START_TEST(test_the_x_column_is_printed_only_beside_a_copy_floor)
{
    unsigned char byte = 7;
    unsigned int histo[BINS] = {0};
    histo[7] = 1;
    struct result rows[2] = {
        {.impl = "floor", .device = "d", .kernel_ms = 0.5, .total_ms = 2.0},
        {.impl = "counted", .device = "d", .kernel_ms = 1.0, .total_ms = 3.0, .histo = histo}};
    char *argv[] = {"program", "--reps", "1", NULL};
    struct options opt;
    ck_assert_int_eq(parse_options(3, argv, &gpu_stage, &opt), EXIT_OK);
    struct input in = {.buffer = &byte, .size = 1, .name = "uniform"};
    char out[8192], err[4096];
    ck_assert_int_eq(report_many_captured(&gpu_stage, &opt, &in, rows, 2, out, err, sizeof out),
                     EXIT_OK);
    ck_assert_msg(strstr(out, "end-to-end ms  verified\n"), "%s", out);
    ck_assert_msg(!strstr(out, "1.500") && !strstr(out, "x:"), "%s", out);
    ck_assert_msg(strstr(out, "the floor is floor\n%: the floor's kernel time as a share of the "
                              "row's\n"),
                  "%s", out);
    ck_assert_msg(strstr(out, " 50.0 "), "%s", out); /* %: 0.5 over 1.0 */
    rows[0].kernel_ms = 0;                           /* a copy: no kernel */
    ck_assert_int_eq(report_many_captured(&gpu_stage, &opt, &in, rows, 2, out, err, sizeof out),
                     EXIT_OK);
    ck_assert_msg(strstr(out, "end-to-end ms       x  verified\n"), "%s", out);
    ck_assert_msg(strstr(out, " 1.500  yes\n") && strstr(out, "x: the row's end-to-end"), "%s",
                  out);
}
END_TEST

static void csv_line(const struct csv_row *row, char *text, size_t size)
{
    FILE *f = tmpfile();
    print_csv_row(f, row);
    rewind(f);
    size_t got = fread(text, 1, size - 1, f);
    text[got] = '\0';
    fclose(f);
}

START_TEST(test_csv_row_has_every_column_in_order)
{
    struct csv_row row = {"03_shared_atomics",
                          "shared-atomics",
                          "NVIDIA H100",
                          "uniform",
                          104857600,
                          1,
                          264,
                          256,
                          10,
                          0.5,
                          30.25,
                          true};
    char text[512];
    csv_line(&row, text, sizeof text);
    ck_assert_str_eq(text, "03_shared_atomics,shared-atomics,NVIDIA H100,uniform,104857600,1,"
                           "264,256,10,0.5000,30.2500,209.715,yes\n");
    int commas = 0;
    for (const char *c = CSV_HEADER; *c; c++)
        commas += *c == ',';
    ck_assert_int_eq(commas, 12);
}
END_TEST

START_TEST(test_csv_quotes_text_with_commas_and_quotes)
{
    struct csv_row row = {
        "01_cpu", "book", "Intel, Inc. \"Core\"", "my,file.bin", 3, 0, 0, 1, 1, 1.0, 1.0, false};
    char text[512];
    csv_line(&row, text, sizeof text);
    ck_assert_str_eq(text, "01_cpu,book,\"Intel, Inc. \"\"Core\"\"\",\"my,file.bin\",3,0,0,1,1,"
                           "1.0000,1.0000,0.000,no\n");
}
END_TEST

TCase *bmp_tcase(void); /* test_bmp.c */

/* ------------------------------------------------------------- registry -- */

/* stages.txt, the one list of stages, agrees with the folders: every line
 * names a folder whose Makefile is stage.mk's one include and whose program's
 * source is there, with a known runs-on and shows; and every stage-like
 * folder at the root has its line. Runs from common/. */
START_TEST(test_every_stage_folder_has_one_registry_line_and_the_other_way_round)
{
    FILE *registry = fopen("../stages.txt", "r");
    ck_assert_ptr_nonnull(registry);
    char line[1024], listed[64][128];
    int count = 0;
    while (fgets(line, sizeof line, registry)) {
        char folder[128], program[128], runs_on[32], shows[32];
        if (line[strspn(line, " \t")] == '#' || line[strspn(line, " \t\n")] == '\0')
            continue;
        ck_assert_msg(sscanf(line, "%127s %127s %31s %31s", folder, program, runs_on, shows) == 4,
                      "stages.txt: a line without its four columns: %s", line);
        ck_assert_msg(strcmp(runs_on, "cpu") == 0 || strcmp(runs_on, "cuda") == 0 ||
                          strcmp(runs_on, "opencl") == 0,
                      "stages.txt: %s runs on '%s'", folder, runs_on);
        ck_assert_msg(strcmp(shows, "kernel") == 0 || strcmp(shows, "trip") == 0,
                      "stages.txt: %s shows '%s'", folder, shows);
        for (int i = 0; i < count; i++)
            ck_assert_msg(strcmp(listed[i], folder) != 0, "stages.txt: %s twice", folder);
        ck_assert_int_lt(count, 64);
        snprintf(listed[count++], sizeof listed[0], "%s", folder);

        char path[512];
        snprintf(path, sizeof path, "../%s/%s.%s", folder, program,
                 strcmp(runs_on, "cuda") == 0 ? "cu" : "c");
        ck_assert_msg(access(path, R_OK) == 0, "stages.txt: %s has no %s", folder, path);
        snprintf(path, sizeof path, "../%s/Makefile", folder);
        FILE *makefile = fopen(path, "r");
        ck_assert_msg(makefile != NULL, "stages.txt: %s has no Makefile", folder);
        bool includes = false;
        while (fgets(line, sizeof line, makefile))
            includes = includes || strcmp(line, "include ../common/stage.mk\n") == 0;
        fclose(makefile);
        ck_assert_msg(includes, "%s does not include ../common/stage.mk", path);
    }
    fclose(registry);
    ck_assert_int_gt(count, 0);

    glob_t folders;
    ck_assert_int_eq(glob("../[0-9][0-9]_*/Makefile", 0, NULL, &folders), 0);
    for (size_t f = 0; f < folders.gl_pathc; f++) {
        char folder[128];
        snprintf(folder, sizeof folder, "%.*s", (int)strcspn(folders.gl_pathv[f] + 3, "/"),
                 folders.gl_pathv[f] + 3);
        bool found = false;
        for (int i = 0; i < count && !found; i++)
            found = strcmp(listed[i], folder) == 0;
        ck_assert_msg(found, "%s has a Makefile but no line in stages.txt", folder);
    }
    globfree(&folders);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("common");
    suite_add_tcase(suite, bmp_tcase());
    TCase *inputs = tcase_create("inputs");
    tcase_add_loop_test(inputs, test_every_kind_is_deterministic_per_seed, DATA_UNIFORM, DATA_FILE);
    tcase_add_loop_test(inputs, test_different_seeds_give_different_random_bytes, 0, 2);
    tcase_add_test(inputs, test_big_random_block_is_uniform_data);
    tcase_add_test(inputs, test_uniform_fills_every_bin_evenly);
    tcase_add_test(inputs, test_constant_fills_one_bin);
    tcase_add_test(inputs, test_skewed_is_bell_shaped_around_the_middle);
    tcase_add_test(inputs, test_text_counts_match_the_phrase);
    tcase_add_test(inputs, test_read_file_returns_every_byte);
    tcase_add_test(inputs, test_read_file_of_an_empty_file_gives_zero_bytes);
    tcase_add_test(inputs, test_read_file_rejects_missing_files_and_directories);
    suite_add_tcase(suite, inputs);

    TCase *options = tcase_create("options");
    tcase_add_test(options, test_defaults_reproduce_the_book);
    tcase_add_loop_test(options, test_sizes_take_binary_suffixes, 0,
                        (int)(sizeof good_sizes / sizeof good_sizes[0]));
    tcase_add_test(options, test_every_option_is_read);
    tcase_add_test(options, test_a_stages_own_options_are_kept_as_given);
    tcase_add_test(options, test_stage_option_numbers_are_read_with_their_range);
    tcase_add_loop_exit_test(options, test_a_bad_stage_option_number_is_a_usage_error, EXIT_USAGE,
                             0, (int)(sizeof bad_numbers / sizeof bad_numbers[0]));
    tcase_add_test(options, test_variant_names_come_from_the_table);
    tcase_add_test(options, test_help_prints_a_programs_own_notes_wrapped);
    tcase_add_loop_test(options, test_every_bad_value_is_a_usage_error_with_a_reason, 0,
                        BAD_OPTIONS);
    tcase_add_exit_test(options, test_options_or_exit_exits_2_on_bad_usage, EXIT_USAGE);
    tcase_add_exit_test(options, test_help_exits_0, EXIT_OK);
    suite_add_tcase(suite, options);

    TCase *checks = tcase_create("verification");
    tcase_add_test(checks, test_verification_passes_a_right_histogram);
    tcase_add_test(checks, test_verification_catches_a_planted_wrong_bin);
    tcase_add_test(checks, test_verification_catches_a_histogram_of_zeros);
    suite_add_tcase(suite, checks);

    TCase *results = tcase_create("timing and csv");
    tcase_add_test(results, test_median_of_odd_and_even_counts);
    tcase_add_test(results, test_median_ms_warms_up_then_takes_the_median);
    tcase_add_test(results, test_median_gpu_times_takes_each_median_apart_after_a_warm_up);
    tcase_add_test(results, test_gb_per_s_is_bytes_over_time);
    tcase_add_test(results, test_report_results_verifies_every_one_of_many_results);
    tcase_add_test(results, test_a_wrong_bin_shared_by_both_runs_is_reported_once);
    tcase_add_test(results, test_a_kernel_time_above_the_trip_is_explained);
    tcase_add_test(results, test_the_x_column_is_printed_only_beside_a_copy_floor);
    tcase_add_test(results, test_a_result_of_many_bins_is_checked_against_its_expected_count);
    tcase_add_test(results, test_csv_row_has_every_column_in_order);
    tcase_add_test(results, test_csv_quotes_text_with_commas_and_quotes);
    suite_add_tcase(suite, results);

    TCase *registry = tcase_create("registry");
    tcase_add_test(registry, test_every_stage_folder_has_one_registry_line_and_the_other_way_round);
    suite_add_tcase(suite, registry);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILED : EXIT_OK;
}
