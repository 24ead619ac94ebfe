# devharness — top-level Makefile.
#
#   make            build the runtime, every plugin whose SDK is present, the command
#   make run        the main job: info + conformance + quick bench on every device,
#                   results in results/latest/
#   make test       build and run every test under prove, PROVE_JOBS files at a time
#                   (default: the CPU count), the long tier (TEST_LONG_SCRIPTS) left out
#   make test-full  make test, then the long tier (tests/conformance/faulty.t); CI runs it
#   make install    PREFIX=/usr/local (bin, lib, plugins, headers, targets, pkg-config)
#   make clean
#   BUILD=dir       build folder (default build); CC=clang to build with clang
#
# Each folder contributes a fragment (runtime/runtime.mk, backends/<name>/backend.mk,
# machine/machine.mk, suite/suite.mk, conformance/conformance.mk, bench/bench.mk, cli/cli.mk,
# tests/**/tests.mk) that appends to the lists below; see docs/architecture.md.

BUILD   ?= build
PREFIX  ?= /usr/local
CC      ?= cc
CXX     ?= c++
PYTHON  ?= /usr/bin/python3
# Project-local Python venv with the pinned packages of ci/python-requirements.txt
# (apache-tvm-ffi, apache-tvm); made by ci/make-venv.sh during `make deps`. The
# sanitizer and fuzz builds share the default build's venv.
VENV    ?= $(BUILD)/venv
override VENV := $(abspath $(VENV))
VENV_PY := $(VENV)/bin/python
# Stable paths into the venv (links made by ci/make-venv.sh).
TVM_FFI_ROOT := $(VENV)/devharness/tvm_ffi
TVM_ROOT     := $(VENV)/devharness/tvm
# tvm-ffi is the runtime of packed calls, errors, strings and the environment stream:
# libdevharness links libtvm_ffi.so (SONAME libtvm_ffi.so, the one copy a process with
# Python's tvm_ffi or TVM's libtvm_runtime also uses) and every C file compiles against
# the DLPack 1.x header tvm-ffi ships (include/dlpack/dlpack.h; Debian 12's
# libdlpack-dev is DLPack 0.6). TVM_FFI_INCDIR/TVM_FFI_LIBDIR point elsewhere for a
# tvm-ffi not in the venv. TVM_FFI_RPATH is the run path written into libdevharness.so
# after the installed tree's own, so the build tree runs without LD_LIBRARY_PATH;
# `make install TVM_FFI_RPATH=` (empty) builds a library whose only run path to
# libtvm_ffi.so is the installed copy's (then by SONAME: ld.so.conf,
# LD_LIBRARY_PATH, or a copy already loaded, e.g. by `import tvm_ffi`); see
# docs/architecture.md "Packed calls". `make install` copies libtvm_ffi.so and its
# headers to PREFIX/lib/devharness/tvm_ffi/, and every installed program and the library
# look there first ($ORIGIN run paths), so an installed tree runs without the checkout.
TVM_FFI_INCDIR ?= $(TVM_FFI_ROOT)/include
TVM_FFI_LIBDIR ?= $(TVM_FFI_ROOT)/lib
TVM_FFI_RPATH  ?= $(TVM_FFI_LIBDIR)
TVM_FFI_LINK    = -L$(TVM_FFI_LIBDIR) -ltvm_ffi $(if $(TVM_FFI_RPATH),-Wl$(comma)-rpath$(comma)$(TVM_FFI_RPATH))
comma := ,

OPT      ?= -O2 -g
WARN     := -Wall -Wextra -Werror
CPPFLAGS += -Iinclude -I. -isystem $(TVM_FFI_INCDIR) -D_GNU_SOURCE
CFLAGS   += -std=c11 $(WARN) $(OPT) -fPIC -pthread $(EXTRA_CFLAGS)
CXXFLAGS += -std=c++17 $(WARN) $(OPT) -fPIC -pthread $(EXTRA_CFLAGS)
LDFLAGS  += -pthread $(EXTRA_LDFLAGS)

LIBDIR      := $(BUILD)/lib
PLUGINDIR   := $(BUILD)/lib/devharness
BINDIR      := $(BUILD)/bin
TESTDIR     := $(BUILD)/tests
OBJDIR      := $(BUILD)/obj
DEPS_STAMP  := $(BUILD)/.deps-ok

