# common/flags.mk - compilers and flags, set once for every stage and test.
#
# Knobs: CUDA_ARCH (default: the GPU this machine has, else '75 80 86 89 90', adding
# PTX for the last; see cuda-arch.mk), CUDA_HOME, WERROR=1, V=1 (show the commands),
# CHECK_CFLAGS/CHECK_LIBS, OPENCL_CFLAGS/OPENCL_LIBS.

empty     :=
space     := $(empty) $(empty)
comma     := ,
COMMON    := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ROOT      := $(abspath $(COMMON)/..)
BUILD     ?= build

# Quiet by default: one short line per file ("  NVCC  03_shared_atomics/x.cu"),
# named from the repository's root. V=1 shows every command in full.
# In a recipe: $(Q)$(call say,CC,$<)$(CC) ...
ifeq ($(V),1)
Q         :=
say        =
else
Q         := @
say        = printf '  %-5s %s%s\n' '$(1)' '$(patsubst $(ROOT)/%,%,$(abspath $(2)))' '$(if $(3), $(3))';
endif

CC        ?= cc
# _FORTIFY_SOURCE as Ubuntu's gcc sets it by default (undefined first, so that
# no compiler warns of a redefinition): its checks, and its warnings, such as
# an ignored fread result, are the same here as on such a machine.
FORTIFY   := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
CFLAGS    ?= -O2 -g $(FORTIFY)
WARNINGS  := -Wall -Wextra -Werror=implicit-function-declaration $(if $(WERROR),-Werror)
HOST_C    := -std=c11 -D_XOPEN_SOURCE=700 $(WARNINGS) -I$(COMMON)

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
include $(COMMON)/cuda-arch.mk
ifeq ($(CUDA_ARCH),native)
GENCODE   := -arch=native
else
GENCODE   := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))
endif
NVCCFLAGS ?= -O3 -lineinfo -Xcompiler $(subst $(space),$(comma),$(FORTIFY))
# C++ warns about fields a designated initializer leaves out; C (and we) rely on them being zero.
# several architectures: compiled side by side, on every core nvcc finds
NVCC_ALL  := -std=c++20 $(GENCODE) $(if $(filter-out native,$(word 2,$(CUDA_ARCH))),--threads 0) -I$(COMMON) -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers \
             $(if $(WERROR),-Werror all-warnings -Xcompiler -Werror)

# OpenCL 1.2: what PoCL and NVIDIA's driver both provide
OPENCL_CFLAGS ?= -DCL_TARGET_OPENCL_VERSION=120
OPENCL_LIBS   ?= -lOpenCL

CHECK_CFLAGS ?= $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   ?= $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -pthread)

# common/ is built once, by its own Makefile, into libraries every program links:
LIBDIR     := $(COMMON)/build
LIB_HOST   := $(LIBDIR)/libcommon.a        # book.c, harness.c, bmp.c: every program
LIB_CUDA   := $(LIBDIR)/libcommon_cuda.a   # harness_cuda.c: CUDA programs
LIB_OPENCL := $(LIBDIR)/libcommon_opencl.a # harness_opencl.c: OpenCL programs
LIB_CHECKS := $(LIBDIR)/libcommon_checks.a # tests/stage_checks.c: the Check suites

# Elsewhere, a library is made by asking common/ for it (make decides there
# whether it is out of date), so that it is built in one place only.
# (`make` alone still means `make all`: FORCE below must not become the goal.)
.DEFAULT_GOAL := all
ifneq ($(abspath $(CURDIR)),$(abspath $(COMMON)))
$(LIBDIR)/%.a: FORCE
	@$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) -C $(COMMON) build/$*.a
.PHONY: FORCE
FORCE:
endif
