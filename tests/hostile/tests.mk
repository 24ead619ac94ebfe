# tests/hostile/tests.mk — hostile input: tests/hostile/hostile.t feeds
# bad target/waiver files, device specs, options, plugins and results paths to the CLI
# and checks exit 2, a one-line message naming the culprit, and nothing left behind.
# Helper plugins that break the ABI (tests/hostile/bad_plugin.c, one per variant) go to
# $(TESTDIR)/hostile_plugins/, outside the default plugin search.
HOSTILE_PLUGIN_DIR := $(TESTDIR)/hostile_plugins
HOSTILE_VARIANTS := badmajor size0 noentry nullentry exit0 ctorexit hang
HOSTILE_PLUGINS := $(patsubst %,$(HOSTILE_PLUGIN_DIR)/libdevharness_h%.so,$(HOSTILE_VARIANTS))
$(HOSTILE_PLUGIN_DIR)/libdevharness_h%.so: tests/hostile/bad_plugin.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DHOSTILE_$(shell echo '$*' | tr a-z A-Z) -shared $(LDFLAGS) -o $@ $<

TEST_SCRIPTS += tests/hostile/hostile.t
test: $(HOSTILE_PLUGINS)
.PHONY: hostile-plugins
hostile-plugins: $(HOSTILE_PLUGINS)
