#!/usr/bin/env bash
# run-checks.sh MODE EXERCISE...: each exercise's check, summed up. MODE is
#   mine       your files; ends with "exercises: N passed, N failed, N skipped"
#   solutions  the reference solutions: each must pass (or skip: no GPU here)
#   starters   the untouched starters: each must fail (or skip: no GPU here)
#   mutants    every wrong solution (solutions/<exercise>/mutants/*.patch): each must fail
#   status     one line per exercise, from its last check: runs nothing, takes a second
# An exercise whose program cannot run here (exit 77: no GPU) is skipped; it is
# still built, so that every starter, solution and mutant is shown to compile.
cd "$(dirname "$0")" || exit 1
mode=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if [ "$mode" = status ]; then
    printf '%-24s %s\n' exercise 'last check'
    for exercise in "$@"; do
        record="$exercise/build/last-check"
        if [ -f "$record" ]; then
            read -r sum result <"$record"
            now=$(make --no-print-directory -s -C "$exercise" sources-sum 2>/dev/null)
            [ "$sum" = "$now" ] || result="$result, but you have edited it since: make check again"
        elif git diff --quiet -- "$exercise" 2>/dev/null; then
            result="not started"
        else
            result="edited, not checked yet: make check"
        fi
        printf '%-24s %s\n' "$exercise" "$result"
    done
    exit 0
fi

# What to check: "exercise" (yours, a solution or a starter) or "exercise mutant".
targets=()
for exercise in "$@"; do
    if [ "$mode" = mutants ]; then
        for patch in "solutions/$exercise/mutants/"*.patch; do
            [ -f "$patch" ] && targets+=("$exercise $(basename "$patch" .patch)")
        done
    else
        targets+=("$exercise")
    fi
done

# Build everything first, in parallel: the checks then run one at a time (a
# GPU shared by several at once would make each slow).
build_one() { # exercise [mutant]
    local args=(SOLUTION="$([ "$MODE" = solutions ] && echo 1)")
    [ -n "$2" ] && args=(MUTANT="$2")
    make --no-print-directory -s -C "$1" "${args[@]}" check-built >"/tmp/exercise-build.$1.$2.log" 2>&1
}
export -f build_one
export MODE=$mode
make --no-print-directory -s -C ../common >/dev/null 2>&1 # the shared libraries, once
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'

passed=0 failed=0 skipped=0 wrong=()
for t in "${targets[@]}"; do
    set -- $t
    exercise=$1 mutant=$2
    label="$exercise${mutant:+ mutant $mutant}"
    solution=$([ "$mode" = solutions ] && echo 1)
    if ! cat "/tmp/exercise-build.$exercise.$mutant.log" >"$log" ||
        ! make --no-print-directory -s -C "$exercise" SOLUTION="$solution" MUTANT="$mutant" \
            check-built >>"$log" 2>&1; then
        result="does not build"
    else
        make --no-print-directory -s -C "$exercise" SOLUTION="$solution" MUTANT="$mutant" \
            check >"$log" 2>&1
        status=$?
        if grep -q '^SKIPPED:' "$log" && ! grep -q 'FAILING in' "$log"; then
            result=skipped
        elif [ $status -eq 0 ]; then
            result=passed
        elif grep -q 'FAILING in' "$log"; then
            result=failing
        else
            result="check did not run"
        fi
    fi
    rm -f "/tmp/exercise-build.$exercise.$mutant.log"
    case $mode in
    starters | mutants)
        # a starter, and each mutant, must fail its check: one that passes shows
        # that the check misses what the exercise teaches
        case $result in
        passed) result="PASSES (its check misses it)" ;;
        failing) result="caught" ;;
        esac ;;
    esac
    case $result in
    passed | caught)
        passed=$((passed + 1))
        echo "== $label: $result$([ "$mode" = mutants ] && sed -n 's/.*FAILING in \("[^"]*"\).*/ in \1/p' "$log" | head -1)" ;;
    skipped)
        skipped=$((skipped + 1))
        echo "== $label: skipped: $(grep -m1 '^SKIPPED:' "$log" | sed 's/^[^:]*: [^:]*: //')" ;;
    *)
        failed=$((failed + 1)); wrong+=("$label")
        echo "== $label: $result"; tail -15 "$log" | sed 's/^/   /' ;;
    esac
done
[ ${#wrong[@]} -eq 0 ] || echo "not as expected ($mode): ${wrong[*]}"
case $mode in
starters | mutants) what="caught" ;;
*) what="passed" ;;
esac
echo "exercises ($mode): $passed $what, $failed not, $skipped skipped"
[ $failed -eq 0 ]
