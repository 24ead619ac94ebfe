# tests/runtime/tests.mk — tests of the runtime core (libdevharness.so).
#
# Programs (cmocka, TAP): runtime_any, runtime_any_tvmffi, runtime_errors, runtime_module, runtime_plugin,
# runtime_device, runtime_type_schema. Helpers: a tvm-ffi module (runtime_ffi_module.so) and test plugins
# built from one source with -D switches (runtime_plugins/libdevharness_rt*.so, kept
# out of lib/devharness so the default plugin search never sees them).

RT_TESTDIR := $(TESTDIR)
RT_LINK_TO_RUNTIME = -L$(LIBDIR) -ldevharness

$(eval $(call dh_test,runtime_any,tests/runtime/test_any.c,-lcmocka))
$(eval $(call dh_test,runtime_any_tvmffi,tests/runtime/test_any_tvmffi.c tests/runtime/tvmffi_layout.c,-lcmocka))
$(eval $(call dh_test,runtime_errors,tests/runtime/test_errors.c,-lcmocka))
$(eval $(call dh_test,runtime_module,tests/runtime/test_module.c,-lcmocka -ldl))
$(eval $(call dh_test,runtime_plugin,tests/runtime/test_plugin.c,-lcmocka -ldl $(TVM_FFI_LINK)))
$(eval $(call dh_test,runtime_device,tests/runtime/test_device.c,-lcmocka))
$(eval $(call dh_test,runtime_type_schema,tests/runtime/test_type_schema.c,-lcmocka))

# tvm-ffi's C header from the project venv (apache-tvm-ffi): the layout TU is
# compiled against it alone (it brings its own DLPack 1.x); without it (RT_TVMFFI_INC=
# empty) with RT_NO_TVM_FFI and runtime_any_tvmffi prints "1..0 # SKIP <reason>".
RT_TVMFFI_INC ?= $(TVM_FFI_ROOT)/include
$(OBJDIR)/tests/runtime/tvmffi_layout.o: RT_TVMFFI_INC := $(RT_TVMFFI_INC)
$(OBJDIR)/tests/runtime/tvmffi_layout.o: CPPFLAGS = -D_GNU_SOURCE \
    $(if $(wildcard $(RT_TVMFFI_INC)/tvm/ffi/c_api.h),-I$(RT_TVMFFI_INC),-DRT_NO_TVM_FFI)

