#!/usr/bin/env bash
# make lab: a lab's machines side by side. Each machine ran make bench, which
# wrote lab/<name>.csv there; collected into one folder (LAB, default lab/),
# they are drawn together, from that folder alone:
#   LAB/comparison.png, .svg  the chart: a line per machine, a column per run
#                             worth showing (plots/brief.txt), each cell its time
#                             and coloured by how many times the fastest it is
#   LAB/comparison.md         the table: a row per stage and variant, a column per
#                             machine, kernel ms and % of that machine's read bandwidth
#   LAB/comparison.csv        the chart's numbers, a line per machine and row
# Two machines with the same GPU stay apart: a machine is a file.
#
# Knobs, from the environment or make's command line:
#   LAB         the folder of CSVs (default lab/)
#   LAB_SIZE    the input size to compare, e.g. 16M (default: the size most
#               machines ran; make bench's BENCH_SIZE, 100M unless told)
#   LAB_DATA    uniform (default), skewed, constant or text
#   LAB_STAGES  the stages to show, e.g. '03_shared_atomics 05_privatized'
#               (default: every stage)
set -uo pipefail
lab=$(realpath -m "${LAB:-$(dirname "$0")/../lab}") # as given from the caller's folder
cd "$(dirname "$0")/.."

data=${LAB_DATA:-uniform}
stages=${LAB_STAGES:-}
say() { echo "lab: $*"; }
refuse() { echo "lab: $*" >&2; exit 2; }

case $data in uniform | skewed | constant | text) ;; *) refuse "LAB_DATA=$data: uniform, skewed, constant or text" ;; esac
[ -d "$lab" ] || refuse "no folder $lab: collect each machine's make bench CSV there, or LAB=<folder>"
for stage in $stages; do
    awk -v s="$stage" '!/^[ \t]*(#|$)/ && $1 == s { found = 1 } END { exit !found }' stages.txt ||
        refuse "LAB_STAGES: $stage is not a stage of stages.txt"
done

# The machines: every CSV that make bench wrote (its header says so); the
# outputs of an earlier make lab and make profile's CSVs are not machines
csvs=()
for csv in "$lab"/*.csv; do
    [ -f "$csv" ] || continue
    case ${csv##*/} in comparison.csv | profile-*.csv) continue ;; esac
    if [ ! -r "$csv" ]; then
        say "left out: ${csv##*/}: cannot read it (its owner's permissions: chmod a+r)"
    elif head -1 "$csv" | grep -q '^stage,impl,device,data,bytes,.*,run,'; then
        csvs+=("$csv")
    else
        say "left out: ${csv##*/} is not a CSV of make bench"
    fi
done
[ ${#csvs[@]} -gt 0 ] || refuse "no CSV of make bench in $lab: run make bench on each machine and copy lab/*.csv here"

# bytes_of SIZE: 16M as bytes (K, M, G: powers of 1024), as the stages read --size
bytes_of() {
    [[ $1 =~ ^([0-9]+)([KMG]?)$ ]] || return 1
    local n=${BASH_REMATCH[1]}
    case ${BASH_REMATCH[2]} in K) n=$((n << 10)) ;; M) n=$((n << 20)) ;; G) n=$((n << 30)) ;; esac
    echo "$n"
}
mib() { awk -v b="$1" 'BEGIN { printf (b >= 1048576 ? "%g MiB" : "%g KiB"), b / (b >= 1048576 ? 1048576 : 1024) }'; }

# Which size: the one asked for, or the one most machines ran (the larger of a tie),
# where a machine ran the size of most of its rows (file, bytes, rows: a line each)
sizes=$(awk -v chart=lab-sizes -v kind="$data" -f plots/rows.awk "${csvs[@]}")
if [ -n "${LAB_SIZE:-}" ]; then
    bytes=$(bytes_of "$LAB_SIZE") || refuse "LAB_SIZE=$LAB_SIZE: a number of bytes, K, M or G (e.g. 16M)"
    how="LAB_SIZE"
