# common/stages.sh - reads stages.txt, the one list of stages, for the shell
# scripts (sourced by plots/demo.sh, plots/bench.sh and .ci/run). Run from the
# repository root. Sets nothing; defines:
#   stages                 every stage's line: folder program runs-on shows runs
#   stage_field FOLDER N   column N of that stage's line (1 folder, 2 program,
#                          3 runs-on, 4 shows, 5 runs: the rest of the line)
#   stage_runs FOLDER      its extra runs, one per line ({cores} filled in)

stages() {
    awk '!/^[ \t]*(#|$)/ { print }' stages.txt
}

stage_field() {
    awk -v folder="$1" -v n="$2" '
        !/^[ \t]*(#|$)/ && $1 == folder {
            if (n < 5) { print $n; exit }
            line = $0
            for (i = 1; i < 5; i++) sub(/^[ \t]*[^ \t]+[ \t]*/, "", line)
            print line; exit
        }' stages.txt
}

stage_runs() {
    local cores
    cores=$(nproc 2>/dev/null || echo 2)
    stage_field "$1" 5 | tr ';' '\n' | sed 's/^[ \t]*//; s/[ \t]*$//' |
        awk -v cores="$cores" '$0 != "-" && $0 != "" { gsub(/\{cores\}/, cores); print }'
}
