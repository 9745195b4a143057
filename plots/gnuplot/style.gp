# style.gp: what every chart shares; each script loads it, then plots twice (PNG, then SVG).
set datafile separator "\t"
set termoption noenhanced          # stage names hold underscores, not subscripts
set grid ytics lc rgb "#dddddd"
set border 3 lc rgb "#444444"
set tics nomirror
set key noenhanced box opaque
set style fill solid 0.85 border -1
png = "set terminal pngcairo size 1200,650 font 'sans,11' noenhanced; set output out.'.png'"
svg = "set terminal svg size 1200,650 font 'sans,11' noenhanced dynamic; set output out.'.svg'"
