# tests/machine/tests.mk — tests of the facts of the machine (machine/):
#   machine_ceilings   PCIe link ceilings from sysfs, per-generation encoding, the ceiling
#                      table (machine/ceilings.c)
#   ceilings.t         every device's ceiling in bench's context, summary and plots (or why not)
#   machine_health     the noisy verdict of measurement health (machine/health.c)
#   health.sh          measurement health with a fake NVML, --pin auto (machine/locality.c),
#                      plot/compare/run
# machine_ceilings: PCIe links from a fake sysfs tree, encodings per generation (machine/ceilings.c)
$(eval $(call dh_test,machine_ceilings,tests/machine/test_ceilings.c machine/ceilings.c,-lhwloc -lcmocka -lm))
TEST_SCRIPTS += tests/machine/ceilings.t
# machine_health: the noisy verdict of measurement health on made-up snapshots (machine/health.c)
$(eval $(call dh_test,machine_health,tests/machine/test_health.c machine/health.c machine/health_nvml.c,-lhwloc -ljansson -ldl -lcmocka))

# A fake NVML (tests/machine/fake_nvml.c) reporting a throttled GPU, found only through
# DEVHARNESS_NVML_LIB, for tests/machine/health.sh (measurement health, --pin auto).
MACHINE_FAKE_NVML := $(TESTDIR)/machine/fake-nvml/libnvidia-ml.so.1
$(MACHINE_FAKE_NVML): tests/machine/fake_nvml.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -shared $(LDFLAGS) -Wl,-soname,libnvidia-ml.so.1 -o $@ $<
ALL_TARGETS += $(MACHINE_FAKE_NVML)
TEST_SCRIPTS += tests/machine/health.sh
