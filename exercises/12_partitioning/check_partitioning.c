/*
 * check_partitioning.c - exercise 12 writes both walks, and the check looks at
 * the walks themselves, not only at the histogram they give: --show-pattern
 * prints the bytes each work-item reads, step by step. Interleaved: at every
 * step, neighbouring items read neighbouring bytes (item t reads t + s x T at
 * step s). Contiguous: each item reads one unbroken run, the runs follow one
 * another in item order and cover every byte once, and none is longer than a
 * fair share. The check's own host also calls both walks from one work-item,
 * for items and sizes unlike its launch: a walk follows its arguments. Then
 * both histograms match the CPU's on every size and launch, and
 * --show-sectors's counts of the 32-byte sectors a warp would load match the
 * check's own, from the same walks.
 * The given kernel is watched under Oclgrind: no race on small launches, its
 * loop right near 4 GiB and its merge shared by the work-group, both seen
 * from a host of the check's own (check_partitioning_quick.c). Without any
 * OpenCL device these checks are reported as skipped; without Oclgrind, the
 * three groups that need it are.
 */
#include "stage_checks.h"

#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define MAX_ITEMS 1024

/* What --show-pattern printed for one walk: reads[t][0 .. count[t] - 1]. */
struct pattern {
    int exit_status;
    size_t items;
    size_t count[MAX_ITEMS];
    uint64_t *reads[MAX_ITEMS];
};

static void free_pattern(struct pattern *p)
{
    for (size_t t = 0; t < MAX_ITEMS; t++)
        free(p->reads[t]);
}

