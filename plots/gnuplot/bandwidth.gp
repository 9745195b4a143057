# bandwidth.gp: each GPU stage's speed as a percentage of the GPU's measured
# streaming-read bandwidth, over input sizes (100% = reading the input once).
load 'plots/gnuplot/style.gp'
set title title
set logscale x 2
set xlabel "input size (MiB, log scale)"
set ylabel "% of this GPU's read bandwidth (higher is better)"
set yrange [0:*]
set format x "%g"
set key outside right top
set grid xtics ytics lc rgb "#dddddd"
@png
# gnuplot has 8 line colours: lines 9 on get colours of their own, dashed
set linetype 9 lc rgb "#7f0000" dt 2
set linetype 10 lc rgb "#00007f" dt 2
set linetype 11 lc rgb "#7f7f00" dt 2
set linetype 12 lc rgb "#007f7f" dt 2
plot for [i=0:*] data index i using 1:2 with linespoints lt i + 1 lw 2 pt 7 title columnheader(1)
@svg
replot
unset output
