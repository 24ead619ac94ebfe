# examples/tvm-device-api/examples.mk — the worked example of docs/testing-a-tvm-deviceapi.md:
# a TVM DeviceAPI in C++ against the project venv's TVM headers, registered as
# device_api.ext_dev, and a faulty variant of it (-DDH_EXAMPLE_FAULTY: its D2H copy
# ignores the source's byte offset). `make examples` builds both into
# $(BUILD)/examples/; `make test` builds them too (tests/backends/tvm/ uses them).
# Needs the project venv's apache-tvm headers and libraries (make deps), as backends/tvm's adapter.
DH_EXAMPLE_DIR := $(BUILD)/examples
DH_EXAMPLE_LIBS := $(DH_EXAMPLE_DIR)/libdh_example_device_api.so $(DH_EXAMPLE_DIR)/libdh_example_device_api_faulty.so
DH_EXAMPLE_CXXFLAGS := -std=c++17 -O2 -g -fPIC -Wall -Wextra -Werror -fvisibility=hidden \
    -isystem $(TVM_ROOT)/include -isystem $(TVM_FFI_ROOT)/include
DH_EXAMPLE_LDFLAGS := -shared -L$(TVM_ROOT)/lib -L$(TVM_FFI_ROOT)/lib -ltvm_runtime -ltvm_ffi \
    -Wl,-rpath,$(abspath $(TVM_ROOT))/lib -Wl,-rpath,$(abspath $(TVM_FFI_ROOT))/lib

.PHONY: examples
examples: $(DH_EXAMPLE_LIBS)
test: $(DH_EXAMPLE_LIBS)

$(DH_EXAMPLE_DIR)/libdh_example_device_api.so: examples/tvm-device-api/example_device_api.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -o $@ $< $(DH_EXAMPLE_LDFLAGS)
$(DH_EXAMPLE_DIR)/libdh_example_device_api_faulty.so: examples/tvm-device-api/example_device_api.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(DH_EXAMPLE_CXXFLAGS) -DDH_EXAMPLE_FAULTY -o $@ $< $(DH_EXAMPLE_LDFLAGS)
