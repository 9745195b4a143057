/*
 * test_bmp.c - the BMP reader gives the right pixels for every layout it
 * supports, and rejects every malformed file with a reason, reading nothing
 * past the end of the buffer (make asan runs these under AddressSanitizer).
 * The writer's files read back pixel for pixel, and it refuses, with a
 * reason, sizes no BMP holds and files it cannot write.
 */
#include "harness.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------- building test files -- */

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v), put16(p + 2, v >> 16);
}

/* The colour of pixel (x, y), y counted from the top: easy to tell apart. */
static void colour_of(int x, int y, unsigned char rgb[3])
{
    rgb[0] = (unsigned char)(10 + 40 * x), rgb[1] = (unsigned char)(20 + 50 * y),
    rgb[2] = (unsigned char)(200 - 7 * x - 3 * y);
}

#define PALETTE_COLOURS 6

/* A valid BMP of bits 8, 24 or 32 (BI_RGB) with a 40-byte header; a negative
 * height stores it top-down. 8-bit pixels use palette index (x + y) % 6. */
static size_t make_bmp(unsigned char *file, int bits, int width, int height)
{
    int rows = height < 0 ? -height : height;
    size_t palette = bits == 8 ? 4 * PALETTE_COLOURS : 0;
    size_t row_bytes = ((size_t)bits * width + 31) / 32 * 4;
    size_t offset = 14 + 40 + palette, size = offset + row_bytes * rows;
    memset(file, 0, size);
    file[0] = 'B', file[1] = 'M';
    put32(file + 2, (uint32_t)size);
    put32(file + 10, (uint32_t)offset);
    put32(file + 14, 40);
    put32(file + 18, (uint32_t)width);
    put32(file + 22, (uint32_t)height);
    put16(file + 26, 1);
    put16(file + 28, (uint32_t)bits);
    if (bits == 8) {
        put32(file + 46, PALETTE_COLOURS);
        for (int i = 0; i < PALETTE_COLOURS; i++) { /* blue, green, red, 0 */
            unsigned char rgb[3];
            colour_of(i, i, rgb);
            file[54 + 4 * i] = rgb[2], file[55 + 4 * i] = rgb[1], file[56 + 4 * i] = rgb[0];
        }
    }
    for (int y = 0; y < rows; y++) {
        unsigned char *row = file + offset + row_bytes * (height < 0 ? y : rows - 1 - y);
        for (int x = 0; x < width; x++) {
            unsigned char rgb[3];
            colour_of(x, y, rgb);
            if (bits == 8)
                row[x] = (unsigned char)((x + y) % PALETTE_COLOURS);
            else {
                unsigned char *p = row + (bits / 8) * x;
                p[0] = rgb[2], p[1] = rgb[1], p[2] = rgb[0];
            }
        }
    }
    return size;
}

static unsigned char valid[1 << 16];

/* Decodes from a heap copy of exactly size bytes, so AddressSanitizer sees
 * any read past the end. */
static int decode_copy(const unsigned char *file, size_t size, struct image *img, char *why)
{
    unsigned char *copy = malloc(size ? size : 1);
    ck_assert(copy != NULL);
    memcpy(copy, file, size);
    int status = decode_bmp(copy, size, img, why, 256);
    free(copy);
    return status;
}

static void assert_pixels(const struct image *img, int width, int height, bool paletted)
{
    ck_assert_int_eq(img->width, width);
    ck_assert_int_eq(img->height, height);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            unsigned char want[3];
            int index = (x + y) % PALETTE_COLOURS;
            colour_of(paletted ? index : x, paletted ? index : y, want);
            ck_assert_msg(memcmp(img->rgb + 3 * (y * width + x), want, 3) == 0,
                          "pixel (%d, %d) is wrong", x, y);
        }
}

/* ------------------------------------------------------------ valid files -- */

struct layout {
    const char *what;
    int bits, width, height; /* a negative height: stored top-down */
};

static const struct layout layouts[] = {
    {"24-bit, odd width, bottom-up: 15 bytes a row, padded to 16", 24, 5, 3},
    {"24-bit, top-down", 24, 7, -4},
    {"8-bit, paletted: 9 bytes a row, padded to 12", 8, 9, 5},
    {"8-bit, paletted, top-down", 8, 4, -2},
    {"32-bit, no padding", 32, 3, 2},
};
#define LAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

START_TEST(test_every_supported_layout_gives_every_pixel)
{
    const struct layout *l = &layouts[_i];
    struct image img;
    char why[256];
    size_t size = make_bmp(valid, l->bits, l->width, l->height);
    ck_assert_msg(decode_copy(valid, size, &img, why) == EXIT_OK, "%s: %s", l->what, why);
    assert_pixels(&img, l->width, l->height < 0 ? -l->height : l->height, l->bits == 8);
    free_image(&img);
}
END_TEST

