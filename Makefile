# gpudb — PGXS build.
#
#   make [PG_CONFIG=...] [WITH_CUDA=0|1] [CUDA_HOME=...]
#
# The CUDA path is built when nvcc is found ($(CUDA_HOME)/bin/nvcc, default
# /usr/local/cuda) unless WITH_CUDA=0.  cudart and CUB are linked statically,
# so gpudb.so loads on a machine without any CUDA library or driver.

EXTENSION    = gpudb
EXTVERSION   = 0.1.0
MODULE_big   = gpudb
DATA         = sql/gpudb--$(EXTVERSION).sql
PG_CONFIG   ?= pg_config

# src/ by layer: the module's entry and the boundary and semantics headers
# at its top; planner, executor, cache, server, heap (readers), cpu (the
# CPU path, plain C) and common (dictionary, fixed point, code tables)
SRC_DIRS     = planner executor cache server heap cpu common
SRC_C        = $(filter-out src/cpu/cuda_absent.c,$(wildcard src/*.c $(addsuffix /*.c,$(addprefix src/,$(SRC_DIRS)))))
SRC_H        = $(wildcard src/*.h $(addsuffix /*.h,$(addprefix src/,$(SRC_DIRS))))
OBJS         = $(SRC_C:.c=.o)

# pg_regress suite: sql/<name>.sql against expected/<name>.out
REGRESS      = $(sort $(notdir $(basename $(filter-out sql/gpudb--%,$(wildcard sql/*.sql)))))
REGRESS_OPTS = --inputdir=. --load-extension=gpudb

# isolation tests (two or more sessions): specs/<name>.spec against
# expected/<name>.out, results in output_iso/
ISOLATION    = $(sort $(notdir $(basename $(wildcard specs/*.spec))))
ISOLATION_OPTS = --load-extension=gpudb

CUDA_HOME   ?= /usr/local/cuda
NVCC        ?= $(CUDA_HOME)/bin/nvcc
ifeq ($(origin WITH_CUDA),undefined)
WITH_CUDA   := $(if $(wildcard $(NVCC)),1,0)
endif

ifeq ($(WITH_CUDA),1)
CUDA_SRC     = $(wildcard cuda/*.cu)
# Linked through SHLIB_LINK rather than OBJS: PGXS installs LLVM bitcode for
# every member of OBJS when PostgreSQL has --with-llvm, and nvcc makes none.
CUDA_OBJS    = $(CUDA_SRC:.cu=.o)
EXTRA_CLEAN += $(CUDA_OBJS)
CUDA_ARCH   ?= -gencode arch=compute_80,code=sm_80 \
               -gencode arch=compute_90,code=sm_90 \
               -gencode arch=compute_90,code=compute_90
# -fmad=false: no multiply-add contraction, so that the device rounds every
# float product and sum as gcc's code for the same semantics header
# (gpudb_semantics.h, expr_semantics.h) and PostgreSQL's float8 operators
# do: the variance step b.f * n - r.f, a * b + c in expressions.
NVCC_FLAGS  ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
               -fmad=false -Isrc --expt-relaxed-constexpr
SHLIB_LINK  += $(CUDA_OBJS) -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
OBJS        += src/cpu/cuda_absent.o
endif

PG_CPPFLAGS += -Isrc $(addprefix -Isrc/,$(SRC_DIRS))
# a function used without its header is an error, not a symbol missing at load time
PG_CFLAGS   += -Werror=implicit-function-declaration
# -ffp-contract=off: the C side never fuses a multiply and an add either
# (gcc contracts by default where the target has FMA, e.g. -march=native),
# so the CPU path rounds as the device (-fmad=false above) and PostgreSQL do
PG_CFLAGS   += -ffp-contract=off

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# The build's configuration, in stamp files: make knows only file times, so
# without them a change (make WITH_CUDA=1 after a CPU-only build, another
# PG_CONFIG, other CUDA_ARCH) would keep the old objects and gpudb.so.  A
# stamp is rewritten only when its configuration differs from the one it
# holds, and the objects built with that configuration depend on it:
#   .gpudb-build.stamp  WITH_CUDA, and the PostgreSQL whose headers the C
#                       objects are compiled against: the C objects, their
#                       bitcode and gpudb.so
#   .gpudb-cuda.stamp   nvcc and its flags: the CUDA objects, which include
#                       no PostgreSQL header (so switching PostgreSQL versions
#                       does not recompile them)
BUILD_STAMP  = .gpudb-build.stamp
BUILD_CONFIG = WITH_CUDA=$(WITH_CUDA) CUDA_HOME=$(CUDA_HOME) $(shell $(PG_CONFIG) --version) $(shell $(PG_CONFIG) --includedir-server)
ifneq ($(BUILD_CONFIG),$(shell cat $(BUILD_STAMP) 2>/dev/null))
$(shell echo '$(BUILD_CONFIG)' > $(BUILD_STAMP))
endif
CUDA_STAMP   = .gpudb-cuda.stamp
ifeq ($(WITH_CUDA),1)
CUDA_CONFIG  = $(NVCC) $(NVCC_FLAGS)
ifneq ($(CUDA_CONFIG),$(shell cat $(CUDA_STAMP) 2>/dev/null))
$(shell echo '$(CUDA_CONFIG)' > $(CUDA_STAMP))
endif
endif
EXTRA_CLEAN += $(BUILD_STAMP) $(CUDA_STAMP)
# A stamp written by $(shell) above may be missing from make's cache of the
# directory (read before the parse wrote it: a fresh clone's first make,
# which then found no rule for the objects that depend on it); with these
# rules make writes it again instead.
$(BUILD_STAMP):
	echo '$(BUILD_CONFIG)' > $@
$(CUDA_STAMP):
	echo '$(CUDA_CONFIG)' > $@

cuda/%.o: cuda/%.cu $(CUDA_STAMP) src/gpudb_device.h src/gpudb_semantics.h src/expr_semantics.h src/column_store.h $(wildcard cuda/*.cuh)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(OBJS): $(SRC_H) $(BUILD_STAMP)
# the LLVM bitcode that PGXS builds and installs next to the objects when
# PostgreSQL has --with-llvm (Debian's 15 has)
$(OBJS:.o=.bc): $(SRC_H) $(BUILD_STAMP)

# The CUDA objects are not in OBJS (no bitcode for them), so the module
# depends on them explicitly.
ifeq ($(WITH_CUDA),1)
$(MODULE_big)$(DLSUFFIX): $(CUDA_OBJS)
endif
$(MODULE_big)$(DLSUFFIX): $(BUILD_STAMP)

# The device self-test: GPU path against the CPU path on random batches.
# Always relinked, so that switching WITH_CUDA never leaves a stale binary.
.PHONY: test/device_selftest
SELFTEST_C   = src/cpu/cpu_path.c src/cpu/cpu_hash_join.c src/cpu/cpu_select_sort.c src/cpu/cpu_store.c
test/device_selftest: test/device_selftest.c test/splitmix64.h $(SELFTEST_C) src/column_store.h $(CUDA_OBJS)
	$(CC) -O2 -ffp-contract=off -Isrc -Isrc/cpu -o $@ test/device_selftest.c $(SELFTEST_C) $(CUDA_OBJS) \
	    $(if $(filter 1,$(WITH_CUDA)),-L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++,src/cpu/cuda_absent.c) -lm

.PHONY: selftest
selftest: test/device_selftest
	./test/device_selftest

# Bandwidth of the benchmark's B1 / B2 kernels over a cached store
# (test/bench/kernel_bw.c; device only, prints timings).
.PHONY: test/bench/kernel_bw
test/bench/kernel_bw: test/bench/kernel_bw.c test/bench/store_bench.h test/splitmix64.h $(SELFTEST_C) $(CUDA_OBJS)
	$(CC) -O2 -Isrc -Isrc/cpu -o $@ test/bench/kernel_bw.c $(SELFTEST_C) $(CUDA_OBJS) \
	    -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++ -lm

# Device time by phase of TPC-H Q1's request shape over a cached store
# (test/bench/q1_phases.c; device only, prints timings).
.PHONY: test/bench/q1_phases
test/bench/q1_phases: test/bench/q1_phases.c test/bench/store_bench.h test/splitmix64.h $(SELFTEST_C) $(CUDA_OBJS)
	$(CC) -O2 -Isrc -Isrc/cpu -o $@ test/bench/q1_phases.c $(SELFTEST_C) $(CUDA_OBJS) \
	    -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++ -lm