RUNTIME_LIB := $(LIBDIR)/libdevharness.so
# base/: static helpers (text, JSON reading, child processes), hidden visibility
BASE_LIB    := $(LIBDIR)/libdh_base.a
DEVHARNESS  := $(BINDIR)/devharness
# Link line for anything that uses the runtime library from the build tree.
# Programs in bin/ find the library beside them and tvm-ffi's library where
# `make install` copies it (lib/devharness/tvm_ffi/lib), then TVM_FFI_RPATH's.
RUNTIME_LINK = -L$(LIBDIR) -ldevharness -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../lib/devharness/tvm_ffi/lib'

# Lists the fragments append to.
PLUGINS      :=
TEST_PROGS   :=
TEST_SCRIPTS :=
# The long tier: tests that stay long by what they prove (faulty.t: ~120 full
# conformance runs, ~4 CPU-seconds each); `make test-full` and CI run them.
TEST_LONG_SCRIPTS :=
CLI_OBJS     :=
ALL_TARGETS  :=
# The Python tools and what they read, staged flat in SHARE_DIR as `make install` puts
# them in PREFIX/share/devharness/, so the build tree and an installed tree look alike
# (cmdline/script.h finds a tool in <exe dir>/../share/devharness/, and the tool imports
# its modules from its own folder). SHARE_FILES: sources, copied; SHARE_GEN: files a
# fragment generates into SHARE_DIR.
SHARE_DIR    := $(BUILD)/share/devharness
SHARE_FILES  :=
SHARE_GEN    :=

.PHONY: all run test test-long test-full install clean deps
all: deps

# -------------------------------------------------------------------- helpers
# obj path of a source file
obj = $(patsubst %.c,$(OBJDIR)/%.o,$(patsubst %.cc,$(OBJDIR)/%.o,$(1)))

# $(call dh_plugin,NAME,SOURCES,LDLIBS): a backend plugin libdevharness_NAME.so
define dh_plugin
PLUGINS += $(PLUGINDIR)/libdevharness_$(1).so
$(PLUGINDIR)/libdevharness_$(1).so: $(call obj,$(2)) $(RUNTIME_LIB)
	@mkdir -p $$(@D)
	$$(CC) -shared $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$$$ORIGIN/..' $(3)
endef

# $(call dh_test,NAME,SOURCES,LDLIBS): a test program run by prove (prints TAP)
define dh_test
TEST_PROGS += $(TESTDIR)/$(1)
$(TESTDIR)/$(1): $(call obj,$(2)) $(RUNTIME_LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$$$ORIGIN/../lib' $(3)
endef

$(OBJDIR)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/%.o: %.cc | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@

# Dependencies: checked once per build folder; installed when root, else the
# apt-get line is printed (ci/check-deps.sh); then the Python venv (ci/make-venv.sh).
deps: $(DEPS_STAMP)
$(DEPS_STAMP): ci/check-deps.sh ci/install-deps.sh ci/make-venv.sh ci/python-requirements.txt
	@sh ci/check-deps.sh
	@sh ci/make-venv.sh $(VENV) ci/python-requirements.txt
	@mkdir -p $(@D) && touch $@

# -------------------------------------------------------------------- fragments
include $(sort $(wildcard base/*.mk runtime/*.mk target/*.mk cmdline/*.mk store/*.mk machine/*.mk backends/*/*.mk suite/*.mk conformance/*.mk module/*.mk bench/*.mk cli/*.mk mk/*.mk examples/*/*.mk))
include $(sort $(wildcard tests/*.mk tests/*/*.mk tests/*/*/*.mk))

# Each of SHARE_FILES copied into SHARE_DIR under its own name.
define dh_share_copy
$(SHARE_DIR)/$(notdir $(1)): $(1)
	@mkdir -p $$(@D)
	cp $$< $$@
endef
$(foreach f,$(SHARE_FILES),$(eval $(call dh_share_copy,$(f))))
SHARE := $(addprefix $(SHARE_DIR)/,$(notdir $(SHARE_FILES))) $(SHARE_GEN)

all: $(RUNTIME_LIB) $(PLUGINS) $(DEVHARNESS) $(ALL_TARGETS) $(SHARE)
# Fragments append to CLI_OBJS in any order; the full list is known only here.
$(DEVHARNESS): $(CLI_OBJS)

-include $(shell find $(OBJDIR) -name '*.d' 2>/dev/null)

# -------------------------------------------------------------------- main jobs
RESULTS ?= results
run: all
	$(DEVHARNESS) run --output $(RESULTS)

# prove runs every test program and script; each prints TAP.
PROVE ?= prove
# VENV goes to the tests' environment too: the ones that run a nested `make install`
# (with MAKEFLAGS unset) then build against the same venv as this build.
# Test files run PROVE_JOBS at a time (prove -j); each test keeps its files in its own
# scratch folder, so they are independent (docs/benchmarks.md "How long the project's own jobs take").
# PROVE_JOBS=1 runs them one after another; PROVE_FLAGS adds prove options (e.g. -v).
PROVE_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PROVE_RUN = DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) VENV=$(VENV) DEVHARNESS_VENV_PY=$(VENV_PY) \
	    XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PROVE) --exec '' --timer -j$(PROVE_JOBS) $(PROVE_FLAGS)
