# mk/sanitizers.mk — sanitizer, valgrind and TSan runs of the test suite.
#
#   make check-asan       ASan + UBSan, with clang and with gcc (build-asan-clang,
#                         build-asan-gcc); every test under prove (make test-full: the long tier too); any report fails
#   make check-asan-clang / check-asan-gcc   one compiler only
#   make check-tsan       ThreadSanitizer (clang) over the threaded unit tests and the
#                         concurrency stress test
#   make check-valgrind   memcheck over every test program: zero errors, no definite leaks
.PHONY: check-asan check-asan-clang check-asan-gcc check-tsan check-valgrind

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:detect_odr_violation=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87 \
           LSAN_OPTIONS=suppressions=$(CURDIR)/mk/lsan.supp:print_suppressions=0

check-asan: check-asan-clang check-asan-gcc

check-asan-clang:
	$(SAN_ENV) $(MAKE) --no-print-directory VENV=$(VENV) BUILD=build-asan-clang CC=clang CXX=clang++ \
	    EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' test-full

# A test program that mixes C and C++ objects (tests/bench: the Google Benchmark
# wrapper) is linked by the C driver; with clang and UBSan that leaves out UBSan's C++
# half (vptr checks: __ubsan_handle_dynamic_type_cache_miss), so ask for it there only
# (pure C programs would then need libstdc++).
ifneq ($(findstring clang,$(CC)),)
ifneq ($(findstring undefined,$(EXTRA_LDFLAGS)),)
$(TESTDIR)/bench_gbench: LDFLAGS += -fsanitize-link-c++-runtime
endif
endif

check-asan-gcc:
	$(SAN_ENV) $(MAKE) --no-print-directory VENV=$(VENV) BUILD=build-asan-gcc CC=gcc CXX=g++ \
	    EXTRA_CFLAGS='$(SAN_FLAGS)' EXTRA_LDFLAGS='$(SAN_FLAGS)' test-full

# Threaded tests only: TSan and fork()-per-case do not mix, and GPU-API plugins run
# their own uninstrumented threads. TSAN_TESTS is appended to by test fragments.
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
check-tsan:
	$(MAKE) --no-print-directory VENV=$(VENV) BUILD=build-tsan CC=clang CXX=clang++ \
	    EXTRA_CFLAGS='$(TSAN_FLAGS)' EXTRA_LDFLAGS='$(TSAN_FLAGS)' tsan-run

.PHONY: tsan-run
# The test lists are complete only after every fragment is read (tests/*.mk come after
# this file), so the test programs are built from the recipe, not as prerequisites.
# The stress test runs on cpu and sim only (full size, ~5 s): PoCL and lavapipe are not
# TSan-instrumented and give false reports.
tsan-run: all
	$(MAKE) --no-print-directory $(TSAN_TESTS)
	TSAN_OPTIONS=halt_on_error=1:exitcode=88:second_deadlock_stack=1 \
	    DEVHARNESS_STRESS_BACKENDS=cpu,sim DEVHARNESS_STRESS_SCALE=$${DEVHARNESS_STRESS_SCALE:-1} \
	    DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PROVE) --exec '' $(TSAN_TESTS)

# Test programs memcheck runs (default: all; fragments may narrow it).
VALGRIND_TESTS ?= $(TEST_PROGS)
VALGRIND ?= valgrind --quiet --num-callers=40 --error-exitcode=89 --leak-check=full --errors-for-leak-kinds=definite \
    --suppressions=$(CURDIR)/mk/valgrind.supp
# Built with the default -O2 -g: at -O1 gcc 12 raises -Wformat-truncation in
# tests/target/test_target_parse.c (a 4096-byte snprintf), which -Werror makes fatal.
check-valgrind:
	$(MAKE) --no-print-directory VENV=$(VENV) BUILD=build-valgrind valgrind-run

.PHONY: valgrind-run
valgrind-run: all
	$(MAKE) --no-print-directory $(VALGRIND_TESTS)
	DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    DEVHARNESS_UNDER_VALGRIND=1 $(PROVE) --exec '$(VALGRIND)' $(VALGRIND_TESTS)
