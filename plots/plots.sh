#!/usr/bin/env bash
# make plots: draws the charts of every CSV in plots/results/ (one CSV per
# machine, written by make bench) into plots/figures/, as PNG and SVG:
#   <machine>-stages-<input>   every stage side by side, kernel only and end to end
#   <machine>-bandwidth        GPU stages as % of the GPU's read bandwidth, by input size
#   <machine>-blocks           stage 03 against blocks per SM
#   <machine>-coarsening       stage 05 against the bytes each thread counts
#   <machine>-bins-<input>     stage 07's strategies, CUB and the floor, against the bins
#   <machine>-contention       uniform vs skewed vs constant bytes, per stage
#   machines-uniform           each stage on every machine: the lab comparison, one bar a machine
#   histogram-text, histogram-chelsea   the histograms themselves
# PLOTS_RESULTS and PLOTS_OUT change the two folders (PLOTS_RESULTS=lab: a
# lab's machines, each drawn on its own, into lab/figures/ unless PLOTS_OUT
# says otherwise; make lab draws them side by side).
set -euo pipefail
# the folders, as given from where make plots was called; then work from the top
results=$(realpath -m "${PLOTS_RESULTS:-$(dirname "$0")/results}")
out=$(realpath -m "${PLOTS_OUT:-$([ -n "${PLOTS_RESULTS:-}" ] && echo "$results/figures" || echo "$(dirname "$0")/figures")}")
cd "$(dirname "$0")/.."

source plots/csv.sh # split_csv
gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    echo "plots: skipped: gnuplot is not installed (make deps installs gnuplot-nox);" \
         "the CSVs in $results are kept as they are"
    exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows() { # rows CHART CSV...: the rows a chart needs, for gnuplot (KIND=... picks the input; stages.txt the labels)
    local chart=$1
    shift
    awk -v chart="$chart" -v kind="${KIND:-}" -f plots/rows.awk "$@"
}

# coarsening CSV: 05's coarsening sweep for coarsening.gp, a block per variant
# and input: its name, then a line per run: bytes per thread (bytes / (blocks x
# threads)), kernel ms
coarsening() {
    local row
    { grep -F ',coarsening-sweep,' "$1" || true; } | while IFS= read -r row; do
        split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified,pct,run
        # 05's own read-only kernel is not a variant; a wrong histogram is not drawn
        if [ "${FIELDS[14]:-}" = coarsening-sweep ] && [ "${FIELDS[12]}" = yes ] &&
            [ "${FIELDS[1]}" != read-bandwidth ]; then
            printf '%s x %s threads, %s\t%s\t%s\t%s\t%s\n' "${FIELDS[1]}" "${FIELDS[7]}" \
                "${FIELDS[3]}" "${FIELDS[4]}" "${FIELDS[6]}" "${FIELDS[7]}" "${FIELDS[9]}"
        fi
    done | awk -F'\t' '!($1 in seen) { seen[$1] = 1; order[++count] = $1 }
                     { points[$1] = points[$1] sprintf("%g\t%s\n", $2 / ($3 * $4), $5) }
                     END { for (i = 1; i <= count; i++) printf "\"%s\"\t0\n%s\n\n", order[i], points[order[i]] }'
}

