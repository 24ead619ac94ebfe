# backends/common/common.mk — sources shared by several backend plugins, compiled into
# each plugin that lists them (not into libdevharness):
#   host_memcpy_twin.c   the "memcpy" raw twin of the host-memory backends (cpu, tvm-cpu)
#   env_bytes.c          a byte count from the environment (cuda, vulkan thresholds)
DH_HOST_MEMCPY_TWIN_SRC := backends/common/host_memcpy_twin.c
DH_ENV_BYTES_SRC := backends/common/env_bytes.c
$(OBJDIR)/backends/common/%.o: CFLAGS += -fvisibility=hidden
