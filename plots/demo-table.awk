# demo-table.awk: lines up make demo's table (demo.sh writes its rows, tab-
# separated, and calls this at the end). A row is a run:
#     stage impl input launch kernel_ms total_ms gbps verified device [kind]
# or a stage that gave no row, with its reason:
#     stage why
# Each column is as wide as its widest cell, so no name is cut: a 07 or 08
# variant (auto:per-block-halves/65536, cub-multi-even/u8x4/256) and a device
# keep every character. The device comes last, where a long name only makes
# its own line longer. One name is shortened, keeping what it says: PoCL
# names its CPU device "<driver>-<LLVM's name for the CPU>-<the CPU's model>"
# (pthread-skylake-avx512-AMD EPYC), shown as "AMD EPYC (PoCL)" where the model
# is this machine's CPU (-v host_cpu=..., as /proc/cpuinfo names it).
#
# -v short=1 is make demo-short's table, at most 100 columns to fit a
# projector: the machine (-v gpu, driver, host_cpu, cores) and the input
# (-v input, reps) are named once above it, so its rows drop the device and
# the input; a stage is its number, an OpenCL run's variant says its kind of
# device (the 10th field: CPU or GPU), and a stage's floor shows once.

BEGIN {
    FS = OFS = "\t"
    if (short) {    # numbers are right-aligned
        columns = split("stage\tvariant\tlaunch\tkernel ms\tend-to-end ms\tGB/s\tverified", heading, "\t")
        split("0 0 0 1 1 1 0", numeric, " ")
    } else {
        columns = split("stage\timpl\tinput\tlaunch\tkernel ms\tend-to-end ms\tGB/s\tverified\tdevice", heading, "\t")
        split("0 0 0 0 1 1 1 0 0", numeric, " ")
    }
    for (c = 1; c <= columns; c++) width[c] = length(heading[c])
}

function device_name(name,    model, driver) {
    model = "-" host_cpu
    if (host_cpu == "" || length(name) <= length(model) ||
        substr(name, length(name) - length(model) + 1) != model) return name
    driver = substr(name, 1, length(name) - length(model))
    return driver ~ /^(pthread|cpu|basic|tbb)-/ ? host_cpu " (PoCL)" : name
}

# A stage's number, where its folder has one: the short table's stage column
function stage_number(folder) {
    return folder ~ /^[0-9]+_/ ? substr(folder, 1, index(folder, "_") - 1) : folder
}

# A row of the short table: stage variant launch kernel total gbps verified,
# or nothing for a floor that its stage has shown already
function short_row(    variant) {
    variant = $2
    if (variant ~ /^read-bandwidth(\/|$)/ || ($5 == "-" && $7 == "-")) {
        if ($1 in floor_shown) return ""
        floor_shown[$1] = floors = 1
        sub(/\/.*/, "", variant)    # 08's /u8x4/256: the same bytes, read the same way
        variant = variant " (floor)"
    }
    if (NF >= 10 && $10 != "") variant = variant " (" $10 ")"
    return stage_number($1) FS variant FS $4 FS $5 FS $6 FS $7 FS $8
}

{
    if (NF < 9) {
        if (short) $1 = stage_number($1)
        line[++rows] = $0
        if (length($1) > width[1]) width[1] = length($1)
        next
    }
    $9 = device_name($9)
    # a kernel-only median above the end-to-end one is marked, and the
    # footnote says why (medians of different runs)
    if ($5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9.]+$/ && $5 + 0 > $6 + 0) { $6 = $6 " *"; crossed = 1 }
    if (short && (row = short_row()) == "") next
    line[++rows] = short ? row : $0
    count = split(line[rows], cell, "\t")
    for (c = 1; c <= columns; c++) if (length(cell[c]) > width[c]) width[c] = length(cell[c])
}

# One line: its cells padded to their column's width, two spaces apart; the
# last cell unpadded
function print_row(cell, count,    c, out) {
    out = ""
    for (c = 1; c < count; c++)
        out = out sprintf("%" (numeric[c] ? "" : "-") width[c] "s  ", cell[c])
    print out cell[count]
}

# A stage that gave no row: its name, then why; in the short table, why is
# wrapped at 100 columns under its own start
function print_why(stage, why,    indent, out, word, words, w) {
    if (!short) { printf "%-" width[1] "s  %s\n", stage, why; return }
    indent = sprintf("%-" width[1] "s  ", "")
    out = sprintf("%-" width[1] "s  ", stage)
    words = split(why, word, " ")
    for (w = 1; w <= words; w++) {
        if (w > 1 && length(out) + 1 + length(word[w]) > 100) {
            print out
            out = indent word[w]
        } else {
            out = out (w > 1 ? " " : "") word[w]
        }
    }
    print out
}

END {
    if (short) {
        print "GPU    " (gpu == "" || gpu == "none" ? "none that nvidia-smi sees" : gpu " (driver " driver ")")
        print "CPU    " host_cpu (cores ? " (" cores " cores)" : "")
        print "input  " input "; median of " (reps ? reps (reps == 1 ? " run" : " runs") : "repeats") " after a warm-up"
        print ""
    }
    print_row(heading, columns)
    for (i = 1; i <= rows; i++) {
        count = split(line[i], cell, "\t")
        if (count >= columns) print_row(cell, columns)
        else if (short && cell[2] == last_why) print_why(cell[1], "skipped, as above")
        else print_why(cell[1], last_why = cell[2])
    }
    if (short) {
        print "launch: blocks x threads on a GPU, Nt: N threads on a CPU; GB/s: input bytes over kernel time"
        if (floors)
            print "(floor): the same bytes only read (06: only copied), the 100% of its stage's rows"
        if (crossed)
            print "* kernel above end to end: medians of different runs (PoCL: short runs, a busy CPU)"
    } else if (crossed)
        print "* kernel above end to end: the two are medians of different runs, which varied by more than\n" \
              "  the copies cost (on PoCL: runs under a millisecond, or a busy machine)"
}
