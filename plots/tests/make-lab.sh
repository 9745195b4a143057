#!/usr/bin/env bash
# make-lab.sh FOLDER [MACHINES]: a made-up lab for make lab's tests, and for an
# instructor to try make lab before the lab: MACHINES (default 30) CSVs in
# make bench's format, never results. Made from tests/fixture/fixture-gpu3.csv
# (every stage, main run): each machine's times are the fixture's scaled by a
# factor of its own, on one of five made-up GPU models, so that several
# machines share a model (pc01, pc06, pc11... have the first) and stay apart;
# every tenth machine has no GPU (its CPU rows only, from fixture-cpu.csv).
# Each machine also gets "brief" rows: copies of those of its main rows on
# uniform bytes that plots/brief.txt's runs would give.
set -euo pipefail
dir=${1:?usage: make-lab.sh FOLDER [MACHINES]}
machines=${2:-30}
here=$(dirname "$0")
mkdir -p "$dir"
for ((i = 1; i <= machines; i++)); do
    name=$(printf 'pc%02d' "$i")
    model=$(((i - 1) % 5))
    if ((i % 10 == 0)); then
        source=$here/fixture/fixture-cpu.csv gpu=none
    else
        source=$here/fixture/fixture-gpu3.csv
        gpu=$(echo "Lab GPU A|Lab GPU B|Lab GPU C|Lab GPU D|Lab GPU E" | cut -d'|' -f$((model + 1)))
    fi
    # a machine's own factor: its model's, and a few percent of its own
    awk -F, -v OFS=, -v gpu="$gpu" -v name="$name" -v scale="$(awk -v m=$model -v i="$i" 'BEGIN { print (1 + m * 0.9) * (1 + (i % 7) * 0.02) }')" '
        NR == 1 { print $0 ",host,machine_id"; next }
        {
            $10 = sprintf("%.4f", $10 * scale); $11 = sprintf("%.4f", $11 * scale)
            if ($12 + 0 > 0) $12 = sprintf("%.3f", $12 / scale)
            if (gpu != "none" && $3 == $18) $3 = gpu
            if (gpu != "none") $18 = gpu
            line = $0 "," name ",id-" name
            print line
            if ($15 == "main" && $4 == "uniform" && ($1 ~ /^0[23]/ || $1 $2 ~ /^01_cpubook$|^01_cpusub4$|^04|^05_privatized(book-occupancy|unrolled|cub)$|^06_streams(pinned-copy|pageable|pinned|streams)$|^07_any_bins(auto|cub)/)) {
                $15 = "brief"; print $0 "," name ",id-" name
            }
        }' "$source" >"$dir/$name-$([ "$gpu" = none ] && echo fixture-laptop-cpu || echo "$gpu" | tr 'A-Z ' 'a-z-').csv"
done
