/*
 * bmp.c - a BMP reader that trusts nothing in the file: the histogram of a
 * photograph's brightness is the OpenCL book's example (its figure 4.1); and
 * a writer of plain 24-bit BMPs, for a stage that makes a picture (09).
 *
 * Reads uncompressed 8-bit paletted, 24-bit and 32-bit images, stored bottom-up
 * or top-down, with rows padded to 4 bytes. Every size and offset in the file
 * is checked against the file's real length before anything is read, so a
 * truncated or hostile file gets a one-line reason, never a read past the end.
 * Part of the harness (see harness.h): a student need not read it.
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FILE_HEADER_BYTES 14
#define MAX_IMAGE_PIXELS  ((uint64_t)1 << 28) /* 268 megapixels: far past any photo */

enum { BI_RGB = 0, BI_BITFIELDS = 3 };

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A 32-bit colour mask must be one whole byte of the pixel; returns its shift or -1. */
static int byte_mask_shift(uint32_t mask)
{
    for (int shift = 0; shift < 32; shift += 8)
        if (mask == 0xFFu << shift)
            return shift;
    return -1;
}

static int bad_bmp(char *why, size_t why_len, const char *reason, uint64_t a, uint64_t b)
{
    snprintf(why, why_len, reason, (unsigned long long)a, (unsigned long long)b);
    return EXIT_USAGE;
}

