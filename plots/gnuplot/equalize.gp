# equalize.gp: histogram equalization of a photograph (chapter 09), from the
# file 09_equalize's --chart writes: the brightness before and after, as grey
# pictures side by side, and under each its histogram. Under the one before,
# the table as a line on a second axis (new brightness against old: the
# scaled running sum); under the one after, the running share of the pixels,
# which equalization makes close to a straight line.
# gnuplot -e "data='...'; out='...'; title='...'; width=W; height=H" equalize.gp
# PNG only: as SVG, each pixel of the pictures is a rectangle of its own (30 MB).
# Blocks of data: index 0 a line per brightness (brightness, pixels before,
# pixels after, table); index 1 and 2 the pictures, a line per row, top first.
load 'plots/gnuplot/style.gp'
set datafile separator whitespace                   # --chart writes spaces, '#' before the comments

png = "set terminal pngcairo size 1200,900 font 'sans,11' noenhanced; set output out.'.png'"

stats data index 0 using 2 nooutput
pixels = STATS_sum
stats data index 0 using 3 nooutput
highest = STATS_max
stats data index 0 using 2 nooutput
highest = STATS_max > highest ? STATS_max : highest   # both histograms on one scale, room for the keys

draw = "set multiplot title title font ',13'; \
    set size ratio -1; unset border; unset tics; unset colorbox; unset key; \
    set palette grey; set cbrange [0:255]; \
    set xrange [-0.5:width - 0.5]; set yrange [height - 0.5:-0.5]; \
    set origin 0.02, 0.42; set size 0.47, 0.52; set title 'before'; \
    plot data index 1 matrix with image; \
    set origin 0.51, 0.42; set size 0.47, 0.52; set title 'after equalization'; \
    plot data index 2 matrix with image; \
    set size noratio; set border 11; set xtics (0, 32, 64, 96, 128, 160, 192, 224, 255) out nomirror; set ytics out nomirror; \
    set xrange [-1:256]; set yrange [0:highest * 1.3]; set format y '%.0f'; \
    set xlabel 'brightness (0 = black, 255 = white)'; set ylabel 'pixels'; \
    set y2range [0:260]; set y2tics (0, 64, 128, 192, 255) out; \
    set key Left reverse; \
    set boxwidth 1; set style fill solid 1.0 noborder; \
    set origin 0.0, 0.0; set size 0.5, 0.42; set title 'its histogram, and the table'; \
    set y2label 'new brightness'; set key at graph 0.98, graph 0.55 right center samplen 2; \
    plot data index 0 using 1:2 with boxes lc rgb '#555555' title 'pixels', \
         '' index 0 using 1:4 axes x1y2 with lines lw 2 lc rgb '#d62728' title 'table'; \
    set origin 0.5, 0.0; set size 0.5, 0.42; set title 'its histogram, and the running share'; \
    set y2label '% of the pixels, this bright or darker'; set y2range [0:104]; set y2tics 0, 25 out; \
    set key at graph 0.02, graph 0.98 left top samplen 4; \
    plot data index 0 using 1:3 with boxes lc rgb '#555555' title 'pixels', \
         '' index 0 using 1:(100 * $3 / pixels) smooth cumulative axes x1y2 with lines lw 2 \
            lc rgb '#1f77b4' title 'the running share of pixels'; \
    unset multiplot"
@png
@draw
unset output
