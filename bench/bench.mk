# bench/bench.mk — microbenchmarks (Google Benchmark C wrapper + suites), linked into the
# devharness command (CLI_OBJS/CLI_LDLIBS); the call suite's module
# $(BUILD)/lib/devharness_bench_ffi_noop.so.

# bench/ is the command (bench/main.c: the order of a run; its steps bench/steps.h);
# every bench/suites/*.c but the table's own suites.c is a suite (its row:
# bench/suites/suites.h); bench/measure/ is what the suites measure with (the Google
# Benchmark wrapper, timers, kept buffers, thread placement, the call suite's tvm-ffi
# peer; its ffi_noop.c is a module of its own, below); bench/report/ is what a run says
# after it (summary, --expect verdicts, the matrix tables, the --out file).
BENCH_SUITE_SRCS := $(filter-out bench/suites/suites.c,$(sort $(wildcard bench/suites/*.c)))
BENCH_MEASURE_SRCS := $(filter-out bench/measure/ffi_noop.c,$(sort $(wildcard bench/measure/*.c bench/measure/*.cc)))
BENCH_SRCS := $(sort $(wildcard bench/*.c bench/report/*.c)) bench/suites/suites.c \
              $(BENCH_MEASURE_SRCS) $(BENCH_SUITE_SRCS)
BENCH_OBJS := $(call obj,$(BENCH_SRCS))
BENCH_LDLIBS := -lbenchmark -lstdc++ -lhwloc -ljansson -ldl -lm $(TVM_FFI_LINK)
BENCH_FFI_NOOP := $(LIBDIR)/devharness_bench_ffi_noop.so

CLI_OBJS += $(BENCH_OBJS)
CLI_LDLIBS += $(BENCH_LDLIBS)
ALL_TARGETS += $(BENCH_FFI_NOOP)

# A module exporting __tvm_ffi_noop; needs nothing from the runtime.
$(BENCH_FFI_NOOP): $(OBJDIR)/bench/measure/ffi_noop.o
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $^

# The harness/raw ratio table (docs/benchmarks.md "Harness/raw ratios on a shared
# machine"): 3 runs x 9 interleaved repetitions on cpu:0, sim:0, opencl:0 and vulkan:0
# (override RATIO_ARGS, e.g. RATIO_ARGS='--devices cuda:0'). Long (tens of minutes);
# meant for a quiet machine. JSON of every run in $(BUILD)/ratio-table/.
RATIO_ARGS ?=
.PHONY: ratio-table
ratio-table: all
	python3 bench/scripts/ratio_table.py --devharness $(BINDIR)/devharness \
	    --out-dir $(BUILD)/ratio-table $(RATIO_ARGS)

# The Python tools of plot and compare (and matrix_heatmap.py, which plot.py draws
# with), staged with the modules they import (Makefile SHARE_FILES).
SHARE_FILES += bench/scripts/plot.py bench/scripts/compare.py bench/scripts/benchjson.py \
               bench/scripts/matrix_heatmap.py bench/scripts/charts.py
