#!/usr/bin/env bash
# make bench: runs every stage in stages.txt that can run on this machine over every input
# (uniform, skewed, constant, text, the sample photograph), then the runs of
# plots/brief.txt (what make demo-short and make lab's chart show), then the
# sweeps, and writes one CSV for this machine, lab/<name>.csv: a lab's results,
# which git ignores and nothing in the README reads. Every GPU row also gets
# the GPU's measured streaming-read time for the same number of bytes
# (plots/read_bandwidth), so that its speed can be shown as a percentage of
# what the memory allows; read_bandwidth's rated-peak rows (the memory's rated
# speed) are kept as they are, for the tables' second percentage.
#
# One file per machine, never another machine's overwritten: the name is the
# host's and the GPU's (pc01-nvidia-geforce-rtx-3060), or the CPU's where there
# is no GPU, unless BENCH_NAME gives one. A file of that name that holds
# another machine's results (its machine_id column: the GPU's UUID, see
# plots/machine.sh) is refused unless BENCH_REPLACE=1. make lab draws a
# folder of such files side by side.
#
# Knobs, from the environment or make's command line:
#   BENCH_NAME   the file's name, without .csv (default: <host>-<GPU or CPU>)
#   BENCH_OUT    the folder it goes in (default lab/). The workbook's own
#                reference results, which RESULTS.md shows, are made with
#                BENCH_OUT=plots/results BENCH_NAME=<GPU> (plots/README.md)
#   BENCH_REPLACE 1: replace a file of that name that holds another machine's
#                results; with BENCH_ONLY, add rows to it (the reference results,
#                re-measured on another machine of the same GPU)
#   BENCH_SIZE   bytes of generated input (default 100M, the book's)
#   BENCH_REPS   timed runs per measurement, after one warm-up (default 10)
#   BENCH_SWEEPS yes or no: 03's blocks per SM (1 to 64), input sizes 1 MiB
#                to 1 GiB for the GPU stages, 05 at 1 GiB on skewed and
#                constant bytes, and 05's bytes per thread on uniform, skewed
#                and constant bytes (coarsening: its
#                grid from SMs / 8 to 64 x SMs), and 07's strategies from 2 to
#                2^20 bins (default: yes where a GPU is; a lab needs no sweep)
#   BENCH_BINS_SIZE  bytes of 32-bit keys in 07's bins sweep (default 1G)
#   BENCH_BINS_REPS  timed runs per measurement in 07's bins sweep (default 5,
#                as in its recorded sweeps, results/sweep-07-many-bins-*.csv;
#                the sweep times kernels only)
#   BENCH_ONLY   an extended regular expression: make only the runs whose line
#                (run-kind|program|options, as the progress lines show them)
#                matches, and the read-only kernel's runs that give them their
#                percentages; their rows replace the rows in the machine's CSV
#                of the same stage, data, bytes and run kind, and every other
#                row stays as recorded (its date column says which run made it).
#                For adding a sweep without re-measuring the rest.
set -uo pipefail
out_dir=$(realpath -m "${BENCH_OUT:-$(dirname "$0")/../lab}") # as given from the caller's folder
cd "$(dirname "$0")/.."

size=${BENCH_SIZE:-100M}
reps=${BENCH_REPS:-10}
image=data/chelsea.bmp

# ------------------------------------------------------------- the machine --
source plots/machine.sh # host_cpu, gpu, driver, cuda, machine, slug, host, machine_id, bench_name
sweeps=${BENCH_SWEEPS:-$([ "$gpu" != none ] && echo yes || echo no)}
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
name=${BENCH_NAME:-$bench_name}
if [[ ! $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
    echo "bench: BENCH_NAME='$name': letters, digits, '.', '_' and '-' only, starting with a letter or digit" >&2
    exit 2
fi
case ${BENCH_REPLACE:-0} in 0 | 1) ;; *) echo "bench: BENCH_REPLACE=${BENCH_REPLACE}: 0 or 1" >&2; exit 2 ;; esac
mkdir -p "$out_dir" || { echo "bench: cannot make the folder $out_dir" >&2; exit 1; }
csv=$out_dir/$name.csv

# recorded_by CSV: the machine_id of the machine whose results CSV holds (its
# first row's); nothing for a file of no such column (an older bench's)
recorded_by() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "machine_id") column = i; next }
             column { print $column; exit }' "$1"
}
# Before anything runs: another machine's file is never written over by accident
if [ -f "$csv" ] && [ "${BENCH_REPLACE:-0}" != 1 ] && [ "$(recorded_by "$csv")" != "$machine_id" ]; then
    echo "bench: $csv holds another machine's results (not this one's GPU or machine-id):" \
         "BENCH_NAME=<another name> writes beside it, BENCH_REPLACE=1 replaces it" >&2
    exit 2
