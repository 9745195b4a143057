# bins.gp: stage 07's speed against the number of bins, one line per
# strategy, auto's choice, CUB and the read-only floor: which strategy is
# fastest changes with the bins (chapter 07).
load 'plots/gnuplot/style.gp'
set title title
set logscale x 2
set logscale y 10
set format x "%.0f"
set format y "%g"
set xlabel "bins (log scale)"
set ylabel "GB/s of keys, kernel only (log scale; higher is faster)"
set key outside right top
# the first block (plots.sh puts it there) is the floor, black and dashed; then
# up to ten lines (07_many_bins' eight strategies, auto and CUB), each its own colour
set linetype 1 lc rgb "#000000" dashtype 2
set linetype 2 lc rgb "#1f77b4"
set linetype 3 lc rgb "#ff7f0e"
set linetype 4 lc rgb "#2ca02c"
set linetype 5 lc rgb "#d62728"
set linetype 6 lc rgb "#9467bd"
set linetype 7 lc rgb "#8c564b"
set linetype 8 lc rgb "#e377c2"
set linetype 9 lc rgb "#7f7f7f"
set linetype 10 lc rgb "#bcbd22"
set linetype 11 lc rgb "#17becf"
set grid xtics ytics lc rgb "#dddddd"
@png
plot for [i=0:*] data index i using 1:2 with linespoints lt i + 1 lw 2 pt 7 title columnheader(1)
@svg
replot
unset output
