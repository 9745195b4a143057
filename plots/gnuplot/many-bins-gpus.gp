# many-bins-gpus.gp: stage 07_many_bins on every GPU swept, as % of each
# GPU's own read-only kernel against the bins: a panel per input, a solid line
# per GPU for the best strategy at each bin count and a dashed one for CUB,
# and, in small text, the best strategy's name where it changes under the
# few-bins target (95%: at the floor which strategy wins is noise, so one note
# per panel names those that reach it).
# many-bins.sh passes the layout line its data starts with:
#   gpus, kinds (panels), names (the inputs, in order, one word each)
# and, per input, a block of one note (x, y, the strategies at the floor),
# then per GPU three blocks: best (bins, %), CUB (bins, %), the best's name
# where it changes under the floor (bins, %, name).
load 'plots/gnuplot/style.gp'

panel_w = 600
width = panel_w * kinds
height = 650
png = sprintf("set terminal pngcairo size %d,%d font 'sans,11' noenhanced; set output out.'.png'", width, height)
svg = sprintf("set terminal svg size %d,%d font 'sans,11' noenhanced dynamic; set output out.'.svg'", width, height)
colours = "#1f77b4 #d62728 #2ca02c #9467bd #8c564b #e377c2"
colour(g) = word(colours, (g - 1) % words(colours) + 1)
note(k) = (k - 1) * (3 * gpus + 1)
block(k, g, s) = note(k) + 1 + (g - 1) * 3 + s      # s: 0 best, 1 CUB, 2 changes

set datafile columnheaders                          # each block starts with its name
set logscale x 2
set xrange [2:1048576]
set xtics ("2" 2, "16" 16, "256" 256, "4096" 4096, "65536" 65536, "2^20" 1048576)
set mxtics 4
set yrange [0:110]
set ytics 10
set grid xtics ytics lc rgb "#dddddd"
set xlabel "bins (log scale)"
set key left bottom Left reverse box opaque samplen 3 spacing 1.1 at graph 0.02, graph 0.3
set style textbox opaque noborder margins 1, 0  # a name hides the line under it
set arrow 1 from 2, 100 to 1048576, 100 nohead lc rgb "#888888" dt 3

draw = "set multiplot layout 1, kinds title title font ',13'; \
        do for [k = 1:kinds] { \
            set title word(names, k).' keys'; \
            if (k == 1) { set ylabel '% of the read floor (the GPU''s own read-only kernel)' } else { unset ylabel }; \
            plot for [g = 1:gpus] data index block(k, g, 0) using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb colour(g) title columnheader(1), \
                 for [g = 1:gpus] data index block(k, g, 1) using 1:2 with lines lw 2 dt 2 lc rgb colour(g) title columnheader(1), \
                 for [g = 1:gpus] data index block(k, g, 2) using 1:2:3 with labels boxed font ',8' tc rgb colour(g) offset 0, (g % 2 ? 1 : -1) notitle, \
                 data index note(k) using 1:2:3 with labels left font ',9' tc rgb '#555555' notitle \
        }; \
        unset multiplot"
@png
@draw
@svg
@draw
unset output
