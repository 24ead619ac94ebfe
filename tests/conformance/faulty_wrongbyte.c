/* Fault: an H2D copy to device byte_offset 4095 lands with its first byte wrong.
 * Expected clause: copy.dst_offsets. */
#include "faulty.h"

typedef struct {
  DLDevice dev;
  void* handle;
  size_t at;
} poke_t;

static void poke(void* arg) {
  poke_t* p = arg;
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (dh_sim_handle_bytes(p->dev, p->handle, &bytes, &size) == 0 && p->at < size)
    bytes[p->at] ^= 0x5a;
  free(p);
}

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  int rc = dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from,
                                            dev_to, hint, stream);
  if (rc == 0 && faulty_is_host(dev_from) && !faulty_is_host(dev_to) && to_offset == 4095 && nbytes) {
    poke_t* p = malloc(sizeof *p);
    if (!p) return 0;
    p->dev = dev_to;
    p->handle = to;
    p->at = to_offset;
    if (dh_sim_enqueue_host_fn(dev_to, stream, poke, p) != 0) free(p);
  }
  return rc;
}

FAULTY_ENTRY("wrongbyte", faulty.copy_data_from_to = bad_copy)
