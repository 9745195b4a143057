# The workbook's top level: every stage is built, run and tested from here.
# `make help` lists the targets; each stage also builds on its own (make -C 03_shared_atomics).

# The stages, in order, from stages.txt: the one list (see its header).
STAGES    := $(shell awk '!/^[ \t]*(\#|$$)/ { print $$1 }' stages.txt)
TOOLS     := plots/read_bandwidth plots/atomic_cost

# Stages whose compiler or headers are missing are left out with a note
# (common/can-build.sh), decided when they are built: after `make deps`.
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(CUDA_HOME)/bin/nvcc
export CUDA_HOME NVCC
# make test NO_DEPS=1 skips the package check (machines without apt or network);
# make test TEST_JOBS=N runs N suites at once (common/run-tests.sh)
DEPS      := $(if $(NO_DEPS),,deps)

# Build on every core unless told otherwise (make -j1 still means one job);
# the makes below this one share its job slots.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

# The GPU's architecture, asked once here for every sub-make (common/flags.mk).
include common/cuda-arch.mk

.PHONY: all built common demo demo-short test test-full asan bench lab profile plots many-bins generalized timeline equalize chapters deps help clean \
        $(STAGES) $(TOOLS)

all: $(STAGES) $(TOOLS)

# common/'s libraries first, once, so that stages built in parallel find them made.
common:
	@$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) -C common libs

$(STAGES) $(TOOLS): common
	@if common/can-build.sh $@; then $(MAKE) --no-print-directory -C $@; fi

# What runs the programs needs the packages first, then the build (on every
# core, in a make of its own so that it starts only once the packages are in).
built: $(DEPS)
	@$(MAKE) --no-print-directory all

demo: built
	@plots/demo.sh

# the runs of plots/brief.txt alone, in a table that fits a projector (BRIEF=file: others)
demo-short: built
	@plots/demo.sh --short

# A sample of every matrix; test-full runs every case (TEST_FULL=1).
test: built
	@common/run-tests.sh common common/tests $(STAGES) $(TOOLS) plots chapters exercises

test-full: built
	@TEST_FULL=1 common/run-tests.sh common common/tests $(STAGES) $(TOOLS) plots chapters exercises

# BENCH_SIZE, BENCH_REPS, BENCH_SWEEPS, BENCH_OUT, BENCH_ONLY: see plots/bench.sh
bench: built
	@plots/bench.sh

# a lab's machines side by side, from the CSVs make bench wrote on each:
# LAB (folder, default lab/), LAB_SIZE, LAB_DATA, LAB_STAGES: see plots/lab.sh
lab: $(DEPS)
	@plots/lab.sh

# PROFILE_SIZE, PROFILE_DATA, PROFILE_OUT, NCU: see plots/profile.sh (77: cannot run here)
profile: built
	@plots/profile.sh

plots: $(DEPS)
	@plots/plots.sh

# stage 06's timeline (plots/results/timeline-06_streams-*.txt, written by
# hist_gpu_streams --timeline) and stage 09's photograph before and after
# (plots/results/equalize-*.dat, by hist_gpu_equalize --chart), drawn
timeline: $(DEPS)
	@plots/timeline.sh
equalize: $(DEPS)
	@plots/equalize.sh

# stage 07_many_bins against its targets on every GPU swept, from
# plots/results/sweep-07-many-bins-*.csv: MANY_BINS_OUT, see plots/many-bins.sh
many-bins: $(DEPS)
	@plots/many-bins.sh

# stage 08_generalized against chapter 08's targets on every GPU swept, from
# plots/results/sweep-08-generalized-*.csv, and the photograph's hues from
# plots/results/hue-*.dat: GENERALIZED_OUT, see plots/generalized.sh
generalized: $(DEPS)
	@plots/generalized.sh

# every command the chapters show, run as written (CHAPTERS='chapters/03_shared_atomics.md': one)
chapters: $(DEPS)
	@chapters/run-commands.sh $(CHAPTERS)

asan: $(DEPS)
	@$(MAKE) --no-print-directory -C common asan

deps:
	@common/deps.sh

