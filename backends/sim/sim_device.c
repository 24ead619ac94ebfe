/*
 * backends/sim/sim_device.c — configuration, devices, opaque handles, device memory.
 *
 * A real backend would talk to its driver here; the sim keeps everything in host
 * memory but behaves like a device whose memory the host cannot address: the handle
 * returned by alloc_data_space is an id, and every entry looks it up (and rejects it
 * when unknown) before touching data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devharness/error.h"
#include "sim_impl.h"

dh_sim_state_t dh_sim_state;

static pthread_mutex_t dh_sim_init_mu = PTHREAD_MUTEX_INITIALIZER;

/*===========================================================================
 * Reference-counted objects
 *===========================================================================*/

void dh_sim_obj_retain(dh_sim_obj_t* obj) {
  atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
}

void dh_sim_obj_release(dh_sim_obj_t* obj) {
  if (obj == NULL) return;
  if (atomic_fetch_sub_explicit(&obj->refs, 1, memory_order_acq_rel) == 1) obj->destroy(obj);
}

/*===========================================================================
 * Time
 *===========================================================================*/

uint64_t dh_sim_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void dh_sim_delay_ns(uint64_t ns) {
  if (ns == 0) return;
  uint64_t deadline = dh_sim_now_ns() + ns;
  /* nanosleep overshoots by ~50-100 us (timer slack), so sleep only for long delays
   * and spin the rest: short device latencies stay accurate. */
  if (ns > 200000) {
    uint64_t sleep_ns = ns - 100000;
    struct timespec ts = {(time_t)(sleep_ns / 1000000000u), (long)(sleep_ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  while (dh_sim_now_ns() < deadline) {
  }
}

/*===========================================================================
 * Handle table
 *===========================================================================*/

struct dh_sim_slot {
  uint32_t gen;        /* 1..0xffffff; bumped when the slot is freed */
  uint32_t next_free;  /* next free slot + 1 while free */
  dh_sim_obj_t* obj;   /* NULL while free */
};

#define DH_SIM_SLOT_BITS 24
#define DH_SIM_SLOT_MASK ((1u << DH_SIM_SLOT_BITS) - 1)
#define DH_SIM_GEN_MASK 0xffffffu

static void* dh_sim_handle_encode(dh_sim_kind_t kind, int device_id, uint32_t gen, uint32_t slot) {
  uint64_t h = ((uint64_t)kind << 56) | ((uint64_t)(device_id & 0xff) << 48) |
               ((uint64_t)(gen & DH_SIM_GEN_MASK) << 24) | (uint64_t)(slot & DH_SIM_SLOT_MASK);
  return (void*)(uintptr_t)h;
}

static void dh_sim_table_init(dh_sim_table_t* t) {
  memset(t, 0, sizeof *t);
  pthread_mutex_init(&t->mu, NULL);
}

int dh_sim_table_add(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, dh_sim_obj_t* obj,
                     void** out_handle) {
  pthread_mutex_lock(&t->mu);
  if (t->free_head == 0) {
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    if (cap > DH_SIM_SLOT_MASK) {
      pthread_mutex_unlock(&t->mu);
      return dh_error_set("OutOfMemoryError", "sim: more than %u live handles", DH_SIM_SLOT_MASK);
    }
    struct dh_sim_slot* slots = realloc(t->slots, cap * sizeof *slots);
    if (slots == NULL) {
      pthread_mutex_unlock(&t->mu);
      return dh_error_set("OutOfMemoryError", "sim: cannot grow the handle table");
    }
    /* New slots form the free list, lowest index first. */
    for (uint32_t i = t->cap; i < cap; i++) {
      slots[i].gen = 1;
      slots[i].obj = NULL;
      slots[i].next_free = (i + 1 < cap) ? i + 2 : 0;
    }
    t->free_head = t->cap + 1;
    t->slots = slots;
    t->cap = cap;
  }
  uint32_t slot = t->free_head - 1;
  struct dh_sim_slot* s = &t->slots[slot];
  t->free_head = s->next_free;
  s->next_free = 0;
  s->obj = obj;
  t->live++;
  *out_handle = dh_sim_handle_encode(kind, device_id, s->gen, slot);
  pthread_mutex_unlock(&t->mu);
  return 0;
}

/* Finds the slot of `handle`; called with t->mu held. On error stores a message. */
static int dh_sim_table_find(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, void* handle,
                             const char* what, struct dh_sim_slot** out_slot) {
  uint64_t h = (uint64_t)(uintptr_t)handle;
  unsigned tag = (unsigned)(h >> 56);
  int hdev = (int)((h >> 48) & 0xff);
  uint32_t gen = (uint32_t)((h >> 24) & DH_SIM_GEN_MASK);
  uint32_t slot = (uint32_t)(h & DH_SIM_SLOT_MASK);
  if (tag != (unsigned)kind)
    return dh_error_set("ValueError", "%p is not a sim %s (bad tag)", handle, what);
  if (hdev != device_id)
    return dh_error_set("ValueError", "%s %p belongs to sim:%d, not sim:%d", what, handle, hdev,
                        device_id);
  if (slot >= t->cap || t->slots[slot].obj == NULL || t->slots[slot].gen != gen)
    return dh_error_set("ValueError", "%s %p on sim:%d was freed or never allocated", what,
                        handle, device_id);
  *out_slot = &t->slots[slot];
  return 0;
}

int dh_sim_table_get(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, void* handle,
                     const char* what, dh_sim_obj_t** out_obj) {
  struct dh_sim_slot* s;
  pthread_mutex_lock(&t->mu);
  int rc = dh_sim_table_find(t, kind, device_id, handle, what, &s);
  if (rc == 0) {
    dh_sim_obj_retain(s->obj);
    *out_obj = s->obj;
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

int dh_sim_table_remove(dh_sim_table_t* t, dh_sim_kind_t kind, int device_id, void* handle,
                        const char* what, dh_sim_obj_t** out_obj) {
  struct dh_sim_slot* s;
  pthread_mutex_lock(&t->mu);
  int rc = dh_sim_table_find(t, kind, device_id, handle, what, &s);
  if (rc == 0) {
    *out_obj = s->obj;
    s->obj = NULL;
    s->gen = (s->gen + 1) & DH_SIM_GEN_MASK;
    if (s->gen == 0) s->gen = 1;
    s->next_free = t->free_head;
    t->free_head = (uint32_t)(s - t->slots) + 1;
    t->live--;
  }
  pthread_mutex_unlock(&t->mu);
  return rc;
}

/* Removes every live object, calling fn on each (which consumes the table's
 * reference), then frees the table. Shutdown only. */
static void dh_sim_table_drain(dh_sim_table_t* t, void (*fn)(dh_sim_obj_t* obj)) {
  pthread_mutex_lock(&t->mu);
  struct dh_sim_slot* slots = t->slots;
  uint32_t cap = t->cap;
  t->slots = NULL;
  t->cap = 0;
  t->free_head = 0;
  t->live = 0;
  pthread_mutex_unlock(&t->mu);
  for (uint32_t i = 0; i < cap; i++)
    if (slots[i].obj != NULL) fn(slots[i].obj);
  free(slots);
  pthread_mutex_destroy(&t->mu);
}

/*===========================================================================
 * Configuration and devices
 *===========================================================================*/

/* Parses environment variable `name` as an unsigned integer with an optional K/M/G
 * (binary) suffix into *out, keeping *out when unset or empty. */
static int dh_sim_env_u64(const char* name, uint64_t max, uint64_t* out) {
  const char* text = getenv(name);
  if (text == NULL || *text == '\0') return 0;
  errno = 0;
  char* end = NULL;
  unsigned long long v = strtoull(text, &end, 10);
  uint64_t mult = 1;
  if (end != text && *end != '\0') {
    switch (*end) {
      case 'k': case 'K': mult = 1ull << 10; end++; break;
      case 'm': case 'M': mult = 1ull << 20; end++; break;
      case 'g': case 'G': mult = 1ull << 30; end++; break;
      default: break;
    }
    if (*end == 'i' && end[1] == 'B') end += 2;  /* "64MiB" */
  }
  if (end == text || *end != '\0' || errno != 0 || text[0] == '-' ||
      (mult > 1 && v > max / mult) || v * mult > max)
    return dh_error_set("ValueError",
                        "%s='%s': expected an unsigned integer (optional K/M/G suffix) "
                        "no larger than %" PRIu64,
                        name, text, max);
  *out = (uint64_t)v * mult;
  return 0;
}

/* In a child forked after init the workers of the parent's streams do not exist:
 * forget the default streams (they are re-created on first use), re-arm the locks a
 * parent thread may have held, and make the parent's explicit streams stale (see
 * dh_sim_stream_get). The parent's objects are leaked in the child, not freed. */
static void dh_sim_atfork_child(void) {
  atomic_fetch_add(&dh_sim_state.fork_gen, 1);
  pthread_mutex_init(&dh_sim_init_mu, NULL);
  dh_sim_stream_atfork_child();
  if (!atomic_load(&dh_sim_state.initialised)) return;
  for (int i = 0; i < dh_sim_state.config.num_devices; i++) {
    dh_sim_device_t* d = &dh_sim_state.devices[i];
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->buffers.mu, NULL);
    pthread_mutex_init(&d->streams.mu, NULL);
    pthread_mutex_init(&d->events.mu, NULL);
    if (d->default_stream != NULL) dh_sim_stream_orphan(d->default_stream);
    d->default_stream = NULL;
  }
}

int dh_sim_init(void) {
  static int atfork_registered;
  pthread_mutex_lock(&dh_sim_init_mu);
  if (!atfork_registered && pthread_atfork(NULL, NULL, dh_sim_atfork_child) == 0)
    atfork_registered = 1;
  if (atomic_load(&dh_sim_state.initialised)) {
    pthread_mutex_unlock(&dh_sim_init_mu);
    return 0;
  }
  uint64_t ndev = 2, mem = 1ull << 30, lat = 2000, per_kib = 64;
  if (dh_sim_env_u64("DEVHARNESS_SIM_DEVICES", DH_SIM_MAX_DEVICES, &ndev) != 0 ||
      dh_sim_env_u64("DEVHARNESS_SIM_MEMORY_BYTES", (uint64_t)SIZE_MAX / 2, &mem) != 0 ||
      dh_sim_env_u64("DEVHARNESS_SIM_LATENCY_NS", 1000000000ull, &lat) != 0 ||
      dh_sim_env_u64("DEVHARNESS_SIM_DELAY_NS_PER_KIB", 1000000000ull, &per_kib) != 0) {
    pthread_mutex_unlock(&dh_sim_init_mu);
    return -1;
  }
  dh_sim_config_t cfg = {(int)ndev, (size_t)mem, lat, per_kib};
  dh_sim_device_t* devs = calloc(ndev ? ndev : 1, sizeof *devs);
  if (devs == NULL) {
    pthread_mutex_unlock(&dh_sim_init_mu);
    return dh_error_set("OutOfMemoryError", "sim: cannot allocate the device table");
  }
  for (int i = 0; i < cfg.num_devices; i++) {
    devs[i].id = i;
    pthread_mutex_init(&devs[i].mu, NULL);
    dh_sim_table_init(&devs[i].buffers);
    dh_sim_table_init(&devs[i].streams);
    dh_sim_table_init(&devs[i].events);
  }
  dh_sim_state.config = cfg;
  dh_sim_state.devices = devs;
  atomic_store(&dh_sim_state.initialised, 1);
  pthread_mutex_unlock(&dh_sim_init_mu);
  return 0;
}

static void dh_sim_close_and_release(dh_sim_obj_t* obj) {
  dh_sim_stream_close((dh_sim_stream_t*)obj);
  dh_sim_obj_release(obj);
}

void dh_sim_shutdown(void) {
  pthread_mutex_lock(&dh_sim_init_mu);
  if (!atomic_load(&dh_sim_state.initialised)) {
    pthread_mutex_unlock(&dh_sim_init_mu);
    return;
  }
  for (int i = 0; i < dh_sim_state.config.num_devices; i++) {
    dh_sim_device_t* d = &dh_sim_state.devices[i];
    /* Streams first: draining them finishes all work that still holds buffers. */
    dh_sim_table_drain(&d->streams, dh_sim_close_and_release);
    if (d->default_stream != NULL) {
      dh_sim_close_and_release(&d->default_stream->obj);
      d->default_stream = NULL;
    }
    dh_sim_table_drain(&d->events, dh_sim_obj_release);
    dh_sim_table_drain(&d->buffers, dh_sim_obj_release);
  }
  dh_sim_staging_drain();
  atomic_store(&dh_sim_state.initialised, 0);
  for (int i = 0; i < dh_sim_state.config.num_devices; i++)
    pthread_mutex_destroy(&dh_sim_state.devices[i].mu);
  free(dh_sim_state.devices);
  dh_sim_state.devices = NULL;
  pthread_mutex_unlock(&dh_sim_init_mu);
}

int dh_sim_device_get(DLDevice dev, dh_sim_device_t** out_device) {
  if (!atomic_load(&dh_sim_state.initialised))
    return dh_error_set("RuntimeError", "sim backend is not initialised");
  if (dev.device_type == kDLCPU)
    return dh_error_set("ValueError", "device type 1 (cpu) is not a sim device");
  if (dev.device_id < 0 || dev.device_id >= dh_sim_state.config.num_devices)
    return dh_error_set("IndexError", "sim: device id %d out of range (%d device%s: 0..%d)",
                        (int)dev.device_id, dh_sim_state.config.num_devices,
                        dh_sim_state.config.num_devices == 1 ? "" : "s",
                        dh_sim_state.config.num_devices - 1);
  *out_device = &dh_sim_state.devices[dev.device_id];
  return 0;
}

/*===========================================================================
 * Device memory
 *===========================================================================*/

static void dh_sim_buffer_destroy(dh_sim_obj_t* obj) {
  dh_sim_buffer_t* b = (dh_sim_buffer_t*)obj;
  if (dh_sim_state.devices != NULL) {
    dh_sim_device_t* d = &dh_sim_state.devices[b->device_id];
    pthread_mutex_lock(&d->mu);
    d->used -= b->charged;
    pthread_mutex_unlock(&d->mu);
  }
  free(b->data);
  free(b);
}

size_t dh_sim_mem_available(dh_sim_device_t* d) {
  pthread_mutex_lock(&d->mu);
  size_t avail = dh_sim_state.config.memory_bytes - d->used;
  pthread_mutex_unlock(&d->mu);
  return avail;
}

int dh_sim_mem_alloc(dh_sim_device_t* d, size_t nbytes, size_t alignment, void** out_handle) {
  if (alignment == 0) alignment = DH_ALLOC_ALIGNMENT;
  if ((alignment & (alignment - 1)) != 0)
    return dh_error_set("ValueError", "sim:%d: alignment %zu is not a power of two", d->id,
                        alignment);
  if (alignment < DH_ALLOC_ALIGNMENT) alignment = DH_ALLOC_ALIGNMENT;
  /* Charge whole 64-byte blocks, as a device allocator would. */
  size_t charged = nbytes;
  if (charged % DH_ALLOC_ALIGNMENT) {
    if (charged > SIZE_MAX - DH_ALLOC_ALIGNMENT) charged = SIZE_MAX;
    else charged += DH_ALLOC_ALIGNMENT - charged % DH_ALLOC_ALIGNMENT;
  }
  /* Reserve first, so a request beyond the device never reaches malloc (which might
   * succeed lazily through overcommit). */
  pthread_mutex_lock(&d->mu);
  size_t avail = dh_sim_state.config.memory_bytes - d->used;
  if (charged > avail) {
    pthread_mutex_unlock(&d->mu);
    return dh_error_set("OutOfMemoryError",
                        "sim:%d: cannot allocate %zu bytes: %zu of %zu bytes available", d->id,
                        nbytes, avail, dh_sim_state.config.memory_bytes);
  }
  d->used += charged;
  pthread_mutex_unlock(&d->mu);

  dh_sim_buffer_t* b = calloc(1, sizeof *b);
  void* data = NULL;
  if (b == NULL || (nbytes > 0 && posix_memalign(&data, alignment, nbytes) != 0)) {
    free(b);
    pthread_mutex_lock(&d->mu);
    d->used -= charged;
    pthread_mutex_unlock(&d->mu);
    return dh_error_set("OutOfMemoryError", "sim:%d: host malloc of %zu bytes failed", d->id,
                        nbytes);
  }
  atomic_init(&b->obj.refs, 1);
  b->obj.destroy = dh_sim_buffer_destroy;
  b->device_id = d->id;
  b->data = data;
  b->size = nbytes;
  b->charged = charged;
  if (dh_sim_table_add(&d->buffers, DH_SIM_KIND_BUFFER, d->id, &b->obj, out_handle) != 0) {
    dh_sim_obj_release(&b->obj);
    return -1;
  }
  return 0;
}

int dh_sim_mem_free(dh_sim_device_t* d, void* handle) {
  if (handle == NULL) return 0;
  dh_sim_obj_t* obj;
  if (dh_sim_table_remove(&d->buffers, DH_SIM_KIND_BUFFER, d->id, handle, "data space handle",
                          &obj) != 0)
    return -1;
  /* Queued commands may still hold references; the bytes go when they are done. */
  dh_sim_obj_release(obj);
  return 0;
}

int dh_sim_mem_get(dh_sim_device_t* d, void* handle, dh_sim_buffer_t** out_buffer) {
  if (handle == NULL)
    return dh_error_set("ValueError", "sim:%d: NULL data space handle", d->id);
  dh_sim_obj_t* obj;
  if (dh_sim_table_get(&d->buffers, DH_SIM_KIND_BUFFER, d->id, handle, "data space handle",
                       &obj) != 0)
    return -1;
  *out_buffer = (dh_sim_buffer_t*)obj;
  return 0;
}

int dh_sim_mem_check_range(const dh_sim_buffer_t* b, size_t offset, size_t nbytes,
                           const char* side) {
  if (offset > b->size || nbytes > b->size - offset)
    return dh_error_set("ValueError",
                        "sim:%d: %s range [%zu, %zu + %zu) is outside the %zu-byte allocation",
                        b->device_id, side, offset, offset, nbytes, b->size);
  return 0;
}
