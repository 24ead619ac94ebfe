# module/module.mk — `devharness module check|list` (module/README.md), linked into the
# devharness command like conformance/ and bench/.
MODULE_SRCS := $(sort $(wildcard module/*.c))
MODULE_OBJS := $(call obj,$(MODULE_SRCS))
CLI_OBJS += $(MODULE_OBJS)
# JUnit with libxml2's xmlTextWriter (report.c), as conformance/report/junit.c.
$(OBJDIR)/module/report.o: CPPFLAGS += $(shell pkg-config --cflags libxml-2.0 2>/dev/null)
CLI_LDLIBS += -ljansson -lm
