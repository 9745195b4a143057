# profile.awk: turns what Nsight Compute printed for one run of a stage
# (ncu --csv --page raw --log-file FILE) into make profile's rows: a header,
# then one CSV row per profiled kernel. plots/profile.sh runs it, and so does
# `plots/profile.sh --parse FILE`, which the tests use on recorded output.
#
# Which columns, from which metrics (profile.sh sets both, from its one list):
#   -v columns="name=metric+metric;name=metric;top_stall;top_stall_ratio;..."
#     a column is one metric, or the sum of several; top_stall and
#     top_stall_ratio are the largest of the stall metrics and its value
#   -v stall_metric=smsp__..._%s_..., -v stall_reasons="long_scoreboard;wait;..."
# Values are read in the units ncu's units row gives and written in the
# column's own: *_ms in milliseconds, *_per_s per second, the rest as ncu's
# base units (counts, %). Exit 0, or 1 with one line on stderr saying what is
# wrong (a metric missing, no number, no kernel), or 77 where ncu could not
# read the GPU's performance counters.

BEGIN {
    column_count = split(columns, spec, ";")
    for (c = 1; c <= column_count; c++) {
        name[c] = spec[c]; parts[c] = 0
        if (index(spec[c], "=")) {
            name[c] = substr(spec[c], 1, index(spec[c], "=") - 1)
            parts[c] = split(substr(spec[c], index(spec[c], "=") + 1), metric_list, "+")
            for (p = 1; p <= parts[c]; p++) {
                part[c, p] = metric_list[p]
                needed[metric_list[p]] = 1
            }
        }
    }
    reason_count = split(stall_reasons, reason, ";")
    for (s = 1; s <= reason_count; s++) {
        stall[s] = sprintf(stall_metric, reason[s])
        needed[stall[s]] = 1
    }
}

# Splits one CSV line, with RFC 4180 quoting, into f[1..n] (as rows.awk does).
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

function fail(why) {
    print "profile: " why > "/dev/stderr"
    status = 1
    exit 1
}

# The factor that takes one part of a unit (either side of a '/') to its base:
# a time to seconds (ns or nsecond, us, ms), a count with an SI prefix
# (Kinst, Mrequest, Gbyte) to the plain count; anything else is already base.
function part_scale(u) {
    if (u ~ /^n(s|second)$/) return 1e-9
    if (u ~ /^u(s|second)$/) return 1e-6
    if (u ~ /^m(s|second)$/) return 1e-3
    if (u ~ /^K[a-z]+$/) return 1e3
    if (u ~ /^M[a-z]+$/) return 1e6
    if (u ~ /^G[a-z]+$/) return 1e9
    if (u ~ /^T[a-z]+$/) return 1e12
    return 1
}

function unit_scale(u,    slash) {
    slash = index(u, "/")
    if (!slash) return part_scale(u)
    return part_scale(substr(u, 1, slash - 1)) / part_scale(substr(u, slash + 1))
}

# The value of one metric for the current kernel, in base units. ncu may group
# thousands with commas ("1,048,576"), which are dropped.
function value(metric,    v) {
    v = row[column_of[metric]]
    if (v ~ /^-?[0-9][0-9,]*(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) gsub(/,/, "", v)
    if (v !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/)
        fail(sprintf("%s has no number for kernel %s: '%s'", metric, kernel, v))
    return v * unit_scale(unit[column_of[metric]])
}

# A kernel's name without its return type, namespaces, template arguments and
# parameters, whatever ncu's --print-kernel-base: "DeviceHistogramSweepKernel".
function short_name(n) {
    sub(/\(.*/, "", n)
    while (match(n, /<[^<>]*>/)) n = substr(n, 1, RSTART - 1) substr(n, RSTART + RLENGTH)
    sub(/.* /, "", n)
    sub(/.*::/, "", n)
    return n
}

function csv_text(t) {
    if (t ~ /[",]/) { gsub(/"/, "\"\"", t); return "\"" t "\"" }
    return t
}

function cell(c,    v, p, best, s) {
    if (name[c] == "top_stall" || name[c] == "top_stall_ratio") {
        best = 0
        for (s = 1; s <= reason_count; s++)
            if (!best || value(stall[s]) > value(stall[best])) best = s
        if (name[c] == "top_stall") return reason[best]
        return sprintf("%.2f", value(stall[best]))
    }
    v = 0
    for (p = 1; p <= parts[c]; p++) v += value(part[c, p])
    if (name[c] ~ /_ms$/) return sprintf("%.4f", v * 1e3)
    if (name[c] ~ /pct/) return sprintf("%.2f", v)
    return sprintf("%.0f", v)    # counts, and counts per second
}

/ERR_NVGPUCTRPERM/ {
    print "profile: cannot run here: ncu may not read this GPU's performance counters" \
          " (ERR_NVGPUCTRPERM: run as root, or see https://developer.nvidia.com/ERR_NVGPUCTRPERM)" > "/dev/stderr"
    status = 77
    exit 77
}
/^==ERROR==/ { if (first_error == "") first_error = $0; next }
/^==/ { next }                                 # ncu's other messages: ==PROF==, ==WARNING==
!header && /^"ID",/ {                          # the header: "ID","Process ID",...,"Kernel Name",...,metrics
    n = split_csv($0, head)
    for (i = 1; i <= n; i++) column_of[head[i]] = i
    if (!("Kernel Name" in column_of)) fail("ncu's CSV has no \"Kernel Name\" column")
    for (c = 1; c <= column_count; c++)
        for (p = 1; p <= parts[c]; p++)
            if (!(part[c, p] in column_of))
                fail(sprintf("ncu's output has no column %s: not collected (is the name right for this GPU and ncu? ncu --query-metrics lists them)", part[c, p]))
    for (s = 1; s <= reason_count; s++)
        if (!(stall[s] in column_of))
            fail(sprintf("ncu's output has no column %s: not collected (is the name right for this GPU and ncu? ncu --query-metrics lists them)", stall[s]))
    header = 1
    next
}
header && !units {                             # the units row: an empty ID, then "nsecond", "%", ...
    if (split_csv($0, unit) != n || unit[column_of["ID"]] != "") fail("ncu's CSV has no units row after its header")
    units = 1
    line = "kernel"
    for (c = 1; c <= column_count; c++) line = line "," name[c]
    print line
    next
}
header && units && NF {
    if (split_csv($0, row) != n) fail("a row of ncu's CSV has " split_csv($0, row) " fields, its header " n)
    kernel = short_name(row[column_of["Kernel Name"]])
    line = csv_text(kernel)
    for (c = 1; c <= column_count; c++) line = line "," cell(c)
    print line
    rows++
}
END {
    if (status) exit status
    if (!header) fail(first_error != "" ? "ncu failed: " first_error : "no CSV from ncu (ncu --csv --page raw) in " FILENAME)
    if (!rows) fail("ncu profiled no kernel")
}
