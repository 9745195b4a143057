# prototype.mk - issue 24's first piece, until 08_generalized is a stage (then
# this folder gets its line in stages.txt and a Makefile of one include):
#     make -C 08_generalized -f prototype.mk test
# builds and runs the suite of even_bins.h, the exact bin rule for any range.
SUITE := test_even_bins
include ../common/suite.mk
