/*
 * test_chapters.c - the chapters (and INSTRUCTORS.md, where it is) stay true
 * to the repository:
 *   - every ```c block a chapter quotes is in the source, line for line and in
 *     order, in one file of its stage (or of common/, or the read kernel);
 *     "..." lines mark what a quote leaves out;
 *   - every block under an <!-- output: FILE --> marker is FILE, as it is now
 *     (plots/sync-docs.sh copies it there);
 *   - every relative link points at a file or folder that exists;
 *   - every measured number the prose and its hand-written tables cite (a
 *     time with four decimals, a percentage with two) is a value in a results
 *     file (a CSV, or a recorded output) that the paragraph or the chapter
 *     links, so that a new run of make bench cannot leave a chapter quoting
 *     old numbers.
 * Runs from chapters/ (make -C chapters test). The commands themselves are run
 * by make chapters (chapters/run-commands.sh): they need the programs built.
 */
#include "harness.h"

#include <check.h>
#include <ctype.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOST_ITEMS 256
#define MOST_FILES 96 /* results files one chapter links */

/* A piece of a chapter to check: a quote, an output block or a whole chapter. */
struct item {
    char chapter[256]; /* chapters/05_privatized.md, as the messages name it */
    char *text;        /* the quote or the block; NULL for a whole chapter */
    char file[512];    /* an output block's FILE */
    int line;          /* where the piece starts in the chapter */
};

static struct item quotes[MOST_ITEMS], outputs[MOST_ITEMS], chapters[MOST_ITEMS];
static int quote_count, output_count, chapter_count;

static char *read_text(const char *path)
{
    unsigned char *text;
    size_t size;
    char why[512];
    if (read_file(path, &text, &size, why, sizeof why) != EXIT_OK)
        return NULL;
    char *copy = realloc(text, size + 1);
    if (!copy) {
        free(text);
        return NULL;
    }
    copy[size] = '\0';
    return copy;
}

/* A copy of text[start, end). */
static char *slice(const char *start, const char *end)
{
    char *copy = malloc((size_t)(end - start) + 1);
    if (!copy) {
        fprintf(stderr, "test_chapters: out of memory\n");
        exit(EXIT_FAILED);
    }
    memcpy(copy, start, (size_t)(end - start));
    copy[end - start] = '\0';
    return copy;
}

static struct item *add(struct item *items, int *count, const char *chapter, int line)
{
    if (*count == MOST_ITEMS) {
        fprintf(stderr, "test_chapters: more than %d items; raise MOST_ITEMS\n", MOST_ITEMS);
        exit(EXIT_FAILED);
    }
    struct item *item = &items[(*count)++];
    memset(item, 0, sizeof *item);
    snprintf(item->chapter, sizeof item->chapter, "chapters/%s", chapter);
    item->line = line;
    return item;
}

/* Whether the line at line (up to its newline) is exactly text. */
static bool line_is(const char *line, const char *text)
{
    size_t len = strlen(text);
    return strncmp(line, text, len) == 0 && (line[len] == '\n' || line[len] == '\0');
}

/* The start of the line after line, or the end of the text. */
static const char *next_line(const char *line)
{
    const char *end = strchr(line, '\n');
    return end ? end + 1 : line + strlen(line);
}

/* Finds the quotes and output blocks of one chapter (file name, no folder). */
static void collect(const char *name)
{
    char *text = read_text(name);
    if (!text) {
        fprintf(stderr, "test_chapters: cannot read %s\n", name);
        exit(EXIT_FAILED);
    }
    add(chapters, &chapter_count, name, 1)->text = text; /* the link check reads it */

    char output_file[512] = ""; /* set by a marker, for the block right after it */
    int number = 1;
    for (const char *line = text; *line; line = next_line(line), number++) {
        if (sscanf(line, "<!-- output: %500s -->", output_file) == 1)
            continue;
        bool quote = line_is(line, "```c");
        if (strncmp(line, "```", 3) != 0) { /* not a fence: text */
            if (*line != '\n')
                output_file[0] = '\0'; /* the marker belongs to the next block only */
            continue;
        }
        const char *body = next_line(line), *close = body;
        int start = number;
        while (*close && strncmp(close, "```", 3) != 0) {
            close = next_line(close);
            number++;
        }
        if (quote) {
            add(quotes, &quote_count, name, start)->text = slice(body, close);
        } else if (output_file[0]) {
            struct item *o = add(outputs, &output_count, name, start);
            o->text = slice(body, close);
            snprintf(o->file, sizeof o->file, "../%s", output_file);
        }
        output_file[0] = '\0';
        line = close; /* the closing fence: the loop moves past it */
        number++;
        if (!*line)
            break;
    }
}

/* ---------------------------------------------------------------- quotes -- */

/* The line at *at, without its leading and trailing blanks; *at moves past it. */
static char *next_trimmed_line(const char **at, char *line, size_t size)
{
    const char *start = *at, *end = strchr(start, '\n');
    if (!end)
        end = start + strlen(start);
    *at = *end ? end + 1 : end;
    while (start < end && (*start == ' ' || *start == '\t'))
        start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    snprintf(line, size, "%.*s", (int)(end - start), start);
    return line;
}

