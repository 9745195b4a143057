#!/usr/bin/env bash
# Runs `make test` in each directory given, shows Check's output as it comes,
# and ends with one line that adds them up: "total: N passed, N failed, N skipped".
set -uo pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0 broken=()
not_built=()
for dir in "$@"; do
    echo "== $dir"
    if [ -f "$dir/Makefile" ] && ! common/can-build.sh "$dir"; then
        not_built+=("$dir")
        continue
    fi
    make --no-print-directory -C "$dir" test 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
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