/* Runs ./partitioning --show-pattern ARGS and keeps the lines of one walk. */
static void read_pattern(const char *args, const char *walk, struct pattern *p)
{
    memset(p, 0, sizeof *p);
    char command[1024], want[64];
    snprintf(command, sizeof command, "'%s' --show-pattern %s 2>/dev/null", stage_program(), args);
    snprintf(want, sizeof want, "pattern %s:", walk);
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    static char line[1 << 16];
    bool mine = false;
    while (fgets(line, sizeof line, out)) {
        if (strncmp(line, "pattern ", 8) == 0)
            mine = strncmp(line, want, strlen(want)) == 0;
        size_t t;
        int used;
        if (!mine || sscanf(line, "item %zu:%n", &t, &used) != 1 || t >= MAX_ITEMS)
            continue;
        if (t + 1 > p->items)
            p->items = t + 1;
        size_t cap = 16;
        p->reads[t] = realloc(p->reads[t], cap * sizeof(uint64_t));
        char *at = line + used, *end;
        for (uint64_t byte = strtoull(at, &end, 10); end != at; byte = strtoull(at, &end, 10)) {
            if (p->count[t] == cap)
                p->reads[t] = realloc(p->reads[t], (cap *= 2) * sizeof(uint64_t));
            p->reads[t][p->count[t]++] = byte;
            at = end;
        }
    }
    int status = pclose(out);
    p->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Small grids: sizes that are not multiples of the items, fewer bytes than
 * items, no bytes, several work-groups (a stride of the work-group size shows). */
static const struct grid {
    size_t size;
    int blocks, threads;
} grids[] = {{10, 1, 4},    {10, 2, 3},    {3, 1, 8},  {0, 1, 4},
             {1000, 3, 64}, {257, 2, 256}, {64, 4, 16}};
#define GRIDS ((int)(sizeof grids / sizeof grids[0]))

static void grid_args(const struct grid *g, char *args, size_t size)
{
    snprintf(args, size, "--size %zu --blocks %d --threads %d", g->size, g->blocks, g->threads);
}

START_TEST(test_interleaved_puts_neighbouring_items_on_neighbouring_bytes)
{
    const struct grid *g = &grids[_i];
    char args[128];
    grid_args(g, args, sizeof args);
    struct pattern p;
    read_pattern(args, "interleaved", &p);
    size_t items = (size_t)g->blocks * (size_t)g->threads;
    ck_assert_msg(p.exit_status == 0 && p.items == items,
                  "./partitioning --show-pattern %s: exit %d and %zu items of the interleaved "
                  "pattern, expected exit 0 and %zu items",
                  args, p.exit_status, p.items, items);
    for (size_t t = 0; t < items; t++) {
        size_t expected = t < g->size ? (g->size - t + items - 1) / items : 0;
        for (size_t s = 0; s < p.count[t] && s < expected; s++)
            ck_assert_msg(
                p.reads[t][s] == t + s * items,
                "./partitioning --show-pattern %s: interleaved, item %zu reads byte %" PRIu64
                " at step %zu, expected %zu (t + step x %zu items: at each step, "
                "neighbouring items on neighbouring bytes)",
                args, t, p.reads[t][s], s, t + s * items, items);
        ck_assert_msg(p.count[t] == expected,
                      "./partitioning --show-pattern %s: interleaved, item %zu reads %zu bytes, "
                      "expected %zu (bytes %zu, %zu + %zu, ... below %zu)",
                      args, t, p.count[t], expected, t, t, items, g->size);
    }
    free_pattern(&p);
}
END_TEST

/* Balanced slices: none longer than size / items rounded up, but one, which
 * may take the remainder whole (size / items + size % items, as chapter 01's
 * last thread does). Slices longer than that leave items with nothing to
 * read while others read more, though every byte is read once, in order:
 * 127 bytes in slices of 64 on 64 items keep two items busy. longer counts
 * the slices past the rounded-up share so far. */
static void check_slice_is_balanced(const char *where, uint64_t size, uint64_t items, uint64_t t,
                                    uint64_t length, uint64_t *longer)
{
    uint64_t share = size / items + (size % items != 0), most = size / items + size % items;
    *longer += length > share;
    ck_assert_msg(length <= most && *longer <= 1,
                  "%s: contiguous, item %" PRIu64 " reads %" PRIu64 " bytes: %s (%" PRIu64
                  " bytes shared by %" PRIu64 " items: no slice longer than %" PRIu64
                  ", but one that may take the remainder whole, %" PRIu64 " bytes)",
                  where, t, length,
                  length > most ? "too long" : "a second slice longer than its share", size, items,
                  share, most);
}

START_TEST(test_contiguous_gives_each_item_one_unbroken_slice)
{
    const struct grid *g = &grids[_i];
    char args[128];
    grid_args(g, args, sizeof args);
    struct pattern p;
    read_pattern(args, "contiguous", &p);
    size_t items = (size_t)g->blocks * (size_t)g->threads;
    ck_assert_msg(p.exit_status == 0 && p.items == items,
                  "./partitioning --show-pattern %s: exit %d and %zu items of the contiguous "
                  "pattern, expected exit 0 and %zu items",
                  args, p.exit_status, p.items, items);
    /* Read item after item, the slices must spell 0, 1, 2, ..., size - 1. */
    size_t next = 0;
    uint64_t longer = 0;
    for (size_t t = 0; t < items; t++) {
        for (size_t s = 0; s < p.count[t]; s++, next++)
            ck_assert_msg(
                p.reads[t][s] == next,
                "./partitioning --show-pattern %s: contiguous, item %zu reads byte %" PRIu64
                " at step %zu, expected %zu (each item one unbroken slice, right after "
                "the previous item's: every byte once, in order)",
                args, t, p.reads[t][s], s, next);
        char where[160];
        snprintf(where, sizeof where, "./partitioning --show-pattern %s", args);
        check_slice_is_balanced(where, g->size, items, t, p.count[t], &longer);
    }
    ck_assert_msg(next == g->size,
                  "./partitioning --show-pattern %s: contiguous, the slices cover bytes 0 to %zu, "
                  "expected all %zu bytes (the remainder of %zu / %zu must be read too)",
                  args, next, g->size, g->size, items);
    free_pattern(&p);
}
END_TEST

/* ---------------------------------------------------------- any size -- */

/* What --show-walks printed for one walk: first, step and end of each item. */
struct walks {
    int exit_status;
    uint64_t items;
    uint64_t (*walk)[3];
};

static void read_walks(uint64_t size, uint64_t items, const char *name, struct walks *w)
{
    char command[1024], line[256];
    snprintf(command, sizeof command, "'%s' --show-walks %" PRIu64 "/%" PRIu64 " 2>/dev/null",
             stage_program(), size, items);
    w->items = 0;
    w->walk = calloc(items, sizeof *w->walk);
    ck_assert(w->walk != NULL);
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    size_t length = strlen(name);
    while (fgets(line, sizeof line, out)) {
        uint64_t t, first, step, end;
        if (strncmp(line, name, length) == 0 &&
            sscanf(line + length,
                   " item %" SCNu64 ": first %" SCNu64 " step %" SCNu64 " end %" SCNu64, &t, &first,
                   &step, &end) == 4 &&
            t == w->items && t < items) {
            w->walk[t][0] = first, w->walk[t][1] = step, w->walk[t][2] = end;
            w->items++;
        }
    }
    int status = pclose(out);
    w->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Sizes past 2^24, where a float stops holding every whole number, past
 * 2^32 (a 32-bit length), and past 2^53, where a double stops: a slice's
 * length or start computed through either rounds, and bytes are lost or
 * read twice. Up to 2^63 - 1, the largest size the task promises (size + a
 * slice's length still fits in 64 bits there): a product such as t x size
 * overflows long before. Four sizes are multiples of their items, so that
 * every share is size / items exactly: a start rounded up by a double makes
 * the slice before it one byte too long, with no gap and no overlap to show
 * it. */
static const struct walk_case {
    uint64_t size, items;
} walk_cases[] = {
    {(1ull << 24) + 1, 1},     {(1ull << 24) + 1, 3},    {(1ull << 24) + 3, 1024},
    {3 * (1ull << 24) + 1, 7}, {1000000007, 1000},       {(1ull << 32) + 7, 3},
    {(1ull << 32) + 1, 65536}, {(1ull << 53) + 1, 1},    {(1ull << 53) + 3, 3},
    {(1ull << 53) + 1, 1024},  {(1ull << 54) - 1, 1000}, {(1ull << 54) - 3, 65536},
    {(1ull << 53) + 1, 3},     {(1ull << 53) + 3, 7},    {(1ull << 53) + 8, 1000},
    {(1ull << 54) - 1, 7},     {(1ull << 63) - 1, 2},    {(1ull << 63) - 1, 65536},
    {(1ull << 63) - 25, 3},
};
#define WALK_CASES ((int)(sizeof walk_cases / sizeof walk_cases[0]))

START_TEST(test_interleaved_walks_are_exact_past_2_to_the_24_and_53)
{
    uint64_t size = walk_cases[_i].size, items = walk_cases[_i].items;
    struct walks w;
    read_walks(size, items, "interleaved", &w);
    ck_assert_msg(w.exit_status == 0 && w.items == items,
                  "./partitioning --show-walks %" PRIu64 "/%" PRIu64 ": exit %d and %" PRIu64
                  " interleaved walks, expected exit 0 and %" PRIu64,
                  size, items, w.exit_status, w.items, items);
    for (uint64_t t = 0; t < items; t++)
        ck_assert_msg(w.walk[t][0] == t && w.walk[t][1] == items && w.walk[t][2] == size,
                      "./partitioning --show-walks %" PRIu64 "/%" PRIu64
                      ": interleaved, item %" PRIu64 " walks {first %" PRIu64 ", step %" PRIu64
                      ", end %" PRIu64 "}, expected {first %" PRIu64 ", step %" PRIu64
                      ", end %" PRIu64 "}",
                      size, items, t, w.walk[t][0], w.walk[t][1], w.walk[t][2], t, items, size);
    free(w.walk);
}
END_TEST

/* The contiguous walks of items items over size bytes (walk[t]: first, step
 * and end of item t, as where printed them): item after item, the slices
 * that read anything follow one another from 0 to size, balanced. */
static void check_contiguous_walks(const char *where, uint64_t size, uint64_t items,
                                   uint64_t (*walk)[3])
{
    /* Item after item, the slices that read anything follow one another from 0 to size. */
    uint64_t next = 0, longer = 0;
    for (uint64_t t = 0; t < items; t++) {
        uint64_t first = walk[t][0], step = walk[t][1], end = walk[t][2];
        if (first >= end)
            continue; /* an empty slice reads nothing */
        ck_assert_msg(first == next && end <= size && (step == 1 || end - first == 1),
                      "%s: contiguous, item %" PRIu64 " walks {first %" PRIu64 ", step %" PRIu64
                      ", end %" PRIu64 "}, expected {first %" PRIu64
                      ", step 1, end at most %" PRIu64
                      "}: each slice starts where the one before it ended (%s)",
                      where, t, first, step, end, next, size,
                      first > next ? "the bytes in between are never read"
                                   : "bytes are read twice, or the walk is not one slice");
        check_slice_is_balanced(where, size, items, t, end - first, &longer);
        next = end;
    }
    ck_assert_msg(next == size,
                  "%s: contiguous, the slices end at byte %" PRIu64 " of %" PRIu64
                  ": the bytes from there on are never read (a length or a start gone wrong: "
                  "rounded in a float past 2^24 or a double past 2^53, or a product that "
                  "passed 2^64 and wrapped)",
                  where, next, size);
}

/* --show-walks SIZE/ITEMS's contiguous walks, every item's there and each
 * slice within the rules (check_contiguous_walks). */
static void read_checked_contiguous_walks(uint64_t size, uint64_t items, struct walks *w)
{
    read_walks(size, items, "contiguous", w);
    ck_assert_msg(w->exit_status == 0 && w->items == items,
                  "./partitioning --show-walks %" PRIu64 "/%" PRIu64 ": exit %d and %" PRIu64
                  " contiguous walks, expected exit 0 and %" PRIu64,
                  size, items, w->exit_status, w->items, items);
    char where[160];
    snprintf(where, sizeof where, "./partitioning --show-walks %" PRIu64 "/%" PRIu64, size, items);
    check_contiguous_walks(where, size, items, w->walk);
}

START_TEST(test_contiguous_slices_are_exact_past_2_to_the_24_and_53)
{
    struct walks w;
    read_checked_contiguous_walks(walk_cases[_i].size, walk_cases[_i].items, &w);
    free(w.walk);
}
END_TEST

/* ------------------------------------- the walks' own arguments -- */

static char quick_program[4096]; /* check_partitioning_quick.c, built beside the check */

/* Each walk is given the size, the items and the item t, and must follow
 * them: the program always launches one work-item per item, so a walk that
 * reads get_global_id and get_global_size instead looks right in every run
 * of it. The check's own host (its walks mode) puts a kernel after your file
 * that calls both walks for every item of these cases, all from one
 * work-item of one work-group: on the solution the walks are those of
 * groups 2 to 4 (interleaved {t, T, size}; contiguous slices joined up from
 * 0 to size and balanced), and a walk that reads the launch instead gives
 * every item {0, 1, size}, the walk of item 0 of a grid of 1. */
static const struct walk_case unlike_the_launch[] = {
    {10, 4},
    {10, 3},
    {3, 8},
    {0, 4},
    {1, 2},
    {1000, 192},
    {257, 512},
    {1000003, 1000},
    {(1ull << 24) + 1, 3},
    {(1ull << 32) + 7, 5},
    {(1ull << 63) - 1, 7},
};
#define UNLIKE_THE_LAUNCH ((int)(sizeof unlike_the_launch / sizeof unlike_the_launch[0]))

START_TEST(test_walks_follow_their_arguments_not_the_launch)
{
    char command[8192], line[256];
    int used = snprintf(command, sizeof command, "timeout %d '%s' '%s.cl' walks",
                        QUICK_HOST_SECONDS, quick_program, stage_program());
    uint64_t(*walk[UNLIKE_THE_LAUNCH][2])[3];
    uint64_t seen[UNLIKE_THE_LAUNCH][2] = {{0}};
    for (int c = 0; c < UNLIKE_THE_LAUNCH; c++) {
        used += snprintf(command + used, sizeof command - (size_t)used, " %" PRIu64 "/%" PRIu64,
                         unlike_the_launch[c].size, unlike_the_launch[c].items);
        for (int v = 0; v < 2; v++) {
            walk[c][v] = calloc(unlike_the_launch[c].items, sizeof *walk[c][v]);
            ck_assert(walk[c][v] != NULL);
        }
    }
    snprintf(command + used, sizeof command - (size_t)used, " 2>&1");
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    char said[1024] = "";
    while (fgets(line, sizeof line, out)) {
        char name[16];
        uint64_t size, items, t, first, step, end;
        if (sscanf(line,
                   "%15s %" SCNu64 "/%" SCNu64 " item %" SCNu64 ": first %" SCNu64 " step %" SCNu64
                   " end %" SCNu64,
                   name, &size, &items, &t, &first, &step, &end) != 7) {
            if (strlen(said) + strlen(line) < sizeof said)
                strcat(said, line);
            continue;
        }
        int v = strcmp(name, "contiguous") == 0;
        for (int c = 0; c < UNLIKE_THE_LAUNCH; c++)
            if (unlike_the_launch[c].size == size && unlike_the_launch[c].items == items &&
                t == seen[c][v] && t < items) {
                walk[c][v][t][0] = first, walk[c][v][t][1] = step, walk[c][v][t][2] = end;
                seen[c][v]++;
            }
    }
    int status = pclose(out);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    for (int c = 0; c < UNLIKE_THE_LAUNCH; c++) {
        uint64_t size = unlike_the_launch[c].size, items = unlike_the_launch[c].items;
        ck_assert_msg(code == 0 && seen[c][0] == items && seen[c][1] == items,
                      "%s: exit %d and %" PRIu64 " interleaved and %" PRIu64
                      " contiguous walks of %" PRIu64 "/%" PRIu64 ", expected exit 0 and %" PRIu64
                      " of each: %s",
                      command, code, seen[c][0], seen[c][1], size, items, items, said);
        char where[160];
        snprintf(where, sizeof where,
                 "the check's host (check_partitioning_quick.c), your walks called for %" PRIu64
                 "/%" PRIu64 " from one work-item",
                 size, items);
        for (uint64_t t = 0; t < items; t++)
            ck_assert_msg(
                walk[c][0][t][0] == t && walk[c][0][t][1] == items && walk[c][0][t][2] == size,
                "%s: interleaved, item %" PRIu64 " walks {first %" PRIu64 ", step %" PRIu64
                ", end %" PRIu64 "}, expected {first %" PRIu64 ", step %" PRIu64 ", end %" PRIu64
                "}: a walk follows its arguments t, items and size, not the launch's "
                "get_global_id and get_global_size",
                where, t, walk[c][0][t][0], walk[c][0][t][1], walk[c][0][t][2], t, items, size);
        check_contiguous_walks(where, size, items, walk[c][1]);
    }
    for (int c = 0; c < UNLIKE_THE_LAUNCH; c++)
        free(walk[c][0]), free(walk[c][1]);
}
END_TEST

/* ------------------------------- more than 2^32 work-items -- */

/* The program takes --blocks up to 2^31 - 1 of up to 1024 work-items, about
 * 2^41 in all, and no test launch comes near 2^32: the check's own host (its
 * walks mode, items FROM to FROM + COUNT - 1) calls both walks for runs of 8
 * items, at the first items, around items 2^31 and 2^32 (where an item's
 * number, or its product with a share or a remainder, passes 32 or 64 bits)
 * and at the last items, of grids of 2^33 work-items (on 2^62 + 2^33 - 1
 * bytes, and on 4 GiB - 1 bytes, an input the program takes:
 * --blocks 8388608 --threads 1024) and of the largest grid, on 2^63 - 1
 * bytes. Within a run the slices join up; across runs they go on in item
 * order, none starting before an earlier one ended; each is balanced, and
 * no slice leaves more bytes before or after it than the items before or
 * after it can read. */
#define RUN 8
static const struct walk_case many_items[] = {
    {(1ull << 62) + (1ull << 33) - 1, 1ull << 33},
    {(1ull << 32) - 1, 1ull << 33},
    {(1ull << 63) - 1, ((1ull << 31) - 1) * 1024},
};
#define MANY_ITEMS ((int)(sizeof many_items / sizeof many_items[0]))
#define RUNS       4

static uint64_t run_from(uint64_t items, int r)
{
    const uint64_t from[RUNS] = {0, (1ull << 31) - RUN / 2, (1ull << 32) - RUN / 2, items - RUN};
    return from[r];
}

START_TEST(test_walks_of_more_than_2_to_the_32_items)
{
    char command[4096], line[256];
    int used = snprintf(command, sizeof command, "timeout %d '%s' '%s.cl' walks",
                        QUICK_HOST_SECONDS, quick_program, stage_program());
    static uint64_t walk[MANY_ITEMS][RUNS][RUN][2][3];
    int seen[MANY_ITEMS][RUNS][2] = {{{0}}};
    for (int c = 0; c < MANY_ITEMS; c++)
        for (int r = 0; r < RUNS; r++)
            used += snprintf(command + used, sizeof command - (size_t)used,
                             " %" PRIu64 "/%" PRIu64 ":%" PRIu64 "+%d", many_items[c].size,
                             many_items[c].items, run_from(many_items[c].items, r), RUN);
    snprintf(command + used, sizeof command - (size_t)used, " 2>&1");
    FILE *out = popen(command, "r");
    ck_assert_msg(out != NULL, "cannot run %s", command);
    char said[1024] = "";
    while (fgets(line, sizeof line, out)) {
        char name[16];
        uint64_t size, items, t, first, step, end;
        if (sscanf(line,
                   "%15s %" SCNu64 "/%" SCNu64 " item %" SCNu64 ": first %" SCNu64 " step %" SCNu64
                   " end %" SCNu64,
                   name, &size, &items, &t, &first, &step, &end) != 7) {
            if (strlen(said) + strlen(line) < sizeof said)
                strcat(said, line);
            continue;
        }
        int v = strcmp(name, "contiguous") == 0;
        for (int c = 0; c < MANY_ITEMS; c++)
            for (int r = 0; r < RUNS; r++)
                if (many_items[c].size == size && many_items[c].items == items &&
                    t == run_from(items, r) + (uint64_t)seen[c][r][v] && seen[c][r][v] < RUN) {
                    uint64_t *w = walk[c][r][seen[c][r][v]++][v];
                    w[0] = first, w[1] = step, w[2] = end;
                    break;
                }
    }
    int status = pclose(out);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    for (int c = 0; c < MANY_ITEMS; c++) {
        uint64_t size = many_items[c].size, items = many_items[c].items;
        uint64_t share = size / items + (size % items != 0), most = size / items + size % items;
        char where[200];
        snprintf(where, sizeof where,
                 "the check's host (check_partitioning_quick.c), your walks called for %" PRIu64
                 " bytes on %" PRIu64 " items",
                 size, items);
        uint64_t next = 0, longer = 0;
        for (int r = 0; r < RUNS; r++) {
            ck_assert_msg(code == 0 && seen[c][r][0] == RUN && seen[c][r][1] == RUN,
                          "%s: exit %d and %d interleaved and %d contiguous walks of items %" PRIu64
                          " on, expected exit 0 and %d of each: %s",
                          command, code, seen[c][r][0], seen[c][r][1], run_from(items, r), RUN,
                          said);
            bool joined = run_from(items, r) == 0; /* item 0's slice starts at byte 0 */
            for (int i = 0; i < RUN; i++) {
                uint64_t t = run_from(items, r) + (uint64_t)i, *a = walk[c][r][i][0],
                         *b = walk[c][r][i][1];
                ck_assert_msg(a[0] == t && a[1] == items && a[2] == size,
                              "%s: interleaved, item %" PRIu64 " walks {first %" PRIu64
                              ", step %" PRIu64 ", end %" PRIu64 "}, expected {first %" PRIu64
                              ", step %" PRIu64 ", end %" PRIu64 "}",
                              where, t, a[0], a[1], a[2], t, items, size);
                if (b[0] >= b[2])
                    continue; /* an empty slice reads nothing */
                /* bytes before the slice: items 0 to t - 1 read them, at most share each, one
                 * of them most; after it, items t + 1 on */
                unsigned __int128 before = (unsigned __int128)t * share + (most - share),
                                  after =
                                      (unsigned __int128)(items - 1 - t) * share + (most - share);
                ck_assert_msg(
                    (joined ? b[0] == next : b[0] >= next) && b[2] <= size &&
                        (b[1] == 1 || b[2] - b[0] == 1) && b[0] <= before && size - b[2] <= after,
                    "%s: contiguous, item %" PRIu64 " walks {first %" PRIu64 ", step %" PRIu64
                    ", end %" PRIu64 "}, expected {first %s%" PRIu64
                    ", step 1, end at most %" PRIu64 "}, with at most %" PRIu64
                    " bytes left after it for the %" PRIu64
                    " items after it (slices in item order, joined up, balanced: past 2^32 "
                    "items, does a product of an item's number wrap?)",
                    where, t, b[0], b[1], b[2], joined ? "" : "at least ", next, size,
                    (uint64_t)(after > size ? size : after), items - 1 - t);
                check_slice_is_balanced(where, size, items, t, b[2] - b[0], &longer);
                next = b[2], joined = true;
            }
        }
    }
}
END_TEST

static const size_t sizes[] = {0, 1, 257, 1000003};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

START_TEST(test_both_walks_match_reference)
{
    const char *variant = _i % 2 ? "--variant contiguous" : "--variant interleaved";
    check_matches_reference(sizes[_i / 4], (_i / 2) % 2 ? DATA_CONSTANT : DATA_UNIFORM,
                            1200 + (uint64_t)_i, variant);
}
END_TEST

/* 256000 work-items on 300007 bytes: a walk's arithmetic whose products of an
 * item's number and the remainder (44007) need more than 32 bits; and
 * work-groups of 1024, the largest the program takes */
static const char *const launches[] = {"--threads 1",
                                       "--threads 33",
                                       "--blocks 1 --threads 64",
                                       "--blocks 1000 --threads 32",
                                       "--blocks 1000 --threads 256",
                                       "--blocks 3 --threads 1024"};
#define LAUNCHES ((int)(sizeof launches / sizeof launches[0]))

START_TEST(test_every_launch_matches_reference)
{
    char args[128];
    snprintf(args, sizeof args, "--variant %s %s", _i % 2 ? "contiguous" : "interleaved",
             launches[_i / 2]);
    check_matches_reference(300007, DATA_UNIFORM, 12, args);
}
END_TEST

/* The default runs both walks on one input and reports a row for each. */
START_TEST(test_times_both_walks_side_by_side)
{
    const char *args = "--size 1M --reps 1";
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "./partitioning %s: %s (expected exit 0), stderr: %s", args,
                  exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\ninterleaved ") && strstr(o.out, "\ncontiguous "),
                  "./partitioning %s: expected a row for each walk, got:\n%s", args, o.out);
    ck_assert_msg(o.says_verified, "./partitioning %s: no 'verified: yes' line", args);
}
END_TEST

/* ------------------------------------------------ the sector view -- */

/* --show-sectors prints, for each walk, what a GPU's loads would fetch: a
 * warp is 32 work-items in a row of one work-group, at each step each reads
 * one byte, and a load fetches the 32-byte sectors holding them. The check
 * counts them itself, by a plainer method than the program's (each lane
 * against every other), from the walks' definitions: the interleaved walk
 * {t, T, size}, the contiguous one your slices as --show-walks prints them,
 * held to the slice rules first. The grids: 1552-byte slices, as at chapter
 * 03's launch on the H100, where the odd items start 16 bytes into a sector
 * (new sectors in bunches of 16); a size with a remainder; work-groups of 48
 * (warps of 32 and 16: none spans two work-groups); 100 bytes on 64 items
 * (warp 0 takes fewer steps than all warps together); fewer bytes than a
 * warp; none. */
static const struct grid sector_grids[] = {{1589248, 4, 256}, {1000003, 3, 64}, {100000, 2, 48},
                                           {100, 1, 64},      {10, 1, 4},       {0, 1, 4}};
#define SECTOR_GRIDS ((int)(sizeof sector_grids / sizeof sector_grids[0]))
#define SHOWN_STEPS  48 /* warp 0's first steps, which the program prints */

struct sector_count {
    uint64_t steps, touched, fresh, entering, shown, warp0[SHOWN_STEPS];
};

static void count_sectors(uint64_t (*walk)[3], uint64_t items, uint64_t threads,
                          struct sector_count *c)
{
    memset(c, 0, sizeof *c);
    uint64_t lanes;
    for (uint64_t w = 0; w < items; w += lanes) {
        lanes = threads - w % threads < 32 ? threads - w % threads : 32;
        uint64_t before[32], now[32];
        int had = 0;
        for (uint64_t s = 0;; s++) {
            int n = 0;
            for (uint64_t l = 0; l < lanes; l++) {
                uint64_t first = walk[w + l][0], step = walk[w + l][1], end = walk[w + l][2];
                if (first >= end || s > (end - first - 1) / step)
                    continue; /* lane l has read all its bytes */
                uint64_t sector = (first + s * step) / 32;
                bool seen = false;
                for (int k = 0; k < n; k++)
                    seen |= now[k] == sector;
                if (!seen)
                    now[n++] = sector;
            }
            if (n == 0)
                break; /* no lane reads at this step, nor at any later one */
            int fresh = 0;
            for (int k = 0; k < n; k++) {
                bool old = false;
                for (int j = 0; j < had; j++)
                    old |= before[j] == now[k];
                fresh += !old;
            }
            c->steps++, c->touched += (uint64_t)n, c->fresh += (uint64_t)fresh;
            c->entering += fresh > 0;
            if (w == 0 && s < SHOWN_STEPS)
                c->warp0[c->shown++] = (uint64_t)fresh;
            memcpy(before, now, (size_t)n * sizeof *now);
            had = n;
        }
    }
}

static double ratio(uint64_t count, uint64_t of)
{
    return of ? (double)count / (double)of : 0;
}

START_TEST(test_show_sectors_counts_what_a_warp_loads)
{
    const struct grid *g = &sector_grids[_i / 2];
    const int contiguous = _i % 2;
    const char *name = contiguous ? "contiguous" : "interleaved";
    uint64_t size = g->size, threads = (uint64_t)g->threads;
    uint64_t items = (uint64_t)g->blocks * threads;
    char args[160];
    snprintf(args, sizeof args, "--show-sectors --size %" PRIu64 " --blocks %d --threads %d", size,
             g->blocks, g->threads);
    struct walks w;
    if (contiguous) {
        read_checked_contiguous_walks(size, items, &w);
    } else {
        w.walk = calloc(items, sizeof *w.walk);
        ck_assert(w.walk != NULL);
        for (uint64_t t = 0; t < items; t++)
            w.walk[t][0] = t, w.walk[t][1] = items, w.walk[t][2] = size;
    }
    struct sector_count c;
    count_sectors(w.walk, items, threads, &c);
    free(w.walk);
    /* What the program must print for this walk, line after line. */
    char expected[6][512];
    snprintf(expected[0], sizeof expected[0],
             "sectors %s: %" PRIu64 " byte%s, %d work-group%s x %d work-item%s", name, size,
             size == 1 ? "" : "s", g->blocks, g->blocks == 1 ? "" : "s", g->threads,
             g->threads == 1 ? "" : "s");
    snprintf(expected[1], sizeof expected[1], "  warp steps           %" PRIu64, c.steps);
    snprintf(expected[2], sizeof expected[2], "  sectors touched      %" PRIu64 ", %.2f a step",
             c.touched, ratio(c.touched, c.steps));
    snprintf(expected[3], sizeof expected[3], "  new sectors          %" PRIu64 ", %.2f a step",
             c.fresh, ratio(c.fresh, c.steps));
    snprintf(expected[4], sizeof expected[4],
             "  steps with new ones  %" PRIu64 ", %.1f%% of the steps, %.2f new sectors each",
             c.entering, 100 * ratio(c.entering, c.steps), ratio(c.fresh, c.entering));
    int used = snprintf(expected[5], sizeof expected[5],
                        "  warp 0, new sectors at its first %" PRIu64 " steps:", c.shown);
    for (uint64_t s = 0; s < c.shown; s++)
        used += snprintf(expected[5] + used, sizeof expected[5] - (size_t)used, " %" PRIu64,
                         c.warp0[s]);
    struct stage_output o;
    run_stage(args, &o);
    ck_assert_msg(o.exit_status == 0, "./partitioning %s: %s (expected exit 0), stderr: %s", args,
                  exit_meaning(&o), o.err);
    char header[64];
    snprintf(header, sizeof header, "\nsectors %s:", name);
    const char *at = strstr(o.out, header);
    ck_assert_msg(at != NULL, "./partitioning %s: no line 'sectors %s: ...'; got:\n%s", args, name,
                  o.out);
    at++;
    for (int k = 0; k < 6; k++) {
        size_t length = strcspn(at, "\n");
        ck_assert_msg(length == strlen(expected[k]) && strncmp(at, expected[k], length) == 0,
                      "./partitioning %s: %s, line %d of its sector counts reads\n'%.*s', "
                      "expected\n'%s'\n(the check's own count of the distinct 32-byte sectors "
                      "each warp of 32 work-items of a work-group touches at each step, and of "
                      "those its step before did not touch, from the %s walk%s)",
                      args, name, k + 1, (int)length, at, expected[k], name,
                      contiguous ? "'s slices that --show-walks prints" : ": {t, T, size}");
        at += length + (at[length] == '\n');
    }
}
END_TEST

/* ---------------------------------- the given kernel, under Oclgrind -- */

/* The kernels below the walks are given, and must stay right on any device,
 * not only on PoCL, which runs a work-group's items one after another and
 * so hides a race. Oclgrind sees each: work-items of one group share the
 * local bins, so a count needs an atomic, and the zeroing, the counting and
 * the merge must be ordered by barriers on local memory. Work-groups of 64,
 * 32 and 16 (a count without an atomic in groups "small enough to run in
 * lockstep" is a race too), of 256, and of 512 and 1024 (the largest the
 * program takes), half and three quarters of whose items have no bin to zero
 * or merge. Both walks run in each. */
static const char *const race_launches[] = {"--size 3000 --reps 1 --blocks 2 --threads 64",
                                            "--size 3000 --reps 1 --blocks 2 --threads 32",
                                            "--size 3000 --reps 1 --blocks 3 --threads 16",
                                            "--size 257 --reps 1 --blocks 2 --threads 256",
                                            "--size 3000 --reps 1 --blocks 2 --threads 512",
                                            "--size 3000 --reps 1 --blocks 2 --threads 1024"};
#define RACE_LAUNCHES ((int)(sizeof race_launches / sizeof race_launches[0]))

START_TEST(test_no_races_under_oclgrind)
{
    check_no_races(race_launches[_i]);
}
END_TEST

/* its counts: bytes counted by walk w (0 interleaved, 1 contiguous) at COUNTED + w; the most
 * merge atomics by one work-item at MOST + w */
enum { COUNTED = 0, MOST = 2 };

/* The check's own host under Oclgrind (run_quick_host, common/tests), on the
 * kernel beside the program. */
static void run_quick(const char *oclgrind_flags, unsigned long long size,
                      unsigned long long groups, unsigned long long items, bool watch,
                      struct quick_run *q)
{
    static const char *const labels[] = {"counted interleaved", "counted contiguous",
                                         "most merge atomics by one work-item interleaved:",
                                         "most merge atomics by one work-item contiguous:"};
    run_quick_host(quick_program, oclgrind_flags, size, groups, items, watch, labels,
                   2 * (1 + watch), q);
}

/* The largest input the program takes is 4 GiB - 1 bytes, and the loop over
 * it must hold every position: i + step may pass 2^32 on the last step of a
 * walk, where a 32-bit index wraps to a small number, still below the end,
 * and the walk starts over. A whole run near 4 GiB would take PoCL a minute,
 * so the check runs the kernels under `oclgrind --quick`, which runs only the
 * first and the last work-group, on 4 GiB - 8 MiB bytes in 65408 work-groups
 * of 256 (2^24 - 2^15 work-items, each with exactly 256 bytes): the last
 * interleaved step of every item from 2^23 on passes 2^32, the last
 * work-group's all. The size is this large because the mistake needs it:
 * Oclgrind's buffer costs a few seconds. The interleaved walk of item g of G
 * is g, g + G, ..., and a contiguous slice is exactly size / G bytes (G
 * divides the size), so the two work-groups must count exactly that. */
START_TEST(test_bytes_near_4_gib_counted_once_by_the_first_and_last_work_groups)
{
    const unsigned long long size = (1ull << 32) - (1ull << 23), groups = 65408, items = 256;
    const unsigned long long global = groups * items;
    unsigned long long expected[2] = {0, 2 * items * (size / global)};
    for (unsigned long long g = 0; g < global; g = g + 1 == items ? global - items : g + 1)
        expected[0] += g < size ? (size - g + global - 1) / global : 0;
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick --global-mem-size 4294967295", size, groups, items, false, q);
    for (int w = 0; w < 2; w++)
        ck_assert_msg(q->count[COUNTED + w] == expected[w],
                      "%s: %s, the first and the last work-group counted %llu bytes, expected "
                      "%llu, each of their bytes once, up to the end of the input: a loop index "
                      "that cannot hold every position wraps past 2^32 and the walk starts "
                      "over%s%s",
                      q->command, w ? "contiguous" : "interleaved", q->count[COUNTED + w],
                      expected[w], *q->said ? "; Oclgrind says: " : "", q->said);
    free(q);
}
END_TEST

/* Each kernel walks its own way: on 3000 bytes in 4 work-groups of 64, the
 * interleaved walk gives the first 184 items 12 bytes and the rest 11, so its
 * first and last work-groups count 1472 bytes; the contiguous slices (your
 * walk, as --show-walks prints it: 12 bytes each and the last 6 items none,
 * or 11 each and the remainder to the last item) give those two work-groups
 * another number. A kernel that calls the other walk (a slip in the given
 * kernels) counts the other walk's number, though every byte is still counted
 * once. */
START_TEST(test_each_kernel_walks_its_own_way)
{
    const unsigned long long size = 3000, groups = 4, items = 64, global = groups * items;
    struct walks w;
    read_walks(size, global, "contiguous", &w);
    ck_assert_msg(w.exit_status == 0 && w.items == global,
                  "./partitioning --show-walks %llu/%llu: exit %d and %" PRIu64
                  " contiguous walks read, expected %llu",
                  size, global, w.exit_status, w.items, global);
    unsigned long long expected[2] = {0, 0};
    for (unsigned long long g = 0; g < global; g = g + 1 == items ? global - items : g + 1) {
        expected[0] += g < size ? (size - g + global - 1) / global : 0;
        expected[1] += w.walk[g][2] > w.walk[g][0] ? w.walk[g][2] - w.walk[g][0] : 0;
    }
    free(w.walk);
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("--quick", size, groups, items, false, q);
    for (int v = 0; v < 2; v++)
        ck_assert_msg(q->count[COUNTED + v] == expected[v],
                      "%s: histo_%s's first and last work-groups counted %llu bytes, expected "
                      "%llu (%s): does each kernel call its own walk?",
                      q->command, v ? "contiguous" : "interleaved", q->count[COUNTED + v],
                      expected[v],
                      v ? "your contiguous_walk's slices of those items, from --show-walks"
                        : "the interleaved walk's bytes of those items");
    free(q);
}
END_TEST

/* The given merge is shared by the work-group, each work-item adding every
 * get_local_size(0)-th bin. A merge done by fewer work-items gives the same
 * bins, one after another. The check's host counts the global atomics of
 * each work-item (its watch), in two work-groups of 64 and of 33. */
static const unsigned long long merge_items[] = {64, 33};
#define MERGE_LAUNCHES ((int)(sizeof merge_items / sizeof merge_items[0]))

START_TEST(test_the_merge_is_shared_by_the_work_group)
{
    const unsigned long long groups = 2, items = merge_items[_i];
    const unsigned long long share = (BINS + items - 1) / items; /* bins per work-item */
    struct quick_run *q = malloc(sizeof *q);
    ck_assert(q != NULL);
    run_quick("", 3000, groups, items, true, q);
    for (int w = 0; w < 2; w++) {
        const char *walk = w ? "contiguous" : "interleaved";
        ck_assert_msg(q->count[COUNTED + w] == 3000, "%s: %s, counted %llu bytes of 3000",
                      q->command, walk, q->count[COUNTED + w]);
        ck_assert_msg(q->count[MOST + w] <= groups * share,
                      "%s: %s, one work-item made %llu atomic adds on the global bins in %llu "
                      "work-groups of %llu, expected at most %llu per work-group (%d bins shared "
                      "by %llu work-items): the given merge is shared by the whole work-group",
                      q->command, walk, q->count[MOST + w], groups, items, share, BINS, items);
    }
    free(q);
}
END_TEST

/* ------------------------------------------ the given program's contract -- */

/* The options of this program's own are refused when their values are out
 * of what --help gives (exit 2), each with a first line of stderr that names
 * the option: --show-walks takes S/T with S below 2^63 and T from 1 to
 * 65536, --show-pattern a --size of 4096 or less and at most 1024
 * work-items, --show-sectors at most 4194304 work-items (it keeps every
 * item's walk), --variant one of its three names. */
static const char *const refused[][2] = {
    {"--show-walks 10/0", "--show-walks"},
    {"--show-walks 10/65537", "--show-walks"},
    {"--show-walks 9223372036854775808/3", "--show-walks"},
    {"--show-walks 10", "--show-walks"},
    {"--show-walks 10/3x", "--show-walks"},
    {"--show-pattern --size 4097", "--show-pattern"},
    {"--show-pattern", "--show-pattern"},
    {"--show-pattern --size 100 --blocks 5 --threads 256", "--show-pattern"},
    {"--show-sectors --blocks 16385 --threads 256", "--show-sectors"},
    {"--variant strided", "--variant"}};
#define REFUSED ((int)(sizeof refused / sizeof refused[0]))

START_TEST(test_its_own_options_refuse_values_out_of_range)
{
    struct stage_output o;
    run_stage(refused[_i][0], &o);
    ck_assert_msg(o.exit_status == EXIT_USAGE, "./partitioning %s: %s, expected exit 2 (bad usage)",
                  refused[_i][0], exit_meaning(&o));
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(o.err, "\n"), o.err);
    ck_assert_msg(strstr(first, refused[_i][1]) != NULL,
                  "./partitioning %s: exit 2, but the first line of stderr does not name %s: %s",
                  refused[_i][0], refused[_i][1], first);
}
END_TEST

/* The launch column ("4x256") of the table's row for walk name, or "". */
static void row_launch(const char *out, const char *name, char *launch, size_t size)
{
    *launch = 0;
    char row[64];
    snprintf(row, sizeof row, "\n%s ", name);
    const char *p = strstr(out, row);
    if (p) {
        p += strlen(row);
        p += strspn(p, " ");
        snprintf(launch, size, "%.*s", (int)strcspn(p, " \n"), p);
    }
}

/* With no option but --size, the given program runs what --help says: both
 * walks (--variant all), uniform data of seed 1, the medians of 10 runs, and
 * the book's launch, two work-groups per compute unit (what --blocks-per-sm 2
 * asks for) of 256 work-items; with no --size either, 100 MiB (one run). */
START_TEST(test_the_defaults_are_the_ones_help_gives)
{
    struct stage_output o, book;
    run_stage("--size 100000", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--size 100000: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    run_stage("--size 100000 --reps 1 --blocks-per-sm 2 --threads 256", &book);
    ck_assert_msg(book.exit_status == 0,
                  "--size 100000 --reps 1 --blocks-per-sm 2 --threads 256: %s, stderr: %s",
                  exit_meaning(&book), book.err);
    ck_assert_msg(strstr(o.out, "\ninput:      uniform, 100000 bytes, seed 1\n") != NULL,
                  "--size 100000 (no --data, no --seed): expected the line 'input:      "
                  "uniform, 100000 bytes, seed 1' (the defaults --help gives); got: %s",
                  o.out);
    ck_assert_msg(strstr(o.out, "medians of 10 runs") != NULL,
                  "--size 100000 (no --reps): expected the medians of 10 runs, as --help says; "
                  "got: %s",
                  o.out);
    static const char *const walks[] = {"interleaved", "contiguous"};
    for (int w = 0; w < 2; w++) {
        char got[64], expected[64];
        row_launch(o.out, walks[w], got, sizeof got);
        row_launch(book.out, walks[w], expected, sizeof expected);
        ck_assert_msg(*expected && strcmp(got, expected) == 0,
                      "--size 100000 (no --variant, no --blocks, no --threads): the %s row's "
                      "launch reads '%s', expected '%s': both walks (--variant all), each on the "
                      "book's launch that --help gives (2 work-groups per compute unit, as "
                      "--blocks-per-sm 2, of 256 work-items); got: %s",
                      walks[w], got, expected, o.out);
    }
    run_stage("--reps 1", &o);
    ck_assert_msg(o.exit_status == 0 && o.says_verified, "--reps 1: %s, stderr: %s",
                  exit_meaning(&o), o.err);
    ck_assert_msg(strstr(o.out, "\ninput:      uniform, 104857600 bytes, seed 1\n") != NULL,
                  "--reps 1 (no --size): expected 'input:      uniform, 104857600 bytes, seed "
                  "1' (100M, the default --help gives); got: %s",
                  o.out);
}
END_TEST

/* --csv prints a header and a row per walk, and nothing else. */
START_TEST(test_csv_prints_only_csv)
{
    check_stdout_is_only_csv("--size 3000 --reps 1 --csv", 3);
}
END_TEST

int main(int argc, char **argv)
{
    set_stage("12_partitioning", argc, argv);
    char here[4096];
    snprintf(here, sizeof here, "%s", argv[0]);
    snprintf(quick_program, sizeof quick_program, "%s/partitioning-quick", dirname(here));
    Suite *suite = suite_create("exercise 12: interleaved and contiguous partitionings");
    /* Without an OpenCL device the program exits 77 and every check is counted as skipped. */
    TCase *counts = exercise_tcase("both walks count every byte once", 1);
    tcase_set_timeout(counts, 120);
    tcase_add_loop_test(counts, test_both_walks_match_reference, 0, SIZES * 4);
    add_if_runnable(suite, counts, SIZES * 4);

    TCase *interleaved = exercise_tcase("interleaved: neighbouring items on neighbouring bytes", 2);
    tcase_add_loop_test(interleaved, test_interleaved_puts_neighbouring_items_on_neighbouring_bytes,
                        0, GRIDS);
    add_if_runnable(suite, interleaved, GRIDS);

    TCase *contiguous = exercise_tcase("contiguous: one unbroken slice per item", 3);
    tcase_add_loop_test(contiguous, test_contiguous_gives_each_item_one_unbroken_slice, 0, GRIDS);
    add_if_runnable(suite, contiguous, GRIDS);

    TCase *huge = exercise_tcase("slices exact past 2^24 and 2^53 bytes", 3);
    tcase_set_timeout(huge, 60);
    tcase_add_loop_test(huge, test_interleaved_walks_are_exact_past_2_to_the_24_and_53, 0,
                        WALK_CASES);
    tcase_add_loop_test(huge, test_contiguous_slices_are_exact_past_2_to_the_24_and_53, 0,
                        WALK_CASES);
    add_if_runnable(suite, huge, 2 * WALK_CASES);

    TCase *arguments = exercise_tcase("both walks follow their arguments, not the launch", 2);
    tcase_set_timeout(arguments, 2 * QUICK_HOST_SECONDS);
    tcase_add_test(arguments, test_walks_follow_their_arguments_not_the_launch);
    add_if_runnable(suite, arguments, 1);

    TCase *many = exercise_tcase("contiguous slices of more than 2^32 work-items", 3);
    tcase_set_timeout(many, 2 * QUICK_HOST_SECONDS);
    tcase_add_test(many, test_walks_of_more_than_2_to_the_32_items);
    add_if_runnable(suite, many, 1);

    TCase *sizes_tc = exercise_tcase("every work-group size", 2);
    tcase_set_timeout(sizes_tc, 120);
    tcase_add_loop_test(sizes_tc, test_every_launch_matches_reference, 0, LAUNCHES * 2);
    add_if_runnable(suite, sizes_tc, LAUNCHES * 2);

    TCase *sectors = exercise_tcase("the sector view: what a warp's loads fetch, each walk", 0);
    tcase_set_timeout(sectors, 60);
    tcase_add_loop_test(sectors, test_show_sectors_counts_what_a_warp_loads, 0, 2 * SECTOR_GRIDS);
    add_if_runnable(suite, sectors, 2 * SECTOR_GRIDS);

    TCase *races = exercise_tcase("the given kernel: no races, under Oclgrind", 0);
    tcase_set_timeout(races, 300);
    tcase_add_loop_test(races, test_no_races_under_oclgrind, 0, RACE_LAUNCHES);
    add_if_oclgrind(suite, races, RACE_LAUNCHES, true, NULL);

    TCase *near4 = exercise_tcase("the given kernel: bytes near 4 GiB, counted once by the first "
                                  "and last work-groups (oclgrind --quick)",
                                  0);
    tcase_set_timeout(near4, 2 * QUICK_HOST_SECONDS);
    tcase_add_test(near4, test_bytes_near_4_gib_counted_once_by_the_first_and_last_work_groups);
    /* Oclgrind zeroes the whole buffer: about 4 GiB of host memory at its peak */
    add_if_oclgrind(suite, near4, 1, have_memory_for(0, (size_t)5 << 30), memory_missing());

    TCase *merge = exercise_tcase("the given kernels: the merge shared by the work-group, each "
                                  "kernel on its own walk (watched under Oclgrind)",
                                  0);
    tcase_set_timeout(merge, 2 * QUICK_HOST_SECONDS);
    tcase_add_loop_test(merge, test_the_merge_is_shared_by_the_work_group, 0, MERGE_LAUNCHES);
    tcase_add_test(merge, test_each_kernel_walks_its_own_way);
    add_if_oclgrind(suite, merge, MERGE_LAUNCHES + 1, true, NULL);

    TCase *timing = exercise_tcase("both walks timed side by side", 0);
    tcase_add_test(timing, test_times_both_walks_side_by_side);
    add_if_runnable(suite, timing, 1);

    TCase *contract_tc = exercise_tcase("the given program: its options' refusals, its defaults "
                                        "and --csv",
                                        0);
    tcase_set_timeout(contract_tc, 120);
    tcase_add_loop_test(contract_tc, test_its_own_options_refuse_values_out_of_range, 0, REFUSED);
    tcase_add_test(contract_tc, test_the_defaults_are_the_ones_help_gives);
    tcase_add_test(contract_tc, test_csv_prints_only_csv);
    add_if_runnable(suite, contract_tc, REFUSED + 2);
    return run_exercise(suite);
}
