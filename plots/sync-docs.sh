#!/usr/bin/env bash
# Copies recorded output into the Markdown that shows it, so that no README or
# chapter shows output typed by hand. A line
#     <!-- output: plots/results/FILE.txt -->
# is followed by a fenced block holding FILE.txt, and a line
#     <!-- table: plots/results/MACHINE.csv -->
# by a Markdown table of that machine's main run (plots/rows.awk, chart=table).
# Run it after recording new results.
set -euo pipefail
cd "$(dirname "$0")/.."
for doc in $(git ls-files '*.md'); do
    grep -q '^<!-- \(output\|table\): ' "$doc" || continue
    awk '
        in_table && /^\|/ { next }                  # the old table
        { in_table = 0 }
        /^<!-- table: .* -->$/ {
            print
            fflush()
            system("awk -v chart=table -f plots/rows.awk " $3)
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
            print "```"
            while ((getline line < path) > 0) print line
            close(path)
            print "```"
            dropping_open = 1
            next
        }
        { print }
    ' "$doc" > "$doc.tmp"
    mv "$doc.tmp" "$doc"
done
