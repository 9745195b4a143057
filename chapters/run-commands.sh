#!/usr/bin/env bash
# make chapters: runs every command the chapters show, exactly as written, and
# checks every recorded output they show that was recorded on this machine.
#
#   chapters/run-commands.sh [chapters/NN_name.md ...]    (default: every chapter)
#
# Commands are the lines of the ```sh blocks, less a trailing "# comment".
# A line that starts with ./ runs in the chapter's stage folder (the chapter
# 03_shared_atomics.md shows the programs of 03_shared_atomics/); any other
# line runs from the repository root. A command passes when it exits 0, or
# when it says "cannot run here" on a machine without the device it needs
# (exit 77 from a stage, or make's exit 2 around its "Error 77"): the chapters say that
# this is what such a machine prints.
#
# Recorded outputs are the files under <!-- output: FILE --> markers. Where
# FILE was recorded on this machine (plots/results/output-STAGE-SLUG*.txt, SLUG
# as plots/machine.sh names this machine), each "$ command" in it is run again
# in STAGE's folder, and the new output must match the recorded one line for
# line once every decimal number is masked: timings change from run to run;
# sums, sizes, launches, devices and verdicts must not (masked() has the one
# other exception).
#
# Each command's whole output goes to CHAPTER_LOGS (default: a temporary
# folder), its last lines to the screen; the last line adds them up:
#   chapters: N commands passed (N of them cannot run here), N failed; outputs: N match, N differ
# CHAPTER_TIMEOUT: seconds allowed per command (default 1800).
# CHAPTER_RECORD=yes records those outputs anew instead of comparing them (then
# run plots/sync-docs.sh to copy them into the Markdown): for a machine whose
# outputs changed for a reason, such as more memory or a new driver.
set -uo pipefail
cd "$(dirname "$0")/.."
source plots/machine.sh # machine, slug

timeout_s=${CHAPTER_TIMEOUT:-1800}
logs=${CHAPTER_LOGS:-$(mktemp -d)}
mkdir -p "$logs"
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || mapfile -t chapters < <(ls chapters/[0-9][0-9]_*.md)

passed=0 cannot_run=0 failed=0 matched=0 differed=0 n=0
failures=()

# The commands of one chapter, one per line: every line inside a ```sh block.
commands_of() {
    awk '/^```/ { if (in_block) { in_block = 0 } else { in_block = ($0 == "```sh") }; next }
         in_block' "$1" | sed 's/[[:space:]]\{1,\}#.*$//; s/[[:space:]]*$//' | grep -v '^$'
}

# Runs one command line with bash in folder $2; its output goes to log file $3.
run_in() {
    (cd "$2" && timeout "$timeout_s" bash -c "$1") >"$3" 2>&1
}

# Masks what changes from run to run: decimal numbers, and the spacing around
# them; and the buffer limit of an OpenCL CPU device, which PoCL derives from the
# host's memory (two hosts of the same GPU kind had 1024 and 2048 MiB).
masked() {
    sed -E 's/[0-9]+\.[0-9]+/#/g; s/(CPU, .*buffers up to )[0-9]+ MiB/\1# MiB/
            s/[[:space:]]+/ /g; s/ $//'
}

echo "chapters: on $machine ($slug); logs in $logs"
for chapter in "${chapters[@]}"; do
    name=$(basename "$chapter" .md)
    stage=${name%%-*} # an -evidence or -side-paths page runs in its chapter's stage folder
    [ -d "$stage" ] || stage=. # 00_introduction has no stage folder
    echo "== $chapter"
    while IFS= read -r command; do
        n=$((n + 1))
        dir=.
        case $command in ./*) dir=$stage ;; esac
        log=$logs/$(printf '%03d' $n)-$name.txt
        start=$SECONDS
        run_in "$command" "$dir" "$log"
        status=$?
        verdict=passed
        if [ $status -ne 0 ]; then
            # 77 from the program itself, or make's 2 around a program's 77 ("Error 77")
            if grep -q 'cannot run here' "$log" &&
                { [ $status -eq 77 ] || { [ $status -eq 2 ] && grep -q '\] Error 77$' "$log"; }; }; then
                verdict="passed (cannot run here)"
                cannot_run=$((cannot_run + 1))
            else
                verdict="FAILED (exit $status)"
            fi
        fi
        printf -- '-- [%s] $ %s   -> exit %d, %ds, %s\n' "$dir" "$command" $status $((SECONDS - start)) "$verdict"
        tail -4 "$log" | sed 's/^/   | /'
        if [ "${verdict:0:6}" = FAILED ]; then
            failed=$((failed + 1))
            failures+=("$chapter: $command")
        else
            passed=$((passed + 1))
        fi
    done < <(commands_of "$chapter")

    # the recorded outputs this chapter shows that were recorded on this machine
    for file in $(sed -n 's/^<!-- output: \(.*\) -->$/\1/p' "$chapter"); do
        case $(basename "$file") in
        output-*-"$slug".txt | output-*-"$slug"-*.txt) ;;
        output-*) echo "-- $file: recorded on another machine, not compared here"; continue ;;
        *) echo "-- $file: not a recorded command (a table of make demo), not compared"; continue ;;
        esac
        # the file holds "$ command" lines, each followed by that command's output,
        # recorded in the stage folder its name gives (output-STAGE-...)
        file_stage=$(basename "$file")
        file_stage=${file_stage#output-}
        file_stage=${file_stage%%-*}
        [ -d "$file_stage" ] || file_stage=$stage
        recorded=$(mktemp -d) new_record=$(mktemp)
        awk -v dir="$recorded" '/^\$ / { k++; print substr($0, 3) > (dir "/command" k); next }
                                { print > (dir "/output" k) }' "$file"
        commands=$(grep -c '^\$ ' "$file")
        for ((k = 1; k <= commands; k++)); do # in order: 1, 2, ... 10, not as a glob sorts them
            command=$(cat "$recorded/command$k")
            log=$logs/output-$k-$(basename "$file")
            run_in "$command" "$file_stage" "$log"
            { echo "\$ $command"; cat "$log"; } >>"$new_record"
            if [ "${CHAPTER_RECORD:-no}" = yes ]; then
                echo "-- $file: \$ $command   -> recorded anew"
            elif diff <(masked <"$recorded/output$k") <(masked <"$log") >"$log.diff"; then
                matched=$((matched + 1))
                echo "-- $file: \$ $command   -> matches the recorded output (decimals masked)"
            else
                differed=$((differed + 1))
                failures+=("$file: $command (differs: $log.diff)")
                echo "-- $file: \$ $command   -> DIFFERS from the recorded output:"
                head -20 "$log.diff" | sed 's/^/   | /'
            fi
        done
        [ "${CHAPTER_RECORD:-no}" != yes ] || cp "$new_record" "$file"
        rm -rf "$recorded" "$new_record"
    done
done

for f in "${failures[@]}"; do echo "failed: $f"; done
echo "chapters: $passed commands passed ($cannot_run of them cannot run here), $failed failed;" \
     "outputs: $matched match, $differed differ"
[ $failed -eq 0 ] && [ $differed -eq 0 ]