int decode_bmp(const unsigned char *file, size_t size, struct image *img, char *why, size_t why_len)
{
    memset(img, 0, sizeof *img);
    if (size < FILE_HEADER_BYTES + 40)
        return bad_bmp(why, why_len, "too short for a BMP (%llu bytes)", size, 0);
    if (file[0] != 'B' || file[1] != 'M')
        return bad_bmp(why, why_len, "not a BMP file (it does not start with 'BM')", 0, 0);

    uint32_t pixel_offset = le32(file + 10);
    uint32_t header_bytes = le32(file + 14);
    if (header_bytes != 40 && header_bytes != 52 && header_bytes != 56 && header_bytes != 108 &&
        header_bytes != 124)
        return bad_bmp(why, why_len, "unsupported BMP header of %llu bytes", header_bytes, 0);
    if (FILE_HEADER_BYTES + (uint64_t)header_bytes > size)
        return bad_bmp(why, why_len, "truncated: the header needs %llu bytes, the file has %llu",
                       FILE_HEADER_BYTES + (uint64_t)header_bytes, size);

    int32_t width = (int32_t)le32(file + 18), height = (int32_t)le32(file + 22);
    uint32_t planes = le16(file + 26), bits = le16(file + 28);
    uint32_t compression = le32(file + 30), colours_used = le32(file + 46);
    if (planes != 1)
        return bad_bmp(why, why_len, "%llu colour planes (a BMP has 1)", planes, 0);
    if (width <= 0)
        return bad_bmp(why, why_len, "width %lld is not positive", (uint64_t)(int64_t)width, 0);
    if (height == 0 || height == INT32_MIN)
        return bad_bmp(why, why_len, "height %lld is not valid", (uint64_t)(int64_t)height, 0);
    bool top_down = height < 0; /* a negative height means the first row is the top */
    uint64_t rows = top_down ? (uint64_t) - (int64_t)height : (uint64_t)height;
    if ((uint64_t)width * rows > MAX_IMAGE_PIXELS)
        return bad_bmp(why, why_len, "%llu x %llu pixels is too large", (uint64_t)width, rows);
    if (bits != 8 && bits != 24 && bits != 32)
        return bad_bmp(why, why_len, "%llu-bit pixels are not supported (8, 24 or 32)", bits, 0);

    /* Where each colour sits in a 32-bit pixel: BGRX unless bit fields say otherwise. */
    int shift_r = 16, shift_g = 8, shift_b = 0;
    uint64_t after_header = FILE_HEADER_BYTES + (uint64_t)header_bytes;
    if (compression == BI_BITFIELDS && bits == 32) {
        if (header_bytes == 40)
            after_header += 12; /* the three masks follow a 40-byte header */
        if (after_header > size)
            return bad_bmp(why, why_len, "truncated: the colour masks end past the file", 0, 0);
        shift_r = byte_mask_shift(le32(file + 54));
        shift_g = byte_mask_shift(le32(file + 58));
        shift_b = byte_mask_shift(le32(file + 62));
        if (shift_r < 0 || shift_g < 0 || shift_b < 0)
            return bad_bmp(why, why_len, "colour masks other than whole bytes are not supported", 0,
                           0);
    } else if (compression != BI_RGB) {
        return bad_bmp(why, why_len, "compressed BMPs (method %llu) are not supported", compression,
                       0);
    }

    uint64_t palette_entries = 0;
    if (bits == 8) {
        palette_entries = colours_used ? colours_used : 256;
        if (palette_entries > 256)
            return bad_bmp(why, why_len, "a palette of %llu colours (at most 256)", palette_entries,
                           0);
        if (after_header + 4 * palette_entries > size)
            return bad_bmp(why, why_len, "truncated: the palette ends past the file", 0, 0);
    }
    const unsigned char *palette = file + after_header;

    uint64_t row_bytes = ((uint64_t)bits * (uint64_t)width + 31) / 32 * 4;
    uint64_t pixel_bytes = bits / 8 * (uint64_t)width;
    if (pixel_offset < after_header + 4 * palette_entries)
        return bad_bmp(why, why_len, "the pixels (at byte %llu) overlap the header", pixel_offset,
                       0);
    /* The last row's padding may be missing: some writers leave it out. */
    uint64_t end = pixel_offset + row_bytes * (rows - 1) + pixel_bytes;
    if (end > size)
        return bad_bmp(why, why_len, "truncated: the pixels need %llu bytes, the file has %llu",
                       end, size);

    unsigned char *rgb = malloc((size_t)((uint64_t)width * rows * 3));
    if (!rgb)
        return bad_bmp(why, why_len, "out of memory for %llu x %llu pixels", (uint64_t)width, rows);
    for (uint64_t y = 0; y < rows; y++) {
        const unsigned char *row = file + pixel_offset + row_bytes * (top_down ? y : rows - 1 - y);
        unsigned char *out = rgb + y * (uint64_t)width * 3;
        for (int32_t x = 0; x < width; x++, out += 3) {
            if (bits == 8) {
                uint32_t index = row[x];
                if (index >= palette_entries) {
                    free(rgb);
                    return bad_bmp(why, why_len,
                                   "a pixel uses colour %llu of a %llu-colour palette", index,
                                   palette_entries);
                }
                const unsigned char *bgr = palette + 4 * index; /* blue, green, red, unused */
                out[0] = bgr[2], out[1] = bgr[1], out[2] = bgr[0];
            } else if (bits == 24) {
                const unsigned char *bgr = row + 3 * x;
                out[0] = bgr[2], out[1] = bgr[1], out[2] = bgr[0];
            } else {
                uint32_t pixel = le32(row + 4 * x);
                out[0] = (unsigned char)(pixel >> shift_r);
                out[1] = (unsigned char)(pixel >> shift_g);
                out[2] = (unsigned char)(pixel >> shift_b);
            }
        }
    }
    img->width = width;
    img->height = (int)rows;
    img->rgb = rgb;
    return EXIT_OK;
}

int read_bmp(const char *path, struct image *img, char *why, size_t why_len)
{
    unsigned char *file;
    size_t size;
    memset(img, 0, sizeof *img);
    int status = read_file(path, &file, &size, why, why_len);
    if (status != EXIT_OK)
        return status;
    char reason[256];
    status = decode_bmp(file, size, img, reason, sizeof reason);
    if (status != EXIT_OK)
        snprintf(why, why_len, "'%s': %s", path, reason);
    free(file);
    return status;
}

