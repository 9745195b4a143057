#!/usr/bin/env bash
# make demo: runs every stage in stages.txt (or the stages named as arguments:
# plots/demo.sh 01_cpu 03_shared_atomics) on the same input, the book's 100 MiB
# of random bytes unless DEMO_ARGS says otherwise, and prints one table, side
# by side. A stage that cannot run here is listed as skipped, with its reason;
# the progress lines count its other runs as skipped with it.
#
# make demo-short (plots/demo.sh --short [stage...]): the runs of plots/brief.txt
# alone (or of $BRIEF), each stage's in stages.txt's order, with a few repeats,
# in a table of at most 100 columns that names the machine and the input once
# above it: a demo that fits a lecture and a projector.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

short=""
if [ "${1:-}" = --short ]; then
    short=1
    shift
fi
# The short demo's repeats, 5 after the warm-up instead of the programs' 10: it
# must fit a minute of a lecture, and PoCL's CPU rows (a third of a second a
# repeat) cost most of it; a median of 5 is still one that no single slow run
# decides. A brief line's own --reps, or DEMO_ARGS's, wins.
short_reps=5

source common/stages.sh
source plots/runs.sh
source plots/csv.sh
source plots/machine.sh # host_cpu: the CPU model, as PoCL names it too

demo_args=${DEMO_ARGS:-}

