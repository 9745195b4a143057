# lab.gp: make lab's chart, a lab's machines side by side as a heat map: a line
# per machine, a column per stage and variant, each cell its time (ms) and
# coloured by how many times the fastest machine's time in that column it is,
# so that the fastest of each column is white and a slow machine stands out
# at a glance. Drawn for a projector: 1920 wide up to 18 columns or so, and
# 1080 high for 30 machines; wider or taller past that, never smaller cells.
# lab.sh passes the layout line that rows.awk (chart=lab) writes first:
#   machines, columns, label_chars (longest column label), name_chars (longest machine name)
load 'plots/gnuplot/style.gp'

# Everything in pixels first. A character of the 15-point font is at most
# about 12 pixels wide, a column label's (turned by 35 degrees: sin 35 = 0.57,
# cos 35 = 0.82) about 10.
# Lines share 1080 pixels, each 24 to 44 high: past 30-odd machines the
# picture grows, and a lab of a few is short, not stretched.
name_px = int(12 * name_chars) + 30
min_cell_w = 72
label_px = int(10 * label_chars * 0.57) + 30
title_px = 80
bottom_px = 62                                      # the colour key, across the foot
fixed_px = title_px + label_px + bottom_px
cell_h = (1080.0 - fixed_px) / machines
cell_h = cell_h < 24 ? 24 : (cell_h > 44 ? 44 : cell_h)
height = int(fixed_px + machines * cell_h + 0.5)
right_px = int(10 * label_chars * 0.82) - min_cell_w / 2  # the last label's overhang
right_px = right_px < 40 ? 40 : right_px
width = name_px + columns * min_cell_w + right_px
width = width < 1920 ? 1920 : width
cell_font = cell_h >= 28 ? 15 : 14                  # six digits fit a 72-pixel cell
png = sprintf("set terminal pngcairo size %d,%d font 'sans,15' noenhanced; set output out.'.png'", width, height)
svg = sprintf("set terminal svg size %d,%d font 'sans,15' noenhanced dynamic; set output out.'.svg'", width, height)

set lmargin at screen real(name_px) / width
set rmargin at screen 1 - real(right_px) / width
set tmargin at screen 1 - real(title_px + label_px) / height
set bmargin at screen real(bottom_px) / height
set label 1 title at screen 0.5, screen 1 - 24.0 / height center font ',18'
set label 2 "each cell: a machine's time in ms, the kernel's (the whole trip's in a (trip) column); " . \
            "its colour: times the fastest machine's in that column" at screen 0.5, screen 1 - 52.0 / height center

set datafile columnheaders                          # each index starts with a header
set border 0
unset grid
unset key
unset xtics
set x2tics rotate by 35 left scale 0 nomirror
set ytics scale 0 nomirror
set xrange [-0.5:columns - 0.5]
set x2range [-0.5:columns - 0.5]
set yrange [machines - 0.5:-0.5]                    # the first machine at the top

# Colour: log2 of times the fastest, from 1x (white) to 8x or more (dark orange)
set cbrange [0:3]
set palette defined (0 "#ffffff", 1 "#fee391", 2 "#fe9929", 3 "#cc4c02")
set cbtics ("1x (fastest)" 0, "2x" 1, "4x" 2, "8x or more" 3) scale 0
set colorbox user horizontal origin screen real(name_px) / width, screen 32.0 / height \
    size screen 480.0 / width, screen 18.0 / height

shade(x) = x > 0 ? (log(x) / log(2) > 3 ? 3 : log(x) / log(2)) : NaN
missing(x) = x > 0 ? NaN : 0.48                     # rows.awk writes -1 where a machine has no such run
@png
plot data index 0 using 1:2:(0.48):(0.48):(shade(column(3))) with boxxyerror fc palette fs solid 1 noborder, \
     data index 0 using 1:2:(0.48):(missing(column(3))) with boxxyerror fc rgb "#eeeeee" fs solid 1 noborder, \
     data index 0 using 1:2:4 with labels font sprintf(",%d", cell_font), \
     data index 1 using 1:(NaN):x2tic(2) axes x2y1 with points, \
     data index 2 using (0):1:ytic(2) with points pt -1 ps 0
@svg
replot
unset output
