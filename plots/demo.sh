#!/usr/bin/env bash
# make demo: runs every stage in stages.txt (or the stages named as arguments:
# plots/demo.sh 01_cpu 03_shared_atomics) on the same input, the book's 100 MiB
# of random bytes unless DEMO_ARGS says otherwise, and prints one table, side
# by side. A stage that cannot run here is listed as skipped, with its reason;
# the progress lines count its other runs as skipped with it.
set -uo pipefail
cd "$(dirname "$0")/.."

source common/stages.sh
source plots/runs.sh
source plots/csv.sh
source plots/machine.sh # host_cpu: the CPU model, as PoCL names it too

demo_args=${DEMO_ARGS:-}

# The stages named on the command line (to demo a subset), else every stage in stages.txt.
if [ $# -gt 0 ]; then
    demo_stages=("$@")
else
    mapfile -t demo_stages < <(stages | awk '{ print $1 }')
fi
for stage in "${demo_stages[@]}"; do
    [ -n "$(stage_field "$stage" 1)" ] || { echo "demo: $stage is not a stage in stages.txt" >&2; exit 2; }
done

# What to run for a stage, one line per row: the program, '|', its options.
# The program's defaults first, then its runs from stages.txt; an OpenCL stage
# runs its defaults on every device --list shows (a GPU and PoCL's CPU, say),
# its other runs on the device it picks itself.
runs_of() {
    local stage=$1 program devices="" options
    program=$(stage_program "$stage")
    [ "$(stage_field "$stage" 3)" != opencl ] || devices=$(opencl_devices "$program")
    if [ -z "$devices" ]; then
        echo "$program|"
    else
        echo "$devices" | sed "s|^|$program\||"
    fi
    while read -r options; do
        # a run that sets its own input (the photograph) runs only on the default input
        if [ -z "$demo_args" ] || ! sets_input "$options"; then
            echo "$program|$options"
        fi
    done < <(stage_runs "$stage")
}

failures=0 done_runs=0
total_runs=$(for stage in "${demo_stages[@]}"; do runs_of "$stage"; done | wc -l)
table=$(mktemp) err=$(mktemp)
trap 'rm -f "$table" "$err"' EXIT
# The table's rows, tab-separated, for demo-table.awk to line up at the end:
# stage impl input launch kernel_ms total_ms gbps verified device, or a stage and why it gave none.
for stage in "${demo_stages[@]}"; do
    mapfile -t runs < <(runs_of "$stage")
    for ((run = 0; run < ${#runs[@]}; run++)); do
        IFS='|' read -r program options <<<"${runs[run]}"
        done_runs=$((done_runs + 1))
        echo "[$done_runs/$total_runs] $program $options $demo_args" >&2
        skipped=""
        if [ ! -x "$program" ]; then
            skipped="$program was not built (see make's notes above)"
        else
            # shellcheck disable=SC2086 # options are words on purpose
            csv=$("$program" $options $demo_args --csv 2>"$err")
            status=$?
            [ $status -ne 77 ] || skipped=$(head -1 "$err" | sed 's/^[^:]*: //')
        fi
        if [ -n "$skipped" ]; then
            printf "%s\tskipped: %s\n" "$stage" "$skipped" >>"$table"
            # the stage's other runs would say the same: counted as skipped with this one
            rest=$((${#runs[@]} - run - 1))
            if [ $rest -gt 0 ]; then
                echo "[$((done_runs + 1))$([ $rest -eq 1 ] || echo "-$((done_runs + rest))")/$total_runs]" \
                     "skipped with it: $stage's other $([ $rest -eq 1 ] && echo run || echo "$rest runs")" >&2
                done_runs=$((done_runs + rest))
            fi
            break
        fi
        rows=$(echo "$csv" | sed 1d) # a stage with variants prints a row for each
        if [ $status -ne 0 ] || [ -z "$rows" ]; then
            printf "%s\tFAILED (exit %d): %s\n" "$stage" $status "$(head -1 "$err")" >>"$table"
            failures=$((failures + 1))
            continue
        fi
        while read -r row; do
            split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel,total,gbps,verified
            case "${FIELDS[6]}x${FIELDS[7]}" in
            *x0) shape="-" ;;              # a library's or a copy's own launch
            0x*) shape="${FIELDS[7]}t" ;;  # a CPU: its threads
            *) shape="${FIELDS[6]}x${FIELDS[7]}" ;;
            esac
            kernel=${FIELDS[9]} gbps=${FIELDS[11]}
            # a plain copy (06's floor): no launch and no kernel time, so nothing to show
            [ "${FIELDS[7]}" = 0 ] && [ "$kernel" = 0.0000 ] && kernel=- gbps=-
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "${FIELDS[0]}" "${FIELDS[1]}" "${FIELDS[3]##*/}" \
                "$shape" "$kernel" "${FIELDS[10]}" "$gbps" "${FIELDS[12]}" "${FIELDS[2]}" >>"$table"
        done <<<"$rows"
    done
done

echo
book_input="the book's 100 MiB of uniform random bytes"
echo "input: ${demo_args:-$book_input}; median of repeats after a warm-up"
awk -v host_cpu="$host_cpu" -f plots/demo-table.awk "$table"
echo "(launch: blocks x threads on a GPU, CPU threads as Nt; GB/s: input bytes over kernel time)"
[ $failures -eq 0 ]
