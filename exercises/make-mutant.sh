#!/usr/bin/env bash
# make-mutant.sh EXERCISE NAME EDITED_FILE "WHAT IS WRONG": for instructors and
# authors. Writes solutions/EXERCISE/mutants/NAME.patch, the difference between
# the solution's file of that name and EDITED_FILE (a copy, under the same name
# in another folder, with one classic mistake), headed by the sentence that
# says what the mistake is. Then
#     make -C EXERCISE check MUTANT=NAME
# must fail, and make -C exercises check-mutants runs every mutant.
set -euo pipefail
cd "$(dirname "$0")"
[ $# -eq 4 ] || { echo "usage: $0 EXERCISE NAME EDITED_FILE 'what is wrong'" >&2; exit 2; }
exercise=$1 name=$2 edited=$(realpath "$3") why=$4
file=$(basename "$edited")
original=solutions/$exercise/$file
[ -f "$original" ] || { echo "$original: no such solution file" >&2; exit 2; }
mkdir -p "solutions/$exercise/mutants"
patch=solutions/$exercise/mutants/$name.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"
cp "$original" "$tmp/a/$file"
cp "$edited" "$tmp/b/$file"
{
    echo "Mutant $name of exercise $exercise: $why"
    echo
    (cd "$tmp" && diff -u --label "a/$file" --label "b/$file" "a/$file" "b/$file" || true)
} >"$patch"
grep -q '^@@' "$patch" || { rm -f "$patch"; echo "$edited: no different from $original" >&2; exit 1; }
echo "wrote $patch"
