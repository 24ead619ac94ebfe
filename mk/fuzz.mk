# mk/fuzz.mk — libFuzzer runs (clang).
#
#   make fuzz FUZZ_SECONDS=60      each target in FUZZ_TARGETS for FUZZ_SECONDS,
#                                  starting from tests/fuzz/corpus/<target>/ (seeds) and
#                                  growing build-fuzz/corpus/<target>/; crashes land in
#                                  build-fuzz/crashes/<target>/ — copy each into
#                                  tests/fuzz/regressions/<target>/ so `make test`
#                                  replays it forever after.
.PHONY: fuzz
# Targets: tests/fuzz/fuzz_<name>.c, seeds in tests/fuzz/corpus/<name>/.
# FUZZ_EXTRA_SRCS_<name> / FUZZ_LDLIBS_<name>: other sources and libraries a target
# links (for both the libFuzzer binary and the replay test in tests/fuzz/tests.mk).
FUZZ_TARGETS := target_json device_spec plugin_abi
# fuzz_plugin_abi links the loader's struct check (runtime/abi_check.c, hidden in
# libdevharness.so) and base/; fuzz_target_json base/ too.
FUZZ_EXTRA_SRCS_plugin_abi := runtime/abi_check.c
FUZZ_LDLIBS_plugin_abi := $(BASE_LIB)
# fuzz_waivers links the conformance waiver parser's object as is (only when present).
ifneq ($(wildcard conformance/runner/waivers.c),)
FUZZ_TARGETS += waivers
FUZZ_EXTRA_SRCS_waivers := conformance/runner/waivers.c
FUZZ_LDLIBS_waivers := $(BASE_LIB) -ljansson
endif
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

fuzz:
	$(MAKE) --no-print-directory VENV=$(VENV) BUILD=$(FUZZ_BUILD) CC=clang CXX=clang++ \
	    EXTRA_CFLAGS='$(FUZZ_SAN) -fsanitize=fuzzer-no-link' EXTRA_LDFLAGS='$(FUZZ_SAN)' fuzz-run

# Inside the fuzz build: link each target with libFuzzer's main and run it.
FUZZ_BINS := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))
define dh_fuzz_bin
$(BUILD)/fuzz/fuzz_$(1): $(call obj,tests/fuzz/fuzz_$(1).c $(FUZZ_EXTRA_SRCS_$(1))) $(BASE_LIB) $(RUNTIME_LIB) $(PLUGINS)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -fsanitize=fuzzer -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$$$ORIGIN/../lib' $(FUZZ_LDLIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call dh_fuzz_bin,$(t))))

.PHONY: fuzz-run
fuzz-run: $(FUZZ_BINS)
	@rc=0; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(BUILD)/corpus/$$t $(BUILD)/crashes/$$t; \
	    echo "== fuzz_$$t for $(FUZZ_SECONDS) s (log: $(BUILD)/fuzz_$$t.log)"; \
	    ASAN_OPTIONS=detect_leaks=1 DEVHARNESS_SIM_DEVICES=2 \
	    $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
	        -max_len=65536 -print_final_stats=1 -artifact_prefix=$(BUILD)/crashes/$$t/ \
	        $(BUILD)/corpus/$$t tests/fuzz/corpus/$$t > $(BUILD)/fuzz_$$t.log 2>&1 || rc=1; \
	    grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss|cov:' \
	        $(BUILD)/fuzz_$$t.log | tail -n 3; \
	    grep -A20 -E 'ERROR: (AddressSanitizer|libFuzzer)|runtime error|fuzz invariant' \
	        $(BUILD)/fuzz_$$t.log | head -n 30; \
	done; exit $$rc
