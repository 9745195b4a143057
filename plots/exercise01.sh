#!/usr/bin/env bash
# plots/exercise01.sh: exercise 01's own recorded runs, for its README's
# "What to expect" (instructors: it runs the reference solution, which a
# student copy does not have). On this machine's CPU it times the solution on
# 1, 2, 4, ... threads up to twice the cores, on 100 MiB of uniform and of
# constant bytes, on the photograph's brightness and on 10000 bytes; each
# case three times, each time a fresh process (--reps 10: a median of 10
# after a warm-up), and writes every row, as the stages' CSV, to
# plots/results/exercise01-<cpu>.csv (<cpu>: this CPU's name, as the results'
# file names hold it). Run it on a quiet machine: every other program on the
# cores moves the times.
#
# Usage: plots/exercise01.sh [OUT.csv]
# Exit: 0 recorded, 1 a run failed or did not verify, 2 bad usage, 77 no
# reference solution here (a student copy).
set -euo pipefail

top=$(realpath "$(dirname "$0")/..")
[ $# -le 1 ] || { echo "exercise01: usage: plots/exercise01.sh [OUT.csv]" >&2; exit 2; }
out=${1:+$(realpath -m -- "$1")}
cd "$top"
. plots/machine.sh # host_cpu
out=${out:-plots/results/exercise01-$(slug_of "$host_cpu").csv}
[ -d exercises/solutions/01_cpu_threads ] ||
    { echo "exercise01: no reference solution here (a student copy): nothing to record"; exit 77; }

make -s -C exercises/01_cpu_threads SOLUTION=1 build-solution/cpu_threads >/dev/null
program=exercises/01_cpu_threads/build-solution/cpu_threads
cores=$(nproc)
threads=1
counts=()
while [ "$threads" -le $((2 * cores)) ]; do
    counts+=("$threads")
    threads=$((threads * 2))
done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "# plots/exercise01.sh on $host_cpu, $cores cores, $(date -u +%Y-%m-%d): three processes a case" >"$tmp"
header=""
for input in "--data uniform" "--data constant" "--image data/chelsea.bmp" "--size 10000"; do
    for t in "${counts[@]}"; do
        for run in 1 2 3; do
            # shellcheck disable=SC2086 # the input is two words on purpose
            rows=$("$program" $input --threads "$t" --reps 10 --csv) ||
                { echo "exercise01: $program $input --threads $t failed" >&2; exit 1; }
            [ -n "$header" ] || { header=$(head -1 <<<"$rows"); echo "$header" >>"$tmp"; }
            tail -n +2 <<<"$rows" | grep -v ',no$' >>"$tmp" ||
                { echo "exercise01: $input --threads $t: no verified row" >&2; exit 1; }
            [ "$(tail -n +2 <<<"$rows" | grep -c ',no$')" = 0 ] ||
                { echo "exercise01: $input --threads $t did not verify" >&2; exit 1; }
        done
    done
done
mv "$tmp" "$out"
trap - EXIT
echo "exercise01: $(($(wc -l <"$out") - 2)) rows in $out"