START_TEST(test_32_bit_pixels_described_by_bit_fields)
{
    struct image img;
    char why[256];
    size_t size = make_bmp(valid, 32, 3, 2);
    /* The same pixels described by masks that follow the 40-byte header. */
    static unsigned char fields[4096];
    memcpy(fields, valid, 54);
    put32(fields + 30, 3);
    put32(fields + 54, 0x00FF0000), put32(fields + 58, 0x0000FF00), put32(fields + 62, 0xFF);
    memcpy(fields + 66, valid + 54, size - 54);
    put32(fields + 10, 66);
    ck_assert_int_eq(decode_copy(fields, size + 12, &img, why), EXIT_OK);
    assert_pixels(&img, 3, 2, false);
    free_image(&img);
}
END_TEST

START_TEST(test_a_missing_last_row_padding_is_accepted)
{
    struct image img;
    char why[256];
    size_t size = make_bmp(valid, 24, 5, 3);
    ck_assert_int_eq(decode_copy(valid, size - 1, &img, why), EXIT_OK);
    assert_pixels(&img, 5, 3, false);
    free_image(&img);
}
END_TEST

START_TEST(test_luminance_weights_green_most)
{
    ck_assert_uint_eq(luminance(0, 0, 0), 0);
    ck_assert_uint_eq(luminance(255, 255, 255), 255);
    ck_assert_uint_eq(luminance(255, 0, 0), 76);
    ck_assert_uint_eq(luminance(0, 255, 0), 150);
    ck_assert_uint_eq(luminance(0, 0, 255), 29);
}
END_TEST

START_TEST(test_the_sample_photograph_decodes)
{
    struct image img;
    char why[256];
    ck_assert_msg(read_bmp("../data/chelsea.bmp", &img, why, sizeof why) == EXIT_OK, "%s", why);
    ck_assert_int_eq(img.width, 451);
    ck_assert_int_eq(img.height, 300);
    free_image(&img);
}
END_TEST

/* -------------------------------------------------------- malformed files -- */

#define KEEP_ALL   (-1)
#define ALL_BUT(n) (-1 - (n))

struct malformed {
    const char *what;
    int bits;       /* of the valid file it starts from */
    size_t at;      /* byte offset to overwrite, or SIZE_MAX for none */
    int width;      /* 0: keep; else overwrite with this 32-bit value at offset at */
    uint32_t value; /* the value written at at: 1, 2 or 4 bytes given by width */
    long keep;      /* bytes of the file kept: KEEP_ALL, a number, or ALL_BUT(n) */
    const char *reason;
};

static const struct malformed malformed[] = {
    {"wrong magic", 24, 0, 1, 'P', KEEP_ALL, "does not start with 'BM'"},
    {"only a file header", 24, SIZE_MAX, 0, 0, 14, "too short"},
    {"empty", 24, SIZE_MAX, 0, 0, 0, "too short"},
    {"truncated pixels", 24, SIZE_MAX, 0, 0, ALL_BUT(10), "truncated: the pixels need"},
    {"OS/2 header", 24, 14, 4, 12, KEEP_ALL, "unsupported BMP header of 12 bytes"},
    {"header past the end", 24, 14, 4, 124, KEEP_ALL, "truncated: the header needs"},
    {"zero width", 24, 18, 4, 0, KEEP_ALL, "width 0 is not positive"},
    {"negative width", 24, 18, 4, (uint32_t)-5, KEEP_ALL, "width -5 is not positive"},
    {"zero height", 24, 22, 4, 0, KEEP_ALL, "height 0 is not valid"},
    {"most negative height", 24, 22, 4, 0x80000000u, KEEP_ALL, "is not valid"},
    {"huge width", 24, 18, 4, 0x7FFFFFFFu, KEEP_ALL, "too large"},
    {"huge height", 24, 22, 4, 0x40000000u, KEEP_ALL, "too large"},
    {"large, but no pixels", 24, 18, 4, 10000, KEEP_ALL, "truncated: the pixels need"},
    {"offset past the end", 24, 10, 4, 0xFFFFFFF0u, KEEP_ALL, "truncated: the pixels need"},
    {"offset inside the header", 24, 10, 4, 20, KEEP_ALL, "overlap the header"},
    {"16-bit pixels", 24, 28, 2, 16, KEEP_ALL, "16-bit pixels are not supported"},
    {"4-bit pixels", 24, 28, 2, 4, KEEP_ALL, "4-bit pixels"},
    {"1-bit pixels", 24, 28, 2, 1, KEEP_ALL, "1-bit pixels"},
    {"RLE8 compression", 8, 30, 4, 1, KEEP_ALL, "compressed BMPs (method 1)"},
    {"bit fields on 24-bit pixels", 24, 30, 4, 3, KEEP_ALL, "compressed BMPs (method 3)"},
    {"odd bit-field masks", 32, 30, 4, 3, KEEP_ALL, "colour masks other than whole bytes"},
    {"two planes", 24, 26, 2, 2, KEEP_ALL, "2 colour planes"},
    {"a palette of 300 colours", 8, 46, 4, 300, KEEP_ALL, "a palette of 300 colours"},
    {"a pixel past the palette", 8, 46, 4, 2, KEEP_ALL, "uses colour 2 of a 2-colour palette"},
    {"palette past the end", 8, 46, 4, 256, KEEP_ALL, "the palette ends past the file"},
};
#define MALFORMED ((int)(sizeof malformed / sizeof malformed[0]))

