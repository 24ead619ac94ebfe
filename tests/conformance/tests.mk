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
    queuecap streamcap hostdstearly
CONF_FAULTY_DIR := $(TESTDIR)/conformance
CONF_FAULTY_LIBS := $(foreach f,$(CONF_FAULTS),$(CONF_FAULTY_DIR)/libdevharness_faulty_$(f).so)

ifneq ($(SIM_CORE_SRCS),)
define dc_faulty_rule
$(CONF_FAULTY_DIR)/libdevharness_faulty_$(1).so: $(call obj,$(SIM_CORE_SRCS) tests/conformance/faulty_$(1).c) $(RUNTIME_LIB)
	@mkdir -p $$(@D)
	$$(CC) -shared $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) -L$(LIBDIR) -ldevharness \
	    -Wl,-rpath,'$$$$ORIGIN/../../lib'
endef
$(foreach f,$(CONF_FAULTS),$(eval $(call dc_faulty_rule,$(f))))
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

TEST_SCRIPTS += tests/conformance/faulty.t tests/conformance/suite.t tests/conformance/profiles.t \
    tests/conformance/power.py tests/conformance/reports.t tests/conformance/summary.t
.PHONY: conformance-faulty
conformance-faulty: $(CONF_FAULTY_LIBS)

# Mutation test: small faults applied to copies of the sim sources, each
# built and run against the matching clauses 5 times; prints TAP and the score.
# Bounded for a shared 2-core machine: MUTATE_JOBS (default 2) mutants at a time.
.PHONY: mutate
mutate: all
	DEVHARNESS=$(abspath $(DEVHARNESS)) BUILD=$(BUILD) CC=$(CC) XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp} \
	    $(PYTHON) tests/conformance/mutate.py
test: $(TESTDIR)/runtime_plugins/libdevharness_rtinitfail.so
