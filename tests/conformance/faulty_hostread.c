/* Fault: host-to-device copies read the host buffer late, on the stream's worker,
 * after the call has returned (no staging copy): the worker holds the copy until the
 * caller next calls stream_sync (or 500 ms pass), so a caller that reuses its buffer
 * before syncing deterministically ships the new bytes. Expected clause:
 * copy.host_source_released. */
#include <stdatomic.h>
#include <time.h>

#include "faulty.h"

static atomic_uint sync_gen;

typedef struct {
  DLDevice dev;
  const void* from;
  void* handle;
  size_t at, n;
  unsigned gen;
} late_t;

static void late_copy(void* arg) {
  late_t* l = arg;
  /* wait for the caller's next stream_sync (bounded) */
  for (int i = 0; i < 500 && atomic_load(&sync_gen) == l->gen; i++) {
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  uint8_t* bytes = NULL;
  size_t size = 0;
  if (dh_sim_handle_bytes(l->dev, l->handle, &bytes, &size) == 0 && l->at <= size && l->n <= size - l->at)
    memcpy(bytes + l->at, l->from, l->n);
  free(l);
}

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  if (faulty_is_host(dev_from) && !faulty_is_host(dev_to) && nbytes) {
    /* the handle and the range are checked at the call, as the sim does; only the read
     * of the host bytes is late */
    uint8_t* bytes;
    size_t size;
    if (dh_sim_handle_bytes(dev_to, to, &bytes, &size) != 0) return -1;
    if (to_offset > size || nbytes > size - to_offset)
      return dh_error_set("ValueError", "faulty_hostread: destination range outside the allocation");
    late_t* l = malloc(sizeof *l);
    if (!l) return dh_error_set("OutOfMemoryError", "faulty_hostread: malloc");
    l->dev = dev_to;
    l->from = (const uint8_t*)from + from_offset;
    l->handle = to;
    l->at = to_offset;
    l->n = nbytes;
    l->gen = atomic_load(&sync_gen);
    if (dh_sim_enqueue_host_fn(dev_to, stream, late_copy, l) != 0) {
      free(l);
      return -1;
    }
    return 0;
  }
  return dh_sim_backend.copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to,
                                          hint, stream);
}

static int sync_mark(DLDevice dev, dh_stream_t stream) {
  atomic_fetch_add(&sync_gen, 1);
  return dh_sim_backend.stream_sync(dev, stream);
}

FAULTY_ENTRY("hostread", (faulty.copy_data_from_to = bad_copy, faulty.stream_sync = sync_mark))
