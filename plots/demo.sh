#!/usr/bin/env bash
# make demo: runs every stage on the same input (the book's 100 MiB of random
# bytes unless DEMO_ARGS says otherwise) and prints one table, side by side.
# A stage that cannot run here is listed as skipped, with its reason.
set -uo pipefail
cd "$(dirname "$0")/.."

demo_args=${DEMO_ARGS:-}
threads=$(nproc 2>/dev/null || echo 2)

# What to run for each stage: the program, then one line of options per row.
runs_of() {
    case $1 in
    01_cpu) echo "01_cpu/hist_cpu|"
            echo "01_cpu/hist_cpu|--variant sub4"
            echo "01_cpu/hist_cpu|--variant sub4 --threads $threads" ;;
    02_global_atomics) echo "02_global_atomics/hist_gpu_gmem_atomics|" ;;
    03_shared_atomics) echo "03_shared_atomics/hist_gpu_shmem_atomics|"
                       echo "03_shared_atomics/hist_gpu_shmem_atomics|--blocks-per-sm 16" ;;
    04_opencl_port)
        # every OpenCL device found (a GPU and PoCL's CPU, say), then the photograph
        local program=04_opencl_port/hist_opencl devices=""
        [ -x "$program" ] && devices=$("$program" --list 2>/dev/null |
                                       grep -Eo -- '--platform [0-9]+ --device [0-9]+')
        if [ -z "$devices" ]; then
            echo "$program|"
        else
            echo "$devices" | sed "s|^|$program\||"
        fi
        # the image sets the input, so it runs only on the default input
        [ -n "$demo_args" ] || echo "$program|--image data/chelsea.bmp" ;;
    05_privatized) echo "05_privatized/hist_gpu_privatized|" ;;   # every variant, CUB and the floor
    06_streams) echo "06_streams/hist_gpu_streams|" ;;            # every way, and the plain copy
    esac
}

source plots/csv.sh

row_format="%-18s %-20s %-12s %-8s %-28s %10s %13s %9s  %s\n"
failures=0 done_runs=0
total_runs=$(for stage in "$@"; do runs_of "$stage"; done | wc -l)
table=$(mktemp) err=$(mktemp)
trap 'rm -f "$table" "$err"' EXIT
for stage in "$@"; do
    while IFS='|' read -r program options; do
        done_runs=$((done_runs + 1))
        echo "[$done_runs/$total_runs] $program $options $demo_args" >&2
        if [ ! -x "$program" ]; then
            printf "%-18s skipped: %s was not built (see make's notes above)\n" "$stage" "$program" >>"$table"
            break
        fi
        # shellcheck disable=SC2086 # options are words on purpose
        csv=$("$program" $options $demo_args --csv 2>"$err")
        status=$?
        if [ $status -eq 77 ]; then
            printf "%-18s skipped: %s\n" "$stage" "$(head -1 "$err" | sed 's/^[^:]*: //')" >>"$table"
            break # the stage's other rows would say the same
        fi
        rows=$(echo "$csv" | sed 1d) # a stage with variants prints a row for each
        if [ $status -ne 0 ] || [ -z "$rows" ]; then
            printf "%-18s FAILED (exit %d): %s\n" "$stage" $status "$(head -1 "$err")" >>"$table"
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
            printf "$row_format" "${FIELDS[0]}" "${FIELDS[1]}" "${FIELDS[3]##*/}" "$shape" \
                "${FIELDS[2]:0:28}" "$kernel" "${FIELDS[10]}" "$gbps" "${FIELDS[12]}" >>"$table"
        done <<<"$rows"
    done < <(runs_of "$stage")
done

echo
book_input="the book's 100 MiB of uniform random bytes"
echo "input: ${demo_args:-$book_input}; median of repeats after a warm-up"
printf "$row_format" stage impl input launch device "kernel ms" "end-to-end ms" "GB/s" verified
cat "$table"
echo "(launch: blocks x threads on a GPU, CPU threads as Nt; GB/s: input bytes over kernel time)"
[ $failures -eq 0 ]
