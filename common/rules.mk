# common/rules.mk - the build rules every stage includes, written once.
#
# A stage's Makefile names its program and whether it is a CUDA program:
#     PROGRAM := hist_gpu_shmem_atomics
#     GPU     := yes
#     include ../common/rules.mk
# and gets: make (build), make run ARGS='--data constant', make test, make clean.
# The knobs (CUDA_ARCH, WERROR, ...) are in flags.mk.

include $(dir $(lastword $(MAKEFILE_LIST)))flags.mk

# Exercises build the same way from another folder (their solutions): SOURCE_DIR, BIN.
SOURCE_DIR  ?= .
BIN         ?= $(PROGRAM)
COMMON_OBJS := $(BUILD)/book.o $(BUILD)/bmp.o
ifeq ($(GPU),yes)
COMMON_OBJS += $(BUILD)/book_gpu.o
PROGRAM_OBJ := $(BUILD)/$(PROGRAM).cu.o
LINK        := $(NVCC) $(GENCODE)
else
PROGRAM_OBJ := $(BUILD)/$(PROGRAM).o
LINK        := $(CC) $(CFLAGS) -pthread
endif
ifeq ($(OPENCL),yes)
COMMON_OBJS += $(BUILD)/book_opencl.o
LIBS        += $(OPENCL_LIBS)
endif
TEST_OBJS   := $(BUILD)/test_$(PROGRAM).o $(BUILD)/stage_checks.o $(BUILD)/book.o $(BUILD)/bmp.o

.PHONY: all run test clean
all: $(BIN)

$(BIN): $(PROGRAM_OBJ) $(COMMON_OBJS)
	$(LINK) -o $@ $^ $(LIBS)

$(BUILD)/%.o: $(SOURCE_DIR)/%.c $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) $(if $(filter yes,$(OPENCL)),-DBOOK_OPENCL $(OPENCL_CFLAGS)) \
	      -pthread -c -o $@ $<

$(BUILD)/%.cu.o: $(SOURCE_DIR)/%.cu $(COMMON)/book.h $(COMMON)/read_kernel.cuh | $(BUILD)
	$(NVCC) $(NVCCFLAGS) $(NVCC_ALL) -c -o $@ $<

$(BUILD)/book.o $(BUILD)/bmp.o: $(BUILD)/%.o: $(COMMON)/%.c $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) -c -o $@ $<

$(BUILD)/book_opencl.o: $(COMMON)/book_opencl.c $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) -DBOOK_OPENCL $(OPENCL_CFLAGS) -c -o $@ $<

# Host C against the CUDA runtime's C API: no kernels in it, so no nvcc needed.
$(BUILD)/book_gpu.o: $(COMMON)/book_gpu.c $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) -DBOOK_CUDA -I$(CUDA_HOME)/include -c -o $@ $<

$(BUILD)/stage_checks.o: $(COMMON)/tests/stage_checks.c $(COMMON)/tests/stage_checks.h \
                         $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/test_%.o: test_%.c $(COMMON)/tests/stage_checks.h $(COMMON)/book.h | $(BUILD)
	$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -c -o $@ $<

$(BUILD)/test_$(PROGRAM): $(TEST_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(CHECK_LIBS)

$(BUILD):
	mkdir -p $@

run: $(BIN)
	./$(BIN) $(ARGS)

# The suite runs the real program, as a user would, and compares its output
# with the CPU reference computed in the test itself.
test: $(BIN) $(BUILD)/test_$(PROGRAM)
	./$(BUILD)/test_$(PROGRAM) ./$(BIN)

clean:
	rm -rf $(BUILD) $(BIN)
