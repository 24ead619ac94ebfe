# tests/bench/bench.mk — tests of the benchmark side (bench/).
$(eval $(call dh_test,bench_gbench,tests/bench/test_gbench.c bench/gbench.cc,-lbenchmark -lstdc++ -ljansson -lcmocka))
TEST_SCRIPTS += tests/bench/bench_cli.sh

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
TEST_SCRIPTS += tests/bench/installed_scripts.sh
