#!/usr/bin/env bash
# Copies recorded output into the Markdown that shows it, so that no README or
# chapter shows output typed by hand. A line
#     <!-- output: plots/results/FILE.txt -->
# is followed by a fenced block holding FILE.txt, a line
#     <!-- table: plots/results/MACHINE.csv -->
# by a Markdown table of that machine's main run on uniform bytes (plots/rows.awk,
# chart=table), every stage's rows; a line that names stages (folders of stages.txt)
#     <!-- table: plots/results/MACHINE.csv 05_privatized 06_streams -->
# by the same table with those stages' rows alone, and read_bandwidth's rows
# (the read bandwidth and the rated peak, the yardsticks of its percentages) where
# one of them ran on the GPU; and a line
#     <!-- machines: uniform -->
# by a table of every machine in plots/results/, side by side: a row per stage
# and variant, a column per machine (named by its GPU, or its CPU where it has
# none), each cell the kernel ms on that input at 100 MiB (uniform, skewed,
# constant or text) and, on a GPU, the % of that machine's read bandwidth and of
# its rated peak (plots/rows.awk, chart=machines-table). A table ends at the
# first line that is not a table row. A marker naming a file or a stage that
# does not exist stops it, the Markdown unchanged. Run it after recording new
# results; with Markdown files as arguments it updates those, else every one
# git knows.
set -euo pipefail
files=()
for doc in "$@"; do files+=("$(realpath "$doc")"); done # as given from the caller's folder
cd "$(dirname "$0")/.."
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(git ls-files '*.md')
for doc in "${files[@]}"; do
    grep -q '^<!-- \(output\|table\|machines\): ' "$doc" || continue
    awk '
        in_table && /^\|/ { next }                  # the old table
        { in_table = 0 }
        /^<!-- table: .* -->$/ {
            print
            fflush()
            stages = ""                             # the stages named after the CSV, if any
            for (i = 4; i < NF; i++) {
                if ($i !~ /^[A-Za-z0-9_]+$/) { print FILENAME ": not a stage name: " $i > "/dev/stderr"; exit 1 }
                stages = stages " " $i
            }
            if ($3 !~ /^[A-Za-z0-9_.\/-]+$/) { print FILENAME ": not a CSV path: " $3 > "/dev/stderr"; exit 1 }
            if (system("awk -v chart=table -v stages=\"" stages "\" -f plots/rows.awk " $3) != 0) exit 1
            in_table = 1
            next
        }
        /^<!-- machines: [a-z]+ -->$/ {
            print
            fflush()
            if (system("awk -v chart=machines-table -v kind=" $3 " -f plots/rows.awk plots/results/*.csv") != 0) exit 1
            in_table = 1
            next
        }
        skipping && /^```/ { skipping = 0; next }   # end of the old block
        skipping { next }
        dropping_open && /^```/ { skipping = 1; dropping_open = 0; next }
        dropping_open && /^$/ { next }
        { dropping_open = 0 }
        /^<!-- output: .* -->$/ {
            print
            path = $3
            if ((getline line < path) < 0) { print FILENAME ": cannot read " path > "/dev/stderr"; exit 1 }
            close(path)
            print "```"
            while ((getline line < path) > 0) print line
            close(path)
            print "```"
            dropping_open = 1
            next
        }
        { print }
    ' "$doc" > "$doc.tmp" || { rm -f "$doc.tmp"; echo "sync-docs: $doc left as it was" >&2; exit 1; }
    mv "$doc.tmp" "$doc"
done