START_TEST(test_malformed_files_are_rejected_with_a_reason)
{
    const struct malformed *m = &malformed[_i];
    static unsigned char file[1 << 16];
    size_t size = make_bmp(file, m->bits, 5, 3);
    if (m->width == 1)
        file[m->at] = (unsigned char)m->value;
    else if (m->width == 2)
        put16(file + m->at, m->value);
    else if (m->width == 4)
        put32(file + m->at, m->value);
    if (m->keep != KEEP_ALL)
        size = m->keep >= 0 ? (size_t)m->keep : size - (size_t)(-1 - m->keep);

    struct image img;
    char why[256] = "";
    ck_assert_msg(decode_copy(file, size, &img, why) == EXIT_USAGE, "%s: accepted", m->what);
    ck_assert_msg(strstr(why, m->reason) != NULL, "%s: reason '%s' lacks '%s'", m->what, why,
                  m->reason);
    ck_assert_ptr_null(img.rgb);
}
END_TEST

START_TEST(test_every_truncation_is_rejected_or_complete)
{
    size_t size = make_bmp(valid, _i == 0 ? 8 : 24, 6, 4);
    for (size_t cut = 0; cut < size; cut++) {
        struct image img;
        char why[256];
        if (decode_copy(valid, cut, &img, why) == EXIT_OK) {
            /* only a missing last-row padding may be forgiven */
            ck_assert_msg(cut >= size - 3, "%zu of %zu bytes accepted", cut, size);
            free_image(&img);
        }
    }
}
END_TEST

START_TEST(test_random_corruption_never_reads_past_the_end)
{
    uint64_t state = 12345 + (uint64_t)_i;
    for (int trial = 0; trial < 3000; trial++) {
        size_t size = make_bmp(valid, (int[]){8, 24, 32}[trial % 3], 4 + trial % 5, 3);
        for (int flips = 0; flips < 3; flips++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (state >> 33) % 70; /* the headers and the palette */
            valid[at] = (unsigned char)(state >> 13);
        }
        struct image img;
        char why[256];
        if (decode_copy(valid, size - (state >> 40) % 4, &img, why) == EXIT_OK)
            free_image(&img);
    }
}
END_TEST

START_TEST(test_read_bmp_names_the_file_in_its_reason)
{
    char path[] = "/tmp/bmp_test_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert_int_eq(write(fd, "BM not really", 13), 13);
    close(fd);
    struct image img;
    char why[512];
    ck_assert_int_eq(read_bmp(path, &img, why, sizeof why), EXIT_USAGE);
    unlink(path);
    ck_assert_msg(strstr(why, path) && strstr(why, "too short"), "why: %s", why);
    ck_assert_int_eq(read_bmp("/nonexistent.bmp", &img, why, sizeof why), EXIT_USAGE);
    ck_assert_msg(strstr(why, "cannot open '/nonexistent.bmp'"), "why: %s", why);
}
END_TEST

/* ---------------------------------------------------------------- writing -- */

/* An image of width x height pixels in colour_of's colours, to free. */
static struct image coloured_image(int width, int height)
{
    struct image img = {width, height, malloc((size_t)width * height * 3)};
    ck_assert(img.rgb != NULL);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            colour_of(x, y, img.rgb + 3 * ((size_t)y * width + x));
    return img;
}

/* Widths whose rows need 0, 1, 2 and 3 bytes of padding (3 x width mod 4 is
 * 0, 3, 2, 1), one pixel, and one long row. */
static const int written_sizes[][2] = {{4, 3}, {5, 3}, {6, 2}, {7, 4}, {1, 1}, {1000, 1}, {1, 9}};
#define WRITTEN_SIZES ((int)(sizeof written_sizes / sizeof written_sizes[0]))

