#!/usr/bin/env bash
# run.sh - builds probe.c and runs it on the workbook's OpenCL kernel, on the
# GPU machine, from the repository root:
#
#   bash 04_opencl_port/probe/run.sh [KERNEL_FILE]     (from the repository root)
#
# KERNEL_FILE defaults to 04_opencl_port/histogram.cl. OCL_INC defaults to
# /usr/include (the Debian package opencl-headers); OCL_LIBDIR, if set, is searched for
# libOpenCL.so.1; PROBE_ARGS=--any-device also probes non-NVIDIA devices.
# Writes four files under $OUT (default ./oclprobe-out):
#   build.log    the compiler's output for probe.c (empty: no warnings)
#   probe.log    everything the probe printed: device, and per option set the
#                build log (ptxas' "Used N registers" with -cl-nv-verbose), the
#                kernel queries, and launches at 256, 512 and 1024 work-items
#   ptx.txt      every option set's program binary (PTX on NVIDIA), one after
#                the other, each after a "===== FILE" line
#   summary.txt  the table printed at the end
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OCL_INC=${OCL_INC:-/usr/include}
OUT=${OUT:-$PWD/oclprobe-out}
kernel=${1:-$PWD/04_opencl_port/histogram.cl}
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/oclprobe.XXXXXX")

command -v nvidia-smi > /dev/null &&
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | sed 's/^/nvidia-smi: /'

# The build: the given command, in the probe's folder.
(
    cd "$here" &&
        cc -std=c11 -Wall -Wextra -O2 -DCL_TARGET_OPENCL_VERSION=120 -I"$OCL_INC" -I../../common \
            probe.c ../../common/cl_error_names.c \
            ${OCL_LIBDIR:+-L"$OCL_LIBDIR"} -l:libOpenCL.so.1 -o "$work/probe"
) > "$OUT/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    echo "probe.c does not build (rc $rc):"
    cat "$OUT/build.log"
    exit 1
fi
if [ -s "$OUT/build.log" ]; then
    echo "probe.c built, with warnings:"
    cat "$OUT/build.log"
else
    echo "probe.c built with no warnings"
fi

# The JIT cache off, so that ptxas runs (and reports) for every build.
# PROBE_ARGS=--any-device probes non-NVIDIA devices too (PoCL: a check of the probe itself).
# shellcheck disable=SC2086
CUDA_CACHE_DISABLE=1 "$work/probe" "$kernel" "$work/bin" ${PROBE_ARGS:-} > "$OUT/probe.log" 2>&1
rc=$?
echo "probe exit status $rc (0: probed, 77: no NVIDIA GPU found, 1: an error, see probe.log)"
if [ $rc -ne 0 ]; then
    tail -20 "$OUT/probe.log"
fi

# Every binary into one file.
: > "$OUT/ptx.txt"
for f in "$work"/bin/*; do
    [ -e "$f" ] || continue
    {
        printf '===== %s\n' "$(basename "$f")"
        cat "$f"
        printf '\n'
    } >> "$OUT/ptx.txt"
done

# The summary: per option set, what the driver allows, what ptxas used, what
# the PTX asks for, and what the launches did.
{
    echo "per option set: CL_KERNEL_WORK_GROUP_SIZE, ptxas registers and spills (build log,"
    echo "-cl-nv-verbose only), CL_KERNEL_PRIVATE_MEM_SIZE and _LOCAL_MEM_SIZE, launches at 256/512/1024"
    awk '
        function flush() {
            if (set == "") return
            printf "%-34s wg %-5s regs %-4s spills %-22s private %-6s local %-6s launch %s\n",
                set, wg, regs, spill, priv, lmem, (launches == "" ? "none" : launches)
        }
        /^===== device [0-9]+, option set / {
            flush()
            match($0, /device [0-9]+/); dev = substr($0, RSTART + 7, RLENGTH - 7)
            match($0, /option set \047[^\047]*\047/); set = "gpu" dev "-" substr($0, RSTART + 12, RLENGTH - 13)
            wg = "-"; regs = "-"; spill = "-"; priv = "-"; lmem = "-"; launches = ""
            next
        }
        /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15) }
        /bytes spill stores/ {
            if (match($0, /[0-9]+ bytes spill stores, [0-9]+ bytes spill loads/)) {
                t = substr($0, RSTART, RLENGTH); gsub(/ bytes spill (stores|loads)/, "", t); sub(/, /, "/", t); spill = t
            }
        }
        /CL_KERNEL_WORK_GROUP_SIZE:/ { wg = $2 }
        /CL_KERNEL_PRIVATE_MEM_SIZE:/ { priv = $2 }
        /CL_KERNEL_LOCAL_MEM_SIZE:/ { lmem = $2 }
        /clBuildProgram: / && !/CL_SUCCESS/ { wg = "build failed: " $2 }
        /local size +[0-9]+: / {
            n = $3; sub(/:/, "", n)
            r = ($4 == "ran,") ? (($5 == "every") ? "ok" : "WRONG") : ($4 == "refused:" ? "refused(" $6 ")" : "fail")
            launches = launches (launches == "" ? "" : " ") n "=" r
        }
        END { flush() }
    ' "$OUT/probe.log"
    echo
    echo "spills: stores/loads in bytes. Registers: 65536 per work-group on the H100, so a work-group"
    echo "of W work-items fits only if each uses at most 65536/W: 1024 needs <= 64, 512 needs <= 128."
    echo "A limit below 512 set by registers alone means more than 128 registers per work-item."
    echo
    echo "PTX: thread-count and register directives, and the virtual register declarations, per file"
    echo "(.reg counts are PTX virtual registers, not the hardware count ptxas reports)"
    for f in "$work"/bin/*; do
        [ -e "$f" ] || continue
        name=$(basename "$f")
        directives=$(grep -a -oE '\.(maxntid|reqntid|maxnreg|minnctapersm|maxclusterrank)[^{/]*' "$f" | tr -s '[:space:]' ' ' | sed 's/ $//')
        regs=$(grep -a -E '^\s*\.reg\s' "$f" | sed -E 's/[[:space:]]+/ /g; s/^ //; s/; *$//' | tr '\n' ';' | sed 's/;$//; s/;/; /g')
        target=$(grep -a -m1 -E '^\s*\.target' "$f" | sed -E 's/^\s+//')
        printf '%-38s %s | directives: %s | %s\n' "$name" "${target:-no .target line}" \
            "${directives:-none}" "${regs:-no .reg lines}"
    done
} > "$OUT/summary.txt"
cat "$OUT/summary.txt"
rm -rf "$work"
exit $rc
