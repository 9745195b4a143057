# demo-table.awk: lines up make demo's table (demo.sh writes its rows, tab-
# separated, and calls this at the end). A row is a run:
#     stage impl input launch kernel_ms total_ms gbps verified device
# or a stage that gave no row, with its reason:
#     stage why
# Each column is as wide as its widest cell, so no name is cut: a 07 variant
# (auto:per-block/u32/65536) and a device keep every character. The device
# comes last, where a long name only makes its own line longer. One name is
# shortened, keeping what it says: PoCL names its CPU device
# "<driver>-<LLVM's name for the CPU>-<the CPU's model>"
# (pthread-skylake-avx512-AMD EPYC), shown as "AMD EPYC (PoCL)" where the model
# is this machine's CPU (-v host_cpu=..., as /proc/cpuinfo names it).

BEGIN {
    FS = OFS = "\t"
    columns = split("stage\timpl\tinput\tlaunch\tkernel ms\tend-to-end ms\tGB/s\tverified\tdevice", heading, "\t")
    split("0 0 0 0 1 1 1 0 0", numeric, " ")    # numbers are right-aligned
    for (c = 1; c <= columns; c++) width[c] = length(heading[c])
}

function device_name(name,    model, driver) {
    model = "-" host_cpu
    if (host_cpu == "" || length(name) <= length(model) ||
        substr(name, length(name) - length(model) + 1) != model) return name
    driver = substr(name, 1, length(name) - length(model))
    return driver ~ /^(pthread|cpu|basic|tbb)-/ ? host_cpu " (PoCL)" : name
}

{
    line[NR] = $0
    if (NF < columns) { if (length($1) > width[1]) width[1] = length($1); next }
    $columns = device_name($columns)
    # a kernel-only median above the end-to-end one is marked, and the
    # footnote says why (medians of different runs)
    if ($5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9.]+$/ && $5 + 0 > $6 + 0) { $6 = $6 " *"; crossed = 1 }
    line[NR] = $0
    for (c = 1; c <= columns; c++) if (length($c) > width[c]) width[c] = length($c)
}

# One line: its cells padded to their column's width, two spaces apart; the
# last cell unpadded
function print_row(cell, count,    c, out) {
    out = ""
    for (c = 1; c < count; c++)
        out = out sprintf("%" (numeric[c] ? "" : "-") width[c] "s  ", cell[c])
    print out cell[count]
}

END {
    print_row(heading, columns)
    for (i = 1; i <= NR; i++) {
        count = split(line[i], cell, "\t")
        if (count < columns) {                  # a stage that gave no row: its name, then why
            printf "%-" width[1] "s  %s\n", cell[1], cell[2]
            continue
        }
        print_row(cell, columns)
    }
    if (crossed)
        print "* kernel above end to end: the two are medians of different runs, which varied by more than\n" \
              "  the copies cost (on PoCL: runs under a millisecond, or a busy machine)"
}
