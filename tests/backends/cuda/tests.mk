# tests/backends/cuda/tests.mk — tests of the cuda backend plugin (built only when
# backends/cuda/backend.mk found nvcc; DH_CUDA_ENABLED).
#
#   $(BUILD)/tests/cuda_backend             cmocka/TAP program (test_cuda_backend.c): no GPU
#                                           needed (no-driver path + fake drivers)
#   $(BUILD)/tests/cuda_backend_gpu         the device checks on a real NVIDIA GPU;
#                                           "1..0 # SKIP <reason>" without one
#   $(BUILD)/tests/cuda-fake/nodev/libcuda.so.1  fake driver: cuInit -> CUDA_ERROR_NO_DEVICE
#   $(BUILD)/tests/cuda-fake/dev/libcuda.so.1    fake driver simulating 2 devices on the host
# The fakes are only ever found through LD_LIBRARY_PATH set by the test for its child
# processes; they are never installed and never link libdevharness.

ifneq ($(DH_CUDA_ENABLED),)
DH_CUDA_FAKEDIR := $(TESTDIR)/cuda-fake

$(eval $(call dh_test,cuda_backend,tests/backends/cuda/test_cuda_backend.c,-lcmocka -ldl))
$(eval $(call dh_test,cuda_backend_gpu,tests/backends/cuda/test_cuda_gpu.c,-lcmocka -ldl))
$(TESTDIR)/cuda_backend_gpu: | $(DH_CUDA_PLUGIN)
$(TESTDIR)/cuda_backend: | $(DH_CUDA_PLUGIN) $(DH_CUDA_FAKEDIR)/nodev/libcuda.so.1 \
                           $(DH_CUDA_FAKEDIR)/dev/libcuda.so.1

$(DH_CUDA_FAKEDIR)/nodev/libcuda.so.1: tests/backends/cuda/fake_libcuda.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -isystem $(CUDA_INCLUDE) -DFAKE_CUDA_FULL=0 -shared $(LDFLAGS) \
	    -Wl,-soname,libcuda.so.1 -o $@ $<
$(DH_CUDA_FAKEDIR)/dev/libcuda.so.1: tests/backends/cuda/fake_libcuda.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -isystem $(CUDA_INCLUDE) -DFAKE_CUDA_FULL=1 -shared $(LDFLAGS) \
	    -Wl,-soname,libcuda.so.1 -o $@ $<
endif

# Whole conformance suite + `devharness info` against the fake driver (needs the CLI).
ifneq ($(DH_CUDA_ENABLED),)
TEST_SCRIPTS += tests/backends/cuda/conformance_fake.sh
# cuda:0's ceilings from a fake sysfs tree and the fake driver's PCI bus id
TEST_SCRIPTS += tests/backends/cuda/ceilings_fake.t
# On a GPU machine: the host link read from sysfs = what nvidia-smi -q reports (SKIP here)
TEST_SCRIPTS += tests/backends/cuda/link_nvidia_smi.t
endif
