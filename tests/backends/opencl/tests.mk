# tests/backends/opencl/tests.mk — tests of the OpenCL backend.
#   test_opencl           cmocka (TAP): vtable, copies with offsets, streams, fill/noop,
#                         events, raw twin, unavailable reason (empty OCL_ICD_VENDORS),
#                         queues plain until the first event_record
#   opencl_clinfo.py      compares the attributes devharness reports with clinfo --json
# The plugin must be built for them: both depend on it.
#                         (-rdynamic: it exports the clCreateCommandQueue it counts)
$(eval $(call dh_test,test_opencl,tests/backends/opencl/test_opencl.c,-ldl -lcmocka -rdynamic))
$(TESTDIR)/test_opencl: $(PLUGINDIR)/libdevharness_opencl.so
TEST_SCRIPTS += tests/backends/opencl/opencl_clinfo.py