# The longest files start first, so that none is left running alone at the end (their
# times in the last run: docs/benchmarks.md "How long the project's own jobs take").
TEST_FIRST := tests/backends/tvm/tvm_rpc.t tests/module/tvm_corpus.t tests/hostile/hostile.t \
              tests/cli/run_complete.t tests/store/gate.t tests/conformance/profiles.t tests/store/history.t
TEST_ORDER = $(filter $(TEST_FIRST),$(TEST_SCRIPTS)) $(TEST_PROGS) $(filter-out $(TEST_FIRST),$(TEST_SCRIPTS))
test: all $(TEST_PROGS)
	@mkdir -p $(BUILD)
	$(PROVE_RUN) $(TEST_ORDER)

# The long tier alone, and everything.
test-long: all
	@mkdir -p $(BUILD)
	$(PROVE_RUN) $(TEST_LONG_SCRIPTS)
test-full: test
	$(MAKE) --no-print-directory test-long

# -------------------------------------------------------------------- install
DESTDIR ?=
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/devharness \
	    $(DESTDIR)$(PREFIX)/include/devharness $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/devharness
	install -m 755 $(DEVHARNESS) $(DESTDIR)$(PREFIX)/bin/devharness
	install -m 755 $(LIBDIR)/$(RUNTIME_SONAME) $(DESTDIR)$(PREFIX)/lib/$(RUNTIME_SONAME)
	ln -sfn $(RUNTIME_SONAME) $(DESTDIR)$(PREFIX)/lib/libdevharness.so
	$(if $(PLUGINS),install -m 755 $(PLUGINS) $(DESTDIR)$(PREFIX)/lib/devharness/)
	install -m 644 include/devharness/*.h $(DESTDIR)$(PREFIX)/include/devharness/
	cp -r targets $(DESTDIR)$(PREFIX)/share/devharness/
	install -m 755 $(filter %.py,$(SHARE)) $(DESTDIR)$(PREFIX)/share/devharness/
	install -m 644 $(filter-out %.py,$(SHARE)) $(DESTDIR)$(PREFIX)/share/devharness/
	install -m 755 $(LIBDIR)/devharness_bench_ffi_noop.so $(DESTDIR)$(PREFIX)/lib/
	install -d $(DESTDIR)$(PREFIX)/lib/devharness/tvm_ffi/lib $(DESTDIR)$(PREFIX)/lib/devharness/tvm_ffi/include
	install -m 755 $(TVM_FFI_LIBDIR)/libtvm_ffi.so $(DESTDIR)$(PREFIX)/lib/devharness/tvm_ffi/lib/
	cp -RL $(TVM_FFI_INCDIR)/. $(DESTDIR)$(PREFIX)/lib/devharness/tvm_ffi/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(shell sed -n 's/.*DH_VERSION_STRING "\(.*\)"/\1/p' include/devharness/devharness.h)|' \
	    devharness.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/devharness.pc

clean:
	rm -rf $(BUILD)
