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
ifeq ($(SOLUTION),1)
SOURCE_DIR := $(SOLUTION_DIR)
BUILD      := build-solution
BIN        := build-solution/$(PROGRAM)
endif
ifneq ($(MUTANT),)
MUTANT_PATCH := $(SOLUTION_DIR)/mutants/$(MUTANT).patch
BUILD      := build-mutant-$(MUTANT)
SOURCE_DIR := $(BUILD)/src
BIN        := $(BUILD)/$(PROGRAM)
endif
include ../../common/rules.mk

# Your files: what make status compares with the last check's.
YOURS := $(sort $(filter-out check_%,$(wildcard *.c *.cu *.cl *.h *.cuh)))

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

# A mutant's sources: the solution's, with the patch applied (patch, from Debian).
ifneq ($(MUTANT),)
$(SOURCE_DIR)/%: $(BUILD)/patched ;
.PRECIOUS: $(SOURCE_DIR)/% # made by the patch, not by make: never deleted as intermediate
$(BUILD)/patched: $(MUTANT_PATCH) $(wildcard $(SOLUTION_DIR)/*.*)
	@test -f $(MUTANT_PATCH) || { echo "no mutant $(MUTANT): $(MUTANT_PATCH) is missing"; exit 2; }
	@rm -rf $(SOURCE_DIR) && mkdir -p $(SOURCE_DIR)
	@cp $(wildcard $(SOLUTION_DIR)/*.*) $(SOURCE_DIR)/
	$(Q)$(call say,PATCH,$(MUTANT_PATCH))patch -s -p1 -d $(SOURCE_DIR) < $(MUTANT_PATCH)
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
