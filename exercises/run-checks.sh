#!/usr/bin/env bash
# run-checks.sh MODE EXERCISE...: each exercise's check, summed up. MODE is
#   mine       your files; ends with "exercises (mine): N passed, N not, N skipped"
#   solutions  the reference solutions: each must pass (or be skipped: see below)
#   starters   the untouched starters: each must fail (or be skipped)
#   mutants    every wrong solution (solutions/<exercise>/mutants/*.patch): each must fail
#              (or be skipped)
#   status     one line per exercise, from its last check: runs nothing, takes a second
#   report     the same as a CSV file for an instructor, a row per exercise: student,
#              host, gpu, exercise, result, sources_sha256, checked_at (UTC). STUDENT
#              names the student (default: git config user.name, else $USER), REPORT
#              the file (default: report-<student>-<host>.csv in exercises/)
# Skipped is not passed: a check whose program cannot run here (a CUDA exercise
# on a machine without an NVIDIA GPU) exits 77 and says "not checked here";
# it is counted apart. It is still built, so that every starter, solution and
# mutant is shown to compile.
set -uo pipefail
cd "$(dirname "$0")" || exit 1
mode=${1:-}
case $mode in
mine | solutions | starters | mutants | status | report) ;;
*) echo "run-checks: unknown mode '$mode': mine, solutions, starters, mutants, status or report" >&2; exit 2 ;;
esac
shift
log=$(mktemp)
builds=$(mktemp -d) # the build logs of this run alone: two runs at once on one machine keep apart
trap 'rm -rf "$log" "$builds"' EXIT

# Whether a CUDA program can run on this machine, without running one: the
# driver lists a GPU, or has made a /dev/nvidia0 (or, under WSL, /dev/dxg).
gpu_here() {
    # nvidia-smi's list first (a container may show the GPU without /dev/nvidia0);
    # then the device files, each tried alone (ls of two paths fails if either is missing)
    { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } ||
        compgen -G '/dev/nvidia[0-9]*' >/dev/null || [ -e /dev/dxg ]
}
cuda_exercise() { # exercise
    grep -q '^GPU *:= *yes' "$1/Makefile"
}

# Whether the exercise's files are as handed out. A student copy records their
# sums (student-copy.sh writes starters.cksum), as it has no git history; in
# the repository, git says.
untouched() { # exercise
    if [ -f starters.cksum ]; then
        local handed_out
        handed_out=$(awk -v e="$1" '$1 == e { print $2 }' starters.cksum)
        [ -n "$handed_out" ] && [ "$handed_out" = "$(make --no-print-directory -s -C "$1" sources-sum 2>/dev/null)" ]
    else
        git diff --quiet -- "$1" 2>/dev/null
    fi
}

# What the exercise's last check says now, for status and report alike: sets
# state (needs-gpu, checked, edited-since, not-started, edited) and result
# (the last check's, as stage_checks.c's run_exercise wrote it).
last_check() { # exercise
    local record="$1/build/last-check" sum='' now
    result=''
    [ -f "$record" ] && read -r sum result <"$record"
    if cuda_exercise "$1" && ! gpu_here; then
        # never "not started" or "passed" here: nothing can check it on this machine
        state=needs-gpu
    elif [ -n "$result" ]; then
        now=$(make --no-print-directory -s -C "$1" sources-sum 2>/dev/null)
        if [ "$sum" = "$now" ]; then state=checked; else state=edited-since; fi
    elif untouched "$1"; then
        state=not-started
    else
        state=edited
    fi
}

if [ "$mode" = status ]; then
    printf '%-24s %s\n' exercise 'last check'
    for exercise in "$@"; do
        last_check "$exercise"
        case $state in
        needs-gpu) result="needs a GPU: not checked on this machine (make check where an NVIDIA GPU is)" ;;
        edited-since) result="$result, but you have edited it since: make check again" ;;
        not-started) result="not started" ;;
        edited) result="edited, not checked yet: make check" ;;
        esac
        printf '%-24s %s\n' "$exercise" "$result"
    done
    exit 0
fi

