/*
 * tests/bench/bidirorder.c — a test plugin for tests/bench/bidir_order.sh: the sim
 * (backends/sim, SIM_CORE_SRCS) named "bidirorder" whose raw twin says
 * DH_RAW_BIDIR_PAGEABLE_H2D_FIRST (backend.h dh_raw_twin_t.bidir_order; 0 when the
 * environment has DH_TEST_BIDIR_ORDER=0), and whose copy_data_from_to appends "h2d",
 * "d2h" or "d2d" and a newline to the file named by DH_TEST_COPY_LOG before copying.
 * It serves the sim's device type, so it is loaded with the real sim left out
 * (DEVHARNESS_PLUGIN_PATH lists its folder first; the sim is then refused as a
 * duplicate). Built into $(TESTDIR)/bench/plugins/, never the plugin folder.
 * Also, for tests/bench/bench_cli.sh: when DH_TEST_ENV_LOG names a file, it writes
 * there the POCL_AFFINITY a driver loaded now would see ("POCL_AFFINITY=<value>" or
 * "POCL_AFFINITY unset"), at load, i.e. after bench has placed the driver threads.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/sim/sim.h"
#include "devharness/backend.h"

static dh_backend_t g_backend;
static dh_raw_twin_t g_twin;
static int g_log_fd = -1;

static int logged_copy(const void* from, size_t from_offset, void* to, size_t to_offset,
                       size_t nbytes, DLDevice dev_from, DLDevice dev_to, DLDataType hint,
                       dh_stream_t stream) {
  if (g_log_fd >= 0) {
    int from_host = dev_from.device_type == kDLCPU, to_host = dev_to.device_type == kDLCPU;
    const char* line = from_host ? "h2d\n" : to_host ? "d2h\n" : "d2d\n";
    if (write(g_log_fd, line, 4) != 4) { /* the test then finds the log short */ }
  }
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from,
                                          dev_to, hint, stream);
}

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void);
const dh_backend_t* dh_backend_entry(void) {
  g_backend = dh_sim_backend;
  g_backend.name = "bidirorder";
  g_backend.description = "sim whose twin issues pageable bidirectional copies H2D first (test)";
  g_twin = *dh_sim_backend.raw;
  const char* order = getenv("DH_TEST_BIDIR_ORDER");
  g_twin.bidir_order = order && strcmp(order, "0") == 0 ? 0 : DH_RAW_BIDIR_PAGEABLE_H2D_FIRST;
  g_backend.raw = &g_twin;
  g_backend.copy_data_from_to = logged_copy;
  const char* envlog = getenv("DH_TEST_ENV_LOG");
  if (envlog && *envlog) {
    int fd = open(envlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const char* v = getenv("POCL_AFFINITY");
      const char* pre = v ? "POCL_AFFINITY=" : "POCL_AFFINITY unset";
      if (write(fd, pre, strlen(pre)) < 0 || (v && write(fd, v, strlen(v)) < 0)) {
        /* the test then finds the log short */
      }
      close(fd);
    }
  }
  const char* path = getenv("DH_TEST_COPY_LOG");
  if (path && *path && g_log_fd < 0) g_log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  return &g_backend;
}
