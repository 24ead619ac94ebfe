# runtime/runtime.mk — libdevharness.so, the runtime core (every runtime/*.c, including
# the targets engineer's runtime/target*.c).
RUNTIME_SRCS := $(sort $(wildcard runtime/*.c))
RUNTIME_OBJS := $(call obj,$(RUNTIME_SRCS))
RUNTIME_LDLIBS := -ldl -ljansson -lhwloc -pthread

$(RUNTIME_LIB): $(RUNTIME_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libdevharness.so -o $@ $^ $(RUNTIME_LDLIBS)

# Symbols the runtime core does not define (libc, libdl, pthread, jansson, hwloc
# aside) are listed; used by `make check-runtime-symbols`.
.PHONY: check-runtime-symbols
check-runtime-symbols: $(RUNTIME_LIB)
	@nm -D --undefined-only $(RUNTIME_LIB) | grep ' dh_' && { echo "undefined dh_ symbols" >&2; exit 1; } || echo "runtime: no undefined dh_ symbols"
