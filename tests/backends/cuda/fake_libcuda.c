/*
 * tests/backends/cuda/fake_libcuda.c — a FAKE CUDA driver (libcuda.so.1) for testing
 * the cuda backend on machines without an NVIDIA GPU. Never installed.
 *
 * Built twice by tests/backends/cuda/tests.mk:
 *  - FAKE_CUDA_FULL=0 -> $(BUILD)/tests/cuda-fake/nodev/libcuda.so.1: exports only
 *    cuInit (returns CUDA_ERROR_NO_DEVICE, 100) and cuDriverGetVersion (13000), so the
 *    plugin's "cuInit failed" path is exercised.
 *  - FAKE_CUDA_FULL=1 -> $(BUILD)/tests/cuda-fake/dev/libcuda.so.1: additionally
 *    simulates FAKE_CUDA_DEVICES (default 2) H100-like devices on the host: device
 *    memory is malloc'd (bounds-checked against live allocations, so a wrong offset
 *    gives CUDA_ERROR_ILLEGAL_ADDRESS / CUDA_ERROR_INVALID_VALUE), copies and fills
 *    are deferred to the next synchronisation point (see enqueue below;
 *    cuEventRecord also runs the queue, so event times span the work), events
 *    record CLOCK_MONOTONIC, modules accept only a fatbin image (magic
 *    0xBA55ED50) and know dh_cuda_noop / dh_cuda_fill, which cuLaunchKernel queues
 *    for the host. Every memory/stream call needs a current
 *    context (CUDA_ERROR_INVALID_CONTEXT otherwise), so the plugin's context handling
 *    is checked. fake_cuda_stats() exposes call counters to the test.
 *
 * Thread-safety: one global lock around the allocation list and the queue (enough
 * for the tests and the conformance suite's multi-threaded clauses).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuDriverGetVersion(int* v) {
  if (!v) return CUDA_ERROR_INVALID_VALUE;
  *v = 13000;
  return CUDA_SUCCESS;
}

#if !FAKE_CUDA_FULL

EXPORT CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_ERROR_NO_DEVICE;
}

#else /* FAKE_CUDA_FULL */

#define FAKE_MAX_DEV 8
#define FAKE_TOTAL_MEM ((size_t)1 << 30) /* 1 GiB per device */

typedef struct fake_stats {
  long stream_sync;  /* cuStreamSynchronize calls */
  long launches;     /* cuLaunchKernel calls */
  long module_loads; /* cuModuleLoadData calls */
  long retains;      /* cuDevicePrimaryCtxRetain - Release */
  long live_allocs;  /* cuMemAlloc - cuMemFree */
  long live_host;    /* cuMemHostAlloc - cuMemFreeHost */
  long live_streams; /* cuStreamCreate - cuStreamDestroy */
  long live_events;  /* cuEventCreate - cuEventDestroy */
  long wait_events;  /* cuStreamWaitEvent calls */
  long set_current;  /* cuCtxSetCurrent calls */
  long event_syncs;  /* cuEventSynchronize calls */
  long htod_pinned;  /* cuMemcpyHtoDAsync calls whose source is cuMemHostAlloc'd memory */
  long htod_pageable;/* cuMemcpyHtoDAsync calls from any other host memory */
} fake_stats_t;

static fake_stats_t g_stats;
EXPORT const fake_stats_t* fake_cuda_stats(void) { return &g_stats; }

static int g_inited;
static int g_ndev = 2;
static size_t g_used[FAKE_MAX_DEV];
static int g_ctx_tokens[FAKE_MAX_DEV];
static _Thread_local CUcontext tl_ctx;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct alloc {
  uintptr_t base;
  size_t size;
  int dev;
  struct alloc* next;
} alloc_t;
static alloc_t* g_allocs;
static alloc_t* g_host_allocs; /* cuMemHostAlloc'd (pinned) host memory */

/* 1 when [p, p+n) lies inside one cuMemHostAlloc'd buffer. */
static int in_host_alloc(uintptr_t p, size_t n) {
  int ok = 0;
  pthread_mutex_lock(&g_mu);
  for (alloc_t* a = g_host_allocs; a; a = a->next)
    if (p >= a->base && n <= a->size && p - a->base <= a->size - n) { ok = 1; break; }
  pthread_mutex_unlock(&g_mu);
  return ok;
}

