/*
 * command_checks.h - what the suites of the workbook's scripts (plots/,
 * exercises/) need to run a command and read what it did, written once.
 * Header-only, static inline: each suite is one file that includes it.
 */
#ifndef COMMAND_CHECKS_H
#define COMMAND_CHECKS_H

#include "harness.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A shell command's exit status; -1 where it did not exit (a signal). */
static inline int shell(const char *command)
{
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Removes a folder the test made, and all it holds. */
static inline void remove_tree(const char *dir)
{
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    shell(command);
}

/* The whole output of a shell command that must succeed, as a string to free. */
static inline char *output_of(const char *command)
{
    FILE *p = popen(command, "r");
    ck_assert(p != NULL);
    size_t size = 0, used = 0;
    char *text = NULL;
    do {
        size = size ? 2 * size : 4096;
        text = realloc(text, size);
        ck_assert(text != NULL);
        used += fread(text + used, 1, size - used - 1, p);
    } while (used == size - 1);
    text[used] = '\0';
    ck_assert_msg(pclose(p) == 0, "failed: %s", command);
    return text;
}

/* A whole file as a string to free; the check fails where it cannot be read. */
static inline char *read_text(const char *path)
{
    unsigned char *text;
    size_t size;
    char why[512];
    ck_assert_msg(read_file(path, &text, &size, why, sizeof why) == EXIT_OK, "%s", why);
    text = realloc(text, size + 1);
    ck_assert(text != NULL);
    text[size] = '\0';
    return (char *)text;
}

/* What a command did: its exit status, its whole stdout and stderr (to free). */
struct ran {
    int status;
    char *out, *err;
};

/* Runs a shell command, its stdout and stderr kept apart. */
static inline struct ran run_command(const char *command)
{
    char dir[] = "/tmp/command_checks_XXXXXX", path[64];
    ck_assert(mkdtemp(dir) != NULL);
    size_t line_size = strlen(command) + 2 * sizeof dir + 32;
    char *line = malloc(line_size);
    ck_assert(line != NULL);
    snprintf(line, line_size, "%s >%s/out 2>%s/err", command, dir, dir);
    struct ran r = {.status = shell(line)};
    snprintf(path, sizeof path, "%s/out", dir);
    r.out = read_text(path);
    snprintf(path, sizeof path, "%s/err", dir);
    r.err = read_text(path);
    remove_tree(dir);
    free(line);
    return r;
}

static inline void free_ran(struct ran *r)
{
    free(r->out);
    free(r->err);
}

/* true when text is one line, ending in a newline */
static inline bool one_line(const char *text)
{
    const char *end = strchr(text, '\n');
    return end && end != text && end[1] == '\0';
}

#endif /* COMMAND_CHECKS_H */
