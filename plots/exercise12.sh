#!/usr/bin/env bash
# plots/exercise12.sh: exercise 12's own recorded runs, for its README's
# "What to expect" (instructors: it runs the reference solution, which a
# student copy does not have). On each OpenCL device of this machine (PoCL's
# CPU device; on a GPU machine NVIDIA's platform too, where it is installed)
# it times both walks, interleaved and contiguous, on the default input
# (100 MiB of uniform bytes), at the default launch (2 work-groups per compute
# unit) and at --blocks-per-sm 8; each case three times, each time a fresh
# process (the default --reps 10: a median of 10 after a warm-up, for the
# kernel alone and, in runs of their own, for the whole trip). It writes
# every row, as the stages' CSV, to DIR/exercise12-<device>.csv (DIR:
# plots/results by default; <device>: the CPU's name for a CPU device, as
# exercise01.sh names its file, else the device's name, as the results' file
# names hold them), and after the rows, in lines that start with '#' (and
# hold no comma), each walk's lowest, middle and highest median over the
# three processes, with the load average before and after. Run it on a quiet
# machine: every other program on the cores moves the times.
#
# EXERCISE12_ARGS adds options to every run (the tests: '--size 1M --reps 3').
# Usage: plots/exercise12.sh [DIR]
# Exit: 0 recorded, 1 a run failed or did not verify, 2 bad usage, 77 no
# reference solution here (a student copy) or no OpenCL device.
set -euo pipefail

top=$(realpath "$(dirname "$0")/..")
[ $# -le 1 ] || { echo "exercise12: usage: plots/exercise12.sh [DIR]" >&2; exit 2; }
dir=${1:+$(realpath -m -- "$1")}
cd "$top"
. plots/machine.sh # host_cpu
dir=${dir:-plots/results}
[ -d exercises/solutions/12_partitioning ] ||
    { echo "exercise12: no reference solution here (a student copy): nothing to record"; exit 77; }

make -s -C exercises/12_partitioning SOLUTION=1 build-solution/partitioning >/dev/null
program=exercises/12_partitioning/build-solution/partitioning
# One line per device: "P D TYPE NAME", from the program's own --list
devices=$("$program" --list | sed -n \
    's/^  --platform \([0-9]*\) --device \([0-9]*\): \(.*\) (\([A-Za-z ]*\), [0-9]* compute units.*/\1 \2 \4 \3/p') ||
    true
[ -n "$devices" ] || { echo "exercise12: no OpenCL device here: nothing to record"; exit 77; }
mkdir -p "$dir"
# shellcheck disable=SC2206 # split on purpose: the options are words
extra=(${EXERCISE12_ARGS:-})

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
while read -r platform device type name; do
    where=(--platform "$platform" --device "$device")
    if [ "$type" = CPU ]; then file=exercise12-$(slug_of "$host_cpu").csv; else file=exercise12-$(slug_of "$name").csv; fi
    units=$("$program" --list </dev/null | sed -n "s/^  --platform $platform --device $device: .*, \([0-9]*\) compute units.*/\1/p")
    {
        echo "# plots/exercise12.sh on ${name//,/} ($type with $units compute units; host CPU ${host_cpu//,/} with" \
            "$(nproc) cores) $(date -u +%Y-%m-%d): three processes a case${EXERCISE12_ARGS:+; options $EXERCISE12_ARGS}"
        echo "# load average at the start (1 5 15 minutes): $(cut -d' ' -f1-3 /proc/loadavg)"
    } >"$tmp"
    header=""
    for launch in "" "--blocks-per-sm 8"; do
        for _ in 1 2 3; do
            # shellcheck disable=SC2086 # the launch is two words on purpose
            rows=$("$program" "${where[@]}" $launch "${extra[@]}" --csv </dev/null) ||
                { echo "exercise12: $program ${where[*]} $launch failed" >&2; exit 1; }
            [ -n "$header" ] || { header=$(head -1 <<<"$rows"); echo "$header" >>"$tmp"; }
            [ "$(tail -n +2 <<<"$rows" | grep -c ',yes$')" = 2 ] ||
                { echo "exercise12: ${where[*]} $launch: not two verified rows" >&2; exit 1; }
            tail -n +2 <<<"$rows" >>"$tmp"
        done
    done
    echo "# load average at the end (1 5 15 minutes): $(cut -d' ' -f1-3 /proc/loadavg)" >>"$tmp"
    # Each walk at each launch: the lowest, middle and highest of the three
    # processes' medians (fields counted from the end: a device's name may hold commas)
    awk -F, '
        /^#/ || /^stage,/ { next }
        {
            key = $(NF - 6) "x" $(NF - 5) " " $2
            if (!(key in n)) order[++keys] = key
            n[key]++
            kernel[key, n[key]] = $(NF - 3)
            total[key, n[key]] = $(NF - 2)
            crossed += ($(NF - 3) + 0 > $(NF - 2) + 0)
            rows++
        }
        function spread(values, key, count,    i, j, v, t) {
            for (i = 1; i <= count; i++) v[i] = values[key, i] + 0
            for (i = 1; i <= count; i++)
                for (j = i + 1; j <= count; j++)
                    if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            return ms(v[1]) " " ms(v[int((count + 1) / 2)]) " " ms(v[count])
        }
        # a CPU device in tenths of a ms; a GPU, whose kernel takes well under 10 ms, to 0.1 us
        function ms(x) { return x >= 10 ? sprintf("%.1f", x) : sprintf("%.4f", x) }
        END {
            print "# lowest middle highest of the " n[order[1]] " processes, ms: launch walk: kernel only; end to end"
            for (k = 1; k <= keys; k++)
                print "# " order[k] ": " spread(kernel, order[k], n[order[k]]) "; " spread(total, order[k], n[order[k]])
            print "# rows whose kernel-only median is above their end-to-end median: " crossed " of " rows
        }' "$tmp" >>"$tmp.summary"
    cat "$tmp.summary" >>"$tmp"
    rm -f "$tmp.summary"
    mv "$tmp" "$dir/$file"
    echo "exercise12: $(grep -c ',yes$' "$dir/$file") rows in $dir/$file"
done <<<"$devices"
trap - EXIT
