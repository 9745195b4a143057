# common/rules.mk - the build rules every program's Makefile includes, written once.
#
# A stage's Makefile is one line, include ../common/stage.mk, which reads its
# program and kind from stages.txt and comes here. Other programs (the
# yardstick, the exercises) name them themselves:
#     PROGRAM := read_bandwidth
#     GPU     := yes              (a CUDA program; OPENCL := yes: an OpenCL one)
#     include ../../common/rules.mk
# and get: make (build), make run ARGS='--data constant', make test, make clean.
# The knobs (CUDA_ARCH, WERROR, V=1, ...) are in flags.mk.

include $(dir $(lastword $(MAKEFILE_LIST)))flags.mk

# Exercises build the same way from another folder (their solutions): SOURCE_DIR, BIN.
SOURCE_DIR  ?= .
BIN         ?= $(PROGRAM)
# common/'s headers, and the stage's own (a stage may keep a piece of its lesson in one)
HEADERS     := $(COMMON)/book.h $(COMMON)/harness.h $(wildcard $(SOURCE_DIR)/*.h $(SOURCE_DIR)/*.cuh)
ifeq ($(GPU),yes)
PROGRAM_OBJ := $(BUILD)/$(PROGRAM).cu.o
PROGRAM_LIBS := $(LIB_CUDA) $(LIB_HOST)
LINK        := $(NVCC) $(GENCODE)
else
PROGRAM_OBJ := $(BUILD)/$(PROGRAM).o
PROGRAM_LIBS := $(LIB_HOST)
LINK        := $(CC) $(CFLAGS) -pthread
endif
ifeq ($(OPENCL),yes)
PROGRAM_LIBS := $(LIB_OPENCL) $(PROGRAM_LIBS)
LIBS        += $(OPENCL_LIBS)
OPENCL_C    := $(OPENCL_CFLAGS)
endif

.PHONY: all run test needs clean
all: $(BIN)

$(BIN): $(PROGRAM_OBJ) $(PROGRAM_LIBS)
	$(Q)$(call say,LD,$@)$(LINK) -o $@ $^ $(LIBS)

$(BUILD)/%.o: $(SOURCE_DIR)/%.c $(HEADERS) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) $(OPENCL_C) -pthread -c -o $@ $<

# A compile is redone when the architectures change: the stamp's name holds them.
ARCH_STAMP  := $(BUILD)/cuda-arch-$(subst $(space),-,$(strip $(CUDA_ARCH)))
$(ARCH_STAMP): | $(BUILD)
	@rm -f $(BUILD)/cuda-arch-* && touch $@

# A slow compile says so before it starts: a program's Makefile may give
# BUILD_SECONDS := S P, measured on a 2-core machine: S seconds, and P more
# for each architecture, which nvcc builds side by side on every core
# (--threads 0); the line then says how long to expect.
ARCH_COUNT  := $(if $(filter native,$(CUDA_ARCH)),1,$(words $(CUDA_ARCH)))
ARCH_NAMES  := $(if $(filter native,$(CUDA_ARCH)),this GPU,$(addprefix sm_,$(CUDA_ARCH)))
expected     = $(if $(BUILD_SECONDS),$(shell cores=$$(nproc 2>/dev/null || echo 1); \
               side=$$(( $(ARCH_COUNT) < cores ? $(ARCH_COUNT) : cores )); \
               echo $$(( $(word 1,$(BUILD_SECONDS)) + \
               ($(word 2,$(BUILD_SECONDS)) * $(ARCH_COUNT) + side - 1) / side ))))
build_note   = for $(if $(filter 1,$(ARCH_COUNT)),$(ARCH_NAMES),$(ARCH_COUNT) architectures)$(if \
               $(filter-out 0 1 2 3 4 5 6 7 8 9 10,$(expected)), (slow: about $(expected) s))

$(BUILD)/%.cu.o: $(SOURCE_DIR)/%.cu $(HEADERS) $(COMMON)/harness_cuda.h $(COMMON)/read_kernel.cuh \
                 $(ARCH_STAMP) | $(BUILD)
	$(Q)$(call say,NVCC,$<,$(build_note))$(NVCC) $(NVCCFLAGS) $(NVCC_ALL) -c -o $@ $<

$(BUILD)/test_%.o: test_%.c $(COMMON)/tests/stage_checks.h $(HEADERS) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/test_$(PROGRAM): $(BUILD)/test_$(PROGRAM).o $(LIB_CHECKS) $(LIB_HOST)
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS)

$(BUILD):
	@mkdir -p $@

run: $(BIN)
	./$(BIN) $(ARGS)

# The suite runs the real program, as a user would, and compares its output
# with the CPU reference computed in the test itself.
test: $(BIN) $(BUILD)/test_$(PROGRAM)
	NVCC='$(NVCC)' ./$(BUILD)/test_$(PROGRAM) ./$(BIN)

# What this folder needs to build (common/can-build.sh asks): cuda, opencl or nothing.
needs:
	@echo $(if $(filter yes,$(GPU)),cuda) $(if $(filter yes,$(OPENCL)),opencl)

clean:
	rm -rf $(BUILD) $(BIN)
