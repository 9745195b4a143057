# bins.gp: stage 07's speed against the number of bins, one line per
# strategy, CUB and the read-only floor: which strategy is fastest changes
# with the bins (chapter 07).
load 'plots/gnuplot/style.gp'
set title title
set logscale x 2
set logscale y 10
set format x "%.0f"
set format y "%g"
set xlabel "bins (log scale)"
set ylabel "GB/s of keys, kernel only (log scale; higher is faster)"
set key outside right top
# nine lines: the eighth its own colour, the ninth (read-bandwidth, last by name) the floor, dashed
set linetype 8 lc rgb "#8c564b"
set linetype 9 lc rgb "#000000" dashtype 2
set grid xtics ytics lc rgb "#dddddd"
@png
plot for [i=0:*] data index i using 1:2 with linespoints lt i + 1 lw 2 pt 7 title columnheader(1)
@svg
replot
unset output
