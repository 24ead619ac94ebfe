# base/base.mk — libdh_base.a: helpers every layer shares (base/README.md), a static
# archive compiled with hidden visibility: linked into libdevharness.so without
# being exported from it, and into the devharness command and tests that need it.
BASE_SRCS := $(sort $(wildcard base/*.c))
BASE_OBJS := $(call obj,$(BASE_SRCS))
$(BASE_OBJS): CFLAGS += -fvisibility=hidden

$(BASE_LIB): $(BASE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^
