# tests/conformance/tests.mk — proof of power of the conformance suite.
#
# Faulty backends: each is the sim core (SIM_CORE_SRCS, backends/sim/backend.mk) plus
# one tests/conformance/faulty_<x>.c breaking exactly one clause. They are built into
# $(TESTDIR)/conformance/ (NOT the plugin folder, so default discovery never loads
# them) and run by tests/conformance/*.t with `--plugin`.
CONF_FAULTS := wrongbyte ignoreoffset hostread nowait earlysync overlap existerr errkind \
    wsleak segv hang attrtype setdevkind freenull negzero perthread oomkind initcrash tvmdefault \
    truncmib zerowrite freedrop racyalloc phantom evnowait nocross doublefree stalecopy \
    freereuse syncopy capslie noevents singlelie echonone echoint echobool echoptr echodtype \
    echodevice echotensor echostr echobytes echosmall echomixed echoindex echotype raisemsg stickyerr \
    wsnull devsmall unavail sizecache hugeid negkind totalzero availleak oombreak srcclobber \
    lanesdrop fillsigned setmod existneg threaddims emptyname computemajor warpzero availabove \
    availfixed unstable kindindex idvalue limit48 lanesrefused streamfreenull samestream getnull \
    alldevices nooparg filloffset fillround bigsrcoff d2dbigoff odd33 trapswallow trapsticky trapglobal \
    queuecap streamcap hostdstearly sizewrap rangewrap streamleak wsshare freeinterior hostshare \
    curdev availprocess envkernels envprivate envcopy freewrite \
    syncnull h2deager evfirst fill1d samebuf wsdepth tensorlax fillstrided attrdrift wsorder idlehang
# Built the same way for other tests, not part of the proof of power (faulty.t,
# power.py): badtext fails stream.free_null with bytes no report may pass on raw
# (tests/conformance/consumers.t); alone detects cases running beside each other
# (tests/conformance/run_alone.t); querycaps answers query_caps (backend.h ABI 1.5)
# differently from the caps it declares (tests/conformance/query_caps.t); syncnop has a
# stream_sync that never waits (tests/bench/implausible.t); attrcrash a get_attr that
# crashes (tests/cli/isolated.t).
CONF_REPORT_FAULTS := badtext alone querycaps syncnop attrcrash
CONF_FAULTY_DIR := $(TESTDIR)/conformance
CONF_FAULTY_LIBS := $(foreach f,$(CONF_FAULTS) $(CONF_REPORT_FAULTS),$(CONF_FAULTY_DIR)/libdevharness_faulty_$(f).so)

ifneq ($(SIM_CORE_SRCS),)
define dc_faulty_rule
$(CONF_FAULTY_DIR)/libdevharness_faulty_$(1).so: $(call obj,$(SIM_CORE_SRCS) tests/conformance/faulty_$(1).c) $(RUNTIME_LIB)
	@mkdir -p $$(@D)
	$$(CC) -shared $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$$$ORIGIN/../../lib'
endef
$(foreach f,$(CONF_FAULTS) $(CONF_REPORT_FAULTS),$(eval $(call dc_faulty_rule,$(f))))
ALL_TARGETS += $(CONF_FAULTY_LIBS)
endif

# Faulty cpu backends (tests/conformance/faulty_cpu.h): no backend sources; each
# dlopens the built cpu plugin at load time, so it needs that plugin built first.
CONF_CPU_FAULTS := cpualign cpudefalign cpuhandle
CONF_CPU_FAULTY_LIBS := $(foreach f,$(CONF_CPU_FAULTS),$(CONF_FAULTY_DIR)/libdevharness_faulty_$(f).so)
define dc_cpu_faulty_rule
$(CONF_FAULTY_DIR)/libdevharness_faulty_$(1).so: $(call obj,tests/conformance/faulty_$(1).c) $(RUNTIME_LIB)
	@mkdir -p $$(@D)
	$$(CC) -shared $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness -ldl \
	    -Wl,-rpath,'$$$$ORIGIN/../../lib'
endef
$(foreach f,$(CONF_CPU_FAULTS),$(eval $(call dc_cpu_faulty_rule,$(f))))
CONF_FAULTY_LIBS += $(CONF_CPU_FAULTY_LIBS)
ALL_TARGETS += $(CONF_CPU_FAULTY_LIBS)

