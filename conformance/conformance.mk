# conformance/conformance.mk — the conformance suite, linked into the devharness CLI
# (`devharness conformance`, conformance/conformance.h). Rooms (conformance/README.md):
#   runner/   the run: options, one case in a forked child, waivers, the loop over devices
#   report/   the reporters the runner drives (one file per output format)
#   clauses/  the clause catalogue: one file per clause family and their shared helpers
# Every .c file of the three rooms: a new report format or clause family file is built
# without a line here.
CONFORMANCE_SRCS := $(sort $(wildcard conformance/runner/*.c conformance/report/*.c \
    conformance/clauses/*.c))
CONFORMANCE_OBJS := $(call obj,$(CONFORMANCE_SRCS))
CLI_OBJS += $(CONFORMANCE_OBJS)
CLI_LDLIBS += -ljansson -lm

$(OBJDIR)/conformance/%.o: CPPFLAGS += -Iconformance
