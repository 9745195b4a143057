#!/usr/bin/env bash
# can-build.sh DIR: whether this machine has what DIR's program needs to build
# (nvcc for CUDA, the OpenCL headers for OpenCL), as its Makefile says
# (make needs). If not, prints one line saying why and exits 1, so that
# `make` goes on with the others.
dir=$1
needs=$(make --no-print-directory -s -C "$dir" needs 2>/dev/null)
if [[ $needs == *cuda* ]]; then
    nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
    if ! command -v "$nvcc" >/dev/null; then
        echo "note: $dir not built: $nvcc not found (install the CUDA toolkit, or set CUDA_HOME)"
        exit 1
    fi
fi
if [[ $needs == *opencl* ]]; then
    if ! printf '#include <CL/cl.h>\n' | ${CC:-cc} ${OPENCL_CFLAGS:-} -E -x c - >/dev/null 2>&1; then
        echo "note: $dir not built: no OpenCL headers (make deps installs them)"
        exit 1
    fi
fi
exit 0