# This build's compile and link lines for the devharness command, as a make fragment,
# for tests/conformance/new_clause.sh and new_report_format.sh: they change a copy of
# conformance/ the way docs/adding-a-clause.md and docs/adding-a-report-format.md say,
# compile the changed files with these flags and link them with the build's other
# objects (CLI_OBJS, less the files they replace). `$` is written as `$$`.
CONF_NEW_CODE_VARS := $(TESTDIR)/conformance/new_code.vars.mk
dh_conf_mk_value = $(subst $$,$$$$,$(1))
$(CONF_NEW_CODE_VARS): Makefile conformance/conformance.mk suite/suite.mk $(SUITE_SRCS) $(CONFORMANCE_SRCS) tests/conformance/tests.mk cli/cli.mk cmdline/cmdline.mk bench/bench.mk backends/sim/backend.mk $(CLI_OBJS)
	$(shell mkdir -p $(@D))$(file >$@,# $@: written by tests/conformance/tests.mk)
	$(file >>$@,CC := $(call dh_conf_mk_value,$(CC)))
	$(file >>$@,CXX := $(call dh_conf_mk_value,$(CXX)))
	$(file >>$@,COMPILE_FLAGS := $(call dh_conf_mk_value,$(CPPFLAGS) $(CFLAGS)))
	$(file >>$@,LINK_FLAGS := $(call dh_conf_mk_value,$(LDFLAGS)))
	$(file >>$@,OBJDIR := $(abspath $(OBJDIR)))
	$(file >>$@,LINK_OBJS := $(abspath $(CLI_OBJS) $(BASE_LIB)))
	$(file >>$@,SIM_CORE_OBJS := $(abspath $(call obj,$(SIM_CORE_SRCS))))
	$(file >>$@,LINK_LIBS := $(call dh_conf_mk_value,-L$(abspath $(LIBDIR)) -ldevharness -Wl$(comma)-rpath$(comma)$(abspath $(LIBDIR)) -ljansson -lhwloc $(CLI_LDLIBS)))
ALL_TARGETS += $(CONF_NEW_CODE_VARS)

TEST_SCRIPTS += tests/conformance/new_clause.sh tests/conformance/new_report_format.sh
# faulty.t is the long tier (make test-full; docs/benchmarks.md): 120 full runs.
TEST_LONG_SCRIPTS += tests/conformance/faulty.t
TEST_SCRIPTS += tests/conformance/suite.t tests/conformance/profiles.t \
    tests/conformance/power.py tests/conformance/reports.t tests/conformance/summary.t \
    tests/conformance/consumers.t tests/conformance/run_alone.t tests/conformance/query_caps.t
.PHONY: conformance-faulty
conformance-faulty: $(CONF_FAULTY_LIBS)

# make power CLAUSE=<id>: the proof of power of docs/adding-a-clause.md §3, in its order:
# the faulty backends built, CLAUSE run alone on each (power.py --probe; stops when
# faulty.t FAULTS must change), conformance/clauses/power.c regenerated (power.py
# --write), the build redone, docs/conformance.md's generated sections spliced in
# (conformance-doc). Without CLAUSE: the last three steps.
.PHONY: power
power: all conformance-faulty
	$(if $(CLAUSE),DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) $(PYTHON) tests/conformance/power.py --probe '$(CLAUSE)')
	DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) $(PYTHON) tests/conformance/power.py --write
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory conformance-doc
	@echo "power: conformance/clauses/power.c and docs/conformance.md's tables regenerated; next: prove tests/conformance/faulty.t"

# make conformance-doc: the generated sections of docs/conformance.md (counts, clause
# table, proof-of-power table, each between its marker lines) spliced in from
# `devharness conformance --list --format markdown` by conformance/runner/md_tables.py;
# the page's prose is hand-written. tests/conformance/suite.t checks the sections.
.PHONY: conformance-doc
conformance-doc: all
	$(DEVHARNESS) conformance --list --format markdown >$(BUILD)/conformance.md.sections
	$(PYTHON) conformance/runner/md_tables.py docs/conformance.md --generated $(BUILD)/conformance.md.sections

# Mutation test: small faults applied to copies of the sim sources, each
# built and run against the matching clauses 5 times; prints TAP and the score.
# Bounded for a shared 2-core machine: MUTATE_JOBS (default 2) mutants at a time.
.PHONY: mutate
mutate: all
	DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) CC=$(CC) XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PYTHON) tests/conformance/mutate.py
test: $(TESTDIR)/runtime_plugins/libdevharness_rtinitfail.so
