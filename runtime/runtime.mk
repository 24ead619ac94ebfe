# runtime/runtime.mk — libdevharness.so: the runtime core (every runtime/*.c; the file
# map is runtime/README.md), the target system (target/target.mk adds its objects as
# prerequisites) and base/ (static, hidden: nothing of it is exported).
RUNTIME_SRCS := $(sort $(wildcard runtime/*.c))
RUNTIME_OBJS := $(call obj,$(RUNTIME_SRCS))
# -Bsymbolic-functions: calls between the runtime's own exported functions
# (dh_device_call -> dh_func_call, dh_error_*) bind inside the library, no PLT hop on
# the packed-call path; a program cannot interpose libdevharness's dh_ functions.
# The library looks for libtvm_ffi.so first where `make install` puts it
# (lib/devharness/tvm_ffi/lib beside it), then in TVM_FFI_RPATH (the build's venv).
RUNTIME_LDLIBS := $(BASE_LIB) -Wl,-rpath,'$$ORIGIN/devharness/tvm_ffi/lib' $(TVM_FFI_LINK) -ldl -ljansson -lhwloc -pthread

# Versioned SONAME: the file is libdevharness.so.$(DH_SOVERSION) and libdevharness.so
# links to it (what -ldevharness finds); programs and plugins record the SONAME.
# Linked against libtvm_ffi.so with the run path TVM_FFI_RPATH (Makefile).
# Other fragments add their objects as prerequisites (target/target.mk).
DH_SOVERSION := 0
RUNTIME_SONAME := libdevharness.so.$(DH_SOVERSION)
$(RUNTIME_LIB): $(RUNTIME_OBJS) $(BASE_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -Wl,-Bsymbolic-functions -Wl,-soname,$(RUNTIME_SONAME) -o $(@D)/$(RUNTIME_SONAME) $(filter %.o,$^) $(RUNTIME_LDLIBS)
	ln -sfn $(RUNTIME_SONAME) $@

# Symbols the runtime core does not define (libc, libdl, pthread, jansson, hwloc
# aside) are listed; used by `make check-runtime-symbols`.
.PHONY: check-runtime-symbols
check-runtime-symbols: $(RUNTIME_LIB)
	@nm -D --undefined-only $(RUNTIME_LIB) | grep ' dh_' && { echo "undefined dh_ symbols" >&2; exit 1; } || echo "runtime: no undefined dh_ symbols"
