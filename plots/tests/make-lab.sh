#!/usr/bin/env bash
# make-lab.sh FOLDER [MACHINES]: a made-up lab for make lab's tests, and for an
# instructor to try make lab before the lab: MACHINES (default 30) CSVs in
# make bench's format, never results. Made from tests/fixture/lab/h100-lab.csv (a
# real make bench BENCH_SWEEPS=no on the H100, so that the chart has the
# columns a real lab's has): each machine's times are that run's scaled by a
# factor of its own, on one of five made-up GPU models, so that several
# machines share a model (pc01, pc06, pc11... have the first) and stay apart;
# every tenth machine has no GPU (its CPU rows only, from fixture-cpu.csv,
# given "brief" copies of the main rows that brief.txt's runs would give).
# It writes into FOLDER as it is: give it a new one.
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
        source=$here/fixture/lab/h100-lab.csv
        gpu=$(echo "Lab GPU A|Lab GPU B|Lab GPU C|Lab GPU D|Lab GPU E" | cut -d'|' -f$((model + 1)))
    fi
    # a machine's own factor: its model's, and a few percent of its own
    awk -F, -v OFS=, -v gpu="$gpu" -v name="$name" -v scale="$(awk -v m=$model -v i="$i" 'BEGIN { print (1 + m * 0.9) * (1 + (i % 7) * 0.02) }')" '
        NR == 1 { print "stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified,pct_of_read_bw,run,date,host_cpu,gpu,driver,cuda,host,machine_id"; next }
        {
            NF = 20                             # the host and machine_id columns are this machine'"'"'s
            $10 = sprintf("%.4f", $10 * scale); $11 = sprintf("%.4f", $11 * scale)
            if ($12 + 0 > 0) $12 = sprintf("%.3f", $12 / scale)
            if (gpu != "none" && $3 == $18) $3 = gpu
            if (gpu != "none") $18 = gpu
            line = $0 "," name ",id-" name
            print line
            if (gpu == "none" && $15 == "main" && $4 == "uniform" &&
                ($1 $2 == "01_cpubook" || ($1 $2 == "01_cpusub4" && $8 > 1) || $1 == "04_opencl_port")) {
                $15 = "brief"; print $0 "," name ",id-" name
            }
        }' "$source" >"$dir/$name-$([ "$gpu" = none ] && echo fixture-laptop-cpu || echo "$gpu" | tr 'A-Z ' 'a-z-').csv"
done
