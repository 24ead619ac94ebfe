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
#include "sim_internal.h"

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
  /* nanosleep overshoots by the timer slack, so sleep only for long delays and spin
   * the last 100 us: short device latencies stay accurate. */
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
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: more than %u live handles", DH_SIM_SLOT_MASK);
    }
    struct dh_sim_slot* slots = realloc(t->slots, cap * sizeof *slots);
    if (slots == NULL) {
      pthread_mutex_unlock(&t->mu);
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot grow the handle table");
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
    return dh_error_set(DH_KIND_VALUE_ERROR, "%p is not a sim %s (bad tag)", handle, what);
  if (hdev != device_id)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s %p belongs to sim:%d, not sim:%d", what, handle, hdev,
                        device_id);
  if (slot >= t->cap || t->slots[slot].obj == NULL || t->slots[slot].gen != gen)
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s %p on sim:%d was freed or never allocated", what,
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
    return dh_error_set(DH_KIND_VALUE_ERROR,
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
void dh_sim_device_atfork_child(void (*streams_atfork_child)(void),
                                void (*stream_orphan)(dh_sim_stream_t* s)) {
  atomic_fetch_add(&dh_sim_state.fork_gen, 1);
  pthread_mutex_init(&dh_sim_init_mu, NULL);
  streams_atfork_child();
  if (!atomic_load(&dh_sim_state.initialised)) return;
  for (int i = 0; i < dh_sim_state.config.num_devices; i++) {
    dh_sim_device_t* d = &dh_sim_state.devices[i];
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->buffers.mu, NULL);
    pthread_mutex_init(&d->streams.mu, NULL);
    pthread_mutex_init(&d->events.mu, NULL);
    if (d->default_stream != NULL) stream_orphan(d->default_stream);
    d->default_stream = NULL;
  }
}

int dh_sim_device_init(void (*atfork_child)(void)) {
  static int atfork_registered;
  pthread_mutex_lock(&dh_sim_init_mu);
  if (!atfork_registered && pthread_atfork(NULL, NULL, atfork_child) == 0)
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
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "sim: cannot allocate the device table");
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

void dh_sim_device_shutdown(void (*close_stream)(dh_sim_obj_t* obj), void (*staging_drain)(void)) {
  pthread_mutex_lock(&dh_sim_init_mu);
  if (!atomic_load(&dh_sim_state.initialised)) {
    pthread_mutex_unlock(&dh_sim_init_mu);
    return;
  }
  for (int i = 0; i < dh_sim_state.config.num_devices; i++) {
    dh_sim_device_t* d = &dh_sim_state.devices[i];
    /* Streams first: draining them finishes all work that still holds buffers. */
    dh_sim_table_drain(&d->streams, close_stream);
    if (d->default_stream != NULL) {
      close_stream(&d->default_stream->obj);
      d->default_stream = NULL;
    }
    dh_sim_table_drain(&d->events, dh_sim_obj_release);
    dh_sim_table_drain(&d->buffers, dh_sim_obj_release);
  }
  staging_drain();
  atomic_store(&dh_sim_state.initialised, 0);
  for (int i = 0; i < dh_sim_state.config.num_devices; i++)
    pthread_mutex_destroy(&dh_sim_state.devices[i].mu);
  free(dh_sim_state.devices);
  dh_sim_state.devices = NULL;
  pthread_mutex_unlock(&dh_sim_init_mu);
}

int dh_sim_device_get(DLDevice dev, dh_sim_device_t** out_device) {
  if (!atomic_load(&dh_sim_state.initialised))
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "sim backend is not initialised");
  if (dev.device_type == kDLCPU)
    return dh_error_set(DH_KIND_VALUE_ERROR, "device type 1 (cpu) is not a sim device");
  int n = dh_sim_state.config.num_devices;
  if (DH_BACKEND_CHECK_DEVICE(dev, n, "sim: device id %d out of range (%d device%s: 0..%d)",
                              (int)dev.device_id, n, n == 1 ? "" : "s", n - 1) != 0)
    return -1;
  *out_device = &dh_sim_state.devices[dev.device_id];
  return 0;
}

/*===========================================================================
 * Device memory
 *===========================================================================*/

/* Bytes still available on d (the device counter sim_memory.c keeps). */
size_t dh_sim_mem_available(dh_sim_device_t* d) {
  pthread_mutex_lock(&d->mu);
  size_t avail = dh_sim_state.config.memory_bytes - d->used;
  pthread_mutex_unlock(&d->mu);
  return avail;
}

