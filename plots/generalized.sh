#!/usr/bin/env bash
# make generalized: stage 08_generalized against chapter 08's targets, on every
# GPU whose sweep (hist_gpu_generalized --sweep --csv: the chapter's cases in
# turn, kernel only, an input kind per run) is recorded. It reads the sweep
# CSVs, and the hue tables of photographs (hist_gpu_generalized --hue N --chart),
# and writes:
#   generalized-targets.txt     a plain-text report, at most 100 columns, for a
#                               chapter: each target, a column per GPU with a
#                               value per input, a value that misses marked '*';
#                               then, per input, every case: auto's placement
#                               and %, the best placement's %, CUB's best %;
#                               with two GPUs or more, each case's floor and
#                               auto in kernel ms on each GPU (uniform input),
#                               and each over the first GPU's
#   generalized-gpus.png, .svg  the chart: % of the read floor per case, a panel
#                               per input, a bar per GPU for auto (solid) and
#                               for CUB's best (hatched), and each target
#   hue-stats-<photo>.png, .svg per hue bin of a photograph: its pixels, a bar in
#                               the bin's most saturated colour, and its mean
#                               saturation and brightest value as lines
# Every % is of the read floor: 100 x the kernel ms of the read-bandwidth row of
# the same GPU, input and case (read-bandwidth/<case>) / the row's kernel ms.
# auto: the library's own choice (the auto:<placement> row), which every target
# judges; a placement: any other way but CUB's (cub-...); best: the highest %.
#
# Usage: plots/generalized.sh [SWEEP.csv... HUE.dat...]
#   default: plots/results/sweep-08-generalized-*.csv, one file per GPU, and
#   plots/results/hue-*.dat (hue-36-chelsea.dat: the chart hue-stats-chelsea)
#
# Knobs, from the environment or make's command line:
#   GENERALIZED_OUT  one folder for the report and the charts (default: the
#                    report in plots/results/, the charts in plots/figures/)
#   GNUPLOT          the gnuplot to run (default gnuplot); without one, the
#                    report is written and the charts skipped, with a line that says so
#
# Exit: 0 written (the charts skipped without gnuplot, said), 1 a CSV holds a row
# that is not verified, not of 08_generalized or without its read floor, or
# gnuplot failed, 2 bad usage: a file missing, not a sweep of 08_generalized nor
# a hue table, or two files of one GPU.
set -euo pipefail

# The targets, chapter 08's: the lowest % of the read floor, or the lowest
# ratio of speeds, that auto may reach on each input and pass.
target_rgba=90       # u8x4/256: RGBA, 4 x 256 bins
target_rgba_cub=1.5  # u8x4/256: auto / CUB's MultiHistogramEven (cub-multi-even)
target_u8=95         # u8/256
target_f32=90        # f32/1000
target_sum=80        # f32/1000/sum: weighted
target_u16=75        # u16/65536
target_range=90      # u16/3000/100-60000: 3000 bins over [100, 60000)
target_min_max=70    # f32/1000/min and f32/1000/max
target_rows=85       # rows/...: each shape of row sums
target_rows_cub=1.0  # rows/...: auto / the better of cub-segmented and cub-by-key

say() { echo "generalized: $*"; }
refuse() { echo "generalized: $*" >&2; exit 2; }

