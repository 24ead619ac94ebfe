# module/module.mk — `devharness module check|list` (module/README.md), linked into the
# devharness command like conformance/ and bench/.
MODULE_SRCS := $(sort $(wildcard module/*.c))
MODULE_OBJS := $(call obj,$(MODULE_SRCS))
CLI_OBJS += $(MODULE_OBJS)
CLI_LDLIBS += -ljansson -lm
SHARE_FILES += module/module_ref.py
