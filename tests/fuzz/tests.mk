# tests/fuzz/tests.mk — each fuzz target replayed over its seed corpus and its
# regressions (crashes found by fuzzing) as an ordinary test. `make fuzz` (mk/fuzz.mk)
# runs the same targets under libFuzzer.
# FUZZ_TARGETS is defined in mk/fuzz.mk.
$(OBJDIR)/tests/fuzz/%.o: CPPFLAGS += -DDH_SOURCE_DIR='"$(CURDIR)"'
$(foreach t,$(FUZZ_TARGETS),$(eval $(call dh_test,fuzz_$(t),tests/fuzz/fuzz_$(t).c tests/fuzz/replay.c $(FUZZ_EXTRA_SRCS_$(t)),$(FUZZ_LDLIBS_$(t)))))
