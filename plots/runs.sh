# runs.sh: what demo.sh and bench.sh need to turn stages.txt into runs (sourced
# after common/stages.sh, from the repository root).

# stage_program FOLDER: the stage's program, as a path from the repository root
stage_program() {
    echo "$1/$(stage_field "$1" 2)"
}

# sets_input OPTIONS: true when a run picks its own input (--image, --file,
# --data, --size, with a space or '='), so that it runs only where the caller
# has not chosen the input itself
sets_input() {
    [[ " $1 " =~ \ --(image|file|data|size)[\ =] ]]
}

# opencl_devices PROGRAM [PATTERN]: the '--platform P --device D' of every
# device PROGRAM --list shows (only those on lines matching PATTERN), one a
# line; nothing where the program is not built or finds no device
opencl_devices() {
    [ -x "$1" ] || return 0
    "$1" --list 2>/dev/null | grep -E -- "${2:-.}" | grep -Eo -- '--platform [0-9]+ --device [0-9]+'
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
        match($0, /[ \t]--(image|file|data|size)([ \t=]|$)/) {
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
