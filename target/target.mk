# target/target.mk — the target system (TVM's target JSON: kinds, tags, parsing, live
# devices; target/target_impl.h has the file map), part of libdevharness.so behind
# include/devharness/target.h.
TARGET_SRCS := $(sort $(wildcard target/*.c))
TARGET_OBJS := $(call obj,$(TARGET_SRCS))
$(RUNTIME_LIB): $(TARGET_OBJS)
