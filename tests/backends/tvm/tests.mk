# tests/backends/tvm/tests.mk — the tvm-* backends (TVM's own DeviceAPIs, backends/tvm/):
# the conformance acceptance on tvm-cpu:0 (profile tvm passes with its waivers; profile
# strict lists what TVM's CPU DeviceAPI does not do), the absent-package path, and
# TVM's own Python agreeing with what the bridge reports. tvm_lib.t: any TVM DeviceAPI
# through --tvm-lib / DEVHARNESS_TVM_LIBS, with the example of examples/tvm-device-api/
# the libraries below that must be refused, and one whose capabilities differ from the
# example's (tvmlib_caps.cc).
TEST_SCRIPTS += tests/backends/tvm/tvm.t tests/backends/tvm/tvm_lib.t tests/backends/tvm/tvm_rpc.t \
    tests/backends/tvm/info_faults.t
DH_TVMLIB_TEST_LIBS := $(BUILD)/tests/tvm/libtvmlib_dup.so $(BUILD)/tests/tvm/libtvmlib_none.so \
    $(BUILD)/tests/tvm/libtvmlib_hang.so $(BUILD)/tests/tvm/libtvmlib_caps.so $(BUILD)/tests/tvm/libtvmlib_dupcuda.so \
    $(BUILD)/tests/tvm/libtvmlib_attrcrash.so $(BUILD)/tests/tvm/libtvmlib_attrblock.so \
    $(BUILD)/tests/tvm/libtvmlib_attrname.so
test: $(DH_TVMLIB_TEST_LIBS)
# tvmlib_attrfault.cc, one fault of GetAttr each (info_faults.t)
$(BUILD)/tests/tvm/libtvmlib_attrcrash.so: tests/backends/tvm/tvmlib_attrfault.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -DTVMLIB_ATTR_FAULT=1 -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_attrblock.so: tests/backends/tvm/tvmlib_attrfault.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -DTVMLIB_ATTR_FAULT=2 -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_attrname.so: tests/backends/tvm/tvmlib_attrfault.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -DTVMLIB_ATTR_FAULT=3 -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_dup.so: tests/backends/tvm/tvmlib_dup.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_dupcuda.so: tests/backends/tvm/tvmlib_dup.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -DTVMLIB_DUP_NAME='"device_api.cuda"' -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_caps.so: tests/backends/tvm/tvmlib_caps.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(BUILD)/tests/tvm/libtvmlib_none.so: tests/backends/tvm/tvmlib_none.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -fPIC -shared -o $@ $<
$(BUILD)/tests/tvm/libtvmlib_hang.so: tests/backends/tvm/tvmlib_hang.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) -std=c11 -Wall -Wextra -Werror -fPIC -shared -o $@ $<
