# backends/common/common.mk — sources shared by several backend plugins, compiled into
# each plugin that lists them (not into libdevharness):
#   host_memcpy_twin.c   the "memcpy" raw twin of the host-memory backends (cpu, tvm-cpu)
DH_HOST_MEMCPY_TWIN_SRC := backends/common/host_memcpy_twin.c
$(OBJDIR)/backends/common/%.o: CFLAGS += -fvisibility=hidden