# Other programs that hold the cores make every time slower and noisier
# (chapter 01's Try it box): say so in one line before the runs. The 1-minute
# load average counts make's build just before too, so it must also be seen
# now: the tasks ready to run in five looks over a second (less this shell),
# each at least one per core. DEMO_LOAD_WARNING=no leaves the line out: the
# plots tests set it, since they compare the demo's stderr line by line and a
# busy machine (make test's other suites) must not change what they read.
busy_machine() {
    local load running others fewest="" cores look
    [ "${DEMO_LOAD_WARNING:-}" != no ] || return 0
    cores=$(nproc 2>/dev/null) || return 0
    read -r load _ 2>/dev/null </proc/loadavg || return 0 # no /proc: not Linux, say nothing
    awk -v l="$load" -v c="$cores" 'BEGIN { exit !(l > c) }' || return 0
    for look in 1 2 3 4 5; do
        [ "$look" = 1 ] || sleep 0.2
        read -r _ _ _ running _ 2>/dev/null </proc/loadavg || return 0
        others=$((${running%%/*} - 1))
        [ -n "$fewest" ] && [ "$fewest" -le "$others" ] || fewest=$others
    done
    [ "$fewest" -ge "$cores" ] || return 0
    echo "demo: load average $load on $cores cores: other programs are using the cores," \
        "so these times may be slow and unreliable (chapter 01, Try it without a GPU)" >&2
}
busy_machine

# The stages named on the command line (to demo a subset), else every stage in stages.txt.
if [ $# -gt 0 ]; then
    demo_stages=("$@")
else
    mapfile -t demo_stages < <(stages | awk '{ print $1 }')
fi
for stage in "${demo_stages[@]}"; do
    [ -n "$(stage_field "$stage" 1)" ] || { echo "demo: $stage is not a stage in stages.txt" >&2; exit 2; }
done
if [ -n "$short" ]; then
    brief_file=${BRIEF:-plots/brief.txt}
    brief=$(brief_runs "$brief_file") || exit 2 # brief_runs said which line, and why
fi

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

runs_of_demo() {
    if [ -n "$short" ]; then brief_plan "$1" "$brief"; else runs_of "$1"; fi
}

failures=0 done_runs=0
total_runs=$(for stage in "${demo_stages[@]}"; do runs_of_demo "$stage"; done | wc -l)
reps_option=()
[ -z "$short" ] || reps_option=(--reps "$short_reps") # before the run's options: theirs win
reps_seen="" skipped_runs=0
table=$(mktemp) err=$(mktemp)
trap 'rm -f "$table" "$err"' EXIT
# The table's rows, tab-separated, for demo-table.awk to line up at the end:
# stage impl input launch kernel_ms total_ms gbps verified device, or a stage and why it gave none;
# the short demo adds the kind of device of an OpenCL run.
for stage in "${demo_stages[@]}"; do
    mapfile -t runs < <(runs_of_demo "$stage")
    [ ${#runs[@]} -gt 0 ] || printf "%s\tno run: %s has no line for it\n" "$stage" "$brief_file" >>"$table"
    for ((run = 0; run < ${#runs[@]}; run++)); do
        IFS='|' read -r program options kind <<<"${runs[run]}"
        done_runs=$((done_runs + 1))
        echo "[$done_runs/$total_runs] $program ${reps_option[*]:+${reps_option[*]} }$options $demo_args" >&2
        skipped=""
        if [ ! -x "$program" ]; then
            skipped="$program was not built (see make's notes above)"
        else
            # shellcheck disable=SC2086 # options are words on purpose
            csv=$("$program" "${reps_option[@]}" $options $demo_args --csv 2>"$err")
            status=$?
            [ $status -ne 77 ] || skipped=$(head -1 "$err" | sed 's/^[^:]*: //')
        fi
        if [ -n "$skipped" ]; then
            printf "%s\tskipped: %s\n" "$stage" "$skipped" >>"$table"
            # the stage's other runs would say the same: counted as skipped with this one
            rest=$((${#runs[@]} - run - 1))
            skipped_runs=$((skipped_runs + rest + 1))
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
        kind_cell="" # the short table's 10th cell: an OpenCL run's kind of device
        [ -z "$short" ] || kind_cell=$'\t'$kind
        while read -r row; do
            split_csv "$row" # stage,impl,device,data,bytes,seed,blocks,threads,reps,kernel,total,gbps,verified
            case "${FIELDS[6]}x${FIELDS[7]}" in
            *x0) shape="-" ;;              # a library's or a copy's own launch
            0x*) shape="${FIELDS[7]}t" ;;  # a CPU: its threads
            *) shape="${FIELDS[6]}x${FIELDS[7]}" ;;
            esac
            # the short table keeps 06's chunks, the one thing its streams row changes
            if [ -n "$short" ] && [ "${FIELDS[7]}" = 0 ] && [ "${FIELDS[6]}" -gt 0 ]; then
                shape="${FIELDS[6]} chunk$([ "${FIELDS[6]}" = 1 ] || echo s)"
            fi
            kernel=${FIELDS[9]} gbps=${FIELDS[11]}
            # a plain copy (06's floor): no launch and no kernel time, so nothing to show
            [ "${FIELDS[7]}" = 0 ] && [ "$kernel" = 0.0000 ] && kernel=- gbps=-
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n" "${FIELDS[0]}" "${FIELDS[1]}" "${FIELDS[3]##*/}" \
                "$shape" "$kernel" "${FIELDS[10]}" "$gbps" "${FIELDS[12]}" "${FIELDS[2]}" \
                "$kind_cell" >>"$table"
            [[ " $reps_seen " == *" ${FIELDS[8]} "* ]] || reps_seen="$reps_seen ${FIELDS[8]}"
        done <<<"$rows"
    done
done

echo
book_input="the book's 100 MiB of uniform random bytes"
if [ -n "$short" ]; then
    reps_seen=${reps_seen# }
    [[ $reps_seen != *" "* ]] || reps_seen="" # runs that differ: "median of repeats"
    awk -v short=1 -v host_cpu="$host_cpu" -v cores="$(nproc 2>/dev/null)" -v gpu="$gpu" \
        -v driver="$driver" -v input="${demo_args:-$book_input}" -v reps="$reps_seen" \
        -f plots/demo-table.awk "$table"
    echo "demo-short: $total_runs runs$([ $skipped_runs -eq 0 ] || echo " ($skipped_runs skipped here)")" \
         "in $((SECONDS - started)) s"
else
    echo "input: ${demo_args:-$book_input}; median of repeats after a warm-up"
    awk -v host_cpu="$host_cpu" -f plots/demo-table.awk "$table"
    echo "(launch: blocks x threads on a GPU, CPU threads as Nt; GB/s: input bytes over kernel time)"
fi
[ $failures -eq 0 ]