/*===========================================================================
 * Entries: availability, attributes, device selection
 *===========================================================================*/

/* Thread-local current device (TVM SetDevice); nothing else depends on it in the sim. */
static _Thread_local int dh_sim_tls_device;

const char* dh_sim_unavailable_reason(void) {
  if (!atomic_load(&dh_sim_state.initialised)) return "sim backend is not initialised";
  if (dh_sim_state.config.num_devices == 0)
    return "DEVHARNESS_SIM_DEVICES=0: no simulated devices configured";
  return NULL;
}

/*===========================================================================
 * Attributes
 *===========================================================================*/

#define DH_SIM_DEVICE_NAME "devharness sim"
#define DH_SIM_L2_CACHE_BYTES (4 * 1024 * 1024)

int dh_sim_get_attr(DLDevice dev, int32_t kind, dh_any_t* out_value) {
  if (out_value == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "sim: get_attr: out_value is NULL");
  *out_value = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    /* Never an error: 0 for anything that is not a configured device. */
    int exists = atomic_load(&dh_sim_state.initialised) && dev.device_type != kDLCPU &&
                 dev.device_id >= 0 && dev.device_id < dh_sim_state.config.num_devices;
    *out_value = dh_any_int(exists);
    return 0;
  }
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: unknown attribute kind %d (valid: 0..%d)", (int)kind,
                        DH_ATTR_KIND_COUNT - 1);
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  switch ((dh_attr_kind_t)kind) {
    case DH_ATTR_MAX_THREADS_PER_BLOCK: *out_value = dh_any_int(1024); break;
    case DH_ATTR_WARP_SIZE: *out_value = dh_any_int(32); break;
    case DH_ATTR_MAX_SHARED_MEMORY_PER_BLOCK: *out_value = dh_any_int(49152); break;
    case DH_ATTR_COMPUTE_VERSION: *out_value = dh_any_str("1.0"); break;
    case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(DH_SIM_DEVICE_NAME); break;
    case DH_ATTR_MAX_CLOCK_RATE: *out_value = dh_any_int(1000000); break;
    case DH_ATTR_MULTI_PROCESSOR_COUNT: *out_value = dh_any_int(8); break;
    case DH_ATTR_MAX_THREAD_DIMENSIONS: *out_value = dh_any_str("[1024, 1024, 64]"); break;
    case DH_ATTR_MAX_REGISTERS_PER_BLOCK: *out_value = dh_any_int(65536); break;
    case DH_ATTR_API_VERSION: *out_value = dh_any_int(1); break;
    case DH_ATTR_DRIVER_VERSION: *out_value = dh_any_str("devharness-sim 0.1"); break;
    case DH_ATTR_L2_CACHE_SIZE_BYTES: *out_value = dh_any_int(DH_SIM_L2_CACHE_BYTES); break;
    case DH_ATTR_TOTAL_GLOBAL_MEMORY:
      *out_value = dh_any_int((int64_t)dh_sim_state.config.memory_bytes);
      break;
    case DH_ATTR_AVAILABLE_GLOBAL_MEMORY:
      *out_value = dh_any_int((int64_t)dh_sim_mem_available(d));
      break;
    default: break; /* kGcnArch, kImagePitchAlignment: not reported (None) */
  }
  return 0;
}

/* Live values of the sim target kind's options (targets/kinds/sim.json). */
int dh_sim_get_target_property(DLDevice dev, const char* name, dh_any_t* out_value) {
  if (name == NULL || out_value == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "sim: get_target_property: NULL name or out_value");
  *out_value = dh_any_none();
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  if (strcmp(name, "device_name") == 0) *out_value = dh_any_str(DH_SIM_DEVICE_NAME);
  else if (strcmp(name, "num_devices") == 0)
    *out_value = dh_any_int(dh_sim_state.config.num_devices);
  else if (strcmp(name, "memory_bytes") == 0)
    *out_value = dh_any_int((int64_t)dh_sim_state.config.memory_bytes);
  else if (strcmp(name, "max_num_threads") == 0) *out_value = dh_any_int(1024);
  else if (strcmp(name, "thread_warp_size") == 0) *out_value = dh_any_int(32);
  /* anything else (kind, keys, tag, ...): None = cannot tell */
  return 0;
}

int dh_sim_set_device(DLDevice dev) {
  dh_sim_device_t* d;
  if (dh_sim_device_get(dev, &d) != 0) return -1;
  dh_sim_tls_device = d->id; /* nothing else depends on it in the sim */
  return 0;
}