static bool is_elision(const char *line)
{
    return strcmp(line, "...") == 0 || strcmp(line, "/* ... */") == 0 ||
           strcmp(line, "// ...") == 0;
}

/* Whether every line of quote (blank lines and elisions aside) is a line of
 * source, in the same order. */
static bool quoted_from(const char *quote, const char *source)
{
    const char *q = quote, *s = source;
    char want[1024], have[1024];
    while (*q) {
        next_trimmed_line(&q, want, sizeof want);
        if (!want[0] || is_elision(want))
            continue;
        for (;;) {
            if (!*s)
                return false;
            if (strcmp(next_trimmed_line(&s, have, sizeof have), want) == 0)
                break;
        }
    }
    return true;
}

START_TEST(test_quote_is_in_the_source)
{
    const struct item *quote = &quotes[_i];
    char stage[256];
    snprintf(stage, sizeof stage, "%s", quote->chapter + strlen("chapters/"));
    /* chapters/03_shared_atomics.md, or its -evidence or -side-paths page -> 03_shared_atomics */
    stage[strcspn(stage, ".-")] = '\0';
    const char *patterns[] = {"../%s/*.c",     "../%s/*.cu",      "../%s/*.h",
                              "../%s/*.cuh",   "../%s/*.cl",      "../common/*.c",
                              "../common/*.h", "../common/*.cuh", "../plots/read_bandwidth/*.cu"};
    bool found = false;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0] && !found; p++) {
        char pattern[512];
        snprintf(pattern, sizeof pattern, patterns[p], stage);
        glob_t files;
        if (glob(pattern, 0, NULL, &files) != 0)
            continue;
        for (size_t f = 0; f < files.gl_pathc && !found; f++) {
            char *source = read_text(files.gl_pathv[f]);
            found = source && quoted_from(quote->text, source);
            free(source);
        }
        globfree(&files);
    }
    ck_assert_msg(found, "%s:%d: this quote is not in the source of %s (or common/): %.300s",
                  quote->chapter, quote->line, stage, quote->text);
}
END_TEST

/* --------------------------------------------------------------- outputs -- */

START_TEST(test_output_block_is_its_file)
{
    const struct item *output = &outputs[_i];
    char *recorded = read_text(output->file);
    ck_assert_msg(recorded != NULL, "%s:%d: cannot read %s", output->chapter, output->line,
                  output->file);
    ck_assert_msg(strcmp(recorded, output->text) == 0,
                  "%s:%d: the block differs from %s: run plots/sync-docs.sh", output->chapter,
                  output->line, output->file + 3);
    free(recorded);
}
END_TEST

/* ----------------------------------------------------------------- links -- */

START_TEST(test_every_relative_link_exists)
{
    const struct item *chapter = &chapters[_i];
    int links = 0;
    for (const char *at = strstr(chapter->text, "]("); at; at = strstr(at + 2, "](")) {
        /* inside a fenced block "](" is code (a C++ lambda's [&](...)), not a link */
        int fences = 0;
        for (const char *f = strstr(chapter->text, "\n```"); f && f < at;
             f = strstr(f + 4, "\n```"))
            fences++;
        if (fences % 2)
            continue;
        const char *target = at + 2;
        size_t len = strcspn(target, ")#\n ");
        if (len == 0 || strncmp(target, "http://", 7) == 0 || strncmp(target, "https://", 8) == 0)
            continue;
        /* a link is relative to its file's folder: chapters/, or the top (../) */
        const char *name = chapter->chapter + strlen("chapters/");
        const char *slash = strrchr(name, '/');
        char path[512];
        snprintf(path, sizeof path, "%.*s%.*s", slash ? (int)(slash - name + 1) : 0, name, (int)len,
                 target);
        ck_assert_msg(access(path, F_OK) == 0, "%s: the link (%s) leads nowhere", chapter->chapter,
                      path);
        links++;
    }
    ck_assert_msg(links > 0, "%s: no relative links found: is the parser broken?",
                  chapter->chapter);
}
END_TEST

/* ------------------------------------------------------- cited numbers -- */

/* Whether value (text, as the file holds it) is one field of the results file
 * at path: a comma-separated field of a CSV, a blank- or comma-separated word of a
 * recorded output (.txt). */
static bool results_have_value(const char *path, const char *value)
{
    char *text = read_text(path);
    if (!text)
        return false;
    const char *separators = strstr(path, ".csv") ? ",\n" : " \t\n,";
    bool found = false;
    size_t len = strlen(value);
    for (const char *field = text; *field && !found;) {
        size_t field_len = strcspn(field, separators);
        found = field_len == len && strncmp(field, value, len) == 0;
        field += field_len;
        field += strspn(field, separators);
    }
    free(text);
    return found;
}

/* The results files (CSVs, recorded outputs) that text[0, len) links, as
 * paths from chapters/, into csvs. */
