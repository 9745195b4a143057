#!/usr/bin/env bash
# plots/equalize.sh: the figure of chapter 09, histogram equalization of a
# photograph, from the file that stage 09_equalize writes on a GPU with
# --chart (the photograph's brightness before and after, both histograms,
# the table). It draws, into plots/figures/equalize-<name>.png, the two
# pictures side by side and under each its histogram
# (gnuplot/equalize.gp). PNG only: as SVG each pixel would be a shape.
#
# Usage: plots/equalize.sh [CHART.dat...]
#   default: plots/results/equalize-chelsea.dat, recorded on a GPU with
#     09_equalize/hist_gpu_equalize --image data/chelsea.bmp --chart plots/results/equalize-chelsea.dat
#   each FILE.dat gives figures/FILE.png
#
# Knobs, from the environment:
#   EQUALIZE_OUT  the folder of the figures (default plots/figures/)
#   GNUPLOT       the gnuplot to run (default gnuplot); without one, nothing is
#                 drawn, and a line says so
#
# Exit: 0 drawn (or skipped without gnuplot, said), 1 gnuplot failed, 2 bad
# usage: a file missing, or not a chart of a picture from --chart.
set -euo pipefail

say() { echo "equalize: $*"; }
refuse() { echo "equalize: $*" >&2; exit 2; }

# the files and the folder, as given from the caller's folder; then work from the top
top=$(realpath "$(dirname "$0")/..")
files=()
for file in "${@:-$top/plots/results/equalize-chelsea.dat}"; do
    files+=("$(realpath -m -- "$file")")
done
out=$(realpath -m -- "${EQUALIZE_OUT:-$top/plots/figures}")
cd "$top"

# Each file's first line: "# 09_equalize --chart: NAME, N bytes, W x H pixels, equalized on GPU"
declare -A sizes titles
for file in "${files[@]}"; do
    [ -f "$file" ] || refuse "$file: no such file (09_equalize's --chart writes it on a GPU:" \
        "09_equalize/hist_gpu_equalize --image data/chelsea.bmp --chart $file)"
    first=$(head -1 "$file")
    [[ $first == "# 09_equalize --chart: "* ]] || refuse "$file: not a chart of 09_equalize --chart"
    [[ $first =~ ,\ ([0-9]+)\ x\ ([0-9]+)\ pixels, ]] ||
        refuse "$file: a chart of bytes, not of a picture (--chart draws a picture only with --image)"
    sizes[$file]="width=${BASH_REMATCH[1]}; height=${BASH_REMATCH[2]}"
    name=${first#\# 09_equalize --chart: }
    titles[$file]="Histogram equalization of ${name%%,*} (${BASH_REMATCH[1]} x ${BASH_REMATCH[2]}), on ${first##*, equalized on }"
done

gnuplot=${GNUPLOT:-gnuplot}
if ! command -v "$gnuplot" >/dev/null; then
    say "skipped: gnuplot is not installed (make deps installs gnuplot-nox)"
    exit 0
fi
mkdir -p "$out"
for file in "${files[@]}"; do
    figure=$out/$(basename "$file" .dat)
    title=${titles[$file]//\'/\'\'} # in a gnuplot string in single quotes, '' is one quote
    "$gnuplot" -e "data='$file'; out='$figure'; title='$title'; ${sizes[$file]}" \
        plots/gnuplot/equalize.gp || { echo "equalize: gnuplot failed on $file" >&2; exit 1; }
    say "$figure.png"
done
