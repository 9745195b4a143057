#!/usr/bin/env bash
# Installs the Debian packages the workbook uses, when they are missing:
# Check (unit tests), gnuplot (plots), the OpenCL ICD loader, headers, PoCL and
# Oclgrind (an OpenCL simulator whose data-race check the exercises use), and
# patch (which makes the exercises' mutants from their solutions), and on amd64
# gcc-multilib (32-bit builds, for exercise 14's check).
# The CUDA toolkit is not among them: it comes from NVIDIA, not from Debian.
set -euo pipefail

packages=(check pkg-config gnuplot-nox ocl-icd-opencl-dev opencl-headers pocl-opencl-icd oclgrind patch)
# gcc-multilib (amd64 only: arm64 has no such package): exercise 14's check
# builds the student's program with 32-bit longs too
if command -v dpkg >/dev/null && [ "$(dpkg --print-architecture)" = amd64 ]; then
    packages+=(gcc-multilib)
fi

if ! command -v dpkg-query >/dev/null; then
    # the table "Other systems" in README.md, one line per package manager (not tried here)
    if command -v dnf >/dev/null; then
        other="sudo dnf install check-devel pkgconf-pkg-config gnuplot ocl-icd-devel opencl-headers pocl patch"
        [ "$(uname -m)" = x86_64 ] && other+=" glibc-devel.i686 libgcc.i686"
        other+="   (no Oclgrind package known)"
    elif command -v pacman >/dev/null; then
        other="sudo pacman -S check pkgconf gnuplot ocl-icd opencl-headers pocl patch"
        [ "$(uname -m)" = x86_64 ] && other+=" lib32-glibc lib32-gcc-libs"
        other+="   (Oclgrind: only in the AUR)"
    elif command -v brew >/dev/null; then
        other="brew install check pkgconf gnuplot opencl-icd-loader opencl-headers pocl oclgrind gpatch"
    else
        echo "deps: not a Debian system: install ${packages[*]} (or their equivalents) by hand"
        exit 0
    fi
    echo "deps: not a Debian system; install the packages by hand (README.md, \"Other systems\"):"
    echo "    $other"
    exit 0
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: every package is installed"
    exit 0
fi

install="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo="sudo"
else
    echo "deps: missing ${missing[*]}; install them with:"
    echo "    sudo apt-get update && sudo $install"
    exit 1
fi
echo "deps: installing ${missing[*]}"
if ! { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo $install; } >/tmp/workbook-deps.log 2>&1; then
    tail -5 /tmp/workbook-deps.log
    echo "deps: apt-get failed (log: /tmp/workbook-deps.log); install ${missing[*]} by hand," \
         "or skip this check with NO_DEPS=1"
    exit 1
fi
echo "deps: installed ${missing[*]}"
