#!/usr/bin/env bash
# Runs `make test` in each directory given, shows Check's output as it comes,
# and ends with one line that adds them up: "total: N passed, N failed, N skipped".
# TEST_JOBS=N (default 1) runs up to N suites at once, each into its own log,
# and shows each suite's output whole, in the order given, once it has ended:
# for a machine with many cores (the suites share the GPU, and none of them
# times anything it asserts).
set -uo pipefail

jobs=${TEST_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-tests: TEST_JOBS must be a number of suites, 1 or more: '$jobs'" >&2; exit 2; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0 skipped=0 broken=()
not_built=()
dirs=()
for dir in "$@"; do
    if [ -f "$dir/Makefile" ] && ! common/can-build.sh "$dir"; then
        not_built+=("$dir")
    else
        dirs+=("$dir")
    fi
done
# suite K's output goes to $logs/K, its make's exit status to $logs/K.status
run_suite() {
    make --no-print-directory -C "${dirs[$1]}" test >"$logs/$1" 2>&1
    echo $? >"$logs/$1.status"
}
if [ "$jobs" -gt 1 ]; then
    # the one library every suite links, made once before they start (each
    # would otherwise ask common/ for it at the same time); a failure here
    # shows again, in words, in the suites' own logs
    make --no-print-directory -s -C common build/libcommon_checks.a >/dev/null 2>&1
    for k in "${!dirs[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        run_suite "$k" &
    done
    wait
fi
for k in "${!dirs[@]}"; do
    dir=${dirs[$k]}
    log=$logs/$k
    echo "== $dir"
    if [ "$jobs" -gt 1 ]; then
        cat "$log"
        status=$(cat "$log.status")
    else
        make --no-print-directory -C "$dir" test 2>&1 | tee "$log"
        status=${PIPESTATUS[0]}
    fi
    # Check prints "100%: Checks: 69, Failures: 0, Errors: 0"
    summary=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -1)
    if [ -z "$summary" ]; then
        broken+=("$dir")
        failed=$((failed + 1)) # the suite did not even run: count it as one failure
        continue
    fi
    read -r checks failures errors < <(echo "$summary" | grep -Eo '[0-9]+' | tr '\n' ' ')
    passed=$((passed + checks - failures - errors))
    failed=$((failed + failures + errors))
    skip=$(grep -Eo '^SKIPPED: [0-9]+' "$log" | grep -Eo '[0-9]+' | tail -1)
    skipped=$((skipped + ${skip:-0}))
    [ "$status" -eq 0 ] || [ $((failures + errors)) -gt 0 ] || broken+=("$dir")
done
[ ${#not_built[@]} -eq 0 ] || echo "not built here, so not tested: ${not_built[*]}"
[ ${#broken[@]} -eq 0 ] || echo "did not build or run cleanly: ${broken[*]}"
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ ${#broken[@]} -eq 0 ]
