# gpusort: GPU sorting and XML tree reduction for PostgreSQL (PGXS build).
#
#   make && make install            build and install (needs pg_config on PATH)
#   make installcheck               pg_regress suite against a running server
#   test/run-all                    every test, on a throwaway cluster
#
# Layout: src/entry/ the module's entry; src/runtime/ the settings and
# statistics; src/memory/ the memory account and the cgroup budget;
# src/threads/ the worker threads; src/gpu/ the backend's CUDA session and
# device choice; src/sort/ GpuSort, one folder per subsystem (plan, agg,
# window, node, core, engine, keys, intake, spill); src/tree/ tree_reduce;
# kernels/ the shared CUDA runtime and the one C header, kernels/sort/ and
# kernels/tree/ each product's kernels.  test/layering.sh checks that an
# include never climbs back up this order.
#
# The CUDA kernels in kernels/ are built by nvcc when it is found (on PATH or
# in $(CUDA_HOME)) and linked against the static CUDA runtime, so the module
# still loads on a machine without a GPU or driver; there the CPU engines run.
# Without nvcc the module is built CPU-only.

MODULE_big = gpusort
EXTENSION  = gpusort
DATA       = gpusort--1.2.sql gpusort--1.0--1.1.sql gpusort--1.1--1.2.sql
PGFILEDESC = "gpusort - GPU sorting and XML tree reduction"

# The source tree: here, or VPATH in a build directory of its own
# (pg_buildext builds in build-N with VPATH set); names below are relative
# to it, and the objects go to the same names in the build directory.
src_tree := $(or $(VPATH),.)
in_tree   = $(patsubst $(src_tree)/%,%,$(sort $(wildcard $(addprefix $(src_tree)/,$(1)))))
C_SRCS  := $(call in_tree,src/*.c src/*/*.c src/*/*/*.c)
# (not HEADERS: PGXS would install those)
GS_HEADERS := $(call in_tree,src/*.h src/*/*.h src/*/*/*.h)
CU_SRCS := $(call in_tree,kernels/*.cu kernels/*/*.cu)
OBJS     = $(C_SRCS:.c=.o)

REGRESS      = $(patsubst sql/%.sql,%,$(call in_tree,sql/*.sql))
REGRESS_OPTS = --inputdir=$(src_tree) --outputdir=. --load-extension=plpgsql

# An include names the folder it crosses into: "keys/sortkey.h" (under
# src/sort/), "runtime/settings.h" (under src/); one in its own folder is bare
PG_CPPFLAGS += -I$(srcdir)/src -I$(srcdir)/src/sort -I$(srcdir)/kernels
SHLIB_LINK  += -lpthread
# no path of the build machine in the module (__FILE__ of ereport and Assert)
PG_CFLAGS   += -ffile-prefix-map=$(abspath $(src_tree))/=

# GpuWindow's float aggregates must give float.c's bits: no multiply and add
# contracted into one fused operation, which float.c does not do either
# (windowfuncs.c computes them, winresult.c finishes them, the others as
# they were when they were one file)
src/sort/window/windowfuncs.o src/sort/window/winresult.o \
src/sort/window/winboundary.o src/sort/window/winframe.o \
src/sort/window/winplan.o src/sort/window/winnumeric.o: CFLAGS += -ffp-contract=off

CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/nvcc))
# Compute capability to build for (90 = H100/H200); PTX is embedded too, so
# newer GPUs JIT-compile it.
CUDA_ARCH ?= 90

# The static runtime lives in lib64/ or lib/ of a CUDA install and in the
# multiarch directory of Debian's nvidia-cuda-dev; an nvcc without it (some
# images ship only the shared runtime) cannot build a module that loads on a
# machine without CUDA, so that case builds CPU-only too.
ifneq ($(strip $(NVCC)),)
CUDA_HOME    := $(patsubst %/bin/nvcc,%,$(or $(realpath $(NVCC)),$(NVCC)))
CUDART_STATIC ?= $(firstword $(wildcard $(addsuffix /libcudart_static.a,\
	$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib $(CUDA_HOME)/targets/*/lib \
	$(patsubst %/bin/nvcc,%,$(NVCC))/lib64 /usr/lib/$(shell uname -m)-linux-gnu /usr/lib64)))
endif

ifneq ($(and $(strip $(NVCC)),$(CU_SRCS),$(CUDART_STATIC)),)
OBJS      += $(CU_SRCS:.cu=.o)
SHLIB_LINK += $(CUDART_STATIC) -ldl -lrt -lstdc++
NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
	-Xcompiler -ffile-prefix-map=$(abspath $(src_tree))/= \
	-gencode arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) \
	-gencode arch=compute_$(CUDA_ARCH),code=compute_$(CUDA_ARCH) \
	-I$(srcdir)/kernels -I$(srcdir)/src
else
# the one build switch: the GPU engines compile to stubs that answer
# "built without CUDA", and nothing refers to the kernels
PG_CPPFLAGS += -DGPUSORT_NO_CUDA
# Said once, by the make that builds (`make`, `make all`), not again by
# `make install` or `make clean`.
ifeq ($(filter-out all %.so %.o,$(MAKECMDGOALS)),)
$(info gpusort: building without the GPU engines (CPU only): $(if $(strip $(NVCC)),$(NVCC) has no libcudart_static.a under $(CUDA_HOME),no CUDA compiler (nvcc) on PATH or in $(CUDA_HOME)))
endif
endif

# Debian's PostgreSQL asks for LLVM bitcode of every object; nvcc makes none.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# kernels/sort/x.cu -> kernels/sort/x.o too (% spans the subdirectory); the
# tree kernels include src/tree's representation and contraction headers
kernels/%.o: kernels/%.cu $(call in_tree,kernels/*.h kernels/*.cuh kernels/*/*.cuh src/tree/*.h)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(C_SRCS:.c=.o): $(GS_HEADERS) $(call in_tree,kernels/*.h)

# a VPATH build makes the objects' folders in its build directory
ifneq ($(src_tree),.)
$(shell mkdir -p $(sort $(dir $(OBJS))))
endif
