# histogram.gp: the histograms themselves. kind='text': one bar per character
# of the book's phrase (its figure 9.1); kind='image': the 256 brightness bins
# of the sample photograph (the OpenCL book's figure 4.1).
load 'plots/gnuplot/style.gp'
set title title
set ylabel "count"
set key off
set yrange [0:*]
if (kind eq 'text') {
    set style data histograms
    set boxwidth 0.8
    set xlabel "character"
    @png
    plot data using 2:xtic(1) lc rgb "#3366aa"
} else {
    set xlabel "brightness (0 = black, 255 = white)"
    set xrange [-1:256]
    set xtics 32
    set boxwidth 1
    @png
    plot data using 1:2 with boxes lc rgb "#555555"
}
@svg
replot
unset output
