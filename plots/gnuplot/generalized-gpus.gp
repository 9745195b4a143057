# generalized-gpus.gp: stage 08_generalized on every GPU swept, as % of each
# GPU's own read-only kernel over the same bytes, per case of chapter 08: a
# panel per input, on each GPU a solid bar for auto (the library's own choice,
# its % written above it) and a hatched one for CUB's best, and a dashed mark
# at each case's target.
# generalized.sh passes the layout line its data starts with:
#   gpus, kinds (panels), cases, names (the inputs, in order, one word each),
#   tics (the command that names each case's place, 1 to cases)
# and, per input, a block of the targets (x, %), then per GPU two blocks:
# auto (x, %) and CUB's best (x, %).
load 'plots/gnuplot/style.gp'

width = 1920
panel_h = 480
height = panel_h * kinds + 60
png = sprintf("set terminal pngcairo size %d,%d font 'sans,12' noenhanced; set output out.'.png'", width, height)
svg = sprintf("set terminal svg size %d,%d font 'sans,12' noenhanced dynamic; set output out.'.svg'", width, height)
colours = "#1f77b4 #d62728 #2ca02c #9467bd #8c564b #e377c2"
colour(g) = word(colours, (g - 1) % words(colours) + 1)
targets(k) = (k - 1) * (2 * gpus + 1)
block(k, g, s) = targets(k) + 1 + (g - 1) * 2 + s   # s: 0 auto, 1 CUB
# a case's bars side by side, each GPU's auto then its CUB, 0.8 wide in all
bar = 0.8 / (2 * gpus)
at(x, g, s) = x - 0.4 + ((g - 1) * 2 + s + 0.5) * bar

set datafile columnheaders                          # each block starts with its name
set xrange [0.5:cases + 0.5]
@tics
set xtics scale 0
set yrange [0:110]
set ytics 10
set grid noxtics ytics lc rgb "#dddddd"
set boxwidth bar absolute
# one key for every panel, under the title: where the bars reach 100% it would hide them
key = "set key at screen 0.5, screen 1 - 60.0 / height center top horizontal box opaque samplen 2 width 1 maxrows 2"
set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead lc rgb "#888888" dt 3

top = 1 - 150.0 / height
draw = "set multiplot layout kinds, 1 title title font ',14' margins 0.05, 0.99, 60.0 / height, top spacing 0.1, 110.0 / height; \
        do for [k = 1:kinds] { \
            set title word(names, k).' input' font ',13'; \
            if (k == 1) { @key } else { unset key }; \
            set ylabel '% of the read floor'; \
            plot for [g = 1:gpus] data index block(k, g, 0) using (at($1, g, 0)):2 with boxes fs solid 0.85 border lc rgb colour(g) lc rgb colour(g) title columnheader(1), \
                 for [g = 1:gpus] data index block(k, g, 1) using (at($1, g, 1)):2 with boxes fs pattern 4 border lc rgb colour(g) lc rgb colour(g) title columnheader(1), \
                 for [g = 1:gpus] data index block(k, g, 0) using (at($1, g, 0)):2:(sprintf('%.0f', $2)) with labels offset 0, 0.6 font ',9' tc rgb colour(g) notitle, \
                 data index targets(k) using ($1 - 0.45):2:(0.9):(0) with vectors nohead lw 2 dt 2 lc rgb '#000000' title columnheader(1) \
        }; \
        unset multiplot"
@png
@draw
@svg
@draw
unset output
