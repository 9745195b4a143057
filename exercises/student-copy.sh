#!/usr/bin/env bash
# student-copy.sh DEST (make student-copy DEST=<folder>): writes the workbook
# as a student gets it into DEST, a new or empty folder outside the repository.
#
# It takes the files git tracks, as they are in the working tree (so no build
# output goes along), and leaves out what is for instructors: the reference
# solutions and their mutants (exercises/solutions/), exercises/make-mutant.sh,
# CI (.ci/, which runs the solutions) and INSTRUCTORS.md; no git history goes
# either. In every Markdown file it removes each block of lines from a line
# `<!-- instructors -->` to a line `<!-- /instructors -->` (HTML comments:
# invisible where the Markdown is rendered). A marker left open, closed twice
# or not on a line of its own stops the copy before anything is written, and
# so does a link, outside those blocks and outside code fences, to a file the
# copy leaves out (INSTRUCTORS.md, say): in the copy it would lead nowhere.
#
# make -C exercises status tells "not started" from "edited" by comparing each
# exercise's files with their sum when handed out, which this script records
# in exercises/starters.cksum: a copy has no git history to diff against.
set -uo pipefail

die() { # status reason: one line, and that status
    echo "student-copy: $2" >&2
    exit "$1"
}

usage="make student-copy DEST=<folder> (a new or empty folder outside the repository)"
[ $# -le 1 ] || die 2 "one DEST only, not $#: $usage"
[ -n "${1:-}" ] || die 2 "DEST is missing: $usage"
dest=$(realpath -m -- "$1") || die 2 "cannot resolve DEST '$1': $usage"
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) ||
    die 2 "$here is not in a git checkout of the workbook: a student copy is made from the repository"
root=$(realpath -- "$root")
[ -d "$root/exercises/solutions" ] ||
    die 2 "$root has no exercises/solutions/: it is a student copy already, or not the workbook"
case $dest/ in
"$root"/*) die 2 "DEST $dest is inside the repository $root: $usage" ;;
esac
if [ -e "$dest" ] || [ -L "$dest" ]; then
    [ -d "$dest" ] || die 2 "DEST $dest exists and is not a folder: $usage"
    [ -z "$(ls -A -- "$dest")" ] || die 2 "DEST $dest exists and is not empty: $usage"
fi

# What a student does not get, by path from the repository's root (the same
# paths in strip_instructors' left_out below, for the links that point there).
left_out() { # path
    case $1 in
    exercises/solutions/* | exercises/make-mutant.sh | .ci/* | INSTRUCTORS.md) return 0 ;;
    esac
    return 1
}

cd "$root" || die 1 "cannot enter $root"
files=() skipped=0
while IFS= read -r -d '' file; do
    if left_out "$file"; then
        skipped=$((skipped + 1))
    elif [ -e "$file" ] || [ -L "$file" ]; then # tracked but deleted here: as in the working tree
        files+=("$file")
    fi
done < <(git ls-files -z)
[ ${#files[@]} -gt 0 ] || die 1 "git lists no files in $root"

# Prints the Markdown file without its instructor blocks, or, with check=1,
# nothing; on a marker out of place, or (check=1) a link that the copy would
# leave leading nowhere, it prints FILE:LINE and why to stderr and exits 1.
# Where a block stood between two blank lines, one blank line stays.
strip_instructors() { # file [check]
    awk -v check="${2:-0}" '
        function bad(why) { printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"; failed = 1; exit 1 }
        # a path from the repository root, its "." and ".." taken out
        function tidy(path,    n, part, out, i, k) {
            n = split(path, part, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (part[i] == "" || part[i] == ".") continue
                if (part[i] == ".." && k > 0) { k--; continue }
                out[++k] = part[i]
            }
            path = ""
            for (i = 1; i <= k; i++) path = path (i > 1 ? "/" : "") out[i]
            return path
        }
        function left_out(path) {
            return path ~ /^(exercises\/solutions(\/|$)|exercises\/make-mutant\.sh$|\.ci(\/|$)|INSTRUCTORS\.md$)/
        }
        # every relative link of a line kept for students: [text](target)
        function check_links(line,    at, target, dir) {
            dir = FILENAME; sub(/[^\/]*$/, "", dir)
            while ((at = index(line, "](")) > 0) {
                line = substr(line, at + 2)
                target = line; sub(/[)# \t].*$/, "", target)
                if (target == "" || target ~ /^[a-z]+:/) continue
                if (left_out(tidy(dir target)))
                    bad("the link (" target ") leads to " tidy(dir target) ", which a student copy leaves out: put it in an instructors block")
            }
        }
        /^<!-- instructors -->[ \t]*$/ {
            if (open) bad("<!-- instructors --> inside the block opened at line " start)
            open = 1; start = FNR; next
        }
        /^<!-- \/instructors -->[ \t]*$/ {
            if (!open) bad("<!-- /instructors --> closes no block")
            open = 0; after = 1; next
        }
        /<!-- \/?instructors -->/ && !open { bad("an instructors marker must be a line of its own") }
        open { next }
        /^[ \t]*```/ { fenced = !fenced }
        check && !fenced { check_links($0) }
        after && blank && /^[ \t]*$/ { next }
        { after = 0; blank = /^[ \t]*$/; if (!check) print }
        END { if (!failed && open) { FNR = start; bad("<!-- instructors --> is never closed") } }
    ' "$1"
}

# Every marker and link is checked before anything is written, so a mistake leaves DEST as it was.
markdown=()
for file in "${files[@]}"; do
    [[ $file == *.md ]] && [ -f "$file" ] && markdown+=("$file")
done
for file in "${markdown[@]}"; do
    strip_instructors "$file" 1 ||
        die 1 "$file: an instructor marker out of place, or a link into a left-out file (above): nothing was copied"
done

mkdir -p -- "$dest" || die 1 "cannot make DEST $dest"
printf '%s\0' "${files[@]}" | xargs -0 cp -P --parents --preserve=mode -t "$dest" ||
    die 1 "copying into $dest failed: it holds part of the workbook; empty it before trying again"
for file in "${markdown[@]}"; do
    strip_instructors "$file" >"$dest/$file" || die 1 "$file: could not be written to $dest"
done

# Each exercise's files as handed out, summed as make status sums them (make sources-sum).
{
    echo "# each exercise's files as handed out (make sources-sum): make status reads"
    echo "# this to tell 'not started' from 'edited', since a student copy has no git"
    for folder in "$dest"/exercises/[0-9][0-9]_*/; do
        exercise=$(basename "$folder")
        sum=$(make --no-print-directory -s -C "$folder" sources-sum 2>/dev/null) ||
            die 1 "$exercise: make sources-sum failed in the copy"
        echo "$exercise $sum"
    done
} >"$dest/exercises/starters.cksum" || die 1 "cannot write $dest/exercises/starters.cksum"

blocks=$(cat /dev/null "${markdown[@]}" | grep -cx '<!-- instructors -->[[:space:]]*')
untracked=$(git ls-files --others --exclude-standard | head -5 | tr '\n' ' ')
echo "student-copy: the workbook as handed out, ${#files[@]} files, in $dest"
echo "  left out: $skipped instructor files (exercises/solutions/, make-mutant.sh, .ci/," \
    "INSTRUCTORS.md), $blocks instructor blocks of the Markdown, and the git history"
[ -z "$untracked" ] || echo "  not copied, as git does not track them: $untracked(git status lists them all)"
exit 0
