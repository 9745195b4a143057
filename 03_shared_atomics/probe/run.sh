#!/usr/bin/env bash
# run.sh - builds first_launch.cu against the workbook's common/ library and
# runs it, on the GPU machine, from the repository root (after make):
#
#   bash 03_shared_atomics/probe/run.sh [BLOCKS_PER_SM [REPS]]
#
# CUDA_ARCH (default native) as for make. Prints the probe's table; exit 77
# where there is no CUDA device.
set -eu -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
arch=${CUDA_ARCH:-native}
[ "$arch" = native ] && gencode=-arch=native || gencode="-gencode arch=compute_$arch,code=sm_$arch"
mkdir -p build
# shellcheck disable=SC2086 # gencode is words on purpose
nvcc -O3 -std=c++20 $gencode -I../../common -I.. -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers \
    -o build/first_launch first_launch.cu ../../common/build/libcommon_cuda.a ../../common/build/libcommon.a
./build/first_launch "$@"
