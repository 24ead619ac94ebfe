# conformance/conformance.mk — the conformance suite, linked into the devharness CLI
# (`devharness conformance`, conformance/conformance.h). Rooms (conformance/README.md):
#   runner/   the run: options, one case in a forked child, waivers, the loop over devices
#   clauses/  the clause catalogue: one file per clause family and their shared helpers
# Every .c file of the two rooms: a new clause family file is built
# without a line here.
CONFORMANCE_SRCS := $(sort $(wildcard conformance/runner/*.c conformance/clauses/*.c))
CONFORMANCE_OBJS := $(call obj,$(CONFORMANCE_SRCS))
CLI_OBJS += $(CONFORMANCE_OBJS)
CLI_LDLIBS += -ljansson -lm

$(OBJDIR)/conformance/%.o: CPPFLAGS += -Iconformance

# Where each clause's run function is defined, for the `file` and `line` of a JUnit
# <testcase>: generated from the clause tables (runner/clause_sources.py), so the
# tables carry no extra field.
CONF_CLAUSE_SOURCES := $(OBJDIR)/gen/conformance/clause_sources
$(CONF_CLAUSE_SOURCES).c: conformance/runner/clause_sources.py $(sort $(wildcard conformance/clauses/*.c))
	@mkdir -p $(@D)
	$(PYTHON) $< $(filter %.c,$^) > $@.tmp && mv $@.tmp $@
$(CONF_CLAUSE_SOURCES).o: $(CONF_CLAUSE_SOURCES).c
	$(CC) $(CPPFLAGS) -Iconformance $(CFLAGS) -c $< -o $@
CLI_OBJS += $(CONF_CLAUSE_SOURCES).o
