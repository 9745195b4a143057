/*
 * test_exercises.c - make student-copy writes the workbook a student gets, and
 * make -C exercises report grades it. The suite makes one student copy in a
 * temporary folder and checks that it holds no solution, mutant, CI or git
 * history, that its Markdown is the original less its instructor blocks, that
 * status, a CPU exercise's check (with its hint) and help work there, and that
 * the instructors' targets say in one line why they cannot. It checks that
 * the copy is refused a DEST that is missing, inside the repository or not
 * empty, a Markdown file whose instructor markers do not balance, and one
 * that links, outside those markers, to a file the copy leaves out. In the
 * copy, report writes one CSV row per exercise under a fixed header, quotes a
 * name as RFC 4180 says, sums each exercise's files and follows its last check.
 * A check with a group left out for want of a tool passes, and with
 * CHECK_REQUIRE=1 is "not checked here" instead.
 * Runs from exercises/ (make -C exercises test); in a copy without solutions,
 * every check is reported skipped.
 */
#include "command_checks.h"
#include "harness.h"

#include <check.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEADER         "student,host,gpu,exercise,result,sources_sha256,checked_at"
#define MOST_EXERCISES 64
#define COMMAND_MAX    16384 /* a shell command: a few paths and a script */

static char root[1024];                          /* the repository, an absolute path */
static char copy[] = "/tmp/student_copy_XXXXXX"; /* the student copy every check reads */
static int copy_status;                          /* student-copy.sh's exit when it made it */
static const char *copy_output;                  /* and what it printed */
static char exercises[MOST_EXERCISES][64];       /* the copy's exercise folders */
static int exercise_count;

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A command run in the copy's exercises/ folder. */
static struct ran in_copy(const char *command)
{
    char line[COMMAND_MAX + 64];
    snprintf(line, sizeof line, "cd '%s/exercises' && %s", copy, command);
    return run_command(line);
}

static void append_line(const char *path, const char *line)
{
    FILE *f = fopen(path, "a");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fprintf(f, "%s\n", line);
    fclose(f);
}

/* ------------------------------------------------------------------ CSV -- */

/* Splits one CSV record (RFC 4180: a field in quotes may hold commas and
 * doubled quotes) into at most most fields, each copied into fields[i].
 * Returns the number of fields, or -1 when a quoted field is malformed. */
static int csv_fields(const char *line, char fields[][512], int most)
{
    int n = 0;
    const char *c = line;
    for (;;) {
        if (n == most)
            return -1;
        size_t len = 0;
        char *field = fields[n++];
        if (*c == '"') {
            for (c++;; c++) {
                if (*c == '\0')
                    return -1;
                if (*c == '"' && c[1] == '"')
                    c++;
                else if (*c == '"')
                    break;
                if (len < 511)
                    field[len++] = *c;
            }
            c++;
            if (*c != ',' && *c != '\0' && *c != '\n')
                return -1;
        } else {
            for (; *c && *c != ',' && *c != '\n'; c++)
                if (len < 511)
                    field[len++] = *c;
        }
        field[len] = '\0';
        if (*c != ',')
            return n;
        c++;
    }
}

/* A report as written: its lines, and each row's seven fields. */
struct report {
    char *text;
    char header[256];
    int rows;
    char fields[MOST_EXERCISES][7][512];
    char raw[MOST_EXERCISES][1024];
};

static void read_report(const char *path, struct report *r)
{
    r->text = read_text(path);
    r->rows = 0;
    char *line = r->text, *end;
    ck_assert_msg((end = strchr(line, '\n')) != NULL, "%s: no header line", path);
    snprintf(r->header, sizeof r->header, "%.*s", (int)(end - line), line);
    for (line = end + 1; *line; line = end + 1) {
        end = strchr(line, '\n');
        ck_assert_msg(end != NULL, "%s: its last line has no newline", path);
        ck_assert_msg(r->rows < MOST_EXERCISES, "%s: too many rows", path);
        snprintf(r->raw[r->rows], sizeof r->raw[0], "%.*s", (int)(end - line), line);
        int n = csv_fields(r->raw[r->rows], r->fields[r->rows], 8);
        ck_assert_msg(n == 7, "%s: a row of %d fields, not 7: %s", path, n, r->raw[r->rows]);
        r->rows++;
    }
}

/* The row of one exercise; fails when there is not exactly one. */
static int row_of(const struct report *r, const char *exercise)
{
    int found = -1;
    for (int i = 0; i < r->rows; i++)
        if (strcmp(r->fields[i][3], exercise) == 0) {
            ck_assert_msg(found < 0, "two rows for %s", exercise);
            found = i;
        }
    ck_assert_msg(found >= 0, "no row for %s", exercise);
    return found;
}

/* Writes the copy's report for STUDENT to REPORT (both quoted for the shell). */
static struct ran make_report(const char *student_arg, const char *report)
{
    char command[COMMAND_MAX];
    snprintf(command, sizeof command, "make --no-print-directory -s report %s REPORT='%s'",
             student_arg, report);
    return in_copy(command);
}

static void report_path(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/%s.csv", copy, name);
}

