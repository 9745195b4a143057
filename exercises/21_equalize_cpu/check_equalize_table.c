/*
 * check_equalize_table.c - a second program made from your equalize.c, for
 * make check: it calls your make_table and remap themselves, on what no
 * picture small enough to check quickly holds. The check computes the right
 * answers; this program only runs your two functions and prints what they
 * gave.
 *
 *   equalize-table tables SUMS TABLES   for each line of SUMS (256 running
 *                                       sums, cdf[0] to cdf[255]), a line of
 *                                       TABLES: make_table's 256 entries
 *   equalize-table remap SIZE [FILE]    remaps SIZE pixels, past 2^31, and
 *                                       prints how many came out wrong; with
 *                                       FILE, the picture after is that new
 *                                       file, mapped (on disk, not in memory)
 *   equalize-table remap-every          remaps 1000 pixels of every
 *                                       brightness and 3 more, then 1, 2, 3,
 *                                       5, 7 and 1001 pixels each ending at a
 *                                       guard page, through a table with many
 *                                       entries 0, into a picture filled with
 *                                       0xA5 first, and prints how many came
 *                                       out wrong
 *
 * The Makefile builds it twice: as it is (build/equalize-table) and with
 * -m32 (build/equalize-table-32), where unsigned long is 32 bits, as on
 * Windows and 32-bit ARM.
 */
#define _DEFAULT_SOURCE               /* MAP_ANONYMOUS, for the guard pages */
#define main            equalize_main /* the program's own main: built, never called here */
#include EQUALIZE_C
#undef main

#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int tables(const char *sums_path, const char *tables_path)
{
    FILE *sums = fopen(sums_path, "r"), *out = fopen(tables_path, "w");
    if (!sums || !out)
        fail("cannot open %s or %s", sums_path, tables_path);
    uint64_t cdf[BINS];
    for (;;) {
        int read = 0;
        while (read < BINS && fscanf(sums, "%" SCNu64, &cdf[read]) == 1)
            read++;
        if (read == 0)
            break;
        if (read < BINS)
            fail("%s: a line of %d running sums, not 256", sums_path, read);
        unsigned char table[BINS];
        memset(table, 0xA5, sizeof table); /* not 0: make_table sets every entry */
        make_table(cdf, table);
        for (int v = 0; v < BINS; v++)
            fprintf(out, "%d%c", table[v], v == BINS - 1 ? '\n' : ' ');
        fflush(out); /* should the next table crash, the check knows which one */
    }
    fclose(sums);
    if (fclose(out) != 0)
        fail("cannot write %s", tables_path);
    return EXIT_OK;
}

/* size bytes that end right before a page that may not be touched: a read
 * or a write one byte past them stops the program (SIGSEGV), where malloc's
 * rounding would leave room. Never freed: the program ends soon. */
static unsigned char *end_at_guard(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size + page - 1) / page + 1;
    unsigned char *map =
        mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + (pages - 1) * page, page, PROT_NONE) != 0)
        fail("remap-every: cannot map %zu bytes with a guard page", size);
    return map + (pages - 1) * page - size;
}

/* Every brightness 1000 times, in no order, and 3 more pixels; a table that
 * sends the 100 darkest levels to 0 and no level to 0xA5, the value the
 * picture after holds before the remap: a pixel skipped, because its entry
 * is 0 or it is among the last few, shows. Then pictures of 1, 2, 3, 5, 7
 * and 1001 pixels, each picture before and after ending at a guard page: a
 * remap that reads or writes past the last pixel (a loop that takes pixels
 * four at a time, say) stops there. */
static int remap_every(void)
{
    static const size_t sizes[] = {BINS * 1000 + 3, 1, 2, 3, 5, 7, 1001};
    unsigned char table[BINS];
    for (int v = 0; v < BINS; v++)
        table[v] = v < 100 ? 0 : (unsigned char)(v * 3 % 256 == 0xA5 ? 0xA4 : v * 3 % 256);
    size_t all_wrong = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t size = sizes[k];
        unsigned char *buffer = end_at_guard(size), *image = end_at_guard(size);
        for (size_t i = 0; i < size; i++)
            buffer[i] = (unsigned char)(i * 7 + i / BINS);
        memset(image, 0xA5, size);
        remap(buffer, size, table, image);
        size_t wrong = 0, first = size;
        for (size_t i = 0; i < size; i++)
            if (image[i] != table[buffer[i]] && wrong++ == 0)
                first = i;
        printf("remapped %zu pixels: %zu wrong", size, wrong);
        if (wrong)
            printf(", the first pixel %zu, %d after, where table[%d] = %d", first, image[first],
                   buffer[first], table[buffer[first]]);
        printf("\n");
        all_wrong += wrong;
    }
    return all_wrong ? EXIT_FAILED : EXIT_OK;
}