static int linked_csvs(const char *text, size_t len, char csvs[][512], int most)
{
    int count = 0;
    const char *end = text + len;
    for (const char *at = strstr(text, "](../plots/results/"); at && at < end && count < most;
         at = strstr(at + 2, "](../plots/results/")) {
        size_t n = strcspn(at + 2, ")#\n ");
        if (n < 5 ||
            (strncmp(at + 2 + n - 4, ".csv", 4) != 0 && strncmp(at + 2 + n - 4, ".txt", 4) != 0))
            continue;
        snprintf(csvs[count], 512, "%.*s", (int)n, at + 2);
        bool seen = false; /* each file once, however often it is linked */
        for (int c = 0; c < count && !seen; c++)
            seen = strcmp(csvs[c], csvs[count]) == 0;
        if (!seen)
            count++;
    }
    return count;
}

/* Whether at (in text) starts a cited number: digits, '.', then four digits
 * not followed by a fifth (a time in ms), or two digits and '%' (a
 * percentage). Its CSV form goes into value. */
static bool cited_number(const char *text, const char *at, char *value, size_t size)
{
    if (at > text && (isdigit((unsigned char)at[-1]) || at[-1] == '.'))
        return false; /* inside a number, not at its start */
    size_t whole = strspn(at, "0123456789");
    if (whole == 0 || at[whole] != '.')
        return false;
    size_t decimals = strspn(at + whole + 1, "0123456789");
    bool time = decimals == 4, percent = decimals == 2 && at[whole + 3] == '%';
    if (!time && !percent)
        return false;
    snprintf(value, size, "%.*s", (int)(whole + 1 + decimals), at);
    return true;
}

START_TEST(test_cited_numbers_are_in_the_linked_results)
{
    const struct item *chapter = &chapters[_i];
    const char *text = chapter->text;
    char chapter_csvs[MOST_FILES][512], csvs[2 * MOST_FILES][512];
    int chapter_count_csvs = linked_csvs(text, strlen(text), chapter_csvs, MOST_FILES);
    char stale[2048] = ""; /* every number not found, to name them all at once */
    int line = 1;
    bool in_fence = false;
    /* one paragraph at a time: lines up to a blank line or a fence */
    for (const char *para = text; *para;) {
        if (strncmp(para, "```", 3) == 0) {
            in_fence = !in_fence;
            para = next_line(para);
            line++;
            continue;
        }
        const char *end = para;
        int lines = 0;
        while (*end && *end != '\n' && strncmp(end, "```", 3) != 0) {
            end = next_line(end);
            lines++;
        }
        if (lines == 0) { /* a blank line */
            para = next_line(para);
            line++;
            continue;
        }
        /* a table or block right after a marker is generated from its file: skip it */
        if (!in_fence && strncmp(para, "<!--", 4) != 0) {
            int count = linked_csvs(para, (size_t)(end - para), csvs, MOST_FILES);
            /* then the chapter's: a section may link its file once, at its top */
            for (int c = 0; c < chapter_count_csvs; c++)
                memcpy(csvs[count++], chapter_csvs[c], sizeof csvs[0]);
            for (const char *at = para; at < end; at++) {
                char value[64];
                if (!cited_number(text, at, value, sizeof value))
                    continue;
                bool found = false;
                for (int c = 0; c < count && !found; c++)
                    found = results_have_value(csvs[c], value);
                size_t used = strlen(stale);
                if (!found)
                    snprintf(stale + used, sizeof stale - used, " %s (line %d)", value, line);
            }
        }
        para = end;
        line += lines;
    }
    ck_assert_msg(!stale[0],
                  "%s cites numbers that no results file its paragraph or the chapter "
                  "links holds; left from an older run?%s",
                  chapter->chapter, stale);
}
END_TEST

int main(void)
{
    glob_t names;
    if (glob("[0-9][0-9]_*.md", 0, NULL, &names) != 0) {
        fprintf(stderr, "test_chapters: no chapters here; run it from chapters/\n");
        return EXIT_FAILED;
    }
    for (size_t n = 0; n < names.gl_pathc; n++)
        collect(names.gl_pathv[n]);
    globfree(&names);
    collect("README.md");
    if (access("SUMMARY.md", F_OK) == 0) /* the techniques on one page */
        collect("SUMMARY.md");
    if (access("GLOSSARY.md", F_OK) == 0) /* the words the chapters use */
        collect("GLOSSARY.md");
    /* the instructors' guide quotes recorded times and links the workbook too
     * (a student copy has none) */
    if (access("../INSTRUCTORS.md", F_OK) == 0)
        collect("../INSTRUCTORS.md");

    Suite *suite = suite_create("chapters");
    TCase *tc = tcase_create("chapters");
    tcase_add_loop_test(tc, test_quote_is_in_the_source, 0, quote_count);
    tcase_add_loop_test(tc, test_output_block_is_its_file, 0, output_count);
    tcase_add_loop_test(tc, test_every_relative_link_exists, 0, chapter_count);
    tcase_add_loop_test(tc, test_cited_numbers_are_in_the_linked_results, 0, chapter_count);
    suite_add_tcase(suite, tc);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    printf("chapters: %d quotes, %d recorded outputs, %d files' links\n", quote_count, output_count,
           chapter_count);
    return failed == 0 ? EXIT_OK : EXIT_FAILED;
}