START_TEST(test_a_written_bmp_reads_back_pixel_for_pixel)
{
    int width = written_sizes[_i][0], height = written_sizes[_i][1];
    struct image img = coloured_image(width, height), back;
    char path[] = "/tmp/bmp_write_XXXXXX", why[512];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    ck_assert_msg(write_bmp(path, &img, why, sizeof why) == EXIT_OK, "%s", why);

    unsigned char *file;
    size_t size;
    ck_assert_int_eq(read_file(path, &file, &size, why, sizeof why), EXIT_OK);
    size_t row_bytes = ((size_t)3 * width + 3) / 4 * 4;
    ck_assert_uint_eq(size, 54 + row_bytes * height); /* the header, then padded rows */
    ck_assert_uint_eq(file[2] | file[3] << 8 | file[4] << 16 | (unsigned)file[5] << 24, size);
    ck_assert_int_eq(file[28], 24);
    free(file);

    int status = read_bmp(path, &back, why, sizeof why);
    unlink(path);
    ck_assert_msg(status == EXIT_OK, "%d x %d: %s", width, height, why);
    ck_assert_int_eq(back.width, width);
    ck_assert_int_eq(back.height, height);
    ck_assert_msg(memcmp(back.rgb, img.rgb, (size_t)width * height * 3) == 0,
                  "%d x %d: the pixels read back differ", width, height);
    free_image(&back);
    free_image(&img);
}
END_TEST

/* A grey pixel (r = g = b) keeps its value as brightness: what stage 09
 * writes, and what --image reads back. */
START_TEST(test_grey_pixels_read_back_as_their_brightness)
{
    for (int v = 0; v < 256; v++)
        ck_assert_uint_eq(luminance((unsigned char)v, (unsigned char)v, (unsigned char)v), v);
}
END_TEST

START_TEST(test_writing_where_no_file_can_be_made_fails_with_a_reason)
{
    struct image img = coloured_image(3, 2);
    char why[512] = "";
    ck_assert_int_eq(write_bmp("/nonexistent/folder/out.bmp", &img, why, sizeof why), EXIT_FAILED);
    ck_assert_msg(strstr(why, "cannot create '/nonexistent/folder/out.bmp'"), "why: %s", why);
    ck_assert_msg(!strchr(why, '\n'), "not one line: %s", why);
    /* a device that takes no bytes: the failure comes from a write, or the close */
    if (access("/dev/full", W_OK) == 0) {
        ck_assert_int_eq(write_bmp("/dev/full", &img, why, sizeof why), EXIT_FAILED);
        ck_assert_msg(strstr(why, "error writing '/dev/full'"), "why: %s", why);
    }
    free_image(&img);
}
END_TEST

START_TEST(test_sizes_no_bmp_holds_are_refused_before_any_file_is_made)
{
    unsigned char pixel[3] = {0}; /* never read: each size is refused first */
    const struct {
        struct image img;
        const char *reason;
    } refused[] = {
        {{0, 5, pixel}, "a 0 x 5 image has no pixels"},
        {{5, 0, pixel}, "a 5 x 0 image has no pixels"},
        {{-3, 2, pixel}, "a -3 x 2 image has no pixels"},
        {{3, 2, NULL}, "a 3 x 2 image has no pixels"},
        /* 2^29 pixels: past what decode_bmp reads back */
        {{1 << 15, 1 << 14, pixel}, "32768 x 16384 pixels is too large for a BMP"},
    };
    const char *path = "/tmp/bmp_never_written.bmp";
    unlink(path);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char why[512] = "";
        ck_assert_int_eq(write_bmp(path, &refused[i].img, why, sizeof why), EXIT_USAGE);
        ck_assert_msg(strstr(why, refused[i].reason), "case %zu: why: %s", i, why);
        ck_assert_msg(access(path, F_OK) != 0, "case %zu: a file was made", i);
    }
}
END_TEST

TCase *bmp_tcase(void)
{
    TCase *tc = tcase_create("bmp");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_every_supported_layout_gives_every_pixel, 0, LAYOUTS);
    tcase_add_test(tc, test_32_bit_pixels_described_by_bit_fields);
    tcase_add_test(tc, test_a_missing_last_row_padding_is_accepted);
    tcase_add_test(tc, test_luminance_weights_green_most);
    tcase_add_test(tc, test_the_sample_photograph_decodes);
    tcase_add_loop_test(tc, test_malformed_files_are_rejected_with_a_reason, 0, MALFORMED);
    tcase_add_loop_test(tc, test_every_truncation_is_rejected_or_complete, 0, 2);
    tcase_add_loop_test(tc, test_random_corruption_never_reads_past_the_end, 0, 4);
    tcase_add_test(tc, test_read_bmp_names_the_file_in_its_reason);
    tcase_add_loop_test(tc, test_a_written_bmp_reads_back_pixel_for_pixel, 0, WRITTEN_SIZES);
    tcase_add_test(tc, test_grey_pixels_read_back_as_their_brightness);
    tcase_add_test(tc, test_writing_where_no_file_can_be_made_fails_with_a_reason);
    tcase_add_test(tc, test_sizes_no_bmp_holds_are_refused_before_any_file_is_made);
    return tc;
}
