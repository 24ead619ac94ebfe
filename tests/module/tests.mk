# tests/module/tests.mk — `devharness module check` (docs/kernel-libraries.md) on the
# kernel library corpus of tests/module/kernel_lib.cc, built with tvm-ffi's C++ API
# (its headers and libtvm_ffi.so only, no devharness header), one library per variant:
#   kl_good       well-behaved, with metadata (TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1)
#   kl_nometa     the same without metadata
#   kl_dtype      crashes on a wrong dtype          -> module.wrong_dtype
#   kl_stream     ignores the environment stream    -> module.env_stream
#   kl_noncontig  writes past a non-contiguous view -> module.non_contiguous
#   kl_wrongdev   no error on a wrong device        -> module.wrong_device
#   kl_simoff     add on sim reads a[i + 1]         -> module.results (against cpu:0)
# check.t runs the command on each (and its usage errors); bench.t the bench module suite.
KL_DIR := $(TESTDIR)/module
KL_META := -DTVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1
KL_FLAGS_good := $(KL_META)
KL_FLAGS_nometa :=
KL_FLAGS_dtype := $(KL_META) -DDH_KL_FAULT_DTYPE_CRASH
KL_FLAGS_stream := $(KL_META) -DDH_KL_FAULT_IGNORE_STREAM
KL_FLAGS_noncontig := $(KL_META) -DDH_KL_FAULT_NONCONTIG
KL_FLAGS_wrongdev := $(KL_META) -DDH_KL_FAULT_WRONG_DEVICE
KL_FLAGS_simoff := $(KL_META) -DDH_KL_FAULT_SIM_OFF_BY_ONE
KL_LIBS := $(foreach v,good nometa dtype stream noncontig wrongdev simoff,$(KL_DIR)/kl_$(v).so)
# -Wno-unused-parameter: tvm-ffi's export macros ignore `self` (as tests/runtime's C++
# module). No sanitizer flags: the library is loaded by the command as a user's would be.
$(KL_DIR)/kl_%.so: tests/module/kernel_lib.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -O2 -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter $(KL_FLAGS_$*) \
	    -isystem $(TVM_FFI_INCDIR) -o $@ $< $(TVM_FFI_LINK)
test: $(KL_LIBS)
TEST_SCRIPTS += tests/module/check.t
TEST_SCRIPTS += tests/module/bench.t
TEST_SCRIPTS += tests/module/golden.t
TEST_SCRIPTS += tests/module/tvm_corpus.t
TEST_SCRIPTS += tests/module/nightly.t
