# exercises/exercise.mk - how every exercise builds and checks itself, written once.
# An exercise's Makefile names its program, the file you edit, and its kind:
#     PROGRAM := cpu_threads        (you edit cpu_threads.c, or .cu for CUDA)
#     GPU     := no                 (yes: a CUDA exercise; OPENCL := yes: an OpenCL one)
#     include ../exercise.mk
#
#   make check              build your file and the check, and run the check
#   make check SOLUTION=1   the same with the reference solution (../solutions/<exercise>/)
#   make check MUTANT=NAME  the same with a wrong solution, ../solutions/<exercise>/mutants/NAME.patch
#                           (the solution with one classic mistake: its check must fail)
#   make run ARGS='...'     run your program
NAME := $(notdir $(CURDIR))
SOLUTION_DIR := ../solutions/$(NAME)
# Your files: what make status compares with the last check's.
YOURS := $(sort $(filter-out check_%,$(wildcard *.c *.cu *.cl *.h *.cuh)))
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

.PHONY: check check-built sources-sum
check-built: $(BIN) $(BUILD)/check_$(PROGRAM)

check: check-built
	@CHECK_LOG=$(BUILD)/check.log \
	 $(if $(SOLUTION)$(MUTANT),,CHECK_RESULT=$(BUILD)/last-check CHECK_SOURCES_SUM=$$($(MAKE) -s sources-sum)) \
	 ./$(BUILD)/check_$(PROGRAM) ./$(BIN)

sources-sum:
	@cat $(YOURS) | cksum | cut -d' ' -f1

$(BUILD)/check_$(PROGRAM).o: check_$(PROGRAM).c $(COMMON)/tests/stage_checks.h $(HEADERS) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/check_$(PROGRAM): $(BUILD)/check_$(PROGRAM).o $(LIB_CHECKS) $(LIB_HOST)
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS)

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
