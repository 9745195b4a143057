# exercises/exercise.mk - how every exercise builds and checks itself, written once.
# An exercise's Makefile names its program, the file you edit, and its kind:
#     PROGRAM := char_histogram     (you edit char_histogram.c, or .cu for CUDA)
#     GPU     := no                 (yes: a CUDA exercise; OPENCL := yes: an OpenCL one)
#     include ../exercise.mk
#
#   make check              build your file and the check, and run the check
#   make check SOLUTION=1   the same with the reference solution (../solutions/<exercise>/)
#   make run ARGS='...'     run your program
NAME := $(notdir $(CURDIR))
ifeq ($(SOLUTION),1)
SOURCE_DIR := ../solutions/$(NAME)
BUILD      := build-solution
BIN        := build-solution/$(PROGRAM)
endif
include ../../common/rules.mk

.PHONY: check
check: $(BIN) $(BUILD)/check_$(PROGRAM)
	./$(BUILD)/check_$(PROGRAM) ./$(BIN)

$(BUILD)/check_$(PROGRAM).o: check_$(PROGRAM).c $(COMMON)/tests/stage_checks.h $(HEADERS) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/check_$(PROGRAM): $(BUILD)/check_$(PROGRAM).o $(LIB_CHECKS) $(LIB_HOST)
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS)

clean: clean-solution
.PHONY: clean-solution
clean-solution:
	rm -rf build-solution