else
    bytes=$(echo "$sizes" | sort -t$'\t' -k1,1 -k3,3nr -k2,2nr | awk -F'\t' '$1 != last { last = $1; print $2 }' |
        sort -n | uniq -c | sort -k1,1nr -k2,2nr | awk 'NR == 1 { print $2 }')
    [ -n "$bytes" ] || refuse "no machine in $lab has a verified run on $data bytes"
    how="the size most machines ran"
fi

# The machines at that size; the others are named, with the sizes they ran
kept=() left_out=0
for csv in "${csvs[@]}"; do
    if awk -F'\t' -v f="$csv" -v b="$bytes" '$1 == f && $2 == b { found = 1 } END { exit !found }' <<<"$sizes"; then
        kept+=("$csv")
        continue
    fi
    left_out=$((left_out + 1))
    [ $left_out -le 5 ] || continue # a lab of another size: five names say it
    ran=$(echo "$sizes" | awk -F'\t' -v f="$csv" '$1 == f { print $2 }' | while read -r b; do mib "$b"; done | paste -sd, -)
    say "left out: ${csv##*/}: no run of $(mib "$bytes") of $data bytes (it ran: ${ran:-nothing verified})"
done
[ $left_out -le 5 ] || say "left out: $((left_out - 5)) more machines, for the same reason"
[ ${#kept[@]} -gt 0 ] || refuse "no machine ran $(mib "$bytes") of $data bytes (LAB_SIZE picks another size)"

rows() { awk -v chart="$1" -v kind="$data" -v bytes="$bytes" -v stages="$stages" -v names=files -f plots/rows.awk "${kept[@]}"; }
say "${#kept[@]} machine$([ ${#kept[@]} = 1 ] || echo s) in $lab, $(mib "$bytes") of $data bytes ($how); stages: ${stages:-every one}"

out=$lab/comparison
{
    echo "# The lab's machines side by side"
    echo
    echo "make lab of ${#kept[@]} machine$([ ${#kept[@]} = 1 ] || echo s), named by their CSV files and their GPU (or CPU): $(mib "$bytes")"
    echo "of $data bytes. Each cell: the kernel ms of that stage and variant on that machine, and on a"
    echo "GPU, in brackets, its % of the machine's measured read bandwidth and, where its CSV has the"
    echo "memory's rated speed, its % of that. Empty: no such run there. comparison.csv has the numbers"
    echo "of the chart, end-to-end times among them."
    echo
    rows machines-table
} >"$out.md"
rows lab-csv >"$out.csv"
say "table: $out.md"
say "numbers: $out.csv"

gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    say "no chart: gnuplot is not installed (make deps installs gnuplot-nox)"
    exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rows lab >"$tmp"
[ -s "$tmp" ] || refuse "nothing to draw: no machine has a row of ${stages:-any stage} at $(mib "$bytes")"
title="The lab's machines side by side: $(mib "$bytes") of $data bytes"
"$gnuplot" -e "data='$tmp'; out='$out'; title='${title//\'/\'\'}'; $(sed -n '1s/^# //p' "$tmp")" plots/gnuplot/lab.gp ||
    { echo "lab: gnuplot failed on $tmp" >&2; exit 1; }
# a machine with no row of the stages shown (a CPU-only one, for GPU stages) has no line
charted=$(cut -d, -f1 "$out.csv" | sort -u)
missing=$(for csv in "${kept[@]}"; do
    name=$(basename "$csv" .csv)
    grep -qxF -- "$name" <<<"$charted" || echo "$name" # not cut | grep -q: see the sizes above
done | paste -sd' ' -)
[ -z "$missing" ] || say "not in the chart: $missing: no run of ${stages:-any stage} there"
say "chart: $out.png ($(awk -F'\t' 'NR > 1 && /^[0-9]+\t[0-9]+\t/ { n++ } /^$/ { exit } END { print n }' "$tmp") cells), $out.svg"