/* ----------------------------------------------------------- the copy -- */

START_TEST(test_copy_is_made_into_an_empty_folder_and_says_where)
{
    ck_assert_msg(copy_status == 0, "student-copy.sh %s exited %d: %s", copy, copy_status,
                  copy_output);
    ck_assert_msg(strstr(copy_output, copy) != NULL, "it does not name %s: %s", copy, copy_output);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/exercises/01_cpu_threads/cpu_threads.c", copy);
    ck_assert_msg(exists(path), "no starter in the copy: %s", path);
    ck_assert_msg(exercise_count > 1, "%d exercise folders in the copy", exercise_count);
}
END_TEST

START_TEST(test_copy_holds_the_tracked_files_less_solutions_mutants_ci_and_history)
{
    /* What git tracks and the working tree holds, less the instructors' files,
     * is exactly what the copy holds (and starters.cksum): no build output. */
    char command[COMMAND_MAX];
    snprintf(
        command, sizeof command,
        "cd '%s' && git ls-files | while IFS= read -r f; do [ -e \"$f\" ] && echo \"$f\"; done"
        " | grep -Ev '^(exercises/solutions/|exercises/make-mutant\\.sh$|\\.ci/|INSTRUCTORS\\.md$)'"
        " | sort >'%s.expected' && cd '%s' && find . -type f -o -type l | sed 's|^\\./||'"
        " | grep -v '^exercises/starters\\.cksum$' | sort >'%s.found'"
        " && diff '%s.expected' '%s.found' | head -20",
        root, copy, copy, copy, copy, copy);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0 && r.out[0] == '\0',
                  "the copy's files differ from the tracked ones less the instructors' "
                  "(< missing, > extra):\n%s%s",
                  r.out, r.err);
    free_ran(&r);
    const char *absent[] = {"exercises/solutions", ".git", ".ci", "INSTRUCTORS.md",
                            "exercises/make-mutant.sh"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", copy, absent[i]);
        ck_assert_msg(!exists(path), "the copy holds %s", absent[i]);
    }
    snprintf(command, sizeof command, "find '%s' -name '*.patch' -o -path '*solution*' | head -3",
             copy);
    r = run_command(command);
    ck_assert_msg(r.out[0] == '\0', "the copy holds solutions or mutants:\n%s", r.out);
    free_ran(&r);
    snprintf(command, sizeof command,
             "cmp '%s/exercises/01_cpu_threads/cpu_threads.c' "
             "'%s/exercises/01_cpu_threads/cpu_threads.c'",
             root, copy);
    ck_assert_msg(shell(command) == 0, "the copy's starter is not the repository's");
}
END_TEST

START_TEST(test_copy_markdown_is_the_original_without_its_instructor_blocks)
{
    /* Blank lines squeezed in the comparison; but where a block stood between
     * blank lines, one stays, so a file with no run of blank lines gets none. */
    char command[COMMAND_MAX];
    snprintf(command, sizeof command,
             "cd '%s' && find . -name '*.md' | sed 's|^\\./||' | sort | while read -r f; do"
             "  awk '/^<!-- instructors -->$/ { skip = 1; next } /^<!-- \\/instructors -->$/"
             "  { skip = 0; next } !skip' \"%s/$f\" | cat -s >'%s.want';"
             "  cat -s \"$f\" | cmp -s - '%s.want' || echo \"$f\";"
             "  if cat -s \"%s/$f\" | cmp -s - \"%s/$f\" && ! cat -s \"$f\" | cmp -s - \"$f\";"
             "  then echo \"$f: blank lines where a block stood\"; fi; done",
             copy, root, copy, copy, root, root);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 0 && r.out[0] == '\0',
                  "Markdown that is not its original less the instructor blocks:\n%s%s", r.out,
                  r.err);
    free_ran(&r);
    /* and the blocks were there to remove: the copy's exercise README is shorter */
    snprintf(command, sizeof command,
             "cmp -s '%s/exercises/02_race/README.md' '%s/exercises/02_race/README.md'", root,
             copy);
    ck_assert_msg(shell(command) != 0, "02_race's README was copied as it is");
}
END_TEST

START_TEST(test_copy_markdown_names_no_solution_mutant_or_marker)
{
    char command[COMMAND_MAX];
    snprintf(command, sizeof command,
             "grep -rniE --include='*.md' 'SOLUTION=|MUTANT=|mutant|solutions/|check-solutions|"
             "<!-- /?instructors' '%s' | head -5",
             copy);
    struct ran r = run_command(command);
    ck_assert_msg(r.out[0] == '\0', "the copy's Markdown still points at the solutions:\n%s",
                  r.out);
    free_ran(&r);
    /* the grep sees the Markdown: the starters' own text is there */
    snprintf(command, sizeof command, "grep -q '^make check ' '%s/exercises/02_race/README.md'",
             copy);
    ck_assert_msg(shell(command) == 0, "02_race's README lost its make check line");
}
END_TEST