fi

# ------------------------------------------------------------ the run list --
# One line per run: run-kind|program|options. The stages and their runs come
# from stages.txt; read_bandwidth comes first for each input size, so that the
# GPU rows after it can be compared with it.
source common/stages.sh
source plots/runs.sh

# stage_options FOLDER: the options of the stage's runs that keep the caller's
# input, one a line: its defaults (an empty line), then its runs from
# stages.txt, less those that set their own input (the photograph)
stage_options() {
    local options
    echo
    stage_runs "$1" | while read -r options; do
        sets_input "$options" || echo "$options"
    done
}

# stage_plan RUN INPUT FOLDER [DEVICES]: a line for each of the stage's runs
# on INPUT, and each of those once per line of DEVICES (an OpenCL stage's
# --platform/--device options); no DEVICES: once, where the program picks
stage_plan() {
    local run=$1 input=$2 program options device
    program=$(stage_program "$3")
    stage_options "$3" | while read -r options; do
        while read -r device; do
            echo "$run|$program|$input${options:+ $options}${device:+ $device}"
        done <<<"${4:-}"
    done
}

# sm_count: the GPU's SMs, as stage 05 counts them (its grid at one block per
# SM); nothing where it does not run
sm_count() {
    local row
    row=$("$(stage_program 05_privatized)" --variant book-occupancy --blocks-per-sm 1 --size 1 \
        --reps 1 --csv 2>/dev/null | grep -F ',book-occupancy,') || return 0
    split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,...
    echo "${FIELDS[6]}"
}

plan() {
    local folder data input s k sms variant eighths
    local -a folders
    local -A devices gpu_devices # an OpenCL stage's devices: every one, and the GPUs
    mapfile -t folders < <(stages | awk '{ print $1 }')
    for folder in "${folders[@]}"; do
        [ "$(stage_field "$folder" 3)" = opencl ] || continue
        devices[$folder]=$(opencl_devices "$(stage_program "$folder")")
        gpu_devices[$folder]=$(opencl_devices "$(stage_program "$folder")" GPU)
    done

    # main: every stage on every input, OpenCL stages on every device
    for data in uniform skewed constant text image; do
        if [ $data = image ]; then input="--image $image"; else input="--data $data --size $size"; fi
        case $data in uniform | image) echo "main|plots/read_bandwidth/read_bandwidth|$input" ;; esac
        for folder in "${folders[@]}"; do
            # the photograph is counted as it is: no run that sets a key type or channels (08)
            stage_plan main "$input" "$folder" "${devices[$folder]:-}" |
                { [ $data = image ] && grep -v -e '--keys' -e '--channels' || cat; }
        done
    done
    # brief: the runs of plots/brief.txt on uniform bytes, which make lab's chart
    # shows (make demo-short shows them too)
    local brief program options
    brief=$(brief_runs) || exit 2 # brief_runs said which line, and why
    for folder in "${folders[@]}"; do
        brief_plan "$folder" "$brief" | while IFS='|' read -r program options _; do
            echo "brief|$program|--data uniform --size $size${options:+ $options}"
        done
    done
    [ "$sweeps" = yes ] || return 0

    # An experiment on one stage, not on the stage list: 03 with 1 to 64 blocks
    # per SM, how far past the book's 2 the grid should go
    for k in 1 2 4 8 16 32 64; do
        echo "blocks-sweep|$(stage_program 03_shared_atomics)|--size $size --blocks-per-sm $k"
    done
    # The GPU stages on 1 MiB to 1 GiB: every CUDA stage, then OpenCL stages on GPUs only
    for s in 1M 4M 16M 64M 256M 1G; do
        echo "size-sweep|plots/read_bandwidth/read_bandwidth|--size $s"
        for folder in "${folders[@]}"; do
            [ "$(stage_field "$folder" 3)" = cuda ] && stage_plan size-sweep "--size $s" "$folder"
        done
        for folder in "${folders[@]}"; do
            [ -n "${gpu_devices[$folder]:-}" ] && stage_plan size-sweep "--size $s" "$folder" "${gpu_devices[$folder]}"
        done
    done
    # An experiment on one stage, not on the stage list: 05 at 1 GiB on the
    # inputs that collide most
    for data in skewed constant; do
        echo "size-sweep|$(stage_program 05_privatized)|--size 1G --data $data"
    done
    # An experiment on one stage, not on the stage list: 07's strategies from 2
    # to 2^20 bins on 32-bit keys (BENCH_BINS_SIZE bytes), one --sweep per
    # input: each bin count its own read-only floor, then every strategy that
    # holds the bins, auto's choice and CUB, kernel only
    local bins_size=${BENCH_BINS_SIZE:-1G}
    echo "bins-sweep|plots/read_bandwidth/read_bandwidth|--size $bins_size"
    for data in uniform skewed constant; do
        echo "bins-sweep|$(stage_program 07_many_bins)|--size $bins_size --data $data --sweep --reps ${BENCH_BINS_REPS:-5}"
    done
    # An experiment on one stage, not on the stage list: coarsening. 05's grid
    # from SMs / 8 to 64 x SMs blocks, so that each thread counts from many
    # bytes to few (bytes / (blocks x threads), from the row's columns): one
    # byte per load (book-occupancy), and 32 per step of the loop (unrolled),
    # on uniform, skewed and constant bytes
    sms=$(sm_count)
    [ -n "$sms" ] || { echo "bench: no coarsening sweep: 05_privatized does not run here" >&2; return 0; }
    for data in uniform skewed constant; do
        for variant in book-occupancy unrolled; do
            for eighths in 1 2 4 8 16 32 64 128 256 512; do
                ((sms * eighths >= 8)) || continue # a GPU of fewer than 8 SMs starts at 1 block
                echo "coarsening-sweep|$(stage_program 05_privatized)|--size $size --data $data --variant $variant --blocks $((sms * eighths / 8))"
            done
        done
    done
    return 0
}

