#!/usr/bin/env bash
# run-checks.sh MODE EXERCISE...: each exercise's check, summed up. MODE is
#   mine       your files; ends with "exercises (mine): N passed, N not, N skipped"
#   solutions  the reference solutions: each must pass (or be skipped: see below)
#   starters   the untouched starters: each must fail (or be skipped)
#   mutants    every wrong solution (solutions/<exercise>/mutants/*.patch): each must fail
#              (or be skipped)
#   status     one line per exercise, from its last check: runs nothing, takes a second
# Skipped is not passed: a check whose program cannot run here (a CUDA exercise
# on a machine without an NVIDIA GPU) exits 77 and says "not checked here";
# it is counted apart. It is still built, so that every starter, solution and
# mutant is shown to compile.
cd "$(dirname "$0")" || exit 1
mode=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Whether a CUDA program can run on this machine, without running one: an
# NVIDIA driver makes a /dev/nvidia0 (or, under WSL, /dev/dxg).
gpu_here() {
    ls /dev/nvidia[0-9]* /dev/dxg >/dev/null 2>&1
}
cuda_exercise() { # exercise
    grep -q '^GPU *:= *yes' "$1/Makefile"
}

if [ "$mode" = status ]; then
    printf '%-24s %s\n' exercise 'last check'
    for exercise in "$@"; do
        record="$exercise/build/last-check"
        sum='' result=''
        [ -f "$record" ] && read -r sum result <"$record"
        if cuda_exercise "$exercise" && ! gpu_here; then
            # never "not started" or "passed" here: nothing can check it on this machine
            result="needs a GPU: not checked on this machine (make check where an NVIDIA GPU is)"
        elif [ -n "$result" ]; then
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
        # make exits 2 whatever its recipe's status was; the check's own 77
        # ("not checked here") is in what it printed
        if [ $status -ne 0 ] && grep -q '] Error 77$' "$log" &&
            grep -q ': not checked here: ' "$log"; then
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
        echo "== $label: skipped (exit 77): $(grep -m1 ': not checked here: ' "$log" | sed 's/^[^:]*: //')" ;;
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
