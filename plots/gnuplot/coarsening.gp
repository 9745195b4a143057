# coarsening.gp: stage 05's kernel time against the bytes each thread counts
# (input bytes / (blocks x threads)), one line per variant: to the right, few
# blocks, each thread doing more of the work; to the left, many blocks, each
# paying again for clearing and merging its bins.
load 'plots/gnuplot/style.gp'
set title title
set logscale x 2
set logscale y 10
set format x "%g"
set format y "%g"
set xlabel "bytes per thread (input bytes / (blocks x threads), log scale)"
set ylabel "kernel time (ms, log scale; lower is faster)"
set key top left
set grid xtics ytics lc rgb "#dddddd"
@png
plot for [i=0:*] data index i using 1:2 with linespoints lt i + 1 lw 2 pt 7 title columnheader(1)
@svg
replot
unset output
