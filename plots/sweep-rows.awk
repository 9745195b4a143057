# sweep-rows.awk - what every row of a stage's sweep (--sweep --csv) must be,
# written once for the scripts that read sweeps (many-bins.sh, generalized.sh),
# which put this text before their own awk program. -v script=NAME starts each
# message; -v top=DIR/ is cut from the files' names in them.

function fail(code, why) {
    printf "%s: %s\n", script, why > "/dev/stderr"
    failed = code
    exit code
}
function shown(file) { return index(file, top) == 1 ? substr(file, length(top) + 1) : file }

# The row in $0 (split at commas): 13 columns, of stage, verified, with a
# kernel time; each GPU's rows in one file. kind names the input in the
# messages ("keys", "input"). Returns where the row is, for the caller's own.
function sweep_row(stage, kind,    where) {
    where = shown(FILENAME) " line " FNR
    if (NF != 13) fail(1, where ": " NF " columns, not the 13 of the header")
    if ($1 != stage) fail(1, where ": a row of " $1 ", not of " stage)
    if ($13 != "yes")
        fail(1, where ": " $2 " on " $4 " " kind " is not verified (verified=" $13 "): its histogram is wrong, no result")
    if ($10 !~ /^[0-9]*\.?[0-9]+$/ || $10 + 0 <= 0) fail(1, where ": kernel_ms \"" $10 "\" is no time")
    if (!($3 in file_of))
        file_of[$3] = FILENAME
    else if (file_of[$3] != FILENAME)
        fail(2, shown(file_of[$3]) " and " shown(FILENAME) " are both sweeps of the " $3 ": give one")
    rows[FILENAME]++
    return where
}

# At the end: every file given had a row under its header.
function every_file_has_rows(    i) {
    for (i = 1; i < ARGC; i++)
        if (!(ARGV[i] in rows)) fail(1, shown(ARGV[i]) ": no rows under its header")
}
