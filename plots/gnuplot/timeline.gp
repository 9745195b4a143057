# timeline.gp: stage 06's timeline (hist_gpu_streams --timeline FILE), as
# timeline.sh prepares it: a panel per way, a lane per stream and step, each
# step a bar from its start to its end in ms, coloured by what it is, the
# chunk's number on the bars wide enough to hold it. Each panel has its own
# time axis: its way's run starts at its own event.
# timeline.sh passes the layout line its data starts with:
#   panels, names (the ways, in order), lanes (each way's), chunks (each
#   way's), ends (each way's last end, ms), tics1, tics2, ... (each panel's
#   ytics command)
# and, per way, three blocks, copy-in, kernel, copy-out: start, end, lane, label.
load 'plots/gnuplot/style.gp'

lane_px = 26
panel_px(p) = lane_px * word(lanes, p) + 110
height = 90
do for [p = 1:panels] { height = height + panel_px(p) }
png = sprintf("set terminal pngcairo size 1400,%d font 'sans,11' noenhanced; set output out.'.png'", height)
svg = sprintf("set terminal svg size 1400,%d font 'sans,11' noenhanced dynamic; set output out.'.svg'", height)
kinds = "copy-in kernel copy-out"
colours = "#1f77b4 #2ca02c #d62728"
block(p, k) = (p - 1) * 3 + k          # k: 0 copy-in, 1 kernel, 2 copy-out
half = 0.38                            # a bar's half height, in lanes

set datafile separator "\t"
set grid xtics noytics lc rgb "#dddddd"
set xlabel "ms from an event just before this way's run; a bar: from when its stream reached the step to when the step ended"
key = "set key outside right top vertical box opaque samplen 2"
set lmargin at screen 0.16
set rmargin at screen 0.88

# panel p's place: from the top, below the title and the panels above it
above(p) = (p == 1 ? 0 : sum [q = 1:p - 1] panel_px(q))
draw = "set multiplot title title font ',13'; \
        do for [p = 1:panels] { \
            set origin 0, 1 - (70.0 + above(p) + panel_px(p)) / height; \
            set size 1, 1.0 * panel_px(p) / height; \
            set title sprintf('%s: %s chunk%s, its last step ends at %.3f ms', word(names, p), word(chunks, p), word(chunks, p) eq '1' ? '' : 's', word(ends, p) + 0) font ',12'; \
            set yrange [word(lanes, p) + 0.5:0.5]; \
            set xrange [0:word(ends, p) * 1.02 + 1e-6]; \
            eval value(sprintf('tics%d', p)); \
            if (p == 1) { @key } else { unset key }; \
            set ytics scale 0; \
            plot for [k = 0:2] data index block(p, k) using (($1 + $2) / 2):3:1:2:($3 - half):($3 + half) with boxxyerror fs solid 0.85 border lc rgb word(colours, k + 1) lc rgb word(colours, k + 1) title word(kinds, k + 1), \
                 for [k = 0:2] data index block(p, k) using (($1 + $2) / 2):3:4 with labels font ',9' tc rgb '#ffffff' notitle \
        }; \
        unset multiplot"
@png
@draw
@svg
@draw
unset output
