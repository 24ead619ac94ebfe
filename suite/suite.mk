# suite/suite.mk — the suite machinery (suite/suite.h): the case record, the runner of
# forked cases and the reporters that `devharness conformance` and `devharness module
# check` share, linked into the devharness CLI. Every .c file here: a new report format
# is built without a line here.
SUITE_SRCS := $(sort $(wildcard suite/*.c))
SUITE_OBJS := $(call obj,$(SUITE_SRCS))
CLI_OBJS += $(SUITE_OBJS)
CLI_LDLIBS += -ljansson
# JUnit is written with libxml2's xmlTextWriter (suite/junit.c; Debian libxml2-dev).
SUITE_XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
SUITE_XML_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null)
$(OBJDIR)/suite/junit.o: CPPFLAGS += $(SUITE_XML_CFLAGS)
CLI_LDLIBS += $(SUITE_XML_LIBS)
