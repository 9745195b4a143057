#!/usr/bin/env bash
# make profile: runs Nsight Compute (ncu) over every GPU stage of stages.txt
# (runs-on cuda), each of its variants and runs, on uniform, skewed and
# constant bytes, and profiles one launch of each histogram kernel per run:
# the first timed one, after the warm-up. It writes a few metrics per profiled
# kernel into plots/results/profile-<machine>.csv (plots/README.md, "Profiling
# with Nsight Compute", says what each column is and why).
#
#   plots/profile.sh                 profile every stage (make profile)
#   plots/profile.sh --parse FILE    the rows of one ncu --csv --page raw output
#   plots/profile.sh --metrics       the metrics it collects, one a line
#
# Knobs, from the environment or make's command line:
#   PROFILE_SIZE   bytes of generated input (default 100M, the book's)
#   PROFILE_DATA   the inputs (default "uniform skewed constant")
#   PROFILE_OUT    where the CSV goes (default plots/results)
#   PROFILE_RUNS   a file of runs to profile instead of every stage's, one
#                  "folder|options" a line (# comments); their CSV is
#                  profile-<machine>-<NAME>.csv for a file profile-NAME.runs, so that
#                  the whole profile stays as recorded (plots/profile-07-many-bins.runs)
#   NCU            the ncu to run (default: the first of PATH, $CUDA_HOME/bin,
#                  /usr/local/cuda/bin, the newest /opt/nvidia/nsight-compute/*/)
# A run that the stage refuses as bad usage (exit 2: 07's strategies that do
# not hold its bins) is skipped, its reason shown.
# Exit: 0 written, 1 a run failed, 2 bad usage, 77 cannot run here (no ncu, no
# GPU, or ncu may not read the GPU's performance counters).
set -uo pipefail
# paths as given from the caller's folder; then work from the top
out_dir=$(realpath -m "${PROFILE_OUT:-$(dirname "$0")/results}")
[ "${1:-}" != --parse ] || [ $# -ne 2 ] || set -- --parse "$(realpath -m "$2")"
cd "$(dirname "$0")/.."

# ------------------------------------------------------------- the metrics --
# The one list: each CSV column after the kernel's name, and the ncu metric
# it comes from (or the metrics it adds up), as Nsight Compute 2025 names them
# on Hopper (GH100: H100, H200). Checked against ncu --query-metrics before
# the first run.
columns=(
    grid=launch__grid_size
    block=launch__block_size
    duration_ms=gpu__time_duration.sum
    dram_pct_of_peak=dram__throughput.avg.pct_of_peak_sustained_elapsed
    shared_atom_bank_conflicts=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
    shared_atom_wavefronts=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
    achieved_occupancy_pct=sm__warps_active.avg.pct_of_peak_sustained_active
    top_stall # the stall reason below with the most warps per issue, and that number
    top_stall_ratio
    l2_atom_red_per_s=lts__t_requests_op_atom.sum.per_second+lts__t_requests_op_red.sum.per_second
    shared_atom_inst_per_s=smsp__inst_executed_op_shared_atom.sum.per_second
    global_ld_requests=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    global_ld_sectors=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    global_ld_l1_hit_pct=l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct
)
# For each reason, the cycles a warp spends stalled for it, on average, per
# instruction it issues. ("selected", the warp that issued, is 1 per issue by
# definition: not a stall.)
stall_metric=smsp__average_warps_issue_stalled_%s_per_issue_active.ratio
stall_reasons=(long_scoreboard short_scoreboard mio_throttle lg_throttle membar barrier wait
    math_pipe_throttle drain no_instruction not_selected dispatch_stall tex_throttle
    branch_resolving imc_miss misc sleeping)

# The kernels profiled in each run: the stages' histo_* kernels and CUB's
# DeviceHistogram*Kernel (05's cub and every 06 row), not the read-only
# yardstick. Each one's launch number WARMUP_RUNS + 1 (common/harness.h) is
# the first timed kernel-only run, the one the stage's "kernel ms" measures.
kernel_regex='histo|Histogram|gh_kernel|SegmentedReduce|ReduceByKey'
warmup_runs=$(awk '$1 == "#define" && $2 == "WARMUP_RUNS" { print $3 }' common/harness.h)
[[ $warmup_runs =~ ^[0-9]+$ ]] || { echo "profile: no '#define WARMUP_RUNS N' in common/harness.h" >&2; exit 1; }

metric_names() { # every metric to collect, one a line
    local column reason
    for column in "${columns[@]}"; do
        [[ $column == *=* ]] && echo "${column#*=}" | tr '+' '\n'
    done
    for reason in "${stall_reasons[@]}"; do
        # shellcheck disable=SC2059 # the format is ours, from the list above
        printf "$stall_metric\n" "$reason"
    done
}

parse() { # parse FILE: the rows of one run's ncu output (header first); exit 1 or 77 as profile.awk says
    local IFS=';' # the lists go to awk joined by ';'
    LC_ALL=C awk -v columns="${columns[*]}" -v stall_metric="$stall_metric" \
        -v stall_reasons="${stall_reasons[*]}" -f plots/profile.awk "$1"
}

case "${1:-}" in
--parse)
    [ $# -eq 2 ] && [ -r "$2" ] || { echo "usage: plots/profile.sh --parse NCU_OUTPUT_FILE" >&2; exit 2; }
    parse "$2"
    exit
    ;;
--metrics) metric_names; exit 0 ;;
"") ;;
*) echo "usage: plots/profile.sh [--parse NCU_OUTPUT_FILE | --metrics] (knobs: see its header)" >&2; exit 2 ;;
esac