unsigned char luminance(unsigned char r, unsigned char g, unsigned char b)
{
    /* ITU-R BT.601 weights, in integers, rounded: white stays 255 */
    return (unsigned char)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

void free_image(struct image *img)
{
    free(img->rgb);
    img->rgb = NULL;
}

/* ---------------------------------------------------------------- writing -- */

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v), put16(p + 2, v >> 16);
}

/* A write that failed: the reason, from errno where the library set one. */
static int write_failed(const char *path, char *why, size_t why_len)
{
    snprintf(why, why_len, "error writing '%s': %s", path,
             errno ? strerror(errno) : "the write was short");
    return EXIT_FAILED;
}

int write_bmp(const char *path, const struct image *img, char *why, size_t why_len)
{
    /* Refused before anything is created: a size decode_bmp would refuse to
     * read back (which also keeps the file far below the 4 GiB its 32-bit
     * size field can hold). */
    if (img->width <= 0 || img->height <= 0 || !img->rgb) {
        snprintf(why, why_len, "cannot write '%s': a %d x %d image has no pixels", path, img->width,
                 img->height);
        return EXIT_USAGE;
    }
    uint64_t width = (uint64_t)img->width, height = (uint64_t)img->height;
    uint64_t row_bytes = (3 * width + 3) / 4 * 4; /* each row padded to 4 bytes */
    uint64_t pixel_offset = FILE_HEADER_BYTES + 40, file_bytes = pixel_offset + row_bytes * height;
    if (width * height > MAX_IMAGE_PIXELS || file_bytes > UINT32_MAX) {
        snprintf(why, why_len, "cannot write '%s': %llu x %llu pixels is too large for a BMP", path,
                 (unsigned long long)width, (unsigned long long)height);
        return EXIT_USAGE;
    }

    unsigned char header[FILE_HEADER_BYTES + 40] = {'B', 'M'};
    put32(header + 2, (uint32_t)file_bytes);
    put32(header + 10, (uint32_t)pixel_offset);
    put32(header + 14, 40); /* BITMAPINFOHEADER */
    put32(header + 18, (uint32_t)width);
    put32(header + 22, (uint32_t)height); /* positive: the bottom row first */
    put16(header + 26, 1);                /* planes */
    put16(header + 28, 24);               /* bits per pixel */
    put32(header + 34, (uint32_t)(row_bytes * height));
    put32(header + 38, 2835); /* 72 dots per inch, in dots per metre */
    put32(header + 42, 2835); /* compression (30) and the colour counts (46, 50) stay 0 */

    unsigned char *row = calloc(1, (size_t)row_bytes); /* its padding stays 0 */
    if (!row) {
        snprintf(why, why_len, "cannot write '%s': out of memory for a row", path);
        return EXIT_FAILED;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(why, why_len, "cannot create '%s': %s", path, strerror(errno));
        free(row);
        return EXIT_FAILED;
    }
    errno = 0; /* a successful fopen may leave one behind: keep only the writes' */
    bool written = fwrite(header, sizeof header, 1, f) == 1;
    for (uint64_t y = 0; y < height && written; y++) {
        const unsigned char *rgb = img->rgb + (height - 1 - y) * width * 3;
        for (uint64_t x = 0; x < width; x++) { /* a BMP stores blue, green, red */
            row[3 * x] = rgb[3 * x + 2];
            row[3 * x + 1] = rgb[3 * x + 1];
            row[3 * x + 2] = rgb[3 * x];
        }
        written = fwrite(row, (size_t)row_bytes, 1, f) == 1;
    }
    free(row);
    /* fclose writes what the stream still buffers: a full disk may say so only here */
    int status = written ? EXIT_OK : write_failed(path, why, why_len);
    if (fclose(f) != 0 && status == EXIT_OK)
        status = write_failed(path, why, why_len);
    return status;
}
