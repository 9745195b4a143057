#!/usr/bin/env bash
# make many-bins: stage 07_many_bins against its targets, on every GPU whose
# sweep (hist_gpu_many_bins --sweep --csv) is recorded. It reads the sweep
# CSVs and writes:
#   many-bins-targets.txt   a plain-text report, at most 100 columns, for a
#                           chapter: each target, a column per GPU, a cell
#                           that misses it marked '*'; then, per input, each
#                           bin count's best strategy and CUB, per GPU
#   many-bins-gpus.png, .svg  the chart: % of the read floor against the bins,
#                           a panel per input, a solid line per GPU for the
#                           best strategy and a dashed one for CUB
# Every number is a % of the read floor: 100 x the kernel ms of the read-only
# row that opens the row's group (same GPU, input and bins) / the row's kernel
# ms. Best: the highest % of a group, auto's and CUB's rows aside.
#
# Usage: plots/many-bins.sh [SWEEP.csv...]
#   default: plots/results/sweep-07-many-bins-*.csv, one file per GPU
#
# Knobs, from the environment or make's command line:
#   MANY_BINS_OUT  one folder for the report and the chart (default: the
#                  report in plots/results/, the chart in plots/figures/)
#   GNUPLOT        the gnuplot to run (default gnuplot); without one, the
#                  report is written and the chart skipped, with a line that says so
#
# Exit: 0 written (the chart skipped without gnuplot, said), 1 a CSV holds a
# row that is not verified or not of a group, or gnuplot failed, 2 bad usage:
# a file missing or not a sweep of 07_many_bins, or two files of one GPU.
set -euo pipefail

# The targets: each case's lowest %, or lowest ratio, that passes.
target_few=95    # 2 to 16384 bins: the best strategy's worst % over bins and inputs
target_64k=75    # 65536 bins: the best %
target_1m=35     # 2^20 bins: the best %
target_plain=3   # 2^20 bins: best / global-plain, on these inputs (on others: shown, no target)
plain_inputs="uniform skewed"
target_cub=5     # 1024 to 2^20 bins: best / CUB, the worst over the bins

say() { echo "many-bins: $*"; }
refuse() { echo "many-bins: $*" >&2; exit 2; }

