# cmdline/cmdline.mk — the command-line room every command builds on (exit codes, option
# helpers, the --device option; cmdline/cmdline.h), linked into the devharness command.
CMDLINE_SRCS := $(sort $(wildcard cmdline/*.c))
CLI_OBJS += $(call obj,$(CMDLINE_SRCS))

# cmdline/bundle.c writes result bundles (docs/results.md): SHA-256 from nettle
# (Debian nettle-dev), UUIDs from libuuid (uuid-dev); the checkout's commit at build
# time goes into every manifest.
DH_GIT_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
$(OBJDIR)/cmdline/bundle.o: CPPFLAGS += -DDH_GIT_COMMIT='"$(DH_GIT_COMMIT)"'
CMDLINE_LDLIBS := -lnettle -luuid -ljansson
CLI_LDLIBS += $(CMDLINE_LDLIBS)
