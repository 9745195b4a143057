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
