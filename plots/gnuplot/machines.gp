# machines.gp: the lab comparison: each stage's kernel time on every machine
# with a recorded run (uniform bytes, 100 MiB), as horizontal bars: a group of
# bars per row, one bar a machine, the stages down the page in the order of
# stages.txt, a line between two stages. Horizontal, so that no label is cut
# or turned, however many rows; the picture grows with the rows and machines.
# plots.sh passes the layout line that rows.awk (chart=machines) writes first:
#   machines, height (in bars), label_chars, name_chars, xmin, xmax
load 'plots/gnuplot/style.gp'

# Everything in pixels first. Bars are 14 pixels apart; a character of the
# 11-point font is at most about 8.5 wide, and a line of the key 22 high. The
# key goes below the time axis, as many machines a line as surely fit: gnuplot
# is told the number of lines, and makes as many columns as that needs.
bar = 14
label_px = int(8.5 * label_chars) + 30
plot_px = 760
width = label_px + plot_px + 70                   # room right of a bar for its number
key_entry_px = int(9 * name_chars) + 80           # a sample box, a name, a gap
key_columns = int((width - 40) / key_entry_px)
key_columns = key_columns < 1 ? 1 : (key_columns > machines ? machines : key_columns)
key_rows = int((machines + key_columns - 1) / key_columns)
top_px = 50                                       # the title
bottom_px = 70 + 22 * key_rows + 20               # the time axis, its label, then the key
height_px = top_px + bar * (height + 1) + bottom_px
png = sprintf("set terminal pngcairo size %d,%d font 'sans,11' noenhanced; set output out.'.png'", width, height_px)
svg = sprintf("set terminal svg size %d,%d font 'sans,11' noenhanced dynamic; set output out.'.svg'", width, height_px)

set lmargin at screen real(label_px) / width
set rmargin at screen real(label_px + plot_px) / width
set tmargin at screen 1 - real(top_px) / height_px
set bmargin at screen real(bottom_px) / height_px
set key at screen 0.5, screen real(22 * key_rows + 20) / height_px center top vertical \
    maxrows key_rows reverse Left samplen 2 box opaque

set datafile columnheaders                         # each index starts with a header, in every clause
set title title
set logscale x
set xrange [xmin:xmax]
set xlabel "kernel time (ms, log scale; shorter is faster)"
set format x "%g"
set grid xtics noytics lc rgb "#dddddd"
set ytics scale 0 nomirror
set yrange [-(height + 0.5):1]                    # rows go down from 0: the first at the top
set border 1 lc rgb "#444444"

# gnuplot has 8 line colours; 12 distinct ones here, and they come round again past 12 machines
colours = "#4477aa #ee6677 #228833 #ccbb44 #66ccee #aa3377 #bbbbbb #000000 #ee7733 #0077bb #009988 #cc3311"
do for [j=1:12] { set linetype j lc rgb word(colours, j) }

# Bar j of a row: from the axis to its time, one bar high less a gap, j - 1
# bars below the row's top; nowhere where that machine has no such row. Then
# each bar's time at its end, the row's label at the middle of its bars (on an
# invisible point), and the lines between stages.
bar_y(j) = valid(j + 3) ? -(column(1) + j - 0.5) : NaN
@png
plot for [j=1:machines] data index 0 using (xmin):(bar_y(j)):(xmin):(column(j + 3)):(bar_y(j) - 0.4):(bar_y(j) + 0.4) \
         with boxxyerror lt (j - 1) % 12 + 1 title columnheader(j + 3), \
     for [j=1:machines] data index 0 using (column(j + 3)):(bar_y(j)):(sprintf("%.3g", column(j + 3))) \
         with labels left offset 0.5, 0 font ",8" notitle, \
     data index 0 using (xmin):(-column(2)):ytic(3) with points pt -1 ps 0 notitle, \
     data index 1 using (xmin):(-column(1)):(xmax - xmin):(0) with vectors nohead lc rgb "#888888" dt 2 notitle
@svg
replot
unset output