# bins CSV DATA: 07's bins sweep (07_many_bins --sweep) on one input, for
# bins.gp: a block per line of the chart, its name, then a line per bin count:
# bins, GB/s of keys. Each bin count's rows open with 07's own read-only row,
# named read-bandwidth without the bins: the floor, whose block comes first;
# then strategy/bins, auto's choice (auto:strategy/bins) as "auto".
bins() {
    local row floor="" bins impl
    { grep -F ',bins-sweep,' "$1" || true; } | while IFS= read -r row; do
        split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified,pct,run
        [ "${FIELDS[0]}" = 07_many_bins ] && [ "${FIELDS[3]}" = "$2" ] &&
            [ "${FIELDS[14]:-}" = bins-sweep ] || continue
        if [ "${FIELDS[1]}" = read-bandwidth ]; then
            floor=${FIELDS[11]}
            continue
        fi
        bins=${FIELDS[1]##*/}
        [ -z "$floor" ] || printf 'read-bandwidth\t%s\t%s\n' "$bins" "$floor"
        floor=""
        [ "${FIELDS[12]}" = yes ] || continue # a wrong histogram is not drawn
        impl=${FIELDS[1]%/*}
        printf '%s\t%s\t%s\n' "${impl%%:*}" "$bins" "${FIELDS[11]}"
    done | sort -t"$(printf '\t')" -k1,1 -s -k2,2n |
        awk -F'\t' '!($1 in seen) { seen[$1] = 1; order[++count] = $1 }
                   { points[$1] = points[$1] sprintf("%s\t%s\n", $2, $3) }
                   END { if ("read-bandwidth" in seen) printf "\"read-bandwidth\"\t0\n%s\n\n", points["read-bandwidth"]
                         for (i = 1; i <= count; i++) if (order[i] != "read-bandwidth")
                             printf "\"%s\"\t0\n%s\n\n", order[i], points[order[i]] }'
}

draw() { # draw SCRIPT DATA NAME TITLE [gnuplot settings]: renders NAME.png and NAME.svg
    local script=$1 data=$2 name=$3 title=$4 extra=${5:-}
    if [ ! -s "$data" ]; then
        return 0 # nothing of this kind was recorded on this machine
    fi
    title=${title//\'/\'\'} # in a gnuplot string in single quotes, '' is one quote
    "$gnuplot" -e "data='$data'; out='$out/$name'; title='$title'; $extra" "plots/gnuplot/$script.gp"
    echo "plots: $out/$name.png"
}

# make bench's CSVs; make profile's profile-*.csv beside them hold Nsight Compute's metrics,
# a stage's own recorded sweeps, sweep-*.csv, its program's columns alone (make many-bins
# draws them), make lab's comparison.csv, in a lab's folder, the lab's numbers, and the
# exercises' own CSVs, exerciseNN-*.csv (plots/exercise01.sh and exercise12.sh draw them)
csvs=$(ls "$results"/*.csv 2>/dev/null |
    grep -v -e '/profile-[^/]*\.csv$' -e '/sweep-[^/]*\.csv$' -e '/comparison\.csv$' \
        -e '/exercise[0-9][0-9]-[^/]*\.csv$' || true)
[ -n "$csvs" ] || { echo "plots: no CSV in $results: run make bench first"; exit 1; }
for csv in $csvs; do
    slug=$(basename "$csv" .csv)
    machine=$(rows machine "$csv")
    size=$(rows size "$csv")
    for kind in uniform skewed constant text chelsea.bmp; do
        KIND=$kind rows stages "$csv" | sort -s -t"$(printf '\t')" -k1,1 | cut -f2- >"$tmp/stages"
        what=$([ "$kind" = chelsea.bmp ] && echo "the sample photograph" || echo "$kind bytes, $size")
        draw stages "$tmp/stages" "$slug-stages-${kind%.bmp}" "Every stage on $machine: $what"
    done
    rows contention "$csv" >"$tmp/contention"
    draw contention "$tmp/contention" "$slug-contention" \
        "Collisions: kernel time on uniform, skewed and constant bytes ($size), $machine"
    rows bandwidth "$csv" >"$tmp/bandwidth"
    draw bandwidth "$tmp/bandwidth" "$slug-bandwidth" \
        "GPU stages as % of the measured read bandwidth of $machine"
    rows blocks "$csv" >"$tmp/blocks"
    draw blocks "$tmp/blocks" "$slug-blocks" \
        "Stage 03 with more blocks than the book's 2 per SM, $machine ($size uniform)"
    coarsening "$csv" >"$tmp/coarsening"
    draw coarsening "$tmp/coarsening" "$slug-coarsening" \
        "Stage 05 with more or fewer bytes per thread (coarsening), $machine ($size)"
    # the bins sweep's keys: BENCH_BINS_SIZE bytes (1 GiB unless the bench was told otherwise)
    keys=$({ grep -m1 '^07_many_bins,.*,bins-sweep,' "$csv" || true; } | cut -d, -f5 |
        awk '{ g = $1 >= 1073741824; printf "%g %s", $1 / (g ? 1073741824 : 1048576), g ? "GiB" : "MiB" }')
    for kind in uniform skewed constant; do
        bins "$csv" "$kind" >"$tmp/bins"
        draw bins "$tmp/bins" "$slug-bins-$kind" \
            "Stage 07 from 2 to 2^20 bins: $keys of $kind 32-bit keys, $machine"
    done
done
for csv in $csvs; do
    grep -q ',uniform,104857600,.*,main,' "$csv" ||
        echo "plots: machines-uniform leaves out $(basename "$csv"): no main run of 100 MiB" \
             "(make lab LAB_SIZE=... compares machines at another size)"
done
# shellcheck disable=SC2086 # every CSV is an argument
rows machines $csvs >"$tmp/machines"
# its first line is the layout (machines, height, longest label...), for machines.gp
draw machines "$tmp/machines" machines-uniform "Every machine recorded: kernel time per stage (uniform bytes, 100 MiB)" \
    "$(sed -n '1s/^# //p' "$tmp/machines")"

if [ -s "$results/bins-text.dat" ]; then
    awk -F'\t' '{ printf "\"%s\"\t%s\n", $1 == 32 ? "space" : sprintf("%c", $1), $2 }' \
        "$results/bins-text.dat" >"$tmp/text"
    draw histogram "$tmp/text" histogram-text \
        "Characters of \"Programming with CUDA C\" (ten copies)" "kind='text'"
fi
draw histogram "$results/bins-chelsea.dat" histogram-chelsea \
    "Brightness of the sample photograph (data/chelsea.bmp, 451 x 300)" "kind='image'"
