# tests/stress/tests.mk — concurrency stress test: 8 threads of packed
# calls, and alloc/copy/sync/free on their own streams on every device of every loaded
# backend. Scale with DEVHARNESS_STRESS_SCALE (float, default 1); restrict the backends
# with DEVHARNESS_STRESS_BACKENDS=cpu,sim (the TSan run does, mk/sanitizers.mk).
$(eval $(call dh_test,stress,tests/stress/stress.c,-lcmocka -ldl))
# Needs the plugins it exercises (whichever are built).
$(TESTDIR)/stress: $(PLUGINS)
TSAN_TESTS += $(TESTDIR)/stress
