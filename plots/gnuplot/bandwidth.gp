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
plot for [i=0:*] data index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1)
@svg
replot
unset output