# -------------------------------------------------------------- the knobs --
size=${PROFILE_SIZE:-100M}
read -r -a inputs <<<"${PROFILE_DATA:-uniform skewed constant}"
[ ${#inputs[@]} -gt 0 ] || { echo "profile: PROFILE_DATA is empty (uniform, skewed, constant, text)" >&2; exit 2; }
for data in "${inputs[@]}"; do
    case $data in
    uniform | skewed | constant | text) ;;
    *) echo "profile: PROFILE_DATA: '$data' is not one of uniform, skewed, constant, text" >&2; exit 2 ;;
    esac
done
[[ $size =~ ^[0-9]+[KMG]?$ ]] || { echo "profile: PROFILE_SIZE: '$size' is not a size (100M, 64K, 1G, 1000)" >&2; exit 2; }
runs_file=${PROFILE_RUNS:-}
if [ -n "$runs_file" ]; then
    [ -f "$runs_file" ] && [ -r "$runs_file" ] || { echo "profile: PROFILE_RUNS: no such file: $runs_file" >&2; exit 2; }
    runs_file=$(realpath "$runs_file")
fi

# ------------------------------------------------------ can it run here? --
find_ncu() {
    local candidate
    if [ -n "${NCU:-}" ]; then
        [ -x "$NCU" ] && echo "$NCU"
        return
    fi
    for candidate in "$(command -v ncu)" "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu \
        $(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | sort -V -r | sed 's|$|ncu|'); do
        [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
}
ncu=$(find_ncu)
if [ -z "$ncu" ]; then
    echo "profile: cannot run here: no ncu (Nsight Compute, part of the CUDA toolkit) on PATH," \
         "in /usr/local/cuda/bin or in /opt/nvidia/nsight-compute/*/${NCU:+ (NCU=$NCU is not a program)}" >&2
    exit 77
fi

source plots/machine.sh # gpu, driver, slug
source common/stages.sh
source plots/runs.sh
source plots/csv.sh

if [ -n "$runs_file" ]; then # only the stages it names
    mapfile -t folders < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$runs_file" | cut -d'|' -f1 | sort -u)
else
    mapfile -t folders < <(stages | awk '$3 == "cuda" { print $1 }')
fi
[ ${#folders[@]} -gt 0 ] || { echo "profile: stages.txt lists no CUDA stage" >&2; exit 1; }
for folder in "${folders[@]}"; do
    program=$(stage_program "$folder")
    [ -x "$program" ] || { echo "profile: $program is not built: build first (make)" >&2; exit 1; }
done
err=$(mktemp)
tmp_dir=$(mktemp -d)
trap 'rm -rf "$err" "$tmp_dir"' EXIT
# A GPU, as the stages see it: the first one says "cannot run here" (exit 77) without.
"$(stage_program "${folders[0]}")" --size 1K --reps 1 >/dev/null 2>"$err"
status=$?
if [ $status -eq 77 ]; then
    echo "profile: cannot run here: $(head -1 "$err" | sed 's/.*cannot run here: //')" >&2
    exit 77
elif [ $status -ne 0 ]; then
    echo "profile: $(stage_program "${folders[0]}") --size 1K failed (exit $status): $(head -1 "$err")" >&2
    exit 1
fi

# Every metric's name, checked against what this ncu knows for this GPU, so
# that a name changed in a new ncu stops here, by name, not as an empty
# column. launch__* and gpu__time_duration are attributes of the launch,
# which --query-metrics need not list; the parser checks every column again.
"$ncu" --query-metrics >"$tmp_dir/known" 2>"$err"
if [ $? -ne 0 ] || ! grep -q '__' "$tmp_dir/known"; then
    echo "profile: ncu --query-metrics failed: $(grep -m1 . "$err" "$tmp_dir/known" | cut -d: -f2-)" >&2
    exit 1
fi
while read -r metric; do
    case $metric in launch__* | gpu__time_duration.*) continue ;; esac
    base=${metric%%.*}
    grep -q "^[[:space:]]*$base\([[:space:]]\|$\)" "$tmp_dir/known" ||
        { echo "profile: this ncu does not know the metric $base on this GPU (ncu --query-metrics); see the list at the top of plots/profile.sh" >&2; exit 1; }
done < <(metric_names)
metrics=$(metric_names | paste -sd, -)

# ------------------------------------------------------------ the run list --
# One line per run: folder|options. Each stage's defaults and its runs from
# stages.txt (less those that set their own input), each once per variant
# that its --help lists ("all" aside), on every input.
variants_of() { # the names after "--variant NAME" in PROGRAM --help, one a line
    "$1" --help 2>/dev/null | awk '
        /^  --/ { listing = ($1 == "--variant") }
        listing { print }' |
        sed 's/^ *--variant NAME//; s/(or --impl NAME)//; s/(default)//' | tr ', ' '\n\n' |
        grep -v -e '^$' -e '^all$'
}
plan() {
    local data folder options variant
    local -a variants
    for data in "${inputs[@]}"; do
        for folder in "${folders[@]}"; do
            mapfile -t variants < <(variants_of "$(stage_program "$folder")")
            [ ${#variants[@]} -gt 0 ] || variants=("")
            { echo; stage_runs "$folder"; } | while read -r options; do
                sets_input "$options" && continue
                for variant in "${variants[@]}"; do
                    echo "$folder|--data $data --size $size${options:+ $options}${variant:+ --variant $variant}"
                done
            done
        done
    done
}

# ---------------------------------------------------------------- the runs --
if [ -n "$runs_file" ]; then
    runs=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$runs_file")
    while IFS='|' read -r folder options; do
        [ -x "$(stage_program "$folder" 2>/dev/null)" ] && [ -n "$options" ] ||
            { echo "profile: PROFILE_RUNS: '$folder|$options' is not 'built-stage-folder|options'" >&2; exit 2; }
    done <<<"$runs"
    name=$(basename "$runs_file" .runs)
    csv=$out_dir/profile-$slug-${name#profile-}.csv
else
    runs=$(plan)
    csv=$out_dir/profile-$slug.csv
fi
total=$(echo "$runs" | grep -c .)
echo "profile: $total runs on $machine with $ncu; writing $csv" >&2
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
machine_columns="$(csv_text "$gpu"),$(csv_text "$driver"),$date"
rows_file=$tmp_dir/rows
failures=0 n=0
while IFS='|' read -r folder options; do
    n=$((n + 1))
    program=$(stage_program "$folder")
    printf '[%d/%d, %d left] %s %s\n' $n "$total" $((total - n)) "$program" "$options" >&2
    log=$tmp_dir/ncu-$n.txt
    # shellcheck disable=SC2086 # options are words on purpose
    # ncu's defaults, said out loud: clocks locked to base, caches flushed before each pass
    output=$("$ncu" --clock-control base --cache-control all \
        --csv --page raw --print-units base --print-kernel-base function \
        --kernel-id "::regex:$kernel_regex:$((warmup_runs + 1))" --metrics "$metrics" \
        --log-file "$log" "$program" $options --reps 1 --csv 2>"$err")
    status=$?
    rows=$(parse "$log" 2>"$tmp_dir/parse-error")
    parsed=$?
    if [ $parsed -ne 77 ] && grep -q ERR_NVGPUCTRPERM "$err"; then # said on stderr, not in the log
        parse "$err" >/dev/null 2>"$tmp_dir/parse-error"
        parsed=77
    fi
    if [ $parsed -eq 77 ]; then # counters not readable: profile.awk's one line
        head -1 "$tmp_dir/parse-error" >&2
        exit 77
    fi
    # The stage's own CSV row (its last: 05 and 06 print their floor first):
    # stage,impl,device,data,bytes,...,verified
    split_csv "$(echo "$output" | tail -1)"
    why=""
    if [ $status -ne 0 ]; then # the stage's own reason, else ncu's
        why=$({ grep -h -m1 . "$err"; grep -h -m1 '==ERROR==' "$log"; } 2>/dev/null | head -1)
    elif [ $parsed -ne 0 ]; then
        why=$(head -1 "$tmp_dir/parse-error")
    elif [ "${FIELDS[12]:-}" != yes ]; then
        why="the histogram is wrong: ${FIELDS[*]}"
    fi
    if [ $status -eq 2 ]; then # the stage refuses these options (07: bins a strategy does not hold)
        echo "    skipped: $(grep -h -m1 . "$err")" >&2
        continue
    fi
    if [ -n "$why" ] || [ $status -ne 0 ]; then
        echo "    FAILED (exit $status): ${why:-no output}" >&2
        failures=$((failures + 1))
        continue
    fi
    [ -s "$rows_file" ] || echo "stage,impl,data,bytes,$(echo "$rows" | head -1),gpu,driver,date" >"$rows_file"
    echo "$rows" | sed 1d | while read -r row; do
        echo "$folder,$(csv_text "${FIELDS[1]}"),${FIELDS[3]},${FIELDS[4]},$row,$machine_columns"
    done >>"$rows_file"
    echo "    $(echo "$rows" | sed 1d | cut -d, -f1 | paste -sd' ' -)" >&2
done <<<"$runs"

if [ -s "$rows_file" ]; then
    mkdir -p "$out_dir"
    mv "$rows_file" "$csv"
    echo "profile: $(($(wc -l <"$csv") - 1)) kernels profiled in $csv" >&2
fi
if [ $failures -ne 0 ]; then
    echo "profile: $failures runs FAILED (see above)" >&2
    exit 1
fi
