# tests/backends/tvm/tests.mk — the tvm-* backends (TVM's own DeviceAPIs, backends/tvm/):
# the conformance acceptance on tvm-cpu:0 (profile tvm passes with its waivers; profile
# strict lists what TVM's CPU DeviceAPI does not do), the absent-package path, and
# TVM's own Python agreeing with what the bridge reports.
TEST_SCRIPTS += tests/backends/tvm/tvm.t
