#!/bin/bash
# sweep.sh - the whole picture in one call: bins 2 to 2^20 on 1 GiB of uniform,
# skewed and constant keys, one CSV line per (data, bins, strategy) with its %
# of the read-only kernel; the program's other lines are kept, after a '#'.
# More options go to every run: ./sweep.sh --reps 3 --size 256M
set -o pipefail
cd "$(dirname "$0")" || exit 1
header=yes
for data in uniform skewed constant; do
    ./hist_gpu_many_bins --sweep --csv --size 1G --reps 5 --data "$data" "$@" |
        awk -v h="$header" -v d="$data" '
            /^data,/    { if (h) print; next }
            index($0, d ",") == 1 { print; next }
            NF          { print "# " $0 }' || exit
    header=
done
