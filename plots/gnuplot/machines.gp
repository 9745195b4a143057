# machines.gp: the lab comparison: each stage's kernel time on every machine
# with a recorded run (uniform bytes, 100 MiB).
load 'plots/gnuplot/style.gp'
set title title
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
set logscale y
set ylabel "kernel time (ms, log scale; lower is faster)"
set xtics rotate by -30 left
set bmargin 9
set key top right
@png
plot for [i=2:*] data using i:xtic(1) title columnheader(i)
@svg
replot
unset output