# the files and the folder, as given from the caller's folder; then work from the top
top=$(realpath "$(dirname "$0")/..")
files=()
if [ $# -eq 0 ]; then
    for csv in "$top"/plots/results/sweep-07-many-bins-*.csv; do
        [ -e "$csv" ] || refuse "no sweep in plots/results/ (sweep-07-many-bins-*.csv): name the CSVs"
        files+=("$csv")
    done
else
    for csv in "$@"; do files+=("$(realpath -m -- "$csv")"); done
fi
if [ -n "${MANY_BINS_OUT:-}" ]; then
    report_dir=$(realpath -m "$MANY_BINS_OUT") chart_dir=$report_dir
else
    report_dir=$top/plots/results chart_dir=$top/plots/figures
fi
cd "$top"

for csv in "${files[@]}"; do
    [ -e "$csv" ] || refuse "no file $csv"
    [ -f "$csv" ] || refuse "$csv is not a file"
    [ -r "$csv" ] || refuse "cannot read $csv"
    [ -s "$csv" ] || refuse "$csv is empty"
done
mkdir -p "$report_dir" "$chart_dir" 2>/dev/null || refuse "cannot make $report_dir or $chart_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- groups --
# Every group of every CSV, checked, as one line: GPU, input, bins, best
# strategy, its %, CUB's %, global-plain's % (empty where it did not run),
# bytes. A file named in the messages as given (the top's path cut off); each
# row checked first by plots/sweep-rows.awk.
awk -F, -v top="$top/" -v script=many-bins "$(cat plots/sweep-rows.awk)"'
BEGIN {
    OFS = "\t"
    header = "stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified"
}
FNR == 1 {
    floor = ""
    if ($0 != header)
        fail(2, shown(FILENAME) ": not a sweep of 07_many_bins: its first line is not the header of --csv")
    next
}
$0 == header || /^[ \t\r]*$/ { next }
{
    where = sweep_row("07_many_bins", "keys")
    if ($2 == "read-bandwidth") {
        floor = $10; gpu = $3; data = $4; bytes = $5; bins = ""
        next
    }
    if (floor == "") fail(1, where ": " $2 " comes before any read-bandwidth row: it has no floor")
    if ($3 != gpu || $4 != data || $5 != bytes)
        fail(1, where ": " $2 " is not of the GPU, input and size of the read-bandwidth row before it")
    parts = split($2, part, "/")
    if (parts != 2 || part[2] !~ /^[0-9]+$/) fail(1, where ": impl \"" $2 "\" is not STRATEGY/BINS")
    if (bins == "") {
        bins = part[2]
        key = gpu SUBSEP data SUBSEP bins
        if (key in bytes_of) fail(1, where ": " data " keys at " bins " bins a second time in one sweep")
        bytes_of[key] = bytes
        keys[++nkeys] = key
    } else if (part[2] != bins)
        fail(1, where ": " $2 " in a group of " bins " bins: each group needs its own read-bandwidth row")
    pct = 100 * floor / $10
    name = part[1]
    if (name == "cub") cub[key] = pct
    else if (name !~ /^auto:/ && (!(key in best) || pct > best[key])) { best[key] = pct; best_name[key] = name }
    if (name == "global-plain") plain[key] = pct
}
END {
    if (failed) exit failed
    every_file_has_rows()
    for (i = 1; i <= nkeys; i++) {
        key = keys[i]
        split(key, k, SUBSEP)
        print k[1], k[2], k[3], (key in best ? best_name[key] : "-"), (key in best ? best[key] : ""),
              (key in cub ? cub[key] : ""), (key in plain ? plain[key] : ""), bytes_of[key]
    }
}' "${files[@]}" >"$tmp/groups"

# ---------------------------------------------------------------- report --
# The size of the keys, as the stage takes it (K, M, G: powers of 1024)
size=$(cut -f8 "$tmp/groups" | sort -u | awk '{ n++; b = $1 }
    END { if (n != 1) { print "keys of " n " sizes"; exit }
          u = b >= 2^30 ? "GiB" : (b >= 2^20 ? "MiB" : "KiB"); printf "%g %s", b / (u == "GiB" ? 2^30 : (u == "MiB" ? 2^20 : 2^10)), u }')
listed=$(for csv in "${files[@]}"; do echo "  ${csv#"$top"/}"; done)

report=$report_dir/many-bins-targets.txt
awk -F'\t' -v size="$size" -v listed="$listed" -v few="$target_few" -v at64k="$target_64k" \
    -v at1m="$target_1m" -v vs_plain="$target_plain" -v plain_inputs="$plain_inputs" -v vs_cub="$target_cub" '
function pct(x) { return x == "" ? "" : sprintf("%.1f", x) }
function times(x) { return x == "" ? "" : sprintf("%.1fx", x) }
# a cell: the value as shown, "*" where the value itself (before rounding) is
# under the target (none: "-"), then where it was found
function cell(value, shown, target, where) {
    if (value == "") { dashes = 1; return "-" }
    if (target != "-" && value + 0 < target + 0) shown = shown "*"
    return shown (where == "" ? "" : " " where)
}
{
    if (!($1 in gpu_at)) { gpu_at[$1] = ++ngpus; gpu[ngpus] = $1 }
    if (!($2 in data_at)) { data_at[$2] = ++ndata; data[ndata] = $2 }
    if (!($3 in bins_seen)) { bins_seen[$3] = 1; bins[++nbins] = $3 + 0 }
    k = $1 SUBSEP $2 SUBSEP $3
    have[k] = 1; name[k] = $4; best[k] = $5; cub[k] = $6; plain[k] = $7
    if (length($4) > name_w) name_w = length($4)
}
END {
    for (i = 2; i <= nbins; i++)          # the bin counts, in order
        for (j = i; j > 1 && bins[j - 1] > bins[j]; j--) { t = bins[j]; bins[j] = bins[j - 1]; bins[j - 1] = t }
    # Every target, a row each: label, target, then a cell per GPU
    n = 0
    label[++n] = "2 to 16384 bins, worst of the best"; goal[n] = ">= " few
    for (g = 1; g <= ngpus; g++) {
        worst = ""; at = ""
        for (d = 1; d <= ndata; d++)
            for (b = 1; b <= nbins; b++) {
                k = gpu[g] SUBSEP data[d] SUBSEP bins[b]
                if (bins[b] >= 2 && bins[b] <= 16384 && best[k] != "" && (worst == "" || best[k] + 0 < worst + 0)) {
                    worst = best[k]; at = "(" data[d] ", " bins[b] ")"
                }
            }
        value[n, g] = cell(worst, pct(worst), few, at)
    }
    for (d = 1; d <= ndata; d++) {
        label[++n] = "65536 bins, best, " data[d]; goal[n] = ">= " at64k
        for (g = 1; g <= ngpus; g++) value[n, g] = cell(x = best[gpu[g], data[d], 65536], pct(x), at64k)
    }
    for (d = 1; d <= ndata; d++) {
        label[++n] = "2^20 bins, best, " data[d]; goal[n] = ">= " at1m
        for (g = 1; g <= ngpus; g++) value[n, g] = cell(x = best[gpu[g], data[d], 1048576], pct(x), at1m)
    }
    for (d = 1; d <= ndata; d++) {
        label[++n] = "2^20 bins, best / global-plain, " data[d]
        target = index(" " plain_inputs " ", " " data[d] " ") ? vs_plain : "-"
        goal[n] = target == "-" ? "none" : ">= " target "x"
        for (g = 1; g <= ngpus; g++) {
            k = gpu[g] SUBSEP data[d] SUBSEP 1048576
            x = best[k] != "" && plain[k] > 0 ? best[k] / plain[k] : ""
            value[n, g] = cell(x, times(x), target)
        }
    }
    for (d = 1; d <= ndata; d++) {
        label[++n] = "1024 to 2^20 bins, min best / CUB, " data[d]; goal[n] = ">= " vs_cub "x"
        for (g = 1; g <= ngpus; g++) {
            worst = ""; at = ""
            for (b = 1; b <= nbins; b++) {
                k = gpu[g] SUBSEP data[d] SUBSEP bins[b]
                if (bins[b] >= 1024 && bins[b] <= 1048576 && best[k] != "" && cub[k] > 0 &&
                    (worst == "" || best[k] / cub[k] < worst)) { worst = best[k] / cub[k]; at = "at " bins[b] }
            }
            value[n, g] = cell(worst, times(worst), vs_cub, at)
        }
    }
    rows = n

    print "Stage 07_many_bins on " size " of 32-bit keys, kernel only. Every % is of the read floor:"
    print "100 x the kernel ms of the read-only kernel run beside it (same GPU, input and bins) / its own."
    print "Best: the highest % of the strategies, auto and CUB aside. plots/many-bins.sh, from:"
    print listed

    # the targets, as many GPUs a table as 100 columns hold
    label_w = 0
    for (n = 1; n <= rows; n++) if (length(label[n]) > label_w) label_w = length(label[n])
    col_w = 22
    for (g = 1; g <= ngpus; g++) {
        if (length(gpu[g]) > col_w) col_w = length(gpu[g])
        for (n = 1; n <= rows; n++) if (length(value[n, g]) > col_w) col_w = length(value[n, g])
    }
    per_table = int((100 - label_w - 8) / (col_w + 2)); if (per_table < 1) per_table = 1
    for (first = 1; first <= ngpus; first += per_table) {
        last = first + per_table - 1; if (last > ngpus) last = ngpus
        line = sprintf("\n%-" label_w "s  %-6s", "Targets", "target")
        for (g = first; g <= last; g++) line = line sprintf("  %-" col_w "s", gpu[g])
        sub(/ +$/, "", line)
        print line
        for (n = 1; n <= rows; n++) {
            line = sprintf("%-" label_w "s  %-6s", label[n], goal[n])
            for (g = first; g <= last; g++) line = line sprintf("  %-" col_w "s", value[n, g])
            sub(/ +$/, "", line)
            print line
        }
    }
    print ""
    print "* misses its target. Each value is compared before it is rounded to one decimal, so a cell"
    print "  can show its target and still miss it."
    if (dashes) print "- not in that GPU'"'"'s sweep."

    # per input, a row per bin count: each GPU'"'"'s best strategy and %, and CUB'"'"'s %
    if (name_w < 4) name_w = 4
    block_w = name_w + 2 + 6 + 2 + 6
    for (g = 1; g <= ngpus; g++) if (length(gpu[g]) > block_w) block_w = length(gpu[g])
    per_table = int((100 - 7) / (block_w + 3)); if (per_table < 1) per_table = 1
    for (d = 1; d <= ndata; d++)
        for (first = 1; first <= ngpus; first += per_table) {
            last = first + per_table - 1; if (last > ngpus) last = ngpus
            printf "\nPer bin count, %s keys: the best strategy and its %%, and CUB'"'"'s %%\n", data[d]
            line = sprintf("%-7s", "")
            for (g = first; g <= last; g++) line = line sprintf("   %-" block_w "s", gpu[g])
            sub(/ +$/, "", line); print line
            line = sprintf("%-7s", "bins")
            for (g = first; g <= last; g++)
                line = line sprintf("   %-" name_w "s  %6s  %6s%" block_w - name_w - 16 "s", "best", "%", "CUB %", "")
            sub(/ +$/, "", line); print line
            for (b = 1; b <= nbins; b++) {
                line = sprintf("%-7s", bins[b]); any = 0
                for (g = first; g <= last; g++) {
                    k = gpu[g] SUBSEP data[d] SUBSEP bins[b]
                    if (k in have) any = 1
                    line = line sprintf("   %-" name_w "s  %6s  %6s%" block_w - name_w - 16 "s",
                                        k in have ? name[k] : "-", k in have ? pct(best[k]) : "-",
                                        cub[k] != "" ? pct(cub[k]) : "-", "")
                }
                sub(/ +$/, "", line)
                if (any) print line
            }
        }
}' "$tmp/groups" >"$tmp/report"
mv "$tmp/report" "$report"
say "report: ${report#"$top"/}"

# ----------------------------------------------------------------- chart --
gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    say "no chart: gnuplot is not installed (make deps installs gnuplot-nox)"
    exit 0
fi
# For many-bins-gpus.gp: per input, a block naming the strategies that reach
# the few-bins target (at the floor, which of them is best is noise), then per
# GPU three: the best strategy (bins, %), CUB (bins, %), and the best's name
# where it is under that target and another than at the bins before (bins, %, name)
awk -F'\t' -v few="$target_few" '
{
    if (!($1 in gpu_at)) { gpu_at[$1] = ++ngpus; gpu[ngpus] = $1 }
    if (!($2 in data_at)) { data_at[$2] = ++ndata; data[ndata] = $2 }
    k = $1 SUBSEP $2
    line[k] = line[k] $3 "\t" $5 "\t" $4 "\t" $6 "\n"
    if ($5 != "" && $5 + 0 >= few && !(($2, $4) in named)) {
        named[$2, $4] = 1
        at_floor[$2] = at_floor[$2] (at_floor[$2] == "" ? "" : ", ") $4
    }
}
END {
    printf "# gpus=%d; kinds=%d; names=\"", ngpus, ndata
    for (d = 1; d <= ndata; d++) printf "%s%s", (d > 1 ? " " : ""), data[d]
    printf "\"\n"
    for (d = 1; d <= ndata; d++) {
        printf "\"at the floor\"\t0\t\"\"\n"
        if (at_floor[data[d]] != "") printf "2.4\t106\t\"best at %s%% or more: %s\"\n", few, at_floor[data[d]]
        printf "\n\n"
        for (g = 1; g <= ngpus; g++) {
            k = gpu[g] SUBSEP data[d]
            n = split(line[k], row, "\n") - 1
            for (i = 2; i <= n; i++)      # by bins
                for (j = i; j > 1 && row[j - 1] + 0 > row[j] + 0; j--) { t = row[j]; row[j] = row[j - 1]; row[j - 1] = t }
            stage = cub = change = ""; was = ""
            for (i = 1; i <= n; i++) {
                split(row[i], f, "\t")
                if (f[4] != "") cub = cub f[1] "\t" f[4] "\n"
                if (f[2] == "") continue
                stage = stage f[1] "\t" f[2] "\n"
                if (f[2] + 0 < few && f[3] != was) change = change f[1] "\t" f[2] "\t\"" f[3] "\"\n"
                was = f[2] + 0 < few ? f[3] : ""
            }
            printf "\"%s: stage 07 (best)\"\t0\n%s\n\n", gpu[g], stage
            printf "\"%s: CUB\"\t0\n%s\n\n", gpu[g], cub
            printf "\"%s: changes\"\t0\t\"\"\n%s\n\n", gpu[g], change
        }
    }
}' "$tmp/groups" >"$tmp/chart"
chart=$chart_dir/many-bins-gpus
title="Stage 07_many_bins on $size of 32-bit keys, kernel only: the best strategy (solid) and CUB (dashed); 100% is each GPU's own read-only kernel"
"$gnuplot" -e "data='$tmp/chart'; out='$chart'; title='${title//\'/\'\'}'; $(sed -n '1s/^# //p' "$tmp/chart")" \
    plots/gnuplot/many-bins-gpus.gp || { echo "many-bins: gnuplot failed on $tmp/chart" >&2; exit 1; }
say "chart: ${chart#"$top"/}.png, .svg"
