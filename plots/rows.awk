# rows.awk: reads the CSVs that make bench writes and turns the rows a chart
# needs into tab-separated columns for gnuplot. Which chart: -v chart=NAME.
# Labels name what ran without the machine ("03 shared-atomics 264x256").

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

function label(    name, where) {
    name = substr(r["stage"], 1, 2) " " r["impl"]
    if (r["stage"] == "read_bandwidth") return "read bandwidth (the floor)"
    if (r["stage"] == "01_cpu" && r["threads"] > 1)   # machines differ in cores: say "every core" there
        name = name (chart == "machines" ? " on every core" : " x" r["threads"] " threads")
    if (r["stage"] == "04_opencl_port") {
        where = (r["device"] == r["gpu"]) ? "GPU" : "CPU"
        name = name " on " where
    }
    if (with_launch && r["blocks"] > 0) name = name " " r["blocks"] "x" r["threads"]
    return name
}

function data_name(d) { sub(/.*\//, "", d); return d }

FNR == 1 { n = split_csv($0, header); next }
{
    if (split_csv($0, f) != n) next          # a malformed row: leave it out
    for (i = 1; i <= n; i++) r[header[i]] = f[i]
    if (r["verified"] != "yes") next
    # 05 measures the floor again for its own table; the charts show read_bandwidth's
    if (r["impl"] == "read-bandwidth" && r["stage"] != "read_bandwidth") next
}
# machine: its name, GPU or else CPU; size: the size of the main run's generated inputs
chart == "machine" && !done { print (r["gpu"] != "none") ? r["gpu"] : r["host_cpu"]; done = 1 }
chart == "size" && !done && r["run"] == "main" && r["data"] == "uniform" {
    printf "%g MiB\n", r["bytes"] / 1048576; done = 1
}
# table: the main run on uniform bytes as a Markdown table, for the READMEs
chart == "table" && r["run"] == "main" && r["data"] == "uniform" {
    if (!rows++) {
        print "| stage | variant | device | launch | kernel ms | end-to-end ms | GB/s (kernel) | % of read bandwidth | verified |"
        print "|---|---|---|---|---:|---:|---:|---:|---|"
    }
    # blocks x threads on a GPU, threads on a CPU, "-" where a library or a copy chooses
    launch = r["blocks"] > 0 ? r["blocks"] " x " r["threads"] : \
             r["threads"] > 0 ? r["threads"] " thread" (r["threads"] > 1 ? "s" : "") : "-"
    no_kernel = r["threads"] == 0 && r["kernel_ms"] + 0 == 0   # 06's floor: a plain copy
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r["stage"], r["impl"], r["device"], launch,
           no_kernel ? "-" : r["kernel_ms"], r["total_ms"], no_kernel ? "-" : r["gbps"],
           r["pct_of_read_bw"] == "" ? "" : r["pct_of_read_bw"] "%", r["verified"]
}
# stages: one kind of input; label, kernel ms, end-to-end ms
chart == "stages" && r["run"] == "main" && data_name(r["data"]) == kind {
    # the stage's number first, for plots.sh to sort by (the floor before 01)
    printf "%s\t\"%s\"\t%s\t%s\n", r["stage"] == "read_bandwidth" ? "00" : substr(r["stage"], 1, 2),
           label(), r["kernel_ms"], r["total_ms"]
}
# contention: label, then kernel ms on uniform, skewed, constant
chart == "contention" && r["run"] == "main" && r["data"] ~ /^(uniform|skewed|constant)$/ &&
    r["stage"] != "read_bandwidth" {
    l = label(); if (!(l in seen)) { seen[l] = 1; order[++count] = l }
    ms[l, r["data"]] = r["kernel_ms"]
}
# bandwidth: one block per label: MiB, % of the read bandwidth
chart == "bandwidth" && r["run"] == "size-sweep" && r["pct_of_read_bw"] != "" && r["data"] == "uniform" &&
    r["stage"] != "06_streams" {                # 06 is about copies, not the kernel
    with_launch = 1; l = label(); with_launch = 0
    if (!(l in seen)) { seen[l] = 1; order[++count] = l }
    points[l] = points[l] sprintf("%g\t%s\n", r["bytes"] / 1048576, r["pct_of_read_bw"])
}
# blocks: blocks, kernel ms, % of the read bandwidth (blocks per SM is worked out at the end)
chart == "blocks" && r["run"] == "blocks-sweep" {
    count++; blocks[count] = r["blocks"]; kms[count] = r["kernel_ms"]; pct[count] = r["pct_of_read_bw"]
    if (min == "" || r["blocks"] + 0 < min) min = r["blocks"] + 0
}
# machines: label, then kernel ms on each machine (uniform, 100 MiB)
chart == "machines" && r["run"] == "main" && r["data"] == "uniform" && r["bytes"] == 104857600 &&
    r["stage"] != "read_bandwidth" {
    m = (r["gpu"] != "none") ? r["gpu"] : r["host_cpu"]
    if (!(m in machine_seen)) { machine_seen[m] = 1; machines[++machine_count] = m }
    l = label(); if (!(l in seen)) { seen[l] = 1; order[++count] = l }
    ms[l, m] = r["kernel_ms"]
}
END {
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
    if (chart == "machines") {
        printf "stage"
        for (j = 1; j <= machine_count; j++) printf "\t\"%s\"", machines[j]
        printf "\n"
        for (i = 1; i <= count; i++) {
            printf "\"%s\"", order[i]
            for (j = 1; j <= machine_count; j++) printf "\t%s", value(order[i], machines[j])
            printf "\n"
        }
    }
}
function value(l, column) { return ((l, column) in ms) ? ms[l, column] : "NaN" }
