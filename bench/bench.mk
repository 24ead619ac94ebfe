# bench/bench.mk — microbenchmarks (Google Benchmark C wrapper + suites), linked into the
# devharness CLI (CLI_OBJS/CLI_LDLIBS) and into a standalone driver
# $(BUILD)/bin/devharness-bench; the call suite's module $(BUILD)/lib/devharness_bench_ffi_noop.so.

BENCH_SRCS := bench/gbench.cc bench/common.c bench/devop.c bench/call.c bench/alloc.c \
              bench/copy.c bench/sync.c bench/launch.c bench/main.c bench/scripts.c \
              bench/ffi_peer.c
BENCH_OBJS := $(call obj,$(BENCH_SRCS))
BENCH_LDLIBS := -lbenchmark -lstdc++ -lhwloc -ljansson -ldl -lm
BENCH_DRIVER := $(BINDIR)/devharness-bench
BENCH_FFI_NOOP := $(LIBDIR)/devharness_bench_ffi_noop.so

CLI_OBJS += $(BENCH_OBJS)
CLI_LDLIBS += $(BENCH_LDLIBS)
ALL_TARGETS += $(BENCH_DRIVER) $(BENCH_FFI_NOOP)

# tvm-ffi's C header and library for the call/tvm_ffi peer, from the project venv
# (ci/python-requirements.txt: apache-tvm-ffi). Override with TVM_FFI_INCLUDE=DIR
# (empty to build the peer as a stub that reports why) and TVM_FFI_LIBFILE=PATH.
TVM_FFI_INCLUDE ?= $(TVM_FFI_ROOT)/include
TVM_FFI_LIBFILE ?= $(TVM_FFI_ROOT)/lib/libtvm_ffi.so
ifneq ($(TVM_FFI_INCLUDE),)
$(OBJDIR)/bench/ffi_peer.o: CPPFLAGS += -I$(TVM_FFI_INCLUDE) -DDH_HAVE_TVM_FFI_H \
    -DDH_TVM_FFI_LIBFILE='"$(TVM_FFI_LIBFILE)"'
endif
# The tvm-ffi answer is baked into ffi_peer.o: rebuild it when the answer changes.
$(OBJDIR)/bench/ffi_peer.o: $(OBJDIR)/bench/tvm_ffi.stamp
$(OBJDIR)/bench/tvm_ffi.stamp: FORCE_BENCH_TVM_FFI
	@mkdir -p $(@D)
	@echo '$(TVM_FFI_INCLUDE) $(TVM_FFI_LIBFILE)' | cmp -s - $@ || \
	    echo '$(TVM_FFI_INCLUDE) $(TVM_FFI_LIBFILE)' > $@
.PHONY: FORCE_BENCH_TVM_FFI
FORCE_BENCH_TVM_FFI:

$(BENCH_DRIVER): $(BENCH_OBJS) $(OBJDIR)/bench/driver.o $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $(BENCH_OBJS) $(OBJDIR)/bench/driver.o $(RUNTIME_LINK) $(BENCH_LDLIBS)

# A module exporting __tvm_ffi_noop; needs nothing from the runtime.
$(BENCH_FFI_NOOP): $(OBJDIR)/bench/ffi_noop.o
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $^

.PHONY: bench-driver
bench-driver: $(BENCH_DRIVER) $(BENCH_FFI_NOOP)

# The harness/raw ratio table (issue #13): 3 runs x 9 interleaved repetitions on
# cpu:0, opencl:0, vulkan:0 (override RATIO_ARGS, e.g. RATIO_ARGS='--devices cuda:0').
# Long (about 10-20 minutes); meant for a quiet machine. JSON of every run in
# $(BUILD)/ratio-table/.
RATIO_ARGS ?=
.PHONY: ratio-table
ratio-table: all
	python3 bench/ratio-table.py --devharness $(BINDIR)/devharness \
	    --out-dir $(BUILD)/ratio-table $(RATIO_ARGS)
