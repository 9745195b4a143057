#!/usr/bin/env bash
# run-checks.sh MODE EXERCISE...: runs each exercise's check (make check) and
# sums up. MODE is
#   mine       your files; ends with "exercises: N passed, N failed, N skipped"
#   solutions  the reference solutions: each must pass (or skip: no GPU here)
#   starters   the untouched starters: each must fail (or skip: no GPU here)
#   status     one line per exercise: passed, failing, not started, skipped
# An exercise whose program cannot run here (exit 77: no GPU) is skipped.
cd "$(dirname "$0")" || exit 1
mode=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0 failed=0 skipped=0 wrong=()
[ "$mode" = status ] && printf '%-28s %s\n' exercise status
for exercise in "$@"; do
    solution=$([ "$mode" = solutions ] && echo 1)
    make --no-print-directory -C "$exercise" check SOLUTION="$solution" >"$log" 2>&1
    status=$?
    if grep -q '^SKIPPED:' "$log" && grep -q 'Checks: 0,' "$log"; then
        result=skipped
    elif [ $status -eq 0 ]; then
        result=passed
    else
        result=failing
    fi
    case $mode in
    status)
        # not started: none of the exercise's files differs from the starter in git
        if [ "$result" = failing ] && git diff --quiet -- "$exercise" 2>/dev/null; then
            result="not started"
        fi
        [ "$result" = skipped ] && result="skipped: $(grep -m1 '^SKIPPED:' "$log" | sed 's/^[^:]*: [^:]*: //')"
        printf '%-28s %s\n' "$exercise" "$result"
        continue ;;
    starters)
        # a starter must fail its check: a check that passes on it checks nothing
        case $result in
        passed) result="PASSES (its check checks nothing)" ;;
        failing) result=passed ;; # it fails, as an untouched starter must
        esac ;;
    esac
    echo "== $exercise: $result"
    case $result in
    passed) passed=$((passed + 1)) ;;
    skipped) skipped=$((skipped + 1)); grep -m1 '^SKIPPED:' "$log" ;;
    *) failed=$((failed + 1)); wrong+=("$exercise"); tail -20 "$log" ;;
    esac
done
[ "$mode" = status ] && exit 0
[ ${#wrong[@]} -eq 0 ] || echo "not as expected ($mode): ${wrong[*]}"
echo "exercises ($mode): $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
