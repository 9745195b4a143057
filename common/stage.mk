# common/stage.mk - the whole Makefile of a stage is: include ../common/stage.mk
# Its program and what it runs on come from its line in stages.txt (the
# folder's name is the key); the rules are rules.mk's.
STAGE    := $(notdir $(CURDIR))
REGISTRY := $(dir $(lastword $(MAKEFILE_LIST)))../stages.txt
ENTRY    := $(shell awk -v f='$(STAGE)' '$$1 == f { print $$2, $$3; exit }' $(REGISTRY))
PROGRAM  := $(word 1,$(ENTRY))
ifeq ($(PROGRAM),)
$(error $(STAGE) is not in stages.txt: add its line there)
endif
GPU      := $(if $(filter cuda,$(word 2,$(ENTRY))),yes,no)
OPENCL   := $(if $(filter opencl,$(word 2,$(ENTRY))),yes,no)
include $(dir $(lastword $(MAKEFILE_LIST)))rules.mk
