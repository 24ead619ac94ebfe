# tests/backends/cpu/tests.mk — tests of the cpu backend.
#   backend_cpu   the plugin through dh_plugin_load; attributes vs hwloc, sysconf, /proc
$(eval $(call dh_test,backend_cpu,tests/backends/cpu/test_cpu.c,-lcmocka -lhwloc))
$(TESTDIR)/backend_cpu: $(PLUGINDIR)/libdevharness_cpu.so
