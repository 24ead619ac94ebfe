# machine/machine.mk — the facts of the machine (machine/README.md): copy ceilings,
# where the devices sit, measurement health and NVML; linked into the devharness
# command (bench/ and cli/'s run use them).
MACHINE_SRCS := $(sort $(wildcard machine/*.c))
MACHINE_OBJS := $(call obj,$(MACHINE_SRCS))
MACHINE_LDLIBS := -lhwloc -ljansson -ldl -lm
CLI_OBJS += $(MACHINE_OBJS)
CLI_LDLIBS += $(MACHINE_LDLIBS)
