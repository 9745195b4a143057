# common/cuda-arch.mk - which GPU architectures CUDA code is built for, decided
# once (the top-level Makefile and flags.mk include it; the answer is exported
# to every sub-make):
#   CUDA_ARCH given (command line or environment)  that list, or native
#   else, a GPU that nvidia-smi sees                its architecture (9.0: 90), each
#                                                   GPU kind once: a build for this machine
#   else (no GPU seen)                              PORTABLE_CUDA_ARCH: machine code for
#                                                   each, and PTX for the last, which a
#                                                   newer GPU compiles when it loads it
PORTABLE_CUDA_ARCH := 75 80 86 89 90
ifeq ($(origin CUDA_ARCH),undefined)
CUDA_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
                     grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -u)
CUDA_ARCH_FROM := the GPU nvidia-smi sees
ifeq ($(strip $(CUDA_ARCH)),)
CUDA_ARCH := $(PORTABLE_CUDA_ARCH)
CUDA_ARCH_FROM := no GPU seen here, so the portable list
endif
export CUDA_ARCH CUDA_ARCH_FROM
endif
CUDA_ARCH_FROM ?= as given
