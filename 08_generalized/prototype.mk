# prototype.mk - issue 24's first piece, until 08_generalized is a stage (then
# this folder gets its line in stages.txt and a Makefile of one include):
#     make -C 08_generalized -f prototype.mk test
# builds and runs the suite of its pieces: even_bins.h (the exact bin rule for
# any range) and float_order.h (floats as ordered integers, for min and max).
SUITE := test_pieces
include ../common/suite.mk

# its pieces are headers: a change to one rebuilds the suite
$(BUILD)/$(SUITE): even_bins.h float_order.h
