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

# JUnit is written with libxml2's xmlTextWriter (report/junit.c; Debian libxml2-dev).
CONF_XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
CONF_XML_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null)
$(OBJDIR)/conformance/report/junit.o: CPPFLAGS += $(CONF_XML_CFLAGS)
CLI_LDLIBS += $(CONF_XML_LIBS)

# Where each clause's run function is defined, for the `file` and `line` of a JUnit
# <testcase>: generated from the clause tables (report/clause_sources.py), so the
# tables carry no extra field.
CONF_CLAUSE_SOURCES := $(OBJDIR)/gen/conformance/clause_sources
$(CONF_CLAUSE_SOURCES).c: conformance/report/clause_sources.py $(sort $(wildcard conformance/clauses/*.c))
	@mkdir -p $(@D)
	$(PYTHON) $< $(filter %.c,$^) > $@.tmp && mv $@.tmp $@
$(CONF_CLAUSE_SOURCES).o: $(CONF_CLAUSE_SOURCES).c
	$(CC) $(CPPFLAGS) -Iconformance $(CFLAGS) -c $< -o $@
CLI_OBJS += $(CONF_CLAUSE_SOURCES).o