START_TEST(test_copy_refuses_a_dest_that_is_not_empty)
{
    char command[COMMAND_MAX];
    snprintf(command, sizeof command, "find '%s' | wc -l", copy);
    struct ran before = run_command(command);
    snprintf(command, sizeof command, "./student-copy.sh '%s'", copy);
    struct ran r = run_command(command);
    ck_assert_msg(r.status == 2, "exit %d, not 2: %s%s", r.status, r.out, r.err);
    ck_assert_msg(one_line(r.err) && strstr(r.err, "not empty") && r.out[0] == '\0',
                  "not one line that says why: %s%s", r.out, r.err);
    free_ran(&r);
    snprintf(command, sizeof command, "find '%s' | wc -l", copy);
    struct ran after = run_command(command);
    ck_assert_msg(strcmp(before.out, after.out) == 0, "the refused copy wrote into DEST");
    free_ran(&before);
    free_ran(&after);
}
END_TEST

START_TEST(test_copy_refuses_no_dest_two_dests_a_file_and_a_dest_in_the_repository)
{
    const struct {
        const char *args, *says;
    } refused[] = {
        {"", "DEST is missing"},
        {"''", "DEST is missing"},
        {"/tmp/a /tmp/b", "one DEST only"},
        {"build/student-copy-inside", "inside the repository"},
        {"../common/new-copy", "inside the repository"},
        {"Makefile", "inside the repository"},
        {"'%s/README.md'", "is not a folder"}, /* a file of the copy, outside the repository */
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char args[PATH_MAX], command[COMMAND_MAX];
        snprintf(args, sizeof args, refused[i].args, copy);
        snprintf(command, sizeof command, "./student-copy.sh %s", args);
        struct ran r = run_command(command);
        ck_assert_msg(r.status == 2, "student-copy.sh %s: exit %d, not 2", refused[i].args,
                      r.status);
        ck_assert_msg(one_line(r.err) && strstr(r.err, refused[i].says) && r.out[0] == '\0',
                      "student-copy.sh %s: not one line that says '%s': %s%s", refused[i].args,
                      refused[i].says, r.out, r.err);
        free_ran(&r);
    }
    bool made = exists("build/student-copy-inside") || exists("../common/new-copy");
    shell("rm -rf build/student-copy-inside ../common/new-copy"); /* not left in the repository */
    ck_assert_msg(!made, "a refused DEST was made");
}
END_TEST

START_TEST(test_make_student_copy_without_dest_says_why)
{
    struct ran r = run_command("make --no-print-directory -s -C .. student-copy");
    ck_assert_msg(r.status != 0, "make student-copy without DEST succeeded");
    ck_assert_msg(strstr(r.err, "student-copy: DEST is missing: make student-copy DEST="),
                  "it does not say why: %s%s", r.out, r.err);
    free_ran(&r);
}
END_TEST

/* Markdown whose markers do not balance, and what the copy must say of each. */
static const struct {
    const char *markdown, *says;
} unbalanced[] = {
    {"text\n<!-- instructors -->\nfor instructors\n",
     "README.md:2: <!-- instructors --> is never closed"},
    {"text\n<!-- /instructors -->\n", "README.md:2: <!-- /instructors --> closes no block"},
    {"<!-- instructors -->\n<!-- instructors -->\n<!-- /instructors -->\n",
     "README.md:2: <!-- instructors --> inside the block opened at line 1"},
    {"text <!-- instructors -->\nsecret\n<!-- /instructors -->\n",
     "README.md:1: an instructors marker must be a line of its own"},
};

/* Links, outside instructor blocks and code fences, to what the copy leaves
 * out: in the copy they would lead nowhere (a chapter test would fail there).
 * The README is at the top of its repository. */
static const struct {
    const char *markdown, *says;
} lost_links[] = {
    {"text\nsee [the guide](INSTRUCTORS.md#the-lab), or not\n",
     "README.md:2: the link (INSTRUCTORS.md) leads to INSTRUCTORS.md, which a student copy"},
    {"[a](x.md) and [b](./exercises/../exercises/solutions/01/x.c)\n",
     "leads to exercises/solutions/01/x.c, which a student copy leaves out"},
    {"[CI](.ci/)\n", "README.md:1: the link (.ci/) leads to .ci"},
};

/* The copy of a repository of its own (the script, a solutions folder and a
 * README holding markdown) must exit 1, say says, and write nothing. */
static void copy_refuses(const char *markdown, const char *says)
{
    /* a repository of its own: the script, a solutions folder and one README */
    char repo[] = "/tmp/marker_repo_XXXXXX", command[COMMAND_MAX], path[PATH_MAX];
    ck_assert(mkdtemp(repo) != NULL);
    snprintf(command, sizeof command,
             "mkdir -p '%s/exercises/solutions/01' && cp student-copy.sh '%s/exercises/' &&"
             " echo x >'%s/exercises/solutions/01/x.c'",
             repo, repo, repo);
    ck_assert(shell(command) == 0);
    snprintf(path, sizeof path, "%s/README.md", repo);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(markdown, f);
    fclose(f);
    snprintf(command, sizeof command, "cd '%s' && git init -q && git add -A", repo);
    ck_assert_msg(shell(command) == 0, "git init failed");
    snprintf(command, sizeof command, "'%s/exercises/student-copy.sh' '%s-dest'", repo, repo);
    struct ran r = run_command(command);
    snprintf(path, sizeof path, "%s-dest", repo);
    bool written = exists(path);
    snprintf(command, sizeof command, "rm -rf '%s' '%s-dest'", repo, repo);
    shell(command);
    ck_assert_msg(r.status == 1, "exit %d, not 1, for:\n%s%s", r.status, markdown, r.err);
    ck_assert_msg(strstr(r.err, says) != NULL, "it does not say '%s': %s", says, r.err);
    ck_assert_msg(!written, "DEST was written before the Markdown was checked");
    free_ran(&r);
}