# One CSV field, quoted as RFC 4180 says when it holds a comma, a quote or a line break.
csv_field() { # text
    case $1 in
    *[,\"$'\n'$'\r']*) printf '"%s"' "${1//\"/\"\"}" ;;
    *) printf '%s' "$1" ;;
    esac
}
csv_row() { # field...
    local sep=''
    for field in "$@"; do
        printf '%s' "$sep"
        csv_field "$field"
        sep=,
    done
    printf '\n'
}
# Lower case, each run of other characters than letters and digits one '-'.
slug() { # text
    printf '%s' "$1" | LC_ALL=C.UTF-8 sed -E 's/[^[:alnum:]]+/-/g; s/^-+//; s/-+$//; s/.*/\L&/'
}

if [ "$mode" = report ]; then
    if [ -n "${STUDENT+set}" ]; then
        student=$STUDENT
    else
        student=$(git config user.name 2>/dev/null)
        [ -n "$student" ] || student=${USER:-}
    fi
    [[ $student == *[![:space:]]* ]] || {
        echo "report: no student name: make -C exercises report STUDENT='Your Name'" >&2
        exit 2
    }
    [[ $student != *[$'\n\r']* ]] || { echo "report: STUDENT must be one line" >&2; exit 2; }
    host=$(hostname 2>/dev/null || uname -n)
    # each kind of GPU once, as nvidia-smi names it; none where it sees none
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | awk 'NF && !seen[$0]++' |
        paste -sd ';' -)
    [ -n "$gpu" ] || gpu=none
    name=$(slug "$student")
    report=${REPORT:-report-${name:-student}-$(slug "$host").csv}
    # written whole, then renamed: a half-written report never stands under its name
    : 2>/dev/null >"$report.writing" || { echo "report: cannot write $report: does its folder exist?" >&2; exit 1; }
    if ! {
        csv_row student host gpu exercise result sources_sha256 checked_at
        for exercise in "$@"; do
            last_check "$exercise"
            case $state in
            needs-gpu) result="skipped: needs a GPU" ;;
            edited-since) result="edited since last check" ;;
            not-started | edited) result="not checked" ;;
            checked)
                case $result in
                "passed, "*) result=passed ;;
                passed*) # "passed N checks, M not run here"
                    missed=${result##*, }
                    result="passed, ${missed%% *} checks not run here (a tool was missing)" ;;
                failing*) result=failing ;;
                "not checked here: "*) result="skipped: ${result#not checked here: }" ;;
                esac ;;
            esac
            sha256=$(make --no-print-directory -s -C "$exercise" sources-sha256 2>/dev/null)
            checked_at=''
            [ -f "$exercise/build/last-check" ] &&
                checked_at=$(date -u -r "$exercise/build/last-check" +%Y-%m-%dT%H:%M:%SZ)
            csv_row "$student" "$host" "$gpu" "$exercise" "$result" "$sha256" "$checked_at"
        done
    } >"$report.writing" || ! mv -f "$report.writing" "$report"; then
        rm -f "$report.writing"
        echo "report: cannot write $report" >&2
        exit 1
    fi
    echo "report: $# exercises of $student on $host: $(realpath "$report")"
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
    [ -n "${2:-}" ] && args=(MUTANT="$2")
    make --no-print-directory -s -C "$1" "${args[@]}" check-built >"$BUILDS/$1.${2:-}.log" 2>&1
}
export -f build_one
export MODE=$mode BUILDS=$builds
# No GPU seen: a CUDA exercise's check cannot run here, so its builds only show
# that it compiles (and catch a mutant the given program refuses when it is
# compiled). One architecture shows that, in a third of the time of the
# portable five; 9.0, so that 15's cluster kernels are compiled too.
if [ -z "${CUDA_ARCH:-}" ] && ! nvidia-smi -L >/dev/null 2>&1; then
    export CUDA_ARCH=90
fi
make --no-print-directory -s -C ../common >/dev/null 2>&1 # the shared libraries, once
printf '%s\n' "${targets[@]}" | xargs -P "$(nproc)" -I{} bash -c 'build_one {}'

passed=0 failed=0 skipped=0 wrong=()
for t in "${targets[@]}"; do
    set -- $t
    exercise=$1 mutant=${2:-}
    label="$exercise${mutant:+ mutant $mutant}"
    solution=$([ "$mode" = solutions ] && echo 1)
    if ! cat "$builds/$exercise.$mutant.log" >"$log" ||
        ! make --no-print-directory -s -C "$exercise" SOLUTION="$solution" MUTANT="$mutant" \
            check-built >>"$log" 2>&1; then
        result="does not build"
        # no nvcc (or no OpenCL headers) here: not checked, as a GPU missing is
        if why=$(../common/can-build.sh "$exercise"); [ -n "$why" ]; then
            result=skipped
            echo "$exercise: not checked here: ${why#*not built: }" >"$log"
        elif [ "$mode" = mutants ] && grep -q 'static assertion failed' "$log"; then
            # the given program refuses it when it is compiled: caught there
            result="caught at build"
        fi
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
    passed | caught | "caught at build")
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
if [ ${#wrong[@]} -ne 0 ] && [ "$mode" = mine ]; then
    # a student's run: an exercise not solved yet fails its check, as it should
    echo "not passing yet (mine): ${wrong[*]}"
    echo "  (an exercise you have not solved fails its check until you do: its starter is wrong on purpose)"
elif [ ${#wrong[@]} -ne 0 ]; then
    echo "not as expected ($mode): ${wrong[*]}"
fi
case $mode in
starters | mutants) what="caught" ;;
*) what="passed" ;;
esac
echo "exercises ($mode): $passed $what, $failed not, $skipped skipped"
[ $failed -eq 0 ]
