# exercises/exercise.mk - how every exercise builds and checks itself, written once.
# An exercise's Makefile names its program and its kind:
#     PROGRAM := cpu_threads        (the program: cpu_threads.c, or race.cu for CUDA)
#     GPU     := no                 (yes: a CUDA exercise; OPENCL := yes: an OpenCL one)
#     include ../exercise.mk
# The file you edit is the one the solution holds: a CUDA exercise's is
# PROGRAM_yours.cuh, which the given program PROGRAM.cu includes.
#
#   make check              build your files and the check, and run the check: it exits 0
#                           passed, 1 failing, or 77 not checked (this machine cannot run
#                           the program: no GPU), which make reports as "Error 77"
#   make check SOLUTION=1   the same with the reference solution (../solutions/<exercise>/)
#   make check MUTANT=NAME  the same with a wrong solution, ../solutions/<exercise>/mutants/NAME.patch
#                           (the solution with one classic mistake: its check must fail)
#   make check CHECK_ALL=1  run every group of checks, not only up to the first that fails
#   make check CHECK_ONLY=text  run only the groups whose names contain text
#   make check CHECK_REQUIRE=1  a group left out for want of a tool or memory is no pass (77)
#   make run ARGS='...'     run your program
NAME := $(notdir $(CURDIR))
SOLUTION_DIR := ../solutions/$(NAME)
# Your files: what make status compares with the last check's.
YOURS := $(sort $(filter-out check_%,$(wildcard *.c *.cu *.cl *.h *.cuh)))
# Their checksum, by the shell, not by a make inside make: that one would print
# "Entering directory" lines into it whenever make runs with -C (or -w).
SOURCES_SUM = cat $(YOURS) | cksum | cut -d' ' -f1
# What a check that cannot run here says it needs (an exercise may say more).
NEEDS ?= $(if $(filter yes,$(GPU)),an NVIDIA GPU,$(if $(filter yes,$(OPENCL)),an OpenCL device))
# A student copy (make student-copy) has no solutions/: say so, rather than fail to build.
ifneq ($(SOLUTION)$(MUTANT),)
ifeq ($(wildcard ../solutions),)
$(error SOLUTION= and MUTANT= are for instructors: the reference solutions are not in this copy of the workbook)
endif
ifeq ($(wildcard $(SOLUTION_DIR)),)
$(error no reference solution for $(NAME): $(SOLUTION_DIR) is missing)
endif
endif
ifeq ($(SOLUTION),1)
BUILD      := build-solution
endif
ifneq ($(MUTANT),)
MUTANT_PATCH := $(SOLUTION_DIR)/mutants/$(MUTANT).patch
BUILD      := build-mutant-$(MUTANT)
endif
ifneq ($(SOLUTION)$(MUTANT),)
SOURCE_DIR := $(BUILD)/src
BIN        := $(BUILD)/$(PROGRAM)
endif
include ../../common/rules.mk

# A CUDA exercise's PTX, for the checks that read what nvcc was asked to do
# (ptx_lines_matching in common/tests/stage_checks.h): one virtual
# architecture, whatever CUDA_ARCH builds, so that it reads the same anywhere.
ifeq ($(GPU),yes)
PTX := $(BUILD)/$(PROGRAM).ptx
$(PTX): $(SOURCE_DIR)/$(PROGRAM).cu $(HEADERS) | $(BUILD)
	$(Q)$(call say,PTX,$<)$(NVCC) -std=c++20 -arch=compute_90 $(filter -I%,$(NVCC_ALL)) -ptx -o $@ $<
endif

.PHONY: check check-built sources-sum sources-sha256
check-built: $(BIN) $(BUILD)/check_$(PROGRAM) $(PTX)

# TEST_FULL=1: an exercise's check runs every case of the shared matrices
# (make test in a stage takes a sample of them).
check: check-built
	@CHECK_LOG=$(BUILD)/check.log CHECK_NEEDS='$(NEEDS)' TEST_FULL=1 $(if $(PTX),CHECK_PTX=$(PTX)) \
	 $(if $(SOLUTION)$(MUTANT),,CHECK_RESULT=$(BUILD)/last-check CHECK_SOURCES_SUM=$$($(SOURCES_SUM))) \
	 ./$(BUILD)/check_$(PROGRAM) ./$(BIN)

sources-sum:
	@$(SOURCES_SUM)

# The same files' SHA-256, for make -C exercises report: a sum an instructor can recompute.
sources-sha256:
	@cat $(YOURS) | sha256sum | cut -d' ' -f1

$(BUILD)/check_$(PROGRAM).o: check_$(PROGRAM).c $(COMMON)/tests/stage_checks.h $(HEADERS) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/check_$(PROGRAM): $(BUILD)/check_$(PROGRAM).o $(LIB_CHECKS) $(LIB_HOST)
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS)

# -m32 where this compiler can build 32-bit programs (Debian: gcc-multilib),
# else empty: the exercises whose checks also run a 32-bit build (01, 14, 21)
# test it with ifneq ($(M32),). Probed once, the first time it is read. The
# 32-bit builds compile the common sources with them (COMMON_HOST_C), as the
# library is 64-bit.
M32 = $(eval M32 := $(shell printf 'int main(void) { return 0; }\n' | \
        $(CC) -m32 -x c -o /dev/null - 2>/dev/null && echo -m32))$(M32)
COMMON_HOST_C = $(addprefix $(COMMON)/,book.c harness.c bmp.c)

# The solution's sources, or a mutant's (the solution's with the patch applied,
# by Debian's patch): the solution's files, and the exercise's files that the
# solution does not hold (a host program that is not the exercise: written once).
ifneq ($(SOLUTION)$(MUTANT),)
SOLUTION_FILES := $(wildcard $(SOLUTION_DIR)/*.*)
GIVEN_FILES    := $(filter-out $(notdir $(SOLUTION_FILES)),$(YOURS))
$(SOURCE_DIR)/%: $(BUILD)/sources ;
.PRECIOUS: $(SOURCE_DIR)/% # copied, not made by a rule: never deleted as intermediate
$(BUILD)/sources: $(SOLUTION_FILES) $(GIVEN_FILES) $(MUTANT_PATCH)
	@$(if $(MUTANT),test -f $(MUTANT_PATCH) || { echo "no mutant $(MUTANT): $(MUTANT_PATCH) is missing"; exit 2; })
	@rm -rf $(SOURCE_DIR) && mkdir -p $(SOURCE_DIR)
	@cp $(SOLUTION_FILES) $(GIVEN_FILES) $(SOURCE_DIR)/
	$(if $(MUTANT),$(Q)$(call say,PATCH,$(MUTANT_PATCH))patch -s -p1 -d $(SOURCE_DIR) < $(MUTANT_PATCH))
	@touch $@
endif

# What the program reads at run time (an OpenCL kernel file) lies beside it.
ifneq ($(RUNTIME_FILES),)
ifneq ($(SOURCE_DIR),.)
$(BIN): | $(addprefix $(BUILD)/,$(RUNTIME_FILES))
$(addprefix $(BUILD)/,$(RUNTIME_FILES)): $(BUILD)/%: $(SOURCE_DIR)/% | $(BUILD)
	$(Q)$(call say,CP,$<)cp $< $@
endif
endif

clean: clean-solution
.PHONY: clean-solution
clean-solution:
	rm -rf build-solution build-mutant-*