START_TEST(test_copy_refuses_unbalanced_instructor_markers_and_writes_nothing)
{
    copy_refuses(unbalanced[_i].markdown, unbalanced[_i].says);
}
END_TEST

START_TEST(test_copy_refuses_a_link_to_a_left_out_file_and_writes_nothing)
{
    copy_refuses(lost_links[_i].markdown, lost_links[_i].says);
}
END_TEST

/* -------------------------------------------------- what runs in the copy -- */

START_TEST(test_status_in_the_copy_lists_every_exercise_and_tells_untouched_from_edited)
{
    /* without git: untouched is "not started", an edit "edited" */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/exercises/13_barriers/local_histogram.cl", copy);
    append_line(path, "/* edited */");
    struct ran r = in_copy("make --no-print-directory -s status");
    ck_assert_msg(r.status == 0, "make status exited %d: %s%s", r.status, r.out, r.err);
    int lines = 0;
    for (const char *c = r.out; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == exercise_count + 1, "%d lines for %d exercises:\n%s", lines,
                  exercise_count, r.out);
    for (int e = 0; e < exercise_count; e++) {
        char start[80];
        snprintf(start, sizeof start, "\n%s ", exercises[e]);
        ck_assert_msg(strstr(r.out, start) != NULL, "no line for %s:\n%s", exercises[e], r.out);
    }
    ck_assert_msg(strstr(r.out, "\n16_packed_counters       not started\n"),
                  "an untouched exercise is not 'not started':\n%s", r.out);
    ck_assert_msg(strstr(r.out, "\n13_barriers              edited, not checked yet"),
                  "an edited exercise is not 'edited':\n%s", r.out);
    free_ran(&r);
}
END_TEST

START_TEST(test_check_of_a_cpu_starter_in_the_copy_fails_with_its_hint)
{
    struct ran r = in_copy("make --no-print-directory -s -C 01_cpu_threads check");
    ck_assert_msg(r.status != 0, "the starter's check passed in the copy");
    ck_assert_msg(strstr(r.out, "01_cpu_threads: FAILING in \"") &&
                      strstr(r.out, "  Stuck? Open hint ") && strstr(r.out, " in README.md."),
                  "no failure with a hint:\n%s%s", r.out, r.err);
    free_ran(&r);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/exercises/01_cpu_threads/build/last-check", copy);
    char *record = read_text(path);
    ck_assert_msg(strstr(record, " failing in \"") != NULL, "last-check: %s", record);
    free(record);
}
END_TEST

/* A check with a group left out for want of a tool passes, unless
 * CHECK_REQUIRE=1 asks for every group: then it is "not checked here" (77).
 * Exercise 06 with its solution, where oclgrind is a program that fails. */
START_TEST(test_check_require_turns_a_group_left_out_into_not_checked)
{
    char command[COMMAND_MAX];
    snprintf(
        command, sizeof command,
        "mkdir -p '%s/no-oclgrind' && printf '#!/bin/sh\\nexit 127\\n' "
        ">'%s/no-oclgrind/oclgrind' && chmod +x '%s/no-oclgrind/oclgrind' && "
        "cp '%s/exercises/solutions/06_rgb_opencl/rgb_histogram.cl' '%s/exercises/06_rgb_opencl/'",
        copy, copy, copy, root, copy);
    ck_assert_msg(shell(command) == 0, "failed: %s", command);
    char run[COMMAND_MAX / 2];
    snprintf(run, sizeof run,
             "PATH='%s/no-oclgrind':\"$PATH\" make --no-print-directory -s -C 06_rgb_opencl check",
             copy);
    /* one group that Oclgrind does not run: the first the check lists without it */
    snprintf(command, sizeof command,
             "make --no-print-directory -s -C 06_rgb_opencl check-built >/dev/null && "
             "CHECK_ONLY=/no-group/ %s",
             run);
    struct ran listing = in_copy(command);
    char group[256] = "";
    for (const char *line = listing.out; *line && !group[0]; line += strcspn(line, "\n")) {
        line += *line == '\n';
        size_t len = strcspn(line, "\n");
        if (len > 2 && len < sizeof group && !strncmp(line, "  ", 2)) {
            memcpy(group, line + 2, len - 2);
            group[len - 2] = '\0';
            if (strstr(group, "Oclgrind") || strchr(group, '\''))
                group[0] = '\0';
        }
    }
    ck_assert_msg(group[0], "no group to run without Oclgrind in:\n%s%s", listing.out, listing.err);
    free_ran(&listing);

    snprintf(command, sizeof command, "CHECK_ONLY='%s' %s", group, run);
    struct ran lenient = in_copy(command);
    if (strstr(lenient.out, "06_rgb_opencl: not checked here: needs")) {
        printf("SKIPPED: the CHECK_REQUIRE check: exercise 06 cannot run here: %s", lenient.out);
        free_ran(&lenient);
        return;
    }
    ck_assert_msg(lenient.status == 0 && strstr(lenient.out, " not run here"),
                  "without CHECK_REQUIRE, a group left out for want of Oclgrind is not a pass "
                  "with groups not run (exit %d):\n%s%s",
                  lenient.status, lenient.out, lenient.err);
    free_ran(&lenient);

    snprintf(command, sizeof command, "CHECK_REQUIRE=1 CHECK_ONLY='%s' %s", group, run);
    struct ran strict = in_copy(command);
    ck_assert_msg(strict.status != 0 && strstr(strict.out, "06_rgb_opencl: not checked here: ") &&
                      strstr(strict.out, "CHECK_REQUIRE=1") && strstr(strict.err, "Error 77"),
                  "CHECK_REQUIRE=1 did not make a group left out 'not checked here', exit 77 "
                  "(exit %d):\n%s%s",
                  strict.status, strict.out, strict.err);
    free_ran(&strict);
}
END_TEST

