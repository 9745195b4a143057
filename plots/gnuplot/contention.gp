# contention.gp: the same stages on uniform, skewed and constant bytes: how
# much collisions on the same bins cost each of them (kernel only).
load 'plots/gnuplot/style.gp'
set title title
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
set logscale y
set ylabel "kernel time (ms, log scale; lower is faster)"
set xtics rotate by -30 left
set bmargin 9
set rmargin 14 # the last label, rotated, runs right of the last bar
set key top right
@png
plot data using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), \
     '' using 4 title columnheader(4)
@svg
replot
unset output