#if SIZE_MAX > UINT32_MAX /* a picture past 2^31 pixels needs 64-bit addresses */
/* The pixels are 0 but for a ramp of every brightness at the start, and
 * another over the last ones, from 2^31 - 4096 on: where an index of 32 bits
 * has wrapped. calloc's pages of zeros are read without being written, so
 * only the picture after costs memory. The table sends no brightness to 0,
 * the value the picture after starts with: a pixel never written shows. */
static int remap_large(const char *size_text, const char *on_disk)
{
    char *end;
    unsigned long long size = strtoull(size_text, &end, 10);
    if (*end || size <= (1ull << 31) || size > MAX_INPUT_BYTES)
        fail("remap: the size must be past 2^31 and at most %zu", MAX_INPUT_BYTES);
    const size_t ramp = 4096, late = ((size_t)1 << 31) - ramp;
    unsigned char *buffer = calloc((size_t)size, 1), *image;
    if (on_disk) {
        /* the picture after in a new file of that size, with no blocks yet:
         * its pages read as 0, and those written go to the disk's cache */
        int fd = open(on_disk, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
            fail("remap: cannot make %s, %llu bytes", on_disk, size);
        image = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (image == MAP_FAILED)
            fail("remap: cannot map %s", on_disk);
    } else if (!(image = malloc((size_t)size)))
        fail("remap: out of memory for two pictures of %llu pixels", size);
    if (!buffer)
        fail("remap: out of memory for two pictures of %llu pixels", size);
    for (size_t i = 0; i < ramp; i++)
        buffer[i] = (unsigned char)(i * 7);
    for (size_t i = late; i < size; i++)
        buffer[i] = (unsigned char)(i * 13 + 5);
    if (!on_disk)
        memset(image, 0, (size_t)size);
    unsigned char table[BINS];
    for (int v = 0; v < BINS; v++)
        table[v] = (unsigned char)(255 - v / 2);
    remap(buffer, (size_t)size, table, image);

    /* Between the ramps every pixel should be table[0]: compared a block at a time. */
    static unsigned char block[1 << 16];
    memset(block, table[0], sizeof block);
    unsigned long long wrong = 0, first_wrong = size;
    for (size_t i = 0; i < size;) {
        bool plain = i >= ramp && i < late;
        size_t n = plain ? (late - i < sizeof block ? late - i : sizeof block) : 1;
        if (plain && memcmp(image + i, block, n) == 0) {
            i += n;
            continue;
        }
        for (size_t k = i; k < i + n; k++)
            if (image[k] != table[buffer[k]]) {
                wrong++;
                if (first_wrong == size)
                    first_wrong = k;
            }
        i += n;
    }
    printf("remapped %llu pixels: %llu wrong", size, wrong);
    if (wrong)
        printf(", the first pixel %llu, %d after, where table[%d] = %d", first_wrong,
               image[first_wrong], buffer[first_wrong], table[buffer[first_wrong]]);
    printf("\n");
    free(buffer);
    if (on_disk) {
        munmap(image, (size_t)size);
        unlink(on_disk);
    } else
        free(image);
    return wrong ? EXIT_FAILED : EXIT_OK;
}
#endif

int main(int argc, char **argv)
{
    program_name = "equalize-table";
    if (argc == 4 && strcmp(argv[1], "tables") == 0)
        return tables(argv[2], argv[3]);
    if (argc == 2 && strcmp(argv[1], "remap-every") == 0)
        return remap_every();
#if SIZE_MAX > UINT32_MAX
    if (argc == 3 && strcmp(argv[1], "remap") == 0)
        return remap_large(argv[2], NULL);
    if (argc == 4 && strcmp(argv[1], "remap") == 0)
        return remap_large(argv[2], argv[3]);
#endif
    fprintf(stderr, "usage: %s tables SUMS TABLES | %s remap SIZE [FILE] | %s remap-every\n",
            argv[0], argv[0], argv[0]);
    return EXIT_USAGE;
}