/* The instructors' targets in a copy, each of which must say why it cannot run. */
static const char *const instructor_targets[] = {
    "check-solutions", "check-starters", "check-mutants", "-C 01_cpu_threads check SOLUTION=1",
    "-C 01_cpu_threads check MUTANT=unlocked-merge"};

START_TEST(test_instructor_targets_in_the_copy_say_the_solutions_are_not_there)
{
    char command[COMMAND_MAX];
    snprintf(command, sizeof command, "make --no-print-directory -s %s", instructor_targets[_i]);
    struct ran r = in_copy(command);
    ck_assert_msg(r.status == 2, "make %s: exit %d, not 2", instructor_targets[_i], r.status);
    ck_assert_msg(r.out[0] == '\0' && one_line(r.err) && strstr(r.err, "not in this copy"),
                  "make %s: not one line that says why: %s%s", instructor_targets[_i], r.out,
                  r.err);
    free_ran(&r);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/exercises/01_cpu_threads/build-solution", copy);
    ck_assert_msg(!exists(path), "make %s built something", instructor_targets[_i]);
}
END_TEST

START_TEST(test_help_in_the_copy_leaves_out_the_instructor_targets)
{
    const char *instructors_only[] = {"check-solutions", "check-starters", "check-mutants",
                                      "SOLUTION=",       "MUTANT=",        "mutant"};
    struct ran in_repository = run_command("make --no-print-directory -s help");
    struct ran r = in_copy("make --no-print-directory -s help");
    ck_assert_msg(r.status == 0 && strstr(r.out, "  status ") && strstr(r.out, "  report "),
                  "the copy's help:\n%s%s", r.out, r.err);
    for (size_t i = 0; i < sizeof instructors_only / sizeof instructors_only[0]; i++) {
        ck_assert_msg(strstr(in_repository.out, instructors_only[i]),
                      "the repository's help does not list %s", instructors_only[i]);
        ck_assert_msg(!strstr(r.out, instructors_only[i]), "the copy's help lists %s:\n%s",
                      instructors_only[i], r.out);
    }
    free_ran(&r);
    free_ran(&in_repository);
}
END_TEST

/* ------------------------------------------------------------- report -- */

START_TEST(test_report_has_its_header_and_a_row_per_exercise)
{
    char path[PATH_MAX], host[256] = "";
    report_path(path, sizeof path, "rows");
    struct ran r = make_report("STUDENT='Ada Lovelace'", path);
    ck_assert_msg(r.status == 0, "make report exited %d: %s%s", r.status, r.out, r.err);
    ck_assert_msg(one_line(r.out) && strstr(r.out, path), "it does not name %s: %s", path, r.out);
    free_ran(&r);
    struct report report;
    read_report(path, &report);
    ck_assert_str_eq(report.header, HEADER);
    ck_assert_int_eq(report.rows, exercise_count);
    gethostname(host, sizeof host - 1);
    struct ran gpu = run_command("nvidia-smi --query-gpu=name --format=csv,noheader");
    for (int e = 0; e < exercise_count; e++) {
        int i = row_of(&report, exercises[e]);
        ck_assert_str_eq(report.fields[i][0], "Ada Lovelace");
        ck_assert_str_eq(report.fields[i][1], host);
        if (gpu.status != 0)
            ck_assert_str_eq(report.fields[i][2], "none");
        else
            ck_assert_msg(strncmp(gpu.out, report.fields[i][2], strlen(report.fields[i][2])) == 0,
                          "gpu '%s', nvidia-smi says %s", report.fields[i][2], gpu.out);
        ck_assert_msg(strlen(report.fields[i][5]) == 64 &&
                          strspn(report.fields[i][5], "0123456789abcdef") == 64,
                      "%s: not a SHA-256: '%s'", exercises[e], report.fields[i][5]);
    }
    free_ran(&gpu);
    free(report.text);
}
END_TEST

