#!/usr/bin/env bash
# Runs `make test` in each directory given and ends with one line that adds
# them up: "total: N passed, N failed, N skipped (...) in N s".
#
# Each suite's output is shown whole when it ends, with its time; a suite
# still running after 30 s says so every 30 s, so that a long one (the OpenCL
# suite on a CPU, the GPU suites under make test-full) never looks like a hang.
#
#   TEST_JOBS=N    suites at once (default: the cores, at most 8). They share
#                  the GPU; none of them times anything it asserts.
#   TEST_FULL=1    every case of every matrix (make test-full), not a sample
#   TEST_TIMES=F   also write each suite's seconds to file F, one line each
set -uo pipefail

cores=$(nproc 2>/dev/null || echo 1)
jobs=${TEST_JOBS:-$((cores < 8 ? cores : 8))}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-tests: TEST_JOBS must be a number of suites, 1 or more: '$jobs'" >&2; exit 2; }
# The suites' makes keep the parent make's variables (WERROR=1, CUDA_ARCH=...)
# but not its job slots: each suite is one job here.
MAKEFLAGS=$(echo " ${MAKEFLAGS:-}" | sed -E 's/ -j[0-9]*( |$)/ /g; s/ --jobserver-(auth|fds)=[^ ]*//g; s/^ +//')
export MAKEFLAGS
unset MFLAGS
logs=$(mktemp -d)
trap 'rm -rf "$logs"; kill $(jobs -p) 2>/dev/null' EXIT

passed=0 failed=0 skipped=0 sampled=0 broken=() not_built=() dirs=()
for dir in "$@"; do
    if [ -f "$dir/Makefile" ] && ! common/can-build.sh "$dir"; then
        not_built+=("$dir")
    else
        dirs+=("$dir")
    fi
done
# the one library every suite links, made once before they start (each would
# otherwise ask common/ for it at the same time); a failure here shows again,
# in words, in the suites' own logs
make --no-print-directory -s -C common build/libcommon_checks.a >/dev/null 2>&1

# Adds up suite K's log, prints it and its line; its make's status is in $logs/K.status.
finish() {
    local k=$1 dir=${dirs[$1]} log=$logs/$1 seconds=$2 summary checks failures errors skip sample status
    status=$(cat "$log.status")
    echo "== $dir"
    cat "$log"
    # Check prints "100%: Checks: 69, Failures: 0, Errors: 0"
    summary=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -1)
    if [ -z "$summary" ]; then
        broken+=("$dir")
        failed=$((failed + 1)) # the suite did not even run: count it as one failure
        echo "-- $dir: did not run (exit $status) after ${seconds} s"
        return
    fi
    read -r checks failures errors < <(echo "$summary" | grep -Eo '[0-9]+' | tr '\n' ' ')
    skip=$(grep -Eo '^SKIPPED: [0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
    sample=$(grep -Eo '^sampled: make test-full runs [0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
    passed=$((passed + checks - failures - errors))
    failed=$((failed + failures + errors))
    skipped=$((skipped + ${skip:-0}))
    sampled=$((sampled + ${sample:-0}))
    [ "$status" -eq 0 ] || [ $((failures + errors)) -gt 0 ] || broken+=("$dir")
    echo "-- $dir: $((checks - failures - errors)) passed, $((failures + errors)) failed," \
        "${skip:-0} skipped in ${seconds} s"
    [ -z "${TEST_TIMES:-}" ] || echo "$dir $seconds" >>"$TEST_TIMES"
}

start=$SECONDS
declare -A began=() # suite K: when it started, while it runs
next=0 done_count=0 last_word=$SECONDS
while [ $done_count -lt ${#dirs[@]} ]; do
    while [ $next -lt ${#dirs[@]} ] && [ ${#began[@]} -lt "$jobs" ]; do
        # the status file appears whole (mv), so that a half-written one is never read
        (make --no-print-directory -C "${dirs[$next]}" test >"$logs/$next" 2>&1
         echo $? >"$logs/$next.writing" && mv "$logs/$next.writing" "$logs/$next.status") &
        began[$next]=$SECONDS
        next=$((next + 1))
    done
    sleep 1
    for k in "${!began[@]}"; do
        if [ -f "$logs/$k.status" ]; then
            finish "$k" $((SECONDS - began[$k]))
            unset "began[$k]"
            done_count=$((done_count + 1))
        fi
    done
    if [ $((SECONDS - last_word)) -ge 30 ] && [ ${#began[@]} -gt 0 ]; then
        running=()
        for k in "${!began[@]}"; do
            [ $((SECONDS - began[$k])) -ge 30 ] && running+=("${dirs[$k]} ($((SECONDS - began[$k])) s)")
        done
        [ ${#running[@]} -eq 0 ] || echo "   ... still running: ${running[*]}"
        last_word=$SECONDS
    fi
done
wait

[ ${#not_built[@]} -eq 0 ] || echo "not built here, so not tested: ${not_built[*]}"
[ ${#broken[@]} -eq 0 ] || echo "did not build or run cleanly: ${broken[*]}"
more=""
[ "$sampled" -eq 0 ] || more=" (make test-full adds $sampled checks: every case of each matrix)"
echo "total: $passed passed, $failed failed, $skipped skipped$more in $((SECONDS - start)) s"
[ "$failed" -eq 0 ] && [ ${#broken[@]} -eq 0 ]
