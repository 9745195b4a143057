# runs.sh: what demo.sh and bench.sh need to turn stages.txt into runs (sourced
# after common/stages.sh, from the repository root).

# stage_program FOLDER: the stage's program, as a path from the repository root
stage_program() {
    echo "$1/$(stage_field "$1" 2)"
}

# sets_input OPTIONS: true when a run picks its own input (--image, --file,
# --data, --size, or 08's --rows, which makes its own matrix; with a space or
# '='), so that it runs only where the caller has not chosen the input itself
sets_input() {
    [[ " $1 " =~ \ --(image|file|data|size|rows)[\ =] ]]
}

# opencl_kinds PROGRAM: '--platform P --device D|KIND' for every device
# PROGRAM --list shows, KIND as it says (CPU, GPU or accelerator); nothing
# where the program is not built or finds no device
opencl_kinds() {
    [ -x "$1" ] || return 0
    "$1" --list 2>/dev/null |
        sed -nE 's/^ *(--platform [0-9]+ --device [0-9]+): .*\((CPU|GPU|accelerator), [^(]*$/\1|\2/p'
}

# opencl_devices PROGRAM [KIND]: the '--platform P --device D' of every device
# PROGRAM --list shows (only those of KIND: GPU, say), one a line
opencl_devices() {
    opencl_kinds "$1" | awk -F'|' -v kind="${2:-}" 'kind == "" || $2 == kind { print $1 }'
}

# brief_runs [FILE]: the runs of plots/brief.txt (or of FILE, or of $BRIEF),
# one a line as 'folder|options' ('-' as no options, {cores} filled in), in
# the file's order. A line naming a folder that stages.txt lacks, or setting
# its own input (as sets_input says: the demo and the bench choose the input
# of every line), prints nothing but 'FILE:LINE: why' on stderr, and returns 2.
brief_runs() {
    local file=${1:-${BRIEF:-plots/brief.txt}}
    [ -r "$file" ] || { echo "$file: cannot read the brief's runs" >&2; return 2; }
    awk -v file="$file" -v cores="$(nproc 2>/dev/null || echo 2)" \
        -v folders="$(stages | awk '{ print $1 }')" '
        BEGIN { n = split(folders, f, "\n"); for (i = 1; i <= n; i++) known[f[i]] = 1 }
        { sub(/#.*/, "") }
        NF == 0 { next }
        !($1 in known) { why = $1 " is not a stage in stages.txt" }
        match($0, /[ \t]--(image|file|data|size|rows)([ \t=]|$)/) {
            option = substr($0, RSTART + 1, RLENGTH - 1)
            sub(/[ \t=]$/, "", option)
            why = option " sets the input, which the demo and the bench choose"
        }
        why != "" { print file ":" FNR ": " why > "/dev/stderr"; bad = 1; exit 2 }
        {
            folder = $1
            sub(/^[ \t]*[^ \t]+[ \t]*/, ""); sub(/[ \t]+$/, "")
            if ($0 == "-") $0 = ""
            gsub(/\{cores\}/, cores)
            runs[++count] = folder "|" $0
        }
        END { if (!bad) for (i = 1; i <= count; i++) print runs[i] }' "$file"
}

# brief_plan STAGE BRIEF: what the stage's lines of BRIEF (brief_runs's
# output) run, one a line as 'program|options|kind': KIND is the device's kind
# for an OpenCL run (its rows say which), else empty. A line of an OpenCL stage
# that names no device runs on every device --list shows, as the full demo runs
# the defaults.
brief_plan() {
    local stage=$1 program folder options kinds="" kind device
    program=$(stage_program "$stage")
    [ "$(stage_field "$stage" 3)" != opencl ] || kinds=$(opencl_kinds "$program")
    while IFS='|' read -r folder options; do
        [ "$folder" = "$stage" ] || continue
        if [ -z "$kinds" ] || [[ " $options " =~ \ --(platform|device)[\ =] ]]; then
            # a device it names: its kind, where it names it as --list does
            device=$(grep -Eo -- '--platform [0-9]+ --device [0-9]+' <<<"$options")
            kind=""
            [ -z "$device" ] || kind=$(awk -F'|' -v d="$device" '$1 == d { print $2 }' <<<"$kinds")
            echo "$program|$options|$kind"
        else
            while IFS='|' read -r device kind; do
                echo "$program|$options${options:+ }$device|$kind"
            done <<<"$kinds"
        fi
    done <<<"$2"
}
