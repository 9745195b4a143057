# rows.awk: reads the CSVs that make bench writes and turns the rows a chart
# needs into tab-separated columns for gnuplot, or a Markdown table. Which
# chart: -v chart=NAME; which input, where a chart shows one: -v kind=KIND.
# Labels name what ran without the machine ("03 shared-atomics"); what sets a
# stage's rows apart comes from the registry, stages.txt (-v registry=PATH;
# stages.txt from the repository root, where every caller runs): its runs-on
# column says which stages run threads on a CPU, which on any OpenCL device,
# and its shows column which stages are about the whole trip, not the kernel.
# The table (chart=table) shows only the stages named in -v stages="05_privatized
# 06_streams" where that is set, with read_bandwidth's rows, the yardsticks,
# when any of theirs ran on the GPU; the machines charts and the lab's, only
# those stages' rows.
#
# A machine is a CSV file: two machines with the same GPU stay apart. The
# machines charts name each by its GPU (or CPU), and add the file's name where
# two files name the same one; with -v names=files (make lab) every machine is
# named by its file, then its GPU: "pc01 (NVIDIA GeForce RTX 3060)". They show
# the main run at -v bytes=N (default 104857600, the 100 MiB every machine
# runs by default).

BEGIN {
    if (registry == "") registry = "stages.txt"
    if (bytes == "") bytes = 104857600
    while ((status = getline line < registry) > 0) {
        if (line ~ /^[ \t]*(#|$)/) continue
        split(line, column, " ")                # a space splits at every run of blanks
        position[column[1]] = ++stage_count     # the charts show the stages in this order
        runs_on[column[1]] = column[3]
        shows[column[1]] = column[4]
    }
    if (status < 0) { print "rows.awk: cannot read " registry > "/dev/stderr"; broken = 1; exit 2 }
    close(registry)
    position["read_bandwidth"] = 0             # the floor, before every stage
    wanted_count = split(stages, wanted_list, " ")
    for (i = 1; i <= wanted_count; i++) {
        if (!(wanted_list[i] in position)) {
            print "rows.awk: " wanted_list[i] " is not a stage of " registry > "/dev/stderr"
            broken = 1; exit 2
        }
        wanted[wanted_list[i]] = 1
    }
}

# Splits one CSV line, with RFC 4180 quoting, into f[1..n].
function split_csv(line, f,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field c; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}

# What sets a row apart within its stage: its variant, and the rules of stages.txt
function variant(    name) {
    name = r["impl"]
    if (runs_on[r["stage"]] == "cpu" && r["threads"] > 1)   # machines differ in cores: say "every core" there
        name = name (chart ~ /^(machines|lab)/ ? " on every core" : " x" r["threads"] " threads")
    if (runs_on[r["stage"]] == "opencl")
        name = name " on " (r["device"] == r["gpu"] ? "GPU" : "CPU")
    if (with_launch && r["blocks"] > 0) return name " " launch("x")
    return name again
}

# How a row ran: blocks x threads (joined by times) on a GPU, threads on a
# CPU. Threads 0 on a GPU: a library chose the launch, and blocks, if any, is
# the number of chunks the program cut the input into (06: --chunks); "-"
# where nothing more is known (a library's own launch, a plain copy).
function launch(times) {
    if (r["blocks"] > 0 && r["threads"] > 0) return r["blocks"] times r["threads"]
    if (r["blocks"] > 0) return r["blocks"] " chunk" (r["blocks"] > 1 ? "s" : "")
    if (r["threads"] > 0) return r["threads"] " thread" (r["threads"] > 1 ? "s" : "")
    return "-"
}

function label() {
    if (r["stage"] == "read_bandwidth") return "read bandwidth (the floor)"
    return substr(r["stage"], 1, 2) " " variant()
}

# A run of a stage's program that has no kernel: 06's plain copy, the floor of its trip
function no_kernel() { return r["threads"] == 0 && r["kernel_ms"] + 0 == 0 }

# read_bandwidth's second row: the memory's rated speed (memory clock x bus
# width), a figure worked out, not a run; its gbps is the rated GB/s
function rated_row() { return r["stage"] == "read_bandwidth" && r["impl"] == "rated-peak" }

# A row's kernel GB/s as a % of the rated speed of its device, from the rated
# row of the same CSV; "" where that CSV has none (older runs), or on a CPU
function pct_of_rated(file, device, gbps) {
    if (!((file, device) in rated) || gbps + 0 <= 0) return ""
    return sprintf("%.2f%%", 100 * gbps / rated[file, device])
}

function machine_name() { return (r["gpu"] != "none") ? r["gpu"] : r["host_cpu"] }

# A name as machine.sh makes a file name of it: lower case, words joined by '-'
function slug_of(name) {
    name = tolower(name)
    gsub(/\([^)]*\)/, "", name)
    gsub(/[^a-z0-9]+/, "-", name)
    sub(/^-/, "", name); sub(/-$/, "", name)
    return name
}

# A machine's file name, less its folder and .csv
function file_name(file) { sub(/.*\//, "", file); sub(/\.csv$/, "", file); return file }

# What a machine (a file) is called in a machines chart or the lab's: see the top
function machine_label(file, name,    base, slug) {
    base = file_name(file)
    if (names != "files") return name
    slug = slug_of(name)                         # pc01-nvidia-geforce-rtx-3060: pc01
    if (length(base) > length(slug) + 1 && substr(base, length(base) - length(slug)) == "-" slug)
        base = substr(base, 1, length(base) - length(slug) - 1)
    return base " (" short_name(name) ")"
}

# The machine of the row being read, its file; the first of its rows notes
# what the charts name it by
function this_machine() {
    if (!(FILENAME in machine_seen)) {
        machine_seen[FILENAME] = 1; machines[++machine_count] = FILENAME
        host_of[FILENAME] = r["host_cpu"]; name_of[FILENAME] = machine_name()
        is_gpu[FILENAME] = r["gpu"] != "none"; gpu_of[FILENAME] = r["gpu"]
    }
    return FILENAME
}

# A row's label where machines sit side by side: as label(), less auto's
# choice in a lab (make lab), since that differs between machines
function machine_row_label(    l) {
    l = label()
    if (names == "files" || chart ~ /^lab/) sub(/ auto:[^\/]*/, " auto", l)
    return l
}

# A CPU's name without its trademarks and clock, for a label that a chart has
# room for: "Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz" is "Intel Core i7-10700"
function short_name(name) {
    gsub(/\((R|TM|tm|r)\)/, "", name)
    sub(/ CPU @ .*$/, "", name)
    sub(/ @ .*$/, "", name)
    gsub(/  +/, " ", name)
    return name
}

function data_name(d) { sub(/.*\//, "", d); return d }

FNR == 1 { n = split_csv($0, header); next }
{
    if (split_csv($0, f) != n) next          # a malformed row: leave it out
    for (i = 1; i <= n; i++) r[header[i]] = f[i]
    if (r["verified"] != "yes") next
    # 05 measures the floor again for its own table; the charts show read_bandwidth's
    if (r["impl"] ~ /^read-bandwidth(\/|$)/ && r["stage"] != "read_bandwidth") next
    # The rated speed is the tables' second 100%; a chart has no bar for it
    if (rated_row()) {
        if (r["gbps"] + 0 > 0 && !((FILENAME, r["device"]) in rated)) rated[FILENAME, r["device"]] = r["gbps"]
        if (chart != "table") next
    }
    # A stage run twice on one input with the same variant (03: the book's grid,
    # then --blocks-per-sm 8) names the second run by how its grid compares with
    # the first's, which reads the same on every machine: ", 4x the blocks".
    key = FILENAME SUBSEP r["run"] SUBSEP r["data"] SUBSEP r["bytes"] SUBSEP r["stage"] SUBSEP \
          r["impl"] SUBSEP r["device"] SUBSEP r["threads"]
    again = ""
    if (!(key in first_blocks)) { first_blocks[key] = r["blocks"]; runs_of[key] = 1 }
    else if (r["blocks"] != first_blocks[key] && first_blocks[key] > 0)
        again = sprintf(", %gx the blocks", r["blocks"] / first_blocks[key])
    else again = ", run " ++runs_of[key]
}
# machine: its name, GPU or else CPU; size: the size of the main run's generated inputs
chart == "machine" && !done { print (r["gpu"] != "none") ? r["gpu"] : r["host_cpu"]; done = 1 }
chart == "size" && !done && r["run"] == "main" && r["data"] == "uniform" {
    printf "%g MiB\n", r["bytes"] / 1048576; done = 1
}
# table: the main run on uniform bytes as a Markdown table, for the READMEs;
# kept until the end, when the rated speed and the rows to show are known
chart == "table" && r["run"] == "main" && r["data"] == "uniform" {
    t = ++table_count
    table_file[t] = FILENAME; table_stage[t] = r["stage"]
    table_device[t] = r["device"]; table_gbps[t] = no_kernel() || rated_row() ? "" : r["gbps"]
    if (r["device"] == r["gpu"] && (r["stage"] in wanted)) gpu_wanted[FILENAME] = 1
    if (rated_row())        # a figure: nothing launched, timed or checked
        table_cells[t] = sprintf("%s | %s | %s | - | - | - | %s", r["stage"], r["impl"], r["device"], r["gbps"])
    else
        table_cells[t] = sprintf("%s | %s | %s | %s | %s | %s | %s", r["stage"], r["impl"], r["device"],
                                 launch(" x "), no_kernel() ? "-" : r["kernel_ms"], r["total_ms"],
                                 no_kernel() ? "-" : r["gbps"])
    table_share[t] = r["pct_of_read_bw"] == "" ? "" : r["pct_of_read_bw"] "%"
    table_verified[t] = rated_row() ? "-" : r["verified"]
}
# stages: one kind of input; label, kernel ms, end-to-end ms
chart == "stages" && r["run"] == "main" && data_name(r["data"]) == kind {
    # the stage's place in stages.txt first, for plots.sh to sort by (the floor before them all)
    printf "%03d\t\"%s\"\t%s\t%s\n", rank(r["stage"]), label(), r["kernel_ms"], r["total_ms"]
}
# contention: label, then kernel ms on uniform, skewed, constant
chart == "contention" && r["run"] == "main" && r["data"] ~ /^(uniform|skewed|constant)$/ &&
    r["stage"] != "read_bandwidth" {
    l = label(); if (!(l in seen)) { seen[l] = 1; order[++count] = l }
    ms[l, r["data"]] = r["kernel_ms"]
}
# bandwidth: one block per label: MiB, % of the read bandwidth
chart == "bandwidth" && r["run"] == "size-sweep" && r["pct_of_read_bw"] != "" && r["data"] == "uniform" &&
    shows[r["stage"]] != "trip" {               # a stage about the whole trip (06: copies) is not about the kernel
    with_launch = 1; l = label(); with_launch = 0
    if (!(l in seen)) { seen[l] = 1; order[++count] = l }
    points[l] = points[l] sprintf("%g\t%s\n", r["bytes"] / 1048576, r["pct_of_read_bw"])
}
# blocks: blocks, kernel ms, % of the read bandwidth (blocks per SM is worked out at the end)
chart == "blocks" && r["run"] == "blocks-sweep" {
    count++; blocks[count] = r["blocks"]; kms[count] = r["kernel_ms"]; pct[count] = r["pct_of_read_bw"]
    if (min == "" || r["blocks"] + 0 < min) min = r["blocks"] + 0
}
# machines (the chart) and machines-table (for the READMEs): each row's kernel
# time on every machine, on one kind of generated input (uniform unless kind
# says otherwise) at 100 MiB, the size every machine runs by default
chart ~ /^machines/ && r["run"] == "main" && r["data"] == (kind == "" ? "uniform" : kind) &&
    r["bytes"] == bytes && r["stage"] != "read_bandwidth" && !no_kernel() &&
    (!wanted_count || (r["stage"] in wanted)) {
    m = this_machine()
    l = machine_row_label()
    if (!(l in seen)) { seen[l] = 1; order[++count] = l; stage_of[l] = r["stage"]; variant_of[l] = variant() }
    ms[l, m] = r["kernel_ms"]
    share[l, m] = r["pct_of_read_bw"]
    # its share of the rated speed when the table is made: a CSV's rated row
    # may come after this one (a later BENCH_ONLY run's)
    device_of[l, m] = r["device"]; gbps_of[l, m] = r["gbps"]
}
# lab-sizes: each file, the input sizes of its main and brief runs on the input
# asked for, and how many rows each, a line each (make lab picks one size for the
# whole lab: a weighted run's bytes count its weights, a size the machine was not given)
chart == "lab-sizes" && (r["run"] == "main" || r["run"] == "brief") &&
    r["data"] == (kind == "" ? "uniform" : kind) {
    if (!((FILENAME, r["bytes"]) in size_rows)) size_order[++size_count] = FILENAME SUBSEP r["bytes"]
    size_rows[FILENAME, r["bytes"]]++
}
# lab (the heat map of make lab) and lab-csv (its rows, long): every machine's
# time for each row of the runs brief.txt lists (run "brief"), or of the main
# run where no machine has those; kernel ms, or end to end for a stage about
# the whole trip (06), whose plain copy is then a row of its own
chart ~ /^lab/ && (r["run"] == "main" || r["run"] == "brief") && r["data"] == (kind == "" ? "uniform" : kind) &&
    r["bytes"] == bytes && r["stage"] != "read_bandwidth" && (!wanted_count || (r["stage"] in wanted)) &&
    (!no_kernel() || shows[r["stage"]] == "trip") {
    m = this_machine()
    # the same row again (06's plain copy, which every --variant run makes
    # again): its first is the one shown
    if (again ~ /^, run /) next
    l = machine_row_label()
    if (shows[r["stage"]] == "trip") l = l " (trip)"
    run = r["run"]
    if (!((run, l) in lab_seen)) { lab_seen[run, l] = 1; lab_order[run, ++lab_count[run]] = l; stage_of[l] = r["stage"] }
    lab_ms[run, l, m] = shows[r["stage"]] == "trip" ? r["total_ms"] : r["kernel_ms"]
    lab_line[run, l, m] = csv_text(file_name(m)) "," csv_text(r["gpu"]) "," csv_text(r["host_cpu"]) "," \
        r["stage"] "," csv_text(l) "," csv_text(r["impl"]) "," r["data"] "," r["bytes"] "," \
        r["kernel_ms"] "," r["total_ms"] "," r["pct_of_read_bw"] "," run
}
END {
    if (broken) exit 2
    if (chart == "contention") {
        print "stage\tuniform\tskewed\tconstant"
        for (i = 1; i <= count; i++)
            printf "\"%s\"\t%s\t%s\t%s\n", order[i], value(order[i], "uniform"),
                   value(order[i], "skewed"), value(order[i], "constant")
    }
    if (chart == "bandwidth")
        for (i = 1; i <= count; i++) printf "\"%s\"\t0\n%s\n\n", order[i], points[order[i]]
    if (chart == "blocks")
        for (i = 1; i <= count; i++) printf "%g\t%s\t%s\n", blocks[i] / min, kms[i], pct[i]
    for (i = 1; chart == "lab-sizes" && i <= size_count; i++) {
        split(size_order[i], file_bytes, SUBSEP)
        printf "%s\t%s\t%d\n", file_bytes[1], file_bytes[2], size_rows[size_order[i]]
    }
    if (chart ~ /^lab/) lab_pick()
    if (chart ~ /^(machines|lab)/) { sort_by_stage(); name_machines() }
    if (chart == "lab") lab_chart()
    if (chart == "lab-csv") lab_csv()
    if (chart == "machines") machines_chart()
    if (chart == "machines-table") machines_table()
    if (chart == "table") table()
}

# The rows kept for the table: every one, or those of the stages asked for,
# and the yardsticks (read_bandwidth) of a CSV where one of those ran on the GPU
function table(    t, shown) {
    for (t = 1; t <= table_count; t++) {
        if (wanted_count && !(table_stage[t] in wanted) &&
            !(table_stage[t] == "read_bandwidth" && (table_file[t] in gpu_wanted))) continue
        if (!shown++) {
            print "| stage | variant | device | launch | kernel ms | end-to-end ms | GB/s (kernel) " \
                  "| % of rated peak | % of read bandwidth | verified |"
            print "|---|---|---|---|---:|---:|---:|---:|---:|---|"
        }
        printf "| %s | %s | %s | %s |\n", table_cells[t],
               pct_of_rated(table_file[t], table_device[t], table_gbps[t]), table_share[t], table_verified[t]
    }
}

# Puts order[1..count] in the order of stages.txt; a stage's rows keep the
# order they were first seen in (insertion sort: stable)
function sort_by_stage(    i, j, t) {
    for (i = 2; i <= count; i++)
        for (j = i; j > 1 && rank(stage_of[order[j - 1]]) > rank(stage_of[order[j]]); j--) {
            t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
        }
}

# A stage's place in stages.txt; a stage it does not list (an older CSV's) comes last
function rank(stage) { return (stage in position) ? position[stage] : stage_count + 1 }

# Horizontal bars for gnuplot/machines.gp. First the layout, as one gnuplot
# statement: how many machines, the height in bars, the longest label and
# machine name in characters, the ends of the time axis. Then index 0: a header
# and a line per row: where its bars start from the top, one bar a machine;
# the middle of the bars it has, for its label; the label; a time per machine.
# Then index 1: a header and the y of each line between two stages. Rows are a
# bar's height apart; stages, two.
function machines_chart(    i, j, y, longest, longest_name, low, high, t, first, last) {
    y = 0; longest = 0; longest_name = 0; low = 0; high = 0
    for (i = 1; i <= count; i++) {
        if (i > 1) y += (stage_of[order[i]] != stage_of[order[i - 1]]) ? 2 : 1
        top[i] = y
        y += machine_count
        if (length(order[i]) > longest) longest = length(order[i])
        for (j = 1; j <= machine_count; j++) {
            if (!((order[i], machines[j]) in ms) || ms[order[i], machines[j]] + 0 <= 0) continue
            t = ms[order[i], machines[j]] + 0
            if (low == 0 || t < low) low = t
            if (t > high) high = t
        }
    }
    if (high == 0) return                       # no kernel time to draw
    for (j = 1; j <= machine_count; j++)
        if (length(shown[machines[j]]) > longest_name) longest_name = length(shown[machines[j]])
    # bars start at a whole decade; the longest has as much again to its right, for its number
    printf "# machines=%d; height=%d; label_chars=%d; name_chars=%d; xmin=%g; xmax=%g\n",
           machine_count, y, longest, longest_name,
           decade_below(low), high * 2
    printf "top\tmiddle\tlabel"
    for (j = 1; j <= machine_count; j++) printf "\t\"%s\"", shown[machines[j]]
    printf "\n"
    for (i = 1; i <= count; i++) {
        first = 0; last = 0                    # the machines that have this row
        for (j = 1; j <= machine_count; j++)
            if ((order[i], machines[j]) in ms) { if (!first) first = j; last = j }
        printf "%d\t%g\t\"%s\"", top[i], top[i] + (first - 1 + last) / 2, order[i]
        for (j = 1; j <= machine_count; j++) printf "\t%s", value(order[i], machines[j])
        printf "\n"
    }
    printf "\n\nbetween\n"
    for (i = 2; i <= count; i++)
        if (stage_of[order[i]] != stage_of[order[i - 1]]) printf "%g\n", top[i] - 1
}

# shown[m]: each machine's name in the charts (see the top): its GPU's or
# CPU's, and its file's where another file names the same machine
function name_machines(    i, j, m, t, times) {
    if (names == "files")                       # a lab: machines of one model side by side
        for (i = 2; i <= machine_count; i++)
            for (j = i; j > 1 && (name_of[machines[j - 1]] > name_of[machines[j]] ||
                                  (name_of[machines[j - 1]] == name_of[machines[j]] &&
                                   machines[j - 1] > machines[j])); j--) {
                t = machines[j]; machines[j] = machines[j - 1]; machines[j - 1] = t
            }
    for (j = 1; j <= machine_count; j++) times[name_of[machines[j]]]++
    for (j = 1; j <= machine_count; j++) {
        m = machines[j]
        shown[m] = names == "files" ? machine_label(m, name_of[m]) \
                 : times[name_of[m]] > 1 ? name_of[m] " (" file_name(m) ")" : name_of[m]
    }
}

# The power of ten just below x (awk has no floor)
function decade_below(x,    d) { d = 1; while (d > x) d /= 10; while (d * 10 <= x) d *= 10; return d }

# Markdown: a row per stage and variant, a column per machine: kernel ms, and
# on a GPU the % of that machine's read bandwidth and, where its CSV has the rated
# speed, the % of that; empty where a machine has no such row (no such device,
# or the stage did not run there). Each heading says what its cells hold.
function machines_table(    i, j, l, m, cell, gpu, has_rated) {
    if (!count) return
    printf "| stage | variant |"
    # a GPU machine's CPU rows ran on its host: its heading names that CPU too
    for (j = 1; j <= machine_count; j++) {
        m = machines[j]; gpu = is_gpu[m]; has_rated[m] = (m, gpu_of[m]) in rated
        if (names == "files") printf " %s |", shown[m]   # make lab says once what a cell holds
        else printf " %s: kernel ms%s |", shown[m] (gpu ? " (host: " host_of[m] ")" : ""),
                    !gpu ? "" : " (% of read bandwidth" (has_rated[m] ? ", % of rated peak" : "") ")"
    }
    printf "\n|---|---|"
    for (j = 1; j <= machine_count; j++) printf "---:|"
    printf "\n"
    for (i = 1; i <= count; i++) {
        l = order[i]
        printf "| %s | %s |", stage_of[l], variant_of[l]
        for (j = 1; j <= machine_count; j++) {
            m = machines[j]
            cell = ((l, m) in ms) ? ms[l, m] : ""
            of_rated[l, m] = ((l, m) in ms) ? pct_of_rated(m, device_of[l, m], gbps_of[l, m]) : ""
            if (cell != "" && (share[l, m] != "" || of_rated[l, m] != ""))
                cell = cell " (" (share[l, m] != "" ? share[l, m] "%" : "-") \
                       (has_rated[m] ? ", " (of_rated[l, m] != "" ? of_rated[l, m] : "-") : "") ")"
            printf " %s |", cell
        }
        printf "\n"
    }
}

# The lab's rows: brief.txt's runs where any machine has them, else the main
# run's; a machine without brief rows lends its main run's time to a row of the same name
function lab_pick(    run, i, j, l, m) {
    run = lab_count["brief"] ? "brief" : "main"
    count = lab_count[run]
    for (i = 1; i <= count; i++) {
        l = order[i] = lab_order[run, i]
        for (j = 1; j <= machine_count; j++) {
            m = machines[j]
            if ((run, l, m) in lab_ms) { ms[l, m] = lab_ms[run, l, m]; line_of[l, m] = lab_line[run, l, m] }
            else if (("main", l, m) in lab_ms) { ms[l, m] = lab_ms["main", l, m]; line_of[l, m] = lab_line["main", l, m] }
        }
    }
}

# For gnuplot/lab.gp: first the layout, as one gnuplot statement; then index
# 0, a cell per machine and row: column, line (0 at the top), its time as a
# multiple of the fastest machine's time in that column (-1: none), the time to print;
# index 1, each column's label; index 2, each machine's name
function lab_chart(    i, j, l, m, fastest, longest, longest_name) {
    if (!count || !machine_count) return
    for (i = 1; i <= count; i++) if (length(order[i]) > longest) longest = length(order[i])
    for (j = 1; j <= machine_count; j++)
        if (length(shown[machines[j]]) > longest_name) longest_name = length(shown[machines[j]])
    printf "# machines=%d; columns=%d; label_chars=%d; name_chars=%d\n", machine_count, count, longest, longest_name
    print "column\tline\ttimes_fastest\ttext"
    for (i = 1; i <= count; i++) {
        l = order[i]; fastest = 0
        for (j = 1; j <= machine_count; j++)
            if (((l, machines[j]) in ms) && ms[l, machines[j]] + 0 > 0 &&
                (fastest == 0 || ms[l, machines[j]] + 0 < fastest)) fastest = ms[l, machines[j]] + 0
        for (j = 1; j <= machine_count; j++) {
            m = machines[j]
            if (((l, m) in ms) && fastest > 0 && ms[l, m] + 0 > 0)
                printf "%d\t%d\t%g\t\"%.3g\"\n", i - 1, j - 1, ms[l, m] / fastest, ms[l, m]
            else printf "%d\t%d\t-1\t\"-\"\n", i - 1, j - 1   # -1: no such run there
        }
    }
    print "\n\ncolumn\tlabel"
    for (i = 1; i <= count; i++) printf "%d\t\"%s\"\n", i - 1, order[i]
    print "\n\nline\tmachine"
    for (j = 1; j <= machine_count; j++) printf "%d\t\"%s\"\n", j - 1, shown[machines[j]]
}

# The lab's rows as CSV, one line per machine and row, for a spreadsheet
function lab_csv(    i, j) {
    print "machine,gpu,host_cpu,stage,row,impl,data,bytes,kernel_ms,total_ms,pct_of_read_bw,run"
    for (j = 1; j <= machine_count; j++)
        for (i = 1; i <= count; i++)
            if ((order[i], machines[j]) in line_of) print line_of[order[i], machines[j]]
}

# A text field, quoted as RFC 4180 says when it holds a comma or a quote
function csv_text(text) {
    if (text !~ /[,"]/) return text
    gsub(/"/, "\"\"", text)
    return "\"" text "\""
}

function value(l, column) { return ((l, column) in ms) ? ms[l, column] : "NaN" }