START_TEST(test_report_quotes_a_name_with_a_comma_or_a_quote)
{
    char path[PATH_MAX];
    report_path(path, sizeof path, "quoted");
    struct ran r = make_report("STUDENT='Lovelace, Ada \"the Countess\"'", path);
    ck_assert_msg(r.status == 0, "make report exited %d: %s%s", r.status, r.out, r.err);
    free_ran(&r);
    struct report report;
    read_report(path, &report);
    ck_assert_str_eq(report.header, HEADER);
    ck_assert_int_eq(report.rows, exercise_count);
    for (int i = 0; i < report.rows; i++) {
        const char *quoted = "\"Lovelace, Ada \"\"the Countess\"\"\",";
        ck_assert_msg(strncmp(report.raw[i], quoted, strlen(quoted)) == 0,
                      "not quoted as RFC 4180 says: %s", report.raw[i]);
        ck_assert_str_eq(report.fields[i][0], "Lovelace, Ada \"the Countess\"");
    }
    free(report.text);
}
END_TEST

/* The report's default path for the student, here: exercises/report-<slug>-<host>.csv. */
static void check_default_report(const char *environment, const char *slug, const char *student)
{
    char host[256] = "", host_slug[256] = "", path[PATH_MAX], command[COMMAND_MAX];
    gethostname(host, sizeof host - 1);
    /* the host as report names its file: lower case, each run of other characters one '-' */
    size_t len = 0;
    for (const char *c = host; *c; c++) {
        bool alnum =
            (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9');
        if (alnum)
            host_slug[len++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        else if (len > 0 && host_slug[len - 1] != '-')
            host_slug[len++] = '-';
    }
    while (len > 0 && host_slug[len - 1] == '-')
        len--;
    host_slug[len] = '\0';
    snprintf(path, sizeof path, "%s/exercises/report-%s-%s.csv", copy, slug, host_slug);
    unlink(path);
    snprintf(command, sizeof command,
             "env -u STUDENT -u REPORT -u GIT_CONFIG_GLOBAL %s make --no-print-directory -s report",
             environment);
    struct ran r = in_copy(command);
    ck_assert_msg(r.status == 0, "%s: exit %d: %s%s", environment, r.status, r.out, r.err);
    ck_assert_msg(one_line(r.out) && strstr(r.out, path), "%s: it does not name %s: %s",
                  environment, path, r.out);
    free_ran(&r);
    struct report report;
    read_report(path, &report);
    ck_assert_int_eq(report.rows, exercise_count);
    ck_assert_str_eq(report.fields[0][0], student);
    free(report.text);
    unlink(path);
}

START_TEST(test_report_names_the_student_from_git_else_user_by_default)
{
    char home[] = "/tmp/report_home_XXXXXX", path[PATH_MAX], environment[512];
    ck_assert(mkdtemp(home) != NULL);
    snprintf(environment, sizeof environment,
             "HOME='%s' XDG_CONFIG_HOME='%s' GIT_CONFIG_NOSYSTEM=1 USER=ghopper", home, home);
    check_default_report(environment, "ghopper", "ghopper");
    snprintf(path, sizeof path, "%s/.gitconfig", home);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs("[user]\n\tname = Grace B. Hopper\n", f);
    fclose(f);
    check_default_report(environment, "grace-b-hopper", "Grace B. Hopper");
    unlink(path);
    rmdir(home);
}
END_TEST

START_TEST(test_report_refuses_an_empty_name_in_one_line)
{
    char home[] = "/tmp/report_home_XXXXXX", path[PATH_MAX], command[COMMAND_MAX];
    ck_assert(mkdtemp(home) != NULL);
    report_path(path, sizeof path, "refused");
    const char *nobody[] = {"STUDENT=", "STUDENT='  '", "-u STUDENT USER="};
    for (size_t i = 0; i < sizeof nobody / sizeof nobody[0]; i++) {
        /* the script itself, for its exit status (make's would be 2 whatever it was) */
        snprintf(command, sizeof command,
                 "env -u GIT_CONFIG_GLOBAL %s HOME='%s' XDG_CONFIG_HOME='%s' GIT_CONFIG_NOSYSTEM=1 "
                 "REPORT='%s' ./run-checks.sh report 01_cpu_threads",
                 nobody[i], home, home, path);
        struct ran r = in_copy(command);
        ck_assert_msg(r.status == 2, "%s: exit %d, not 2", nobody[i], r.status);
        ck_assert_msg(r.out[0] == '\0' && one_line(r.err) && strstr(r.err, "no student name"),
                      "%s: not one line that says why: %s%s", nobody[i], r.out, r.err);
        ck_assert_msg(!exists(path), "%s: a report was written", nobody[i]);
        free_ran(&r);
    }
    rmdir(home);
}
END_TEST

START_TEST(test_report_sums_the_students_files_and_follows_an_edit)
{
    char path[PATH_MAX], source[PATH_MAX], command[COMMAND_MAX];
    report_path(path, sizeof path, "sums");
    struct ran r = make_report("STUDENT=Ada", path);
    ck_assert_msg(r.status == 0, "make report exited %d: %s%s", r.status, r.out, r.err);
    free_ran(&r);
    struct report before, after;
    read_report(path, &before);
    /* 12's files: the host program and the kernel, in that order */
    snprintf(command, sizeof command,
             "cd '%s/exercises/12_partitioning' && cat partitioning.c partitioning.cl | sha256sum",
             copy);
    struct ran sum = run_command(command);
    int row = row_of(&before, "12_partitioning");
    ck_assert_msg(strncmp(sum.out, before.fields[row][5], 64) == 0,
                  "12's sum is not that of its files: %s, sha256sum says %s", before.fields[row][5],
                  sum.out);
    free_ran(&sum);
    ck_assert_str_eq(before.fields[row][4], "not checked");

    snprintf(source, sizeof source, "%s/exercises/12_partitioning/partitioning.cl", copy);
    append_line(source, "/* one more line */");
    r = make_report("STUDENT=Ada", path);
    free_ran(&r);
    read_report(path, &after);
    ck_assert_int_eq(after.rows, before.rows);
    for (int i = 0; i < after.rows; i++) {
        bool changed = strcmp(after.fields[i][5], before.fields[i][5]) != 0;
        ck_assert_msg(changed == (strcmp(after.fields[i][3], "12_partitioning") == 0),
                      "%s's sum %s when 12's kernel changed", after.fields[i][3],
                      changed ? "changed" : "did not change");
    }
    free(before.text);
    free(after.text);
}
END_TEST

/* The last check's file time, as the report must write it. */
static void utc_mtime(const char *path, char *text, size_t len)
{
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "no %s", path);
    struct tm utc;
    gmtime_r(&st.st_mtime, &utc);
    strftime(text, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

/* A report's result for a check that passed: "passed", or "passed, N checks
 * not run here" where a tool (gcc-multilib) is missing. */
static bool passed_here(const char *result)
{
    return strcmp(result, "passed") == 0 || strncmp(result, "passed, ", 8) == 0;
}

START_TEST(test_report_result_follows_the_last_check)
{
    char path[PATH_MAX], record[PATH_MAX], when[32], command[COMMAND_MAX];
    /* 01: the starter's check fails; 14: the solution, copied in, passes */
    struct ran r = in_copy("make --no-print-directory -s -C 01_cpu_threads check");
    ck_assert_msg(r.status != 0, "01's starter passed its check");
    free_ran(&r);
    snprintf(command, sizeof command,
             "cp '%s/exercises/solutions/14_bin_edges/bin_edges.c' '%s/exercises/14_bin_edges/'",
             root, copy);
    ck_assert(shell(command) == 0);
    r = in_copy("make --no-print-directory -s -C 14_bin_edges check");
    ck_assert_msg(r.status == 0, "14's solution failed its check in the copy: %s%s", r.out, r.err);
    free_ran(&r);

    report_path(path, sizeof path, "results");
    r = make_report("STUDENT=Ada", path);
    free_ran(&r);
    struct report report;
    read_report(path, &report);
    int row = row_of(&report, "01_cpu_threads");
    ck_assert_str_eq(report.fields[row][4], "failing");
    snprintf(record, sizeof record, "%s/exercises/01_cpu_threads/build/last-check", copy);
    utc_mtime(record, when, sizeof when);
    ck_assert_str_eq(report.fields[row][6], when);
    row = row_of(&report, "14_bin_edges");
    ck_assert_msg(passed_here(report.fields[row][4]), "14_bin_edges: %s", report.fields[row][4]);
    snprintf(record, sizeof record, "%s/exercises/14_bin_edges/build/last-check", copy);
    utc_mtime(record, when, sizeof when);
    ck_assert_str_eq(report.fields[row][6], when);
    row = row_of(&report, "16_packed_counters");
    ck_assert_str_eq(report.fields[row][4], "not checked");
    ck_assert_str_eq(report.fields[row][6], "");
    row = row_of(&report, "02_race");
    bool gpu_here =
        shell("nvidia-smi -L >/dev/null 2>&1 || test -e /dev/nvidia0 || test -e /dev/dxg") == 0;
    ck_assert_str_eq(report.fields[row][4], gpu_here ? "not checked" : "skipped: needs a GPU");
    free(report.text);

    /* an edit after the check: the check no longer speaks for the files */
    snprintf(record, sizeof record, "%s/exercises/01_cpu_threads/cpu_threads.c", copy);
    append_line(record, "/* edited after the check */");
    r = make_report("STUDENT=Ada", path);
    free_ran(&r);
    read_report(path, &report);
    ck_assert_str_eq(report.fields[row_of(&report, "01_cpu_threads")][4],
                     "edited since last check");
    const char *bin_edges = report.fields[row_of(&report, "14_bin_edges")][4];
    ck_assert_msg(passed_here(bin_edges), "14_bin_edges: %s", bin_edges);
    free(report.text);
}
END_TEST

/* ---------------------------------------------------------------- main -- */

/* Why this suite cannot run here, or NULL: it copies the workbook from a git
 * checkout that has the solutions. */
static const char *cannot_run(void)
{
    struct stat st;
    if (stat("solutions", &st) != 0)
        return "no solutions in this copy";
    if (shell("git rev-parse --show-toplevel >/dev/null 2>&1") != 0)
        return "not a git checkout, which student-copy.sh copies from";
    return NULL;
}

int main(void)
{
    Suite *suite = suite_create("exercises");
    TCase *copied = tcase_create("student copy");
    tcase_set_timeout(copied, 120);
    tcase_add_test(copied, test_copy_is_made_into_an_empty_folder_and_says_where);
    tcase_add_test(copied, test_copy_holds_the_tracked_files_less_solutions_mutants_ci_and_history);
    tcase_add_test(copied, test_copy_markdown_is_the_original_without_its_instructor_blocks);
    tcase_add_test(copied, test_copy_markdown_names_no_solution_mutant_or_marker);
    tcase_add_test(copied, test_copy_refuses_a_dest_that_is_not_empty);
    tcase_add_test(copied, test_copy_refuses_no_dest_two_dests_a_file_and_a_dest_in_the_repository);
    tcase_add_test(copied, test_make_student_copy_without_dest_says_why);
    int markers = (int)(sizeof unbalanced / sizeof unbalanced[0]);
    tcase_add_loop_test(copied, test_copy_refuses_unbalanced_instructor_markers_and_writes_nothing,
                        0, markers);
    int links = (int)(sizeof lost_links / sizeof lost_links[0]);
    tcase_add_loop_test(copied, test_copy_refuses_a_link_to_a_left_out_file_and_writes_nothing, 0,
                        links);
    tcase_add_test(copied,
                   test_status_in_the_copy_lists_every_exercise_and_tells_untouched_from_edited);
    tcase_add_test(copied, test_check_of_a_cpu_starter_in_the_copy_fails_with_its_hint);
    int targets = (int)(sizeof instructor_targets / sizeof instructor_targets[0]);
    tcase_add_loop_test(copied, test_instructor_targets_in_the_copy_say_the_solutions_are_not_there,
                        0, targets);
    tcase_add_test(copied, test_help_in_the_copy_leaves_out_the_instructor_targets);
    TCase *report = tcase_create("report");
    tcase_set_timeout(report, 120);
    tcase_add_test(report, test_report_has_its_header_and_a_row_per_exercise);
    tcase_add_test(report, test_report_quotes_a_name_with_a_comma_or_a_quote);
    tcase_add_test(report, test_report_names_the_student_from_git_else_user_by_default);
    tcase_add_test(report, test_report_refuses_an_empty_name_in_one_line);
    tcase_add_test(report, test_report_sums_the_students_files_and_follows_an_edit);
    tcase_add_test(report, test_report_result_follows_the_last_check);
    tcase_add_test(report, test_check_require_turns_a_group_left_out_into_not_checked);
    /* the single tests above, and the loops' */
    const int checks = 10 + markers + links + targets + 7;

    const char *why = cannot_run();
    if (why == NULL) {
        char resolved[PATH_MAX];
        if (!realpath("..", resolved) || strlen(resolved) >= sizeof root || !mkdtemp(copy)) {
            perror("test_exercises: the repository's path, or a folder for the copy");
            return EXIT_FAILED;
        }
        memcpy(root, resolved, strlen(resolved) + 1);
        /* the copy every check reads, made once; the first check says how it went */
        char command[COMMAND_MAX];
        snprintf(command, sizeof command, "./student-copy.sh '%s' 2>&1", copy);
        FILE *p = popen(command, "r");
        static char output[8192];
        size_t got = p ? fread(output, 1, sizeof output - 1, p) : 0;
        output[got] = '\0';
        copy_status = p ? pclose(p) : -1;
        copy_status = WIFEXITED(copy_status) ? WEXITSTATUS(copy_status) : -1;
        copy_output = output;
        /* its exercises, as make -C exercises lists them: NN_name folders */
        snprintf(command, sizeof command, "cd '%s/exercises' && ls -d [0-9][0-9]_*/", copy);
        p = popen(command, "r");
        char line[sizeof exercises[0]];
        while (p && fgets(line, sizeof line, p) && exercise_count < MOST_EXERCISES) {
            line[strcspn(line, "/\n")] = '\0';
            snprintf(exercises[exercise_count++], sizeof exercises[0], "%s", line);
        }
        if (p)
            pclose(p);
        suite_add_tcase(suite, copied);
        suite_add_tcase(suite, report);
    }

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    if (why) {
        printf("SKIPPED: %d checks of exercises: %s\n", checks, why);
    } else {
        char command[COMMAND_MAX];
        snprintf(command, sizeof command, "rm -rf '%s' '%s'.*", copy,
                 copy); /* and its .want, ... */
        shell(command);
    }
    return failed ? EXIT_FAILED : EXIT_OK;
}
