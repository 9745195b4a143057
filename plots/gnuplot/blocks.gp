# blocks.gp: stage 03's kernel time as the grid grows, in blocks per SM (the
# book chose 2 for the GTX 280), with the % of read bandwidth on the right axis.
load 'plots/gnuplot/style.gp'
set title title
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
set xrange [0.8:80]
set xlabel "blocks per SM (256 threads each)"
set ylabel "kernel time (ms; lower is faster)"
set y2label "% of this GPU's read bandwidth"
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top right
@png
plot data using 1:2 with linespoints lw 2 pt 7 title "kernel time", \
     '' using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 title "% of read bandwidth"
@svg
replot
unset output
