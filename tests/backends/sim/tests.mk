# tests/backends/sim/tests.mk — tests of the sim backend.
#   backend_sim           the plugin through dh_plugin_load (vtable + packed functions)
#   backend_sim_internal  the sim core linked in (sim.h helpers, deterministic waits)
$(eval $(call dh_test,backend_sim,tests/backends/sim/test_sim.c,-lcmocka))
$(TESTDIR)/backend_sim: $(PLUGINDIR)/libdevharness_sim.so

$(eval $(call dh_test,backend_sim_internal,$(SIM_CORE_SRCS) tests/backends/sim/test_sim_internal.c,-lcmocka))
