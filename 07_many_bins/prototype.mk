# prototype.mk - the build of issue 23's prototype, until it is a stage:
#     make -C 07_many_bins -f prototype.mk [CUDA_ARCH=90], then ./sweep.sh
# Not yet in stages.txt, so it names its program itself, as the exercises do,
# in a file that is not a Makefile (common's suite holds every stage folder
# with a Makefile to a line in stages.txt). Once the stage has its line, this
# becomes a Makefile of one line: include ../common/stage.mk.
PROGRAM := hist_gpu_many_bins
GPU     := yes
include ../common/rules.mk
