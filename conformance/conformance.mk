# conformance/conformance.mk — the conformance suite, linked into the devharness CLI
# (`devharness conformance`, conformance/conformance.h). Rooms (conformance/README.md):
#   runner/   the run: options, one case in a forked child, waivers, the loop over devices
#   report/   the reporters the runner drives (one file per output format)
#   clauses/  the clause catalogue: one file per clause family and their shared helpers
CONFORMANCE_RUNNER_SRCS := conformance/runner/runner.c conformance/runner/options.c \
    conformance/runner/case.c conformance/runner/waivers.c
CONFORMANCE_REPORT_SRCS := conformance/report/report.c conformance/report/tap.c \
    conformance/report/junit.c conformance/report/summary.c conformance/report/list.c
CONFORMANCE_CLAUSE_SRCS := conformance/clauses/catalogue.c conformance/clauses/util.c \
    conformance/clauses/attr.c conformance/clauses/mem.c conformance/clauses/copy.c \
    conformance/clauses/stream.c conformance/clauses/packed.c conformance/clauses/device.c \
    conformance/clauses/event.c conformance/clauses/power.c conformance/clauses/abi.c
CONFORMANCE_SRCS := $(CONFORMANCE_RUNNER_SRCS) $(CONFORMANCE_REPORT_SRCS) $(CONFORMANCE_CLAUSE_SRCS)
CONFORMANCE_OBJS := $(call obj,$(CONFORMANCE_SRCS))
CLI_OBJS += $(CONFORMANCE_OBJS)
CLI_LDLIBS += -ljansson -lm

$(OBJDIR)/conformance/%.o: CPPFLAGS += -Iconformance
