/*
 * tests/bench/peerflip.c — a test plugin for tests/bench/matrix.t: the sim (backends/sim,
 * SIM_CORE_SRCS) named "peerflip" whose copies between two of its devices land with the
 * destination's first byte flipped (XOR 0xff, by a host function queued after the copy
 * on the same stream); every other copy is the sim's. The copy matrix must then report
 * those cells as not measured ("copied bytes differ: ... byte 0 of N arrived as ...")
 * and measure the rest. It serves the sim's device type, so it is loaded with the real
 * sim left out (DEVHARNESS_PLUGIN_PATH naming a folder with only this plugin). Built
 * into $(TESTDIR)/bench/plugins/, never the plugin folder.
 */
#include <stdlib.h>

#include "backends/sim/sim.h"
#include "devharness/backend.h"

static dh_backend_t g_backend;

typedef struct flip {
  DLDevice dev;
  void* handle;
  size_t at;
} flip_t;

static void flip_byte(void* arg) {
  flip_t* f = arg;
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (dh_sim_handle_bytes(f->dev, f->handle, &bytes, &size) == 0 && f->at < size)
    bytes[f->at] ^= 0xff;
  free(f);
}

static int flip_copy(const void* from, size_t from_offset, void* to, size_t to_offset,
                     size_t nbytes, DLDevice dev_from, DLDevice dev_to, DLDataType hint,
                     dh_stream_t stream) {
  int rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from,
                                            dev_to, hint, stream);
  if (rc != 0 || !nbytes || dev_from.device_type == kDLCPU || dev_to.device_type == kDLCPU ||
      dev_from.device_id == dev_to.device_id)
    return rc;
  flip_t* f = malloc(sizeof *f);
  if (!f) return rc;
  *f = (flip_t){dev_to, to, to_offset};
  /* the copy runs on the source device's stream (sim_memory.c), so the flip follows it there */
  if (dh_sim_enqueue_host_fn(dev_from, stream, flip_byte, f) != 0) free(f);
  return rc;
}

__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void);
const dh_backend_t* dh_backend_entry(void) {
  g_backend = dh_sim_backend;
  g_backend.name = "peerflip";
  g_backend.description = "sim whose copies between two of its devices flip the first byte";
  g_backend.copy_data_from_to = flip_copy;
  return &g_backend;
}
