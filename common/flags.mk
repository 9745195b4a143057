# common/flags.mk - compilers and flags, set once for every stage and test.
#
# Knobs: CUDA_ARCH='75 80 86 89 90' (default; adds PTX for the last), CUDA_ARCH=native
# or CUDA_ARCH=90 to build faster, CUDA_HOME, WERROR=1, CHECK_CFLAGS/CHECK_LIBS,
# OPENCL_CFLAGS/OPENCL_LIBS.

COMMON    := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILD     ?= build

CC        ?= cc
CFLAGS    ?= -O2 -g
WARNINGS  := -Wall -Wextra -Werror=implicit-function-declaration $(if $(WERROR),-Werror)
HOST_C    := -std=c11 -D_XOPEN_SOURCE=700 $(WARNINGS) -I$(COMMON)

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CUDA_ARCH ?= 75 80 86 89 90
ifeq ($(CUDA_ARCH),native)
GENCODE   := -arch=native
else
GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
endif
NVCCFLAGS ?= -O3 -lineinfo
# C++ warns about fields a designated initializer leaves out; C (and we) rely on them being zero.
NVCC_ALL  := -std=c++20 $(GENCODE) -I$(COMMON) -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers \
             $(if $(WERROR),-Werror all-warnings -Xcompiler -Werror)

# OpenCL 1.2: what PoCL and NVIDIA's driver both provide
OPENCL_CFLAGS ?= -DCL_TARGET_OPENCL_VERSION=120
OPENCL_LIBS   ?= -lOpenCL

CHECK_CFLAGS ?= $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   ?= $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -pthread)

