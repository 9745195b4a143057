# hue-stats.gp: a photograph's hues, from the table hist_gpu_generalized
# --image FILE --hue N --chart TABLE writes (chapter 08): per hue bin a bar of
# its pixels, filled with the bin's most saturated pixel's colour, and on a
# second axis, 0 to 255, the bin's mean saturation and its brightest value.
# The counts are on a log scale: a few hues hold most pixels, and the rest,
# bars of a handful of pixels, would not show. A bin with no pixels has no bar
# and no point.
# Columns: bin from_degrees to_degrees pixels mean_saturation brightest r g b
load 'plots/gnuplot/style.gp'
set datafile separator whitespace                   # --chart writes spaces, '#' before the names

png = "set terminal pngcairo size 1200,650 font 'sans,11' noenhanced; set output out.'.png'"
svg = "set terminal svg size 1200,650 font 'sans,11' noenhanced dynamic; set output out.'.svg'"
colour(r, g, b) = int(r) * 65536 + int(g) * 256 + int(b)
some(n, x) = n > 0 ? x : NaN

set title "The photograph's hues: what a histogram of counts cannot show" font ',13'
set xlabel "hue (degrees: 0 red, 120 green, 240 blue)"
set xrange [0:360]
set xtics 30
set ylabel "pixels (log scale)"
set logscale y
set yrange [0.8:*]
set format y "%.0f"
set y2label "mean saturation, brightest value (0 to 255)"
set y2range [0:255]
set y2tics 0, 32, 224
set y2tics add ("255" 255)
set grid noy2tics
set key at graph 0.4, graph 0.98 center top vertical box opaque   # where neither bars nor lines reach
set style fill solid 1.0 border lc rgb "#555555"

draw = "plot data using (($2 + $3) / 2):(some($4, $4)):($3 - $2):(colour($7, $8, $9)) with boxes lc rgb variable title 'pixels, in the bin''s most saturated colour', \
             '' using (($2 + $3) / 2):(some($4, $5)) axes x1y2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#222222' title 'mean saturation', \
             '' using (($2 + $3) / 2):(some($4, $6)) axes x1y2 with linespoints lw 2 dt 2 pt 6 ps 0.7 lc rgb '#222222' title 'brightest value'"
@png
@draw
@svg
@draw
unset output
