# tests/machine/tests.mk — tests of the facts of the machine (machine/):
#   machine_ceilings   PCIe link ceilings from sysfs, per-generation encoding, the ceiling
#                      table (machine/ceilings.c)
#   ceilings.t         every device's ceiling in bench's context, summary and plots (or why not)
# machine_ceilings: PCIe links from a fake sysfs tree, encodings per generation (machine/ceilings.c)
$(eval $(call dh_test,machine_ceilings,tests/machine/test_ceilings.c machine/ceilings.c,-lhwloc -lcmocka -lm))
TEST_SCRIPTS += tests/machine/ceilings.t
