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
 * there the POCL_AFFINITY a driver started now would see ("POCL_AFFINITY=<value>" or
 * "POCL_AFFINITY unset"), at init, where a backend starts its driver, i.e. after bench
 * has placed the driver threads (bench loads its plugins before, to offer their
 * options, ABI 1.6).
 * Its module function noop appends "noop" and a newline to the DH_TEST_COPY_LOG file
 * before running the sim's (bench_cli.sh test 17: the launch suite's harness side
 * launches the backend's own noop).
 * When DH_TEST_PLACE_LOG names a file, it appends there the CPU binding of the thread
 * that makes the sim start a worker thread (which inherits it): "first_sync <PUs>" at
 * its first stream_sync (the default stream's worker starts then), "create_stream
 * <PUs>" and "twin_setup <PUs>" (bench_cli.sh test 18, bench/measure/pinning.c
 * dh_bench_place_helpers).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/sim/sim.h"
#include "devharness/backend.h"
#include "tests/sim_functions.h"

static dh_backend_t g_backend;
static dh_raw_twin_t g_twin;
static int g_log_fd = -1;
static dh_backend_function_t g_functions[DH_TEST_SIM_FUNCTIONS_MAX];
static dh_safe_call_t g_sim_noop;

static int g_place_fd = -1;

/* Appends "<what> <PU list>" for the calling thread's binding to the place log. */
static void log_binding(const char* what) {
  if (g_place_fd < 0) return;
  cpu_set_t set;
  char line[512];
  size_t n = (size_t)snprintf(line, sizeof line, "%s ", what);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    n += (size_t)snprintf(line + n, sizeof line - n, "?");
  } else {
    int first = 1;
    for (int i = 0; i < CPU_SETSIZE && n + 8 < sizeof line; ++i)
      if (CPU_ISSET(i, &set)) {
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%d", first ? "" : ",", i);
        first = 0;
      }
  }
  line[n++] = '\n';
  if (write(g_place_fd, line, n) != (ssize_t)n) { /* the test then finds the log short */ }
}

static int g_synced;

static int placed_stream_sync(DLDevice dev, dh_stream_t stream) {
  if (!g_synced) {
    g_synced = 1;
    log_binding("first_sync");
  }
  return dh_sim_backend.stream_sync(dev, stream);
}

static int placed_create_stream(DLDevice dev, dh_stream_t* out_stream) {
  log_binding("create_stream");
  return dh_sim_backend.create_stream(dev, out_stream);
}

static int placed_twin_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                             void** out_ctx) {
  log_binding("twin_setup");
  return dh_sim_backend.raw->setup(dev, op, nbytes, flags, out_ctx);
}

static int logged_noop(void* self, const dh_any_t* args, int32_t num_args, dh_any_t* result) {
  if (g_log_fd >= 0 && write(g_log_fd, "noop\n", 5) != 5) { /* the test then finds the log short */ }
  return g_sim_noop(self, args, num_args, result);
}

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

/* The sim's init, after logging the POCL_AFFINITY it sees to DH_TEST_ENV_LOG. */
static int logged_init(void) {
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
  return dh_sim_backend.init();
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
  g_backend.stream_sync = placed_stream_sync;
  g_backend.create_stream = placed_create_stream;
  g_twin.setup = placed_twin_setup;
  const char* place = getenv("DH_TEST_PLACE_LOG");
  if (place && *place && g_place_fd < 0)
    g_place_fd = open(place, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  g_sim_noop = dh_test_sim_replace_function(&g_backend, g_functions, DH_FUNC_NOOP, logged_noop);
  g_backend.init = logged_init;
  const char* path = getenv("DH_TEST_COPY_LOG");
  if (path && *path && g_log_fd < 0) g_log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  return &g_backend;
}
