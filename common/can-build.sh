#!/usr/bin/env bash
# can-build.sh STAGE: whether this machine has what the stage needs to build
# (nvcc for CUDA stages, the OpenCL headers for OpenCL ones). If not, prints
# one line saying why and exits 1, so that `make` goes on with the others.
stage=$1
if grep -q '^GPU *:= *yes' "$stage/Makefile"; then
    nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
    if ! command -v "$nvcc" >/dev/null; then
        echo "note: $stage not built: $nvcc not found (install the CUDA toolkit, or set CUDA_HOME)"
        exit 1
    fi
fi
if grep -q '^OPENCL *:= *yes' "$stage/Makefile"; then
    if ! printf '#include <CL/cl.h>\n' | ${CC:-cc} -E -x c - >/dev/null 2>&1; then
        echo "note: $stage not built: no OpenCL headers (make deps installs them)"
        exit 1
    fi
fi
exit 0
