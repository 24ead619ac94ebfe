# tests/target/tests.mk — tests of the target room (target/) and the targets it reads (targets/).
#
# Programs (cmocka, TAP):
#   targets_parse   parsing rules, kinds, tags, JSON limits, from_device merge (getter hook)
#   targets_dir     a folder of broken kinds/tags (tests/target/data/bad_targets), races
#   targets_device  dh_target_detect / check_device / from_device through the device API,
#                   with a fake plugin (tests/target/fake_backend.c) built as
#                   $(TESTDIR)/targets_plugins/libdevharness_tfake.so, outside
#                   lib/devharness so the default plugin search never sees it.
# Data files: tests/target/data/. The programs find them (and targets/) from their own
# path: <build>/tests/../../tests/target/data.

$(eval $(call dh_test,targets_parse,tests/target/test_target_parse.c,-lcmocka))
$(eval $(call dh_test,targets_device,tests/target/test_target_device.c,-lcmocka))
$(eval $(call dh_test,targets_dir,tests/target/test_target_dir.c,-lcmocka))

TARGETS_FAKE_PLUGIN := $(TESTDIR)/targets_plugins/libdevharness_tfake.so
$(TARGETS_FAKE_PLUGIN): $(call obj,tests/target/fake_backend.c) $(RUNTIME_LIB)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(filter %.o,$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$ORIGIN/../../lib'

# the device test loads the fake plugin at run time
$(TESTDIR)/targets_device: | $(TARGETS_FAKE_PLUGIN)
ALL_TARGETS += $(TARGETS_FAKE_PLUGIN)

# tvm_interop.t: `targets detect --tvm` output is accepted by the installed apache-tvm's
# tvm.target.Target(...) (project venv python), and TVM's own exports parse here.
TEST_SCRIPTS += tests/target/tvm_interop.t
