# cmdline/cmdline.mk — the command-line room every command builds on (exit codes, option
# helpers, the --device option; cmdline/cmdline.h), linked into the devharness command
# and the standalone bench driver (bench/bench.mk).
CMDLINE_SRCS := $(sort $(wildcard cmdline/*.c))
CLI_OBJS += $(call obj,$(CMDLINE_SRCS))