source plots/csv.sh

# ---------------------------------------------------------------- the runs --
runs=$(plan)
only=${BENCH_ONLY:-}
if [ -n "$only" ]; then
    [ -f "$csv" ] || { echo "bench: BENCH_ONLY needs the CSV it adds to: $csv" >&2; exit 1; }
    # the matching runs, and every read-only run (the yardstick of their %)
    runs=$(while read -r line; do
        [[ $line =~ $only || $line == *'|plots/read_bandwidth/'* ]] && echo "$line"
    done <<<"$runs")
    echo "$runs" | grep -Eq -- "$only" || { echo "bench: BENCH_ONLY matches no run: $only" >&2; exit 1; }
fi
total=$(echo "$runs" | grep -c .)
echo "bench: $total runs on $machine (sweeps: $sweeps); writing $csv" >&2
header=$(01_cpu/hist_cpu --size 0 --reps 1 --csv 2>/dev/null | head -1)
[ -n "$header" ] || { echo "bench: 01_cpu/hist_cpu does not run: build first (make)" >&2; exit 1; }
tmp=$(mktemp) err=$(mktemp)
trap 'rm -f "$tmp" "$err"' EXIT
echo "$header,pct_of_read_bw,run,date,host_cpu,gpu,driver,cuda,host,machine_id" >"$tmp"
machine_columns="$date,$(csv_text "$host_cpu"),$(csv_text "$gpu"),$(csv_text "$driver"),$cuda,$(csv_text "$host"),$(csv_text "$machine_id")"

declare -A read_ms cannot_run
failures=0 n=0
while IFS='|' read -r run program options; do
    n=$((n + 1))
    printf '[%d/%d, %d left] %s %s\n' $n "$total" $((total - n)) "$program" "$options" >&2
    if [ ! -x "$program" ]; then
        cannot_run[$program]="not built"
        continue
    fi
    [ -z "${cannot_run[$program]:-}" ] || continue
    # shellcheck disable=SC2086 # options are words on purpose
    # a run's own --reps (07's bins sweep) comes after, and wins
    output=$("$program" --reps "$reps" $options --csv 2>"$err")
    status=$?
    rows=$(echo "$output" | sed 1d) # a stage with variants prints a row for each
    if [ "$status" -eq 77 ]; then
        cannot_run[$program]=$(head -1 "$err")
        echo "    skipped: ${cannot_run[$program]}" >&2
        continue
    fi
    if [ "$status" -ne 0 ] || [ -z "$rows" ]; then
        echo "    FAILED (exit $status): $(head -1 "$err")" >&2
        failures=$((failures + 1))
        [ -n "$rows" ] || continue # a wrong histogram still gets its row, verified=no
    fi
    while read -r row; do
        split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel_ms,...
        bytes=${FIELDS[4]} kernel_ms=${FIELDS[9]}
        pct=""
        if [[ $program == */read_bandwidth ]]; then
            # the yardsticks get no %: the read is every GPU row's 100%; the
            # rated peak (its second row) is rows.awk's to compare with
            [ "${FIELDS[1]}" = read-bandwidth ] && read_ms[$bytes]=$kernel_ms
        elif [ "${FIELDS[2]}" = "$gpu" ] && [ -n "${read_ms[$bytes]:-}" ] &&
            awk -v k="$kernel_ms" 'BEGIN { exit !(k > 0) }'; then
            pct=$(awk -v r="${read_ms[$bytes]}" -v k="$kernel_ms" 'BEGIN { printf "%.2f", 100 * r / k }')
        fi
        # with BENCH_ONLY, a yardstick run that was not asked for only lends its time
        [ -z "$only" ] || [[ "$run|$program|$options" =~ $only ]] || continue
        echo "$row,$pct,$run,$machine_columns" >>"$tmp"
    done <<<"$rows"