struct CUstream_st { int dev; };
struct CUevent_st { int dev; unsigned flags; int recorded; double t_ms; };
struct CUmod_st { int dev; };
struct CUfunc_st { int kind; };
static struct CUfunc_st g_fn_noop = {1}, g_fn_fill = {2};

static int ctx_dev(void) {
  if (!tl_ctx) return -1;
  return (int)((int*)(void*)tl_ctx - g_ctx_tokens);
}
#define NEED_CTX()                                     \
  do {                                                 \
    if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;  \
    if (ctx_dev() < 0) return CUDA_ERROR_INVALID_CONTEXT; \
  } while (0)

/* 1 when [p, p+n) lies inside one live allocation. */
static int in_alloc(uintptr_t p, size_t n) {
  int ok = 0;
  pthread_mutex_lock(&g_mu);
  for (alloc_t* a = g_allocs; a; a = a->next)
    if (p >= a->base && n <= a->size && p - a->base <= a->size - n) { ok = 1; break; }
  pthread_mutex_unlock(&g_mu);
  return ok;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Deferred work: every copy and fill is queued (one global FIFO, so per-stream order
 * holds) and only executed at a synchronisation point (cuStreamSynchronize,
 * cuEventSynchronize, cuMemFree, cuMemFreeHost). A host source is read then, not at
 * the call: a backend that returns from an H2D copy without finishing it, and lets
 * the caller overwrite the source, gets the new bytes on the device; a host
 * destination is only written at a sync. */
typedef struct op {
  int kind; /* 1 copy, 2 fill */
  void* dst;
  const void* src;
  size_t n;
  unsigned int value;
  struct op* next;
} op_t;
static op_t *g_q_head, *g_q_tail;

static CUresult enqueue(int kind, void* dst, const void* src, size_t n, unsigned int value) {
  op_t* o = malloc(sizeof *o);
  if (!o) return CUDA_ERROR_OUT_OF_MEMORY;
  o->kind = kind; o->dst = dst; o->src = src; o->n = n; o->value = value; o->next = NULL;
  pthread_mutex_lock(&g_mu);
  if (g_q_tail) g_q_tail->next = o; else g_q_head = o;
  g_q_tail = o;
  pthread_mutex_unlock(&g_mu);
  return CUDA_SUCCESS;
}

/* Serialises whole flushes: a sync on one thread must not return while another thread
 * is still executing queued work it took out of the queue (the work may be ours). */
static pthread_mutex_t g_flush_mu = PTHREAD_MUTEX_INITIALIZER;

static void flush_queue(void) {
  pthread_mutex_lock(&g_flush_mu);
  pthread_mutex_lock(&g_mu);
  op_t* o = g_q_head;
  g_q_head = g_q_tail = NULL;
  pthread_mutex_unlock(&g_mu);
  while (o) {
    op_t* n = o->next;
    if (o->kind == 1) {
      memmove(o->dst, o->src, o->n);
    } else {
      unsigned int* p = (unsigned int*)o->dst;
      for (size_t i = 0; i < o->n; i++) p[i] = o->value;
    }
    free(o);
    o = n;
  }
  pthread_mutex_unlock(&g_flush_mu);
}

EXPORT CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  const char* e = getenv("FAKE_CUDA_DEVICES");
  if (e) g_ndev = atoi(e);
  if (g_ndev < 0) g_ndev = 0;
  if (g_ndev > FAKE_MAX_DEV) g_ndev = FAKE_MAX_DEV;
  g_inited = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  switch (e) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}