# A shared object exporting __tvm_ffi_* functions for the module loader test.
RT_FFI_MODULE := $(RT_TESTDIR)/runtime_ffi_module.so
$(RT_FFI_MODULE): tests/runtime/ffi_module.c $(RUNTIME_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared $(LDFLAGS) -o $@ $< $(RT_LINK_TO_RUNTIME) -Wl,-rpath,'$$ORIGIN/../lib'
$(TESTDIR)/runtime_module: $(RT_FFI_MODULE)

# Test plugins: $(1) file name suffix, $(2) variant switch.
RT_PLUGIN_DIR := $(RT_TESTDIR)/runtime_plugins
RT_PLUGINS :=
define rt_test_plugin
RT_PLUGINS += $(RT_PLUGIN_DIR)/libdevharness_$(1).so
$(RT_PLUGIN_DIR)/libdevharness_$(1).so: tests/runtime/plugins/test_backend.c $(RUNTIME_LIB) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -DRT_VARIANT_$(2) -shared $$(LDFLAGS) -o $$@ $$< \
	    $(RT_LINK_TO_RUNTIME) -Wl,-rpath,'$$$$ORIGIN/../../lib'
endef
$(eval $(call rt_test_plugin,rtgood,GOOD))
$(eval $(call rt_test_plugin,rtnewer,NEWER))
$(eval $(call rt_test_plugin,rtolder,OLDER))
$(eval $(call rt_test_plugin,rtinitfail,INITFAIL))
$(eval $(call rt_test_plugin,rtbadmajor,BADMAJOR))
$(eval $(call rt_test_plugin,rtsize0,SIZE0))
$(eval $(call rt_test_plugin,rtsmall,SMALL))
$(eval $(call rt_test_plugin,rtnoentry,NOENTRY))
$(eval $(call rt_test_plugin,rtnullentry,NULLENTRY))
$(eval $(call rt_test_plugin,rtnullsync,NULLSYNC))
$(eval $(call rt_test_plugin,rtbadname,BADNAME))
$(eval $(call rt_test_plugin,rtdupname,DUPNAME))
$(eval $(call rt_test_plugin,rtduptype,DUPTYPE))
$(eval $(call rt_test_plugin,rtmore,MORE))
$(eval $(call rt_test_plugin,rtopts,OPTIONS))
$(eval $(call rt_test_plugin,rtoptsdup,OPTSDUP))
$(eval $(call rt_test_plugin,rtbadopts,BADOPTS))
RT_PLUGINS += $(RT_PLUGIN_DIR)/libdevharness_bogus.so
$(RT_PLUGIN_DIR)/libdevharness_bogus.so: tests/runtime/tests.mk
	@mkdir -p $(@D)
	printf 'this is a text file, not a plugin\n' > $@
$(TESTDIR)/runtime_plugin $(TESTDIR)/runtime_device $(TESTDIR)/runtime_module: $(RT_PLUGINS)

.PHONY: test-runtime
test-runtime: $(TESTDIR)/runtime_any $(TESTDIR)/runtime_any_tvmffi $(TESTDIR)/runtime_errors $(TESTDIR)/runtime_module \
              $(TESTDIR)/runtime_plugin $(TESTDIR)/runtime_device
	$(PROVE) --exec '' $^

# Threaded tests for `make check-tsan` (mk/sanitizers.mk): per-thread errors, registry
# under 4 threads, once-only init from 4 threads.
TSAN_TESTS += $(TESTDIR)/runtime_errors $(TESTDIR)/runtime_plugin
TEST_SCRIPTS += tests/runtime/installed_plugins.sh
# Linked without an rpath: tests/runtime/installed_plugins.sh runs it from a copy of the
# library in another prefix (LD_LIBRARY_PATH), as a program using an installed devharness.
$(TESTDIR)/installed_probe: tests/runtime/installed_probe.c $(RUNTIME_LIB) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(LIBDIR) -ldevharness
test: $(TESTDIR)/installed_probe

# tvm-ffi interop (issue 11): a library written with tvm-ffi's C++ API, loaded through
# dh_module_load; the environment stream per device (TAP, tests/runtime/test_ffi_interop.c).
# The C++ library needs only tvm-ffi's headers and libtvm_ffi.so (no devharness header).
# -Wno-unused-parameter: TVM_FFI_DLL_EXPORT_TYPED_FUNC (apache-tvm-ffi 0.1.15
# function.h) expands to a function that ignores `self`, which clang flags in our file.
# Under UBSan, no vptr checks: the C test program that loads it has no C++ UBSan runtime.
RT_FFI_CXX_MODULE := $(RT_TESTDIR)/runtime_ffi_cxx_module.so
$(RT_FFI_CXX_MODULE): tests/runtime/ffi_cxx_module.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -Wno-unused-parameter -shared $(LDFLAGS) \
	    $(if $(findstring undefined,$(EXTRA_LDFLAGS)),-fno-sanitize=vptr) -o $@ $< $(TVM_FFI_LINK)
$(eval $(call dh_test,runtime_ffi_interop,tests/runtime/test_ffi_interop.c,$(TVM_FFI_LINK)))
$(TESTDIR)/runtime_ffi_interop: $(RT_FFI_CXX_MODULE) $(PLUGINS)
# Python's tvm_ffi against libdevharness, the plugins and runtime_ffi_module.so.
TEST_SCRIPTS += tests/runtime/tvm_ffi_python.sh
TEST_SCRIPTS += tests/runtime/packed_family.sh
