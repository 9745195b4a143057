# stages.gp: every stage side by side on one input, kernel only and end to end.
# gnuplot -e "data='...'; out='...'; title='...'" stages.gp
load 'plots/gnuplot/style.gp'

# Everything in pixels first. Each label starts at its tick and runs down to
# the right, turned 30 degrees: a label of c characters reaches c x 8.5 x
# cos 30 pixels right of its tick (8.5: about the widest character of the
# 11-point font) and c x 8.5 x sin 30 below the axis, plus a line's height
# turned with it. So the picture is made as wide and as deep as its labels
# need: the last labels may reach past the last bar, the longest sets the
# bottom margin. The bars get 1000 pixels, or 56 a pair where there are more
# than 17 pairs; the plot is 480 pixels high.
char_px = 8.5
line_px = 16
reach_x(chars) = chars * char_px * cos(pi / 6) + line_px * sin(pi / 6)
reach_y(chars) = chars * char_px * sin(pi / 6) + line_px * cos(pi / 6)
stats data using (strlen(strcol(1))) nooutput
bars = STATS_records
label_chars = STATS_max
# Bar pair i (from 0) is centred at i in a slot of its own, on an axis from
# x_low to x_high: 20 pixels more at each end, for the numbers over the
# first and the last bars. Its tick is (x_high - i) slots left of the plot's
# right end.
slot_px = 1000.0 / bars < 56 ? 56.0 : 1000.0 / bars
x_low = -0.5 - 20.0 / slot_px
x_high = bars - 0.5 + 20.0 / slot_px
plot_px = slot_px * (x_high - x_low)
left_px = 90                                   # the time axis's numbers and label
stats data using (reach_x(strlen(strcol(1))) - (x_high - $0) * slot_px) nooutput
right_px = (STATS_max > 0 ? STATS_max : 0) + 20
width = int(left_px + plot_px + right_px)
top_px = 50                                    # the title
bottom_px = int(reach_y(label_chars)) + 30     # the labels, below the ticks
height_px = top_px + 480 + bottom_px
png = sprintf("set terminal pngcairo size %d,%d font 'sans,11' noenhanced; set output out.'.png'", width, height_px)
svg = sprintf("set terminal svg size %d,%d font 'sans,11' noenhanced dynamic; set output out.'.svg'", width, height_px)

set lmargin at screen real(left_px) / width
set rmargin at screen real(left_px + plot_px) / width
set tmargin at screen 1 - real(top_px) / height_px
set bmargin at screen real(bottom_px) / height_px
set xrange [x_low:x_high]

set title title
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
set logscale y
set ylabel "time per run (ms, log scale; lower is faster)"
set xtics rotate by -30 left
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
