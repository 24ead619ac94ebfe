# conformance/conformance.mk — the conformance suite, linked into the devharness CLI
# (`devharness conformance`, conformance/conformance.h).
CONFORMANCE_SRCS := conformance/runner.c conformance/runner_opts.c \
    conformance/runner_case.c conformance/runner_report.c conformance/waivers.c \
    conformance/catalogue.c conformance/util.c \
    conformance/attr.c conformance/mem.c conformance/copy.c conformance/stream.c \
    conformance/packed.c conformance/device.c conformance/event.c \
    conformance/power.c conformance/abi.c
CONFORMANCE_OBJS := $(call obj,$(CONFORMANCE_SRCS))
CLI_OBJS += $(CONFORMANCE_OBJS)
CLI_LDLIBS += -ljansson -lm

$(OBJDIR)/conformance/%.o: CPPFLAGS += -Iconformance