# the files and the folder, as given from the caller's folder; then work from the top
top=$(realpath "$(dirname "$0")/..")
files=() hues=()
if [ $# -eq 0 ]; then
    for csv in "$top"/plots/results/sweep-08-generalized-*.csv; do
        [ -e "$csv" ] || refuse "no sweep in plots/results/ (sweep-08-generalized-*.csv): name the CSVs"
        files+=("$csv")
    done
    for hue in "$top"/plots/results/hue-*.dat; do
        [ -e "$hue" ] && hues+=("$hue")
    done
else
    for file in "$@"; do
        case $file in
        *.dat) hues+=("$(realpath -m -- "$file")") ;;
        *) files+=("$(realpath -m -- "$file")") ;;
        esac
    done
    [ ${#files[@]} -gt 0 ] || refuse "no sweep named: give at least one CSV of hist_gpu_generalized --sweep --csv"
fi
if [ -n "${GENERALIZED_OUT:-}" ]; then
    report_dir=$(realpath -m "$GENERALIZED_OUT") chart_dir=$report_dir
else
    report_dir=$top/plots/results chart_dir=$top/plots/figures
fi
cd "$top"

for file in "${files[@]}" ${hues[@]+"${hues[@]}"}; do
    [ -e "$file" ] || refuse "no file $file"
    [ -f "$file" ] || refuse "$file is not a file"
    [ -r "$file" ] || refuse "cannot read $file"
    [ -s "$file" ] || refuse "$file is empty"
done
header="stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,total_ms,gbps,verified"
for csv in "${files[@]}"; do
    IFS= read -r first <"$csv" || true
    [ "$first" = "$header" ] ||
        refuse "${csv#"$top"/}: not a sweep of 08_generalized: its first line is not the header of --csv"
done
# a hue table: a line per bin of nine numbers (--chart's columns), r, g, b bytes
photos=()
for hue in ${hues[@]+"${hues[@]}"}; do
    awk '/^[ \t]*(#|$)/ { next }
         NF != 9 { exit 1 }
         { for (i = 1; i <= 9; i++) if ($i !~ /^[0-9]*\.?[0-9]+$/) exit 1 }
         $7 > 255 || $8 > 255 || $9 > 255 { exit 1 }
         { bins++ } END { exit !bins }' "$hue" ||
        refuse "$hue is not a hue table (hist_gpu_generalized --hue N --chart FILE writes one)"
    base=$(basename "$hue" .dat)
    [[ $base =~ ^hue-[0-9]+-(.+)$ ]] && photo=${BASH_REMATCH[1]} || photo=$base
    for seen in ${photos[@]+"${photos[@]}"}; do
        [ "$seen" != "$photo" ] || refuse "two hue tables of $photo: give one"
    done
    photos+=("$photo")
done
mkdir -p "$report_dir" "$chart_dir" 2>/dev/null || refuse "cannot make $report_dir or $chart_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- groups --
# Every group (GPU, input, case) of every CSV, checked, as one line: GPU,
# input, case, bytes, auto's placement and %, the best placement and its %,
# CUB's best way and its %, cub-multi-even's %, the better % of cub-segmented
# and cub-by-key (empty where there is no such row). A file named in the
# messages as given (the top's path cut off); each row checked first by
# plots/sweep-rows.awk.
awk -F, -v top="$top/" -v script=generalized -v header="$header" "$(cat plots/sweep-rows.awk)"'
function higher(a, b) { return a == "" || b > a ? b : a }
BEGIN { OFS = "\t" }
$0 == header || /^[ \t\r]*$/ { next }    # each input kind of a sweep repeats the header
{
    where = sweep_row("08_generalized", "input")
    slash = index($2, "/")
    if (slash < 2 || slash == length($2)) fail(1, where ": impl \"" $2 "\" is not WAY/CASE")
    way = substr($2, 1, slash - 1)
    key = $3 SUBSEP $4 SUBSEP substr($2, slash + 1)
    if ((key, way) in ms) fail(1, where ": " $2 " on " $4 " input a second time")
    if (!(key in bytes_of)) {
        bytes_of[key] = $5
        keys[++nkeys] = key
        where_of[key] = where
    } else if (bytes_of[key] != $5)
        fail(1, where ": " $2 " reads " $5 " bytes, not the " bytes_of[key] " of its case")
    ms[key, way] = $10
    ways[key] = ways[key] SUBSEP way
}
END {
    if (failed) exit failed
    every_file_has_rows()
    for (i = 1; i <= nkeys; i++) {
        key = keys[i]
        split(key, k, SUBSEP)
        if (!((key, "read-bandwidth") in ms))
            fail(1, where_of[key] ": " k[3] " on " k[2] " input has no read-bandwidth/" k[3] " row: no floor")
        floor = ms[key, "read-bandwidth"]
        auto = auto_pct = auto_ms = best = best_pct = cub = cub_pct = multi = rows_cub = ""
        n = split(substr(ways[key], 2), named, SUBSEP)
        for (w = 1; w <= n; w++) {
            pct = 100 * floor / ms[key, named[w]]
            if (named[w] == "read-bandwidth") continue
            if (named[w] ~ /^auto:/) { auto = substr(named[w], 6); auto_pct = pct; auto_ms = ms[key, named[w]]; continue }
            if (named[w] ~ /^cub-/) {
                if (cub_pct == "" || pct > cub_pct) { cub = named[w]; cub_pct = pct }
                if (named[w] == "cub-multi-even") multi = pct
                if (named[w] == "cub-segmented" || named[w] == "cub-by-key") rows_cub = higher(rows_cub, pct)
                continue
            }
            if (best_pct == "" || pct > best_pct) { best = named[w]; best_pct = pct }
        }
        print k[1], k[2], k[3], bytes_of[key], auto, auto_pct, best, best_pct, cub, cub_pct, multi, rows_cub,
              floor, auto_ms
    }
}' "${files[@]}" >"$tmp/groups"

# ---------------------------------------------------------------- report --
listed=$(for csv in "${files[@]}"; do echo "  ${csv#"$top"/}"; done)
report=$report_dir/generalized-targets.txt
awk -F'\t' -v listed="$listed" -v rgba="$target_rgba" -v rgba_cub="$target_rgba_cub" -v u8="$target_u8" \
    -v f32="$target_f32" -v sum="$target_sum" -v u16="$target_u16" -v range="$target_range" \
    -v min_max="$target_min_max" -v row_sums="$target_rows" -v vs_rows_cub="$target_rows_cub" '
function pct(x) { return x == "" ? "" : sprintf("%.1f", x) }
function times(x) { return x == "" ? "" : sprintf("%.2fx", x) }
# a target: what it is, its case, its goal; judged: auto (its %), multi or
# rows_cub (auto / that CUB, in speed)
function target(what, c, value, judged) {
    label[++targets] = what; case_of[targets] = c; judge[targets] = judged
    goal[targets] = value; goal_shown[targets] = ">= " value (judged == "auto" ? "" : "x")
}
# one value of a cell, right-aligned to w with room for its mark: "*" where the
# value itself (before rounding) is under the goal, "-" where there is none
function value(k, judged, want, w,   x) {
    x = judged == "auto" ? auto[k] : (judged == "multi" ? multi[k] : rows_cub[k])
    if (judged != "auto") x = auto[k] != "" && x > 0 ? auto[k] / x : ""
    if (x == "") { dashes = 1; return sprintf("%" w - 1 "s ", "-") }
    return sprintf("%" w - 1 "s%s", judged == "auto" ? pct(x) : times(x), x + 0 < want + 0 ? "*" : " ")
}
function trimmed(line) { sub(/ +$/, "", line); return line }
{
    if (!($1 in gpu_at)) { gpu_at[$1] = ++ngpus; gpu[ngpus] = $1 }
    if (!($2 in data_at)) { data_at[$2] = ++ndata; data[ndata] = $2 }
    if (!($3 in case_at)) { case_at[$3] = ++ncases; cases[ncases] = $3 }
    k = $1 SUBSEP $2 SUBSEP $3
    have[k] = 1; placement[k] = $5; auto[k] = $6; best[k] = $8; cub[k] = $10; multi[k] = $11; rows_cub[k] = $12
    floor_ms[k] = $13; auto_ms[k] = $14
    if (length($5) > name_w) name_w = length($5)
    if ($6 == "" || $8 == "" || $10 == "") below = 1
}
END {
    target("RGBA", "u8x4/256", rgba, "auto")
    target("RGBA, x CUB", "u8x4/256", rgba_cub, "multi")
    target("u8 keys", "u8/256", u8, "auto")
    target("f32 keys", "f32/1000", f32, "auto")
    target("weighted f32", "f32/1000/sum", sum, "auto")
    target("u16 keys", "u16/65536", u16, "auto")
    target("u16 in [100, 60000)", "u16/3000/100-60000", range, "auto")
    target("min per bin", "f32/1000/min", min_max, "auto")
    target("max per bin", "f32/1000/max", min_max, "auto")
    shapes = 0
    for (c = 1; c <= ncases; c++)
        if (cases[c] ~ /^rows\//) {
            target("row sums", cases[c], row_sums, "auto")
            target("row sums, x CUB", cases[c], vs_rows_cub, "rows_cub")
            shapes++
        }
    if (!shapes) { target("row sums", "rows/...", row_sums, "auto"); target("row sums, x CUB", "rows/...", vs_rows_cub, "rows_cub") }

    print "Stage 08_generalized: the chapter'"'"'s cases (hist_gpu_generalized --sweep), kernel only."
    print "Every % is of the read floor: 100 x the kernel ms of the read-only kernel over the same bytes,"
    print "run beside it (read-bandwidth/<case>: same GPU, input and case) / the row'"'"'s own kernel ms."
    print "Every target judges auto, the library'"'"'s own choice of placement, on each input."
    print "plots/generalized.sh, from:"
    print listed

    # the targets: what, case, target, then per GPU a value per input
    what_w = length("Target"); case_w = length("case"); goal_w = length("target")
    for (n = 1; n <= targets; n++) {
        if (length(label[n]) > what_w) what_w = length(label[n])
        if (length(case_of[n]) > case_w) case_w = length(case_of[n])
        if (length(goal_shown[n]) > goal_w) goal_w = length(goal_shown[n])
    }
    cell_w = -1
    for (d = 1; d <= ndata; d++) { w[d] = length(data[d]) < 6 ? 6 : length(data[d]); cell_w += w[d] + 1 }
    col_w = cell_w
    for (g = 1; g <= ngpus; g++) if (length(gpu[g]) > col_w) col_w = length(gpu[g])
    fixed_w = what_w + 2 + case_w + 2 + goal_w
    per_table = int((100 - fixed_w) / (col_w + 2)); if (per_table < 1) per_table = 1
    for (first = 1; first <= ngpus; first += per_table) {
        last = first + per_table - 1; if (last > ngpus) last = ngpus
        heads = sprintf("\n%-" what_w "s  %-" case_w "s  %-" goal_w "s", "Target", "case", "target")
        inputs = sprintf("%" fixed_w "s", "")
        for (g = first; g <= last; g++) {
            heads = heads sprintf("  %-" col_w "s", gpu[g])
            line = ""
            for (d = 1; d <= ndata; d++) line = line sprintf("%s%" w[d] "s", d > 1 ? " " : "", data[d])
            inputs = inputs sprintf("  %-" col_w "s", line)
        }
        print trimmed(heads)
        print trimmed(inputs)
        for (n = 1; n <= targets; n++) {
            line = sprintf("%-" what_w "s  %-" case_w "s  %-" goal_w "s", label[n], case_of[n], goal_shown[n])
            for (g = first; g <= last; g++) {
                cell = ""
                for (d = 1; d <= ndata; d++)
                    cell = cell (d > 1 ? " " : "") value(gpu[g] SUBSEP data[d] SUBSEP case_of[n], judge[n], goal[n], w[d])
                line = line sprintf("  %-" col_w "s", cell)
            }
            print trimmed(line)
        }
    }
    print ""
    print "* misses its target. Each value is compared before it is rounded, so a value can show its"
    print "  target and still miss it."
    print "x CUB: auto'"'"'s speed over CUB'"'"'s (CUB'"'"'s kernel ms / auto'"'"'s): for RGBA, CUB'"'"'s MultiHistogramEven"
    print "  (cub-multi-even); for row sums, the better of cub-segmented and cub-by-key."
    if (dashes) print "- not in that GPU'"'"'s sweep."
    if (below) print "Below, -: no such row in the sweep (it runs CUB beside the cases CUB covers alone)."

    # per input, a row per case: on each GPU auto'"'"'s placement and %, the best
    # placement'"'"'s % and CUB'"'"'s best %
    if (name_w < 4) name_w = 4
    block_w = name_w + 21
    for (g = 1; g <= ngpus; g++) if (length(gpu[g]) > block_w) block_w = length(gpu[g])
    all_w = 0
    for (c = 1; c <= ncases; c++) if (length(cases[c]) > all_w) all_w = length(cases[c])
    per_table = int((100 - all_w) / (block_w + 3)); if (per_table < 1) per_table = 1
    for (d = 1; d <= ndata; d++)
        for (first = 1; first <= ngpus; first += per_table) {
            last = first + per_table - 1; if (last > ngpus) last = ngpus
            printf "\nEvery case, %s input: auto'"'"'s placement and %%, the best placement'"'"'s %%, CUB'"'"'s best %%\n", data[d]
            line = sprintf("%-" all_w "s", "")
            for (g = first; g <= last; g++) line = line sprintf("   %-" block_w "s", gpu[g])
            print trimmed(line)
            line = sprintf("%-" all_w "s", "case")
            for (g = first; g <= last; g++)
                line = line sprintf("   %-" name_w "s %6s %6s %6s%" block_w - name_w - 21 "s", "auto", "%", "best %", "CUB %", "")
            print trimmed(line)
            for (c = 1; c <= ncases; c++) {
                line = sprintf("%-" all_w "s", cases[c]); any = 0
                for (g = first; g <= last; g++) {
                    k = gpu[g] SUBSEP data[d] SUBSEP cases[c]
                    if (k in have) any = 1
                    line = line sprintf("   %-" name_w "s %6s %6s %6s%" block_w - name_w - 21 "s",
                                        placement[k] != "" ? placement[k] : "-", auto[k] != "" ? pct(auto[k]) : "-",
                                        best[k] != "" ? pct(best[k]) : "-", cub[k] != "" ? pct(cub[k]) : "-", "")
                }
                if (any) print trimmed(line)
            }
        }

    # with two GPUs or more: kernel ms on each, and each over the first GPU:
    # a kernel that memory bounds keeps the ratio of the floors, one that the
    # SMs bound keeps its time where the SMs are alike
    if (ngpus < 2) exit
    on = ("uniform" in data_at) ? "uniform" : data[1]
    ref_w = length(gpu[1]) < 17 ? 17 : length(gpu[1])
    other_w = 35
    for (g = 2; g <= ngpus; g++) if (length(gpu[g]) > other_w) other_w = length(gpu[g])
    per_table = int((100 - all_w - 3 - ref_w) / (other_w + 3)); if (per_table < 1) per_table = 1
    for (first = 2; first <= ngpus; first += per_table) {
        last = first + per_table - 1; if (last > ngpus) last = ngpus
        printf "\nKernel ms, %s input: the floor'"'"'s and auto'"'"'s on each GPU; x: over %s'"'"'s\n", on, gpu[1]
        line = sprintf("%-" all_w "s   %-" ref_w "s", "", gpu[1])
        for (g = first; g <= last; g++) line = line sprintf("   %-" other_w "s", gpu[g])
        print trimmed(line)
        line = sprintf("%-" all_w "s   %8s %8s%" ref_w - 17 "s", "case", "floor", "auto", "")
        for (g = first; g <= last; g++)
            line = line sprintf("   %8s %8s %8s %8s%" other_w - 35 "s", "floor", "auto", "floor x", "auto x", "")
        print trimmed(line)
        for (c = 1; c <= ncases; c++) {
            r = gpu[1] SUBSEP on SUBSEP cases[c]
            if (!(r in have)) continue
            line = sprintf("%-" all_w "s   %8s %8s%" ref_w - 17 "s", cases[c], floor_ms[r],
                           auto_ms[r] != "" ? auto_ms[r] : "-", "")
            for (g = first; g <= last; g++) {
                k = gpu[g] SUBSEP on SUBSEP cases[c]
                fx = k in have && floor_ms[r] > 0 ? sprintf("%.2f", floor_ms[k] / floor_ms[r]) : "-"
                ax = k in have && auto_ms[k] != "" && auto_ms[r] > 0 ? sprintf("%.2f", auto_ms[k] / auto_ms[r]) : "-"
                line = line sprintf("   %8s %8s %8s %8s%" other_w - 35 "s", k in have ? floor_ms[k] : "-",
                                    auto_ms[k] != "" ? auto_ms[k] : "-", fx, ax, "")
            }
            print trimmed(line)
        }
    }
}' "$tmp/groups" >"$tmp/report"
mv "$tmp/report" "$report"
say "report: ${report#"$top"/}"

# ---------------------------------------------------------------- charts --
gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    say "no charts: gnuplot is not installed (make deps installs gnuplot-nox)"
    exit 0
fi
# For generalized-gpus.gp: a layout line (its xtics, a case's name over what
# it is), then per input a block of each % target (x, %), and per GPU two:
# auto (x, %) and CUB's best (x, %), x the case's place, from 1
awk -F'\t' -v rgba="$target_rgba" -v u8="$target_u8" -v f32="$target_f32" -v sum="$target_sum" \
    -v u16="$target_u16" -v range="$target_range" -v min_max="$target_min_max" -v row_sums="$target_rows" '
function described(c,   p, n, edges) {
    n = split(c, p, "/")
    if (p[1] == "rows") return "row sums"
    if (p[1] == "u8x4") return "RGBA"
    if (n == 2) return p[1] " keys"
    if (p[3] == "sum") return "weighted " p[1]
    if (p[3] == "min" || p[3] == "max") return p[3] " per bin"
    if (split(p[3], edges, "-") == 2) return p[1] " in [" edges[1] ", " edges[2] ")"
    return ""
}
{
    if (!($1 in gpu_at)) { gpu_at[$1] = ++ngpus; gpu[ngpus] = $1 }
    if (!($2 in data_at)) { data_at[$2] = ++ndata; data[ndata] = $2 }
    if (!($3 in case_at)) { case_at[$3] = ++ncases; cases[ncases] = $3 }
    k = $1 SUBSEP $2 SUBSEP $3
    auto[k] = $6; cub[k] = $10
}
END {
    goal["u8x4/256"] = rgba; goal["u8/256"] = u8; goal["f32/1000"] = f32; goal["f32/1000/sum"] = sum
    goal["u16/65536"] = u16; goal["u16/3000/100-60000"] = range
    goal["f32/1000/min"] = goal["f32/1000/max"] = min_max
    printf "# gpus=%d; kinds=%d; cases=%d; names=\"", ngpus, ndata, ncases
    for (d = 1; d <= ndata; d++) printf "%s%s", (d > 1 ? " " : ""), data[d]
    printf "\"; tics='"'"'set xtics ("
    for (c = 1; c <= ncases; c++) printf "%s\"%s\\n%s\" %d", (c > 1 ? ", " : ""), cases[c], described(cases[c]), c
    printf ")'"'"'\n"
    for (d = 1; d <= ndata; d++) {
        printf "\"target\"\t0\n"
        for (c = 1; c <= ncases; c++) {
            t = cases[c] ~ /^rows\// ? row_sums : goal[cases[c]]
            if (t != "") printf "%d\t%s\n", c, t
        }
        printf "\n\n"
        for (g = 1; g <= ngpus; g++) {
            printf "\"%s: auto, the library'"'"'s choice\"\t0\n", gpu[g]
            for (c = 1; c <= ncases; c++)
                if ((x = auto[gpu[g], data[d], cases[c]]) != "") printf "%d\t%s\n", c, x
            printf "\n\n\"%s: CUB, its best\"\t0\n", gpu[g]
            for (c = 1; c <= ncases; c++)
                if ((x = cub[gpu[g], data[d], cases[c]]) != "") printf "%d\t%s\n", c, x
            printf "\n\n"
        }
    }
}' "$tmp/groups" >"$tmp/chart"
chart=$chart_dir/generalized-gpus
title="Stage 08_generalized, kernel only: the library's own choice (solid) and CUB's best (hatched) per case; 100% is each GPU's own read-only kernel over the same bytes"
"$gnuplot" -e "data='$tmp/chart'; out='$chart'; title='${title//\'/\'\'}'; $(sed -n '1s/^# //p' "$tmp/chart")" \
    plots/gnuplot/generalized-gpus.gp || { echo "generalized: gnuplot failed on $tmp/chart" >&2; exit 1; }
say "chart: ${chart#"$top"/}.png, .svg"

if [ ${#hues[@]} -eq 0 ]; then
    say "no hue chart: no hue table (plots/results/hue-*.dat, or name one: HUE.dat)"
fi
for i in ${hues[@]+"${!hues[@]}"}; do
    chart=$chart_dir/hue-stats-${photos[$i]}
    "$gnuplot" -e "data='${hues[$i]//\'/\'\'}'; out='${chart//\'/\'\'}'" plots/gnuplot/hue-stats.gp ||
        { echo "generalized: gnuplot failed on ${hues[$i]}" >&2; exit 1; }
    say "chart: ${chart#"$top"/}.png, .svg"
done