done <<<"$runs"
if [ -n "$only" ]; then
    # the new rows replace the recorded ones of the same stage, data, bytes and run
    # (a file recorded before the host and machine_id columns gets them, empty)
    recorded=$(head -1 "$csv") new=$(head -1 "$tmp")
    case $new in
    "$recorded") pad="" ;;
    "$recorded,host,machine_id") pad=",," ;;
    *) echo "bench: BENCH_ONLY: $csv has other columns than this bench writes: run make bench in full" >&2; exit 1 ;;
    esac
    awk -F, -v pad="$pad" 'NR == FNR { if (FNR > 1) fresh[$1 FS $4 FS $5 FS $15] = 1; next }
             FNR == 1 { print header; next }
             !(($1 FS $4 FS $5 FS $15) in fresh) { print $0 pad }' header="$new" "$tmp" "$csv" >"$err"
    sed 1d "$tmp" >>"$err"
    chmod a+r "$err" && mv "$err" "$csv" # mktemp's file is private: others of the lab read it
    echo "bench: BENCH_ONLY: $(($(wc -l <"$tmp") - 1)) rows replaced or added in $csv; the others as recorded" >&2
    [ $failures -eq 0 ] || { echo "bench: $failures runs FAILED (see above)" >&2; exit 1; }
    exit 0
fi
chmod a+r "$tmp" && mv "$tmp" "$csv" # mktemp's file is private: others of the lab read it

# keep FILE: moves $tmp to FILE, readable by all; a folder another user owns
# (a lab's shared one) may refuse it, which is said and is no failure: the
# machine's CSV, the one that counts, is written
keep() {
    if mkdir -p "${1%/*}" 2>/dev/null && chmod a+r "$tmp" && mv "$tmp" "$1" 2>/dev/null; then
        return 0
    fi
    echo "bench: cannot write $1 (another user's file or folder?): left out" >&2
    return 1
}

# What an atomic costs on this GPU (plots/atomic_cost), once, in a CSV of its
# own columns: in results/atomic_cost/, since every results/*.csv is a machine's
atomic_cost=plots/atomic_cost/atomic_cost atomic_csv=$out_dir/atomic_cost/$name.csv
echo "bench: $atomic_cost --reps $reps" >&2
if [ ! -x $atomic_cost ]; then
    cannot_run[$atomic_cost]="not built"
else
    $atomic_cost --reps "$reps" --csv >"$tmp" 2>"$err"
    case $? in
    0) keep "$atomic_csv" && echo "bench: $(($(wc -l <"$atomic_csv") - 1)) rows in $atomic_csv" >&2 ;;
    77) cannot_run[$atomic_cost]=$(head -1 "$err") ;;
    *) echo "    FAILED: $(head -1 "$err")" >&2 && failures=$((failures + 1)) ;;
    esac
fi

# The histograms themselves, for the figures: the book's phrase (ten copies,
# one bar per character) and the photograph's brightness.
01_cpu/hist_cpu --data text --size 230 --reps 1 --print-bins 2>/dev/null |
    awk -F': ' '/^[0-9]+: [0-9]+$/ && $2 > 0 { printf "%d\t%s\n", $1, $2 }' >"$tmp" && keep "$out_dir/bins-text.dat"
01_cpu/hist_cpu --image "$image" --reps 1 --print-bins 2>/dev/null |
    awk -F': ' '/^[0-9]+: [0-9]+$/ { printf "%d\t%s\n", $1, $2 }' >"$tmp" && keep "$out_dir/bins-chelsea.dat"

rows=$(($(wc -l <"$csv") - 1))
echo "bench: $rows rows in $csv" >&2
for program in "${!cannot_run[@]}"; do
    echo "bench: not run: $program: ${cannot_run[$program]}" >&2
done
if [ $failures -ne 0 ]; then
    echo "bench: $failures runs FAILED (see above)" >&2
    exit 1
fi