EXPORT CUresult cuGetErrorString(CUresult e, const char** s) {
  if (!s) return CUDA_ERROR_INVALID_VALUE;
  switch (e) {
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *s = "invalid argument"; return CUDA_SUCCESS;
    default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT CUresult cuDeviceGetCount(int* n) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  *n = g_ndev;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= g_ndev) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceCanAccessPeer(int* can, CUdevice d, CUdevice peer) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  if (!can || d < 0 || d >= g_ndev || peer < 0 || peer >= g_ndev) return CUDA_ERROR_INVALID_DEVICE;
  *can = d != peer; /* every fake device reaches every other */
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  if (d < 0 || d >= g_ndev || !name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  strncpy(name, "Fake NVIDIA H100 80GB HBM3 (devharness test driver)", (size_t)len - 1);
  name[len - 1] = '\0';
  return CUDA_SUCCESS;
}
/* Upper-case hex, as the driver writes it ("0000:3B:00.0" style); device d is on bus 0x3b + d. */
EXPORT CUresult cuDeviceGetPCIBusId(char* id, int len, CUdevice d) {
  if (d < 0 || d >= g_ndev || !id || len < 13) return CUDA_ERROR_INVALID_VALUE;
  snprintf(id, (size_t)len, "0000:%02X:00.0", 0x3b + d);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  if (d < 0 || d >= g_ndev || !v) return CUDA_ERROR_INVALID_VALUE;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 52428800; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break; /* kHz, H100 SXM */
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDeviceTotalMem_v2(size_t* b, CUdevice d) {
  if (d < 0 || d >= g_ndev || !b) return CUDA_ERROR_INVALID_VALUE;
  *b = FAKE_TOTAL_MEM;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  if (d < 0 || d >= g_ndev || !c) return CUDA_ERROR_INVALID_DEVICE;
  *c = (CUcontext)(void*)&g_ctx_tokens[d];
  __atomic_add_fetch(&g_stats.retains, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  if (d < 0 || d >= g_ndev) return CUDA_ERROR_INVALID_DEVICE;
  __atomic_sub_fetch(&g_stats.retains, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuCtxSetCurrent(CUcontext c) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  if (c) {
    int i = (int)((int*)(void*)c - g_ctx_tokens);
    if (i < 0 || i >= g_ndev) return CUDA_ERROR_INVALID_CONTEXT;
  }
  tl_ctx = c;
  __atomic_add_fetch(&g_stats.set_current, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuCtxGetCurrent(CUcontext* c) {
  if (!g_inited) return CUDA_ERROR_NOT_INITIALIZED;
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  *c = tl_ctx;
  return CUDA_SUCCESS;
}
/* Only CU_POINTER_ATTRIBUTE_MEMORY_TYPE: HOST for cuMemHostAlloc'd memory, DEVICE for
 * cuMemAlloc'd memory, CUDA_ERROR_INVALID_VALUE for anything else (pageable memory),
 * as the real driver answers. */
EXPORT CUresult cuPointerGetAttribute(void* data, CUpointer_attribute a, CUdeviceptr p) {
  NEED_CTX();
  if (!data || a != CU_POINTER_ATTRIBUTE_MEMORY_TYPE) return CUDA_ERROR_INVALID_VALUE;
  if (in_host_alloc((uintptr_t)p, 1)) *(unsigned int*)data = CU_MEMORYTYPE_HOST;
  else if (in_alloc((uintptr_t)p, 1)) *(unsigned int*)data = CU_MEMORYTYPE_DEVICE;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuMemGetInfo_v2(size_t* f, size_t* t) {
  NEED_CTX();
  *t = FAKE_TOTAL_MEM;
  *f = FAKE_TOTAL_MEM - g_used[ctx_dev()];
  return CUDA_SUCCESS;
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  NEED_CTX();
  if (!p || n == 0) return CUDA_ERROR_INVALID_VALUE;
  int d = ctx_dev();
  if (n > FAKE_TOTAL_MEM - g_used[d]) return CUDA_ERROR_OUT_OF_MEMORY;
  void* m = aligned_alloc(256, (n + 255) & ~(size_t)255);
  alloc_t* a = malloc(sizeof *a);
  if (!m || !a) { free(m); free(a); return CUDA_ERROR_OUT_OF_MEMORY; }
  a->base = (uintptr_t)m;
  a->size = n;
  a->dev = d;
  pthread_mutex_lock(&g_mu);
  a->next = g_allocs;
  g_allocs = a;
  g_used[d] += n;
  pthread_mutex_unlock(&g_mu);
  __atomic_add_fetch(&g_stats.live_allocs, 1, __ATOMIC_RELAXED);
  *p = (CUdeviceptr)a->base;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr p) {
  NEED_CTX();
  flush_queue();
  pthread_mutex_lock(&g_mu);
  for (alloc_t** pp = &g_allocs; *pp; pp = &(*pp)->next) {
    if ((*pp)->base == (uintptr_t)p) {
      alloc_t* a = *pp;
      *pp = a->next;
      g_used[a->dev] -= a->size;
      pthread_mutex_unlock(&g_mu);
      free((void*)a->base);
      free(a);
      __atomic_sub_fetch(&g_stats.live_allocs, 1, __ATOMIC_RELAXED);
      return CUDA_SUCCESS;
    }
  }
  pthread_mutex_unlock(&g_mu);
  return CUDA_ERROR_INVALID_VALUE;
}
EXPORT CUresult cuMemHostAlloc(void** pp, size_t n, unsigned int flags) {
  (void)flags;
  NEED_CTX();
  if (!pp || n == 0) return CUDA_ERROR_INVALID_VALUE;
  *pp = malloc(n);
  alloc_t* a = malloc(sizeof *a);
  if (!*pp || !a) { free(*pp); free(a); *pp = NULL; return CUDA_ERROR_OUT_OF_MEMORY; }
  a->base = (uintptr_t)*pp;
  a->size = n;
  a->dev = -1;
  pthread_mutex_lock(&g_mu);
  a->next = g_host_allocs;
  g_host_allocs = a;
  pthread_mutex_unlock(&g_mu);
  __atomic_add_fetch(&g_stats.live_host, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuMemFreeHost(void* p) {
  NEED_CTX();
  flush_queue();
  pthread_mutex_lock(&g_mu);
  alloc_t* hit = NULL;
  for (alloc_t** pp = &g_host_allocs; *pp; pp = &(*pp)->next)
    if ((*pp)->base == (uintptr_t)p) {
      hit = *pp;
      *pp = hit->next;
      break;
    }
  pthread_mutex_unlock(&g_mu);
  if (!hit) return CUDA_ERROR_INVALID_VALUE;
  free(hit);
  free(p);
  __atomic_sub_fetch(&g_stats.live_host, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  (void)s;
  NEED_CTX();
  if (!in_alloc((uintptr_t)dst, n)) return CUDA_ERROR_INVALID_VALUE;
  if (in_host_alloc((uintptr_t)src, n))
    __atomic_add_fetch(&g_stats.htod_pinned, 1, __ATOMIC_RELAXED);
  else
    __atomic_add_fetch(&g_stats.htod_pageable, 1, __ATOMIC_RELAXED);
  return enqueue(1, (void*)(uintptr_t)dst, src, n, 0);
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  NEED_CTX();
  if (!in_alloc((uintptr_t)src, n)) return CUDA_ERROR_INVALID_VALUE;
  return enqueue(1, dst, (const void*)(uintptr_t)src, n, 0);
}
EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  (void)s;
  NEED_CTX();
  if (!in_alloc((uintptr_t)src, n) || !in_alloc((uintptr_t)dst, n)) return CUDA_ERROR_INVALID_VALUE;
  return enqueue(1, (void*)(uintptr_t)dst, (const void*)(uintptr_t)src, n, 0);
}
EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dc, CUdeviceptr src, CUcontext sc,
                                  size_t n, CUstream s) {
  if (!dc || !sc) return CUDA_ERROR_INVALID_CONTEXT;
  return cuMemcpyDtoDAsync_v2(dst, src, n, s);
}
EXPORT CUresult cuStreamCreate(CUstream* ps, unsigned int flags) {
  NEED_CTX();
  if (!ps || flags != CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  *ps = malloc(sizeof **ps);
  if (!*ps) return CUDA_ERROR_OUT_OF_MEMORY;
  (*ps)->dev = ctx_dev();
  __atomic_add_fetch(&g_stats.live_streams, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuStreamDestroy_v2(CUstream s) {
  NEED_CTX();
  if (!s) return CUDA_ERROR_INVALID_HANDLE;
  free(s);
  __atomic_sub_fetch(&g_stats.live_streams, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuStreamSynchronize(CUstream s) {
  (void)s;
  NEED_CTX();
  flush_queue();
  __atomic_add_fetch(&g_stats.stream_sync, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  (void)s;
  NEED_CTX();
  if (!e || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  __atomic_add_fetch(&g_stats.wait_events, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuEventCreate(CUevent* pe, unsigned int flags) {
  NEED_CTX();
  if (!pe) return CUDA_ERROR_INVALID_VALUE;
  *pe = calloc(1, sizeof **pe);
  if (!*pe) return CUDA_ERROR_OUT_OF_MEMORY;
  (*pe)->dev = ctx_dev();
  (*pe)->flags = flags;
  __atomic_add_fetch(&g_stats.live_events, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuEventRecord(CUevent e, CUstream s) {
  (void)s;
  NEED_CTX();
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  flush_queue(); /* so event time spans the queued work (rough device timing) */
  e->recorded = 1;
  e->t_ms = now_ms();
  return CUDA_SUCCESS;
}
EXPORT CUresult cuEventSynchronize(CUevent e) {
  NEED_CTX();
  flush_queue();
  __atomic_add_fetch(&g_stats.event_syncs, 1, __ATOMIC_RELAXED);
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
/* Done when nothing is queued (cuEventRecord runs the queue, so a recorded event is). */
EXPORT CUresult cuEventQuery(CUevent e) {
  NEED_CTX();
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&g_mu);
  int queued = g_q_head != NULL;
  pthread_mutex_unlock(&g_mu);
  return queued ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent a, CUevent b) {
  NEED_CTX();
  if (!ms || !a || !b) return CUDA_ERROR_INVALID_HANDLE;
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->recorded || !b->recorded) return CUDA_ERROR_NOT_READY;
  *ms = (float)(b->t_ms - a->t_ms);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuEventDestroy_v2(CUevent e) {
  NEED_CTX();
  if (!e) return CUDA_ERROR_INVALID_HANDLE;
  free(e);
  __atomic_sub_fetch(&g_stats.live_events, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuModuleLoadData(CUmodule* pm, const void* image) {
  NEED_CTX();
  if (!pm || !image) return CUDA_ERROR_INVALID_VALUE;
  uint32_t magic;
  memcpy(&magic, image, 4);
  if (magic != 0xBA55ED50u) return CUDA_ERROR_INVALID_IMAGE;
  *pm = malloc(sizeof **pm);
  if (!*pm) return CUDA_ERROR_OUT_OF_MEMORY;
  (*pm)->dev = ctx_dev();
  __atomic_add_fetch(&g_stats.module_loads, 1, __ATOMIC_RELAXED);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuModuleUnload(CUmodule m) {
  NEED_CTX();
  free(m);
  return CUDA_SUCCESS;
}
EXPORT CUresult cuModuleGetFunction(CUfunction* pf, CUmodule m, const char* name) {
  NEED_CTX();
  if (!pf || !m || !name) return CUDA_ERROR_INVALID_VALUE;
  if (strcmp(name, "dh_cuda_noop") == 0) *pf = &g_fn_noop;
  else if (strcmp(name, "dh_cuda_fill") == 0) *pf = &g_fn_fill;
  else return CUDA_ERROR_NOT_FOUND;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                               unsigned int bx, unsigned int by, unsigned int bz,
                               unsigned int shared, CUstream s, void** params, void** extra) {
  (void)s;
  (void)shared;
  NEED_CTX();
  if (!f || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      bx * by * bz > 1024 || extra)
    return CUDA_ERROR_INVALID_VALUE;
  __atomic_add_fetch(&g_stats.launches, 1, __ATOMIC_RELAXED);
  if (f->kind == 1) return params == NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  if (f->kind != 2 || !params) return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr dst = *(CUdeviceptr*)params[0];
  unsigned int value = *(unsigned int*)params[1];
  unsigned long long n = *(unsigned long long*)params[2];
  if ((dst & 3) || !in_alloc((uintptr_t)dst, (size_t)n * 4)) return CUDA_ERROR_ILLEGAL_ADDRESS;
  return enqueue(2, (void*)(uintptr_t)dst, NULL, (size_t)n, value);
}

#endif /* FAKE_CUDA_FULL */
