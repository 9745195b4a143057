#!/usr/bin/env bash
# make -C plots timeline: stage 06's timeline drawn, from the file that
# hist_gpu_streams --timeline FILE writes (a line per step of each chunk: its
# way, stream, chunk, what, start and end in ms by the GPU's events, bytes).
# A panel per way, a lane per stream and step (copy-in, kernel, copy-out),
# time in ms across, each step a bar from its start to its end; into
# plots/figures/timeline-06-<machine>.png and .svg, <machine> from the file's
# "# device:" line, named as plots/machine.sh names machines.
#
# Usage: plots/timeline.sh [TIMELINE...]
#   default: every plots/results/timeline-06_streams-*.txt
#
# Knobs, from the environment or make's command line:
#   TIMELINE_OUT  the folder for the charts (default plots/figures)
#   GNUPLOT       the gnuplot to run (default gnuplot); without one, the charts
#                 are skipped, with a line that says so
#
# Exit: 0 drawn (or skipped without gnuplot, said), 1 gnuplot failed, 2 bad
# usage: no file, or a file that is not such a timeline.
set -euo pipefail

say() { echo "timeline: $*"; }
refuse() { echo "timeline: $*" >&2; exit 2; }

# the files and the folder, as given from the caller's folder; then work from the top
top=$(realpath "$(dirname "$0")/..")
files=()
if [ $# -eq 0 ]; then
    for file in "$top"/plots/results/timeline-06_streams-*.txt; do
        [ -e "$file" ] || refuse "no timeline in plots/results/ (timeline-06_streams-*.txt): name one"
        files+=("$file")
    done
else
    for file in "$@"; do files+=("$(realpath -m -- "$file")"); done
fi
out_dir=$(realpath -m "${TIMELINE_OUT:-$top/plots/figures}")
cd "$top"
source plots/slug.sh # slug_of: the file names of plots/machine.sh

for file in "${files[@]}"; do
    [ -f "$file" ] || refuse "no file $file"
    [ -r "$file" ] || refuse "cannot read $file"
    # every line a '#' comment or a step: way stream chunk what start_ms end_ms bytes
    awk '/^#/ { next }
         NF != 7 || $2 !~ /^([0-9]+|default)$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^(copy-in|kernel|copy-out)$/ ||
         $5 !~ /^[0-9]+\.?[0-9]*$/ || $6 !~ /^[0-9]+\.?[0-9]*$/ || $7 !~ /^[0-9]+$/ || $6 < $5 { exit 1 }
         { steps++ } END { exit !steps }' "$file" ||
        refuse "$file is not a timeline (hist_gpu_streams --timeline FILE writes one): a line that is no step, or no step"
done

gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    say "no charts: gnuplot is not installed (make deps installs gnuplot-nox)"
    exit 0
fi
mkdir -p "$out_dir" 2>/dev/null || refuse "cannot make $out_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for file in "${files[@]}"; do
    device=$(sed -n 's/^# device: //p' "$file" | head -1)
    device=${device:-an unnamed GPU}
    engines=$(sed -n 's/^# copy engines: \([0-9]*\).*/\1/p' "$file" | head -1)
    # "# input: 1073741824 bytes, uniform; ..." -> "1 GiB of uniform bytes"
    input=$(sed -n 's/^# input: \([0-9]*\) bytes, \([^;]*\).*/\1 \2/p' "$file" | head -1 |
        awk '{ b = $1; u = b >= 1073741824 ? "GiB" : b >= 1048576 ? "MiB" : b >= 1024 ? "KiB" : "bytes"
               d = u == "GiB" ? 1073741824 : u == "MiB" ? 1048576 : u == "KiB" ? 1024 : 1
               printf "%g %s of %s bytes", b / d, u, $2 }')
    slug=$(slug_of "$device")
    # For timeline.gp: a layout line (the panels: ways, lanes, chunks, each
    # way's last end, the lanes' names), then per way three blocks, copy-in,
    # kernel and copy-out: start, end, lane (from 1, the top), the chunk's
    # number where the bar is wide enough to hold it ("" where not). A lane is
    # a stream and a step that occur: the default stream first, then stream
    # 0, 1, ...; in each, copy-in, kernel, copy-out.
    awk '
    BEGIN { split("copy-in kernel copy-out", kinds, " ") }
    /^#/ { next }
    {
        if (!($1 in way_at)) { way_at[$1] = ++ways; way[ways] = $1 }
        w = way_at[$1]; k = $4 == "copy-in" ? 0 : $4 == "kernel" ? 1 : 2
        key = 3 * ($2 == "default" ? -1 : $2 + 0) + k   # the lane'"'"'s place in the order above
        if (!((w, key) in lane_name)) {
            lane_name[w, key] = ($2 == "default" ? "default stream" : "stream " $2) ": " kinds[k + 1]
            keys[w, ++lane_count[w]] = key
        }
        n = ++steps[w]
        lane_key[w, n] = key; kind[w, n] = k; chunk[w, n] = $3; from[w, n] = $5; to[w, n] = $6
        if ($6 > last[w]) last[w] = $6
        if ($3 + 1 > chunks[w]) chunks[w] = $3 + 1
    }
    END {
        names = lanes = tics = ends = counts = ""
        for (w = 1; w <= ways; w++) {
            count = lane_count[w]
            for (i = 2; i <= count; i++)     # a few lanes: insertion sort
                for (j = i; j > 1 && keys[w, j] < keys[w, j - 1]; j--) {
                    t = keys[w, j]; keys[w, j] = keys[w, j - 1]; keys[w, j - 1] = t
                }
            tic = ""
            for (i = 1; i <= count; i++) {
                place[w, keys[w, i]] = i
                tic = tic sprintf("%s\"%s\" %d", i > 1 ? ", " : "", lane_name[w, keys[w, i]], i)
            }
            names = names (w > 1 ? " " : "") way[w]
            lanes = lanes (w > 1 ? " " : "") count
            ends = ends (w > 1 ? " " : "") last[w]
            counts = counts (w > 1 ? " " : "") chunks[w]
            tics = tics sprintf("tics%d='"'"'set ytics (%s)'"'"'; ", w, tic)
        }
        printf "# panels=%d; names=\"%s\"; lanes=\"%s\"; chunks=\"%s\"; ends=\"%s\"; %s\n",
               ways, names, lanes, counts, ends, tics
        for (w = 1; w <= ways; w++)
            for (k = 0; k <= 2; k++) {
                for (n = 1; n <= steps[w]; n++) {
                    if (kind[w, n] != k) continue
                    wide = last[w] > 0 && to[w, n] - from[w, n] >= 0.03 * last[w]
                    printf "%s\t%s\t%d\t\"%s\"\n", from[w, n], to[w, n], place[w, lane_key[w, n]],
                           wide ? chunk[w, n] : ""
                }
                printf "\n\n"
            }
    }' "$file" >"$tmp/chart"
    chart=$out_dir/timeline-06-$slug
    what=${input:+, $input}
    title="Stage 06's timeline on $device$what${engines:+, $engines copy engines}: each step by the GPU's events"
    "$gnuplot" -e "data='$tmp/chart'; out='${chart//\'/\'\'}'; title='${title//\'/\'\'}'; $(sed -n '1s/^# //p' "$tmp/chart")" \
        plots/gnuplot/timeline.gp || { echo "timeline: gnuplot failed on $file" >&2; exit 1; }
    say "chart: ${chart#"$top"/}.png, .svg"
done
