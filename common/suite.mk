# common/suite.mk - the build of a folder whose one program is a Check suite
# (plots/, chapters/), written once. Its Makefile names the suite:
#     SUITE := test_plots            (the source is tests/test_plots.c)
#     include ../common/suite.mk
# and gets: make (build), make test, make clean (which also removes CLEAN).

include $(dir $(lastword $(MAKEFILE_LIST)))flags.mk

.PHONY: all test needs clean
all: $(BUILD)/$(SUITE)

$(BUILD)/$(SUITE): tests/$(SUITE).c $(COMMON)/book.h $(COMMON)/harness.h \
                   $(COMMON)/tests/command_checks.h $(LIB_HOST) | $(BUILD)
	$(Q)$(call say,CC,$<)$(CC) $(CFLAGS) $(HOST_C) -I$(COMMON)/tests $(CHECK_CFLAGS) -o $@ $< $(LIB_HOST) \
	    $(CHECK_LIBS)

$(BUILD):
	@mkdir -p $@

test: $(BUILD)/$(SUITE)
	./$(BUILD)/$(SUITE)

needs:
	@:

clean:
	rm -rf $(BUILD) $(CLEAN)
