# backends/tvm/backend.mk — TVM's own DeviceAPIs as devharness backends (README.md here).
#
#   libdevharness_tvm-cpu.so    TVM's CPU DeviceAPI  (devices tvm-cpu:N)
#   libdevharness_tvm-cuda.so   TVM's CUDA DeviceAPI (devices tvm-cuda:N, where a driver is)
#   tvm/libdh_tvm_adapter.so    the C++ adapter against TVM's device_api.h, linked to
#                               libtvm_runtime.so / libtvm_ffi.so by SONAME and dlopened by
#                               the plugins after they load TVM's libraries by path
#
# The plugins link nothing from TVM, so they load (and say why they have no device) when
# the apache-tvm package is absent. The venv paths are compiled in as defaults
# (DEVHARNESS_TVM_ROOT / DEVHARNESS_TVM_FFI_ROOT override them at run time). The adapter
# is built when the venv has TVM's headers; else the plugins report it missing.

DH_TVM_SRCS := backends/tvm/tvm_cpu.c backends/tvm/tvm_cuda.c
DH_TVM_ADAPTER := $(PLUGINDIR)/tvm/libdh_tvm_adapter.so

$(eval $(call dh_plugin,tvm-cpu,backends/tvm/tvm_cpu.c,-ldl))
$(eval $(call dh_plugin,tvm-cuda,backends/tvm/tvm_cuda.c,-ldl))

$(call obj,$(DH_TVM_SRCS)): CFLAGS += -fvisibility=hidden
$(call obj,$(DH_TVM_SRCS)): CPPFLAGS += -DDH_TVM_ROOT_DEFAULT='"$(TVM_ROOT)"' -DDH_TVM_FFI_ROOT_DEFAULT='"$(TVM_FFI_ROOT)"'
$(call obj,$(DH_TVM_SRCS)): backends/tvm/tvm_backend.c backends/tvm/tvm_adapter.h

$(call obj,backends/tvm/tvm_adapter.cc): CPPFLAGS += -isystem $(TVM_ROOT)/include -isystem $(TVM_FFI_ROOT)/include
# -fno-sanitize=vptr: under UBSan the vptr checks need UBSan's C++ runtime, which the
# C programs that dlopen the adapter do not carry (ci/sanitizers.mk).
$(call obj,backends/tvm/tvm_adapter.cc): CXXFLAGS += -fvisibility=hidden \
    $(if $(findstring undefined,$(EXTRA_CFLAGS)),-fno-sanitize=vptr)

ALL_TARGETS += $(DH_TVM_ADAPTER)
install: install-tvm-adapter
.PHONY: install-tvm-adapter
install-tvm-adapter: $(DH_TVM_ADAPTER)
	install -d $(DESTDIR)$(PREFIX)/lib/devharness/tvm
	install -m 755 $(DH_TVM_ADAPTER) $(DESTDIR)$(PREFIX)/lib/devharness/tvm/
$(DH_TVM_ADAPTER): $(call obj,backends/tvm/tvm_adapter.cc)
	@mkdir -p $(@D)
	$(CXX) -shared $(LDFLAGS) -o $@ $^ -L$(TVM_ROOT)/lib -L$(TVM_FFI_ROOT)/lib -ltvm_runtime -ltvm_ffi