# the workbook for students, in DEST: no solutions, mutants, CI or git history
# (exercises/student-copy.sh; make -C exercises report is how they hand results back)
.PHONY: student-copy
student-copy:
	@exercises/student-copy.sh "$${DEST-}"

help:
	@echo "make            build every stage, on every core (make -j1: one at a time; V=1 shows"
	@echo "                each command in full). CUDA code is built for: $(CUDA_ARCH)"
	@echo "                ($(CUDA_ARCH_FROM)). By default that is the GPU nvidia-smi"
	@echo "                sees; where it sees none, the portable '$(PORTABLE_CUDA_ARCH)'"
	@echo "                (slower to build). CUDA_ARCH='80 90' or CUDA_ARCH=native chooses."
	@echo "make demo       run every stage on the book's 100 MiB input, one table"
	@echo "                (DEMO_ARGS='--size 1G --data skewed' changes the input)"
	@echo "make demo-short the runs plots/brief.txt lists, in one table of at most 100 columns"
	@echo "                for a projector (20 s on an H100: plots/results/lab-times-*.txt)"
	@echo "make test       run every Check suite on a sample of each matrix of cases, every"
	@echo "                stage, variant and strategy at least once; GPU checks skip visibly"
	@echo "                without a GPU (TEST_JOBS=N: N suites at once)"
	@echo "make test-full  the same with every case: every size x data kind x launch x variant"
	@echo "                x work-group size, and each stage's own inputs past 2 GiB (run it"
	@echo "                on a GPU before a change to GPU code lands)"
	@echo "make bench      run every stage on every input, with sweeps where a GPU is; one CSV"
	@echo "                for this machine, lab/<host>-<GPU>.csv, never another machine's"
	@echo "                (BENCH_NAME=seat07 names it; BENCH_SWEEPS=no: the runs a lab needs;"
	@echo "                BENCH_SIZE=1M: a quick one)"
	@echo "make lab        a lab's machines side by side: the CSVs of make bench collected in"
	@echo "                LAB=<folder> (default lab/) drawn as a chart and a table there"
	@echo "                (LAB_SIZE=16M, LAB_STAGES='03_shared_atomics 05_privatized')"
	@echo "make profile    Nsight Compute on every GPU stage and variant: plots/results/profile-*.csv"
	@echo "make timeline   stage 06's copies and kernels on a time axis, from its --timeline files"
	@echo "make equalize   stage 09's photograph before and after, from its --chart files"
	@echo "make plots      the workbook's own figures, plots/figures/, from its reference results"
	@echo "                in plots/results/ (PLOTS_RESULTS=lab: each lab machine's own, in lab/figures/)"
	@echo "make many-bins  stage 07_many_bins against its targets on every GPU swept, from the sweeps"
	@echo "                plots/results/sweep-07-many-bins-*.csv: a report, many-bins-targets.txt"
	@echo "                beside them, and a chart, plots/figures/many-bins-gpus.png (MANY_BINS_OUT:"
	@echo "                one folder for both)"
	@echo "make generalized  stage 08_generalized against chapter 08's targets on every GPU swept,"
	@echo "                from the sweeps plots/results/sweep-08-generalized-*.csv: a report,"
	@echo "                generalized-targets.txt beside them; charts in plots/figures/: the"
	@echo "                cases, generalized-gpus.png, and the photograph's hues,"
	@echo "                hue-stats-chelsea.png (from results/hue-36-chelsea.dat)"
	@echo "                (GENERALIZED_OUT: one folder for all)"
	@echo "make chapters   run every command the chapters show, as written, and compare"
	@echo "                the recorded outputs made on this machine with a new run"
	@echo "make asan       the common/ suite (file and BMP readers) under AddressSanitizer"
	@echo "make deps       install missing Debian packages (apt-get; sudo when not root)"
	@echo "make -C exercises help   the exercises: check and status"
	@echo "make student-copy DEST=<folder>   (instructors) the workbook for students: no solutions, no history"
	@echo "make clean      remove every build"
	@echo "make -C 03_shared_atomics run ARGS='--blocks-per-sm 8'   one stage by hand"

clean:
	for s in common common/tests $(STAGES) $(TOOLS) plots chapters; do $(MAKE) -C $$s clean; done
