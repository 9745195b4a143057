# stages.gp: every stage side by side on one input, kernel only and end to end.
# gnuplot -e "data='...'; out='...'; title='...'" stages.gp
load 'plots/gnuplot/style.gp'
png = "set terminal pngcairo size 1500,700 font 'sans,11' noenhanced; set output out.'.png'"
svg = "set terminal svg size 1500,700 font 'sans,11' noenhanced dynamic; set output out.'.svg'"
set title title
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
set logscale y
set ylabel "time per run (ms, log scale; lower is faster)"
set xtics rotate by -30 left
set bmargin 9
set key top right
@png
# two bars a cluster, each a third wide: their centres are 1/6 left and right of the tick;
# where both times are the same (the CPU copies nothing), one label says it
plot data using 2:xtic(1) title "kernel only", '' using 3 title "end to end (allocations and copies included)", \
     '' using ($0 - 1.0/6):2:(sprintf("%.3g", $2)) with labels offset 0,0.7 font ",9" notitle, \
     '' using ($0 + 1.0/6):($3 == $2 ? NaN : $3):(sprintf("%.3g", $3)) with labels offset 0,0.7 \
        font ",9" notitle
@svg
replot
unset output
