# tests/bench/tests.mk — tests of the benchmark side (bench/):
#   bench_gbench           the Google Benchmark C wrapper (bench/measure/gbench.h)
#   bench_summary          the summary's twin-defect flag needs repetitions (bench/report/summary.c)
#   bench_cli.sh           bench, compare and plot end to end
#   bidir_order.sh         the harness's bidirectional pair in its twin's order
#   installed_scripts.sh   plot and compare find their scripts, installed and in the tree
#   out_file.sh            --out is complete or absent (missing folder, full disk)
#   color.sh               colour: terminal, NO_COLOR, --color, --benchmark_color
#   new_suite.sh           docs/adding-a-bench-suite.md followed on a copy of bench/
#   units.t                one bandwidth unit (SI GB/s): table, JSON and summary agree
#   implausible.t          a copy whose bytes had not arrived after stream_sync is an error, never a
#                          bandwidth (tests/conformance/faulty_syncnop.c)
#   matrix.t               bench --suite matrix: N x N tables, every cell a value or a reason
#                          (with the peerflip.c test plugin: wrong bytes are caught)
$(eval $(call dh_test,bench_gbench,tests/bench/test_gbench.c bench/measure/gbench.cc,-lbenchmark -lstdc++ -ljansson -lcmocka))
# bench_summary: the harness/raw table's twin-defect flag (bench/report/summary.c)
$(eval $(call dh_test,bench_summary,tests/bench/test_summary.c bench/report/summary.c machine/ceilings.c,-lhwloc -ljansson -lcmocka -lm))
TEST_SCRIPTS += tests/bench/bench_cli.sh tests/bench/implausible.t

# A sim-derived test plugin that logs the order of copies (tests/bench/bidirorder.c),
# for tests/bench/bidir_order.sh. Outside the plugin folder: found only through
# DEVHARNESS_PLUGIN_PATH.
ifneq ($(SIM_CORE_SRCS),)
BENCH_BIDIR_PLUGIN := $(TESTDIR)/bench/plugins/libdevharness_bidirorder.so
$(BENCH_BIDIR_PLUGIN): $(call obj,$(SIM_CORE_SRCS) tests/bench/bidirorder.c) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$ORIGIN/../../../lib'
ALL_TARGETS += $(BENCH_BIDIR_PLUGIN)
endif
TEST_SCRIPTS += tests/bench/bidir_order.sh
# The sim whose copies between two of its devices flip a byte (tests/bench/peerflip.c),
# for tests/bench/matrix.t.
ifneq ($(SIM_CORE_SRCS),)
BENCH_PEERFLIP_PLUGIN := $(TESTDIR)/bench/peerflip/libdevharness_peerflip.so
$(BENCH_PEERFLIP_PLUGIN): $(call obj,$(SIM_CORE_SRCS) tests/bench/peerflip.c) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$ORIGIN/../../../lib'
ALL_TARGETS += $(BENCH_PEERFLIP_PLUGIN)
endif
TEST_SCRIPTS += tests/bench/installed_scripts.sh
TEST_SCRIPTS += tests/bench/out_file.sh
TEST_SCRIPTS += tests/bench/color.sh

# This build's compile and link lines for the devharness command, as a make fragment,
# for tests/bench/new_suite.sh: it adds a suite to a copy of bench/ the way
# docs/adding-a-bench-suite.md says, compiles the copy's bench/suites/suites.c and the new file
# with these flags (gcc or clang, sanitizers included) and links them with the
# command's other objects (every object of $(DEVHARNESS) but the suites table) into a
# devharness of its own. `$` is written as `$$` so the fragment reads back as written.
BENCH_NEW_SUITE_VARS := $(TESTDIR)/bench/new_suite.vars.mk
dh_bench_mk_value = $(subst $$,$$$$,$(1))
$(BENCH_NEW_SUITE_VARS): Makefile $(wildcard */*.mk) tests/bench/tests.mk $(BENCH_SUITE_SRCS) $(CLI_OBJS)
	$(shell mkdir -p $(@D))$(file >$@,# $@: written by tests/bench/tests.mk)
	$(file >>$@,CC := $(call dh_bench_mk_value,$(CC)))
	$(file >>$@,CXX := $(call dh_bench_mk_value,$(CXX)))
	$(file >>$@,COMPILE_FLAGS := $(call dh_bench_mk_value,$(CPPFLAGS) $(CFLAGS)))
	$(file >>$@,LINK_FLAGS := $(call dh_bench_mk_value,$(LDFLAGS)))
	$(file >>$@,LINK_OBJS := $(abspath $(filter-out $(OBJDIR)/bench/suites/suites.o,$(CLI_OBJS)) $(BASE_LIB)))
	$(file >>$@,LINK_LIBS := $(call dh_bench_mk_value,-L$(abspath $(LIBDIR)) -ldevharness -Wl$(comma)-rpath$(comma)$(abspath $(LIBDIR)) -ljansson -lhwloc $(CLI_LDLIBS)))
ALL_TARGETS += $(BENCH_NEW_SUITE_VARS)
TEST_SCRIPTS += tests/bench/new_suite.sh
TEST_SCRIPTS += tests/bench/units.t
TEST_SCRIPTS += tests/bench/matrix.t
