/*
 * backends/opencl/opencl_handles.c — the OpenCL backend's handle registry: every
 * pointer it hands out (buffers, pinned host blocks, streams, events), so a stale,
 * foreign or double-freed one is a ValueError, never a crash. The lowest file with
 * opencl_error.c: it calls no other file of the backend (the device table is passed in
 * at shutdown).
 *
 * Thread-safety: one mutex, dh_opencl_hreg_lock (opencl_memory.c also guards each
 * device's live_bytes with it).
 */
#include <stdint.h>
#include <stdlib.h>

#include "opencl_internal.h"

/*===========================================================================
 * Handle registry: every pointer we hand out, so bad ones are errors not crashes
 *===========================================================================*/

#define HBUCKETS 1024
static hentry_t* g_htab[HBUCKETS];
pthread_mutex_t dh_opencl_hreg_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t hhash(const void* p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 40) % HBUCKETS;
}

/* Adds an entry; -1 OutOfMemoryError. Caller does not hold the lock. */
int dh_opencl_hreg_add(void* key, hkind_t kind, int dev, size_t size, cl_mem mem) {
  hentry_t* e = calloc(1, sizeof *e);
  if (!e) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "opencl: out of host memory for a handle");
  e->key = key; e->kind = kind; e->dev = dev; e->size = size; e->mem = mem;
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  size_t b = hhash(key);
  e->next = g_htab[b];
  g_htab[b] = e;
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
  return 0;
}

/* Looks up key of kind; copies the entry to *out. 1 found, 0 not. */
int dh_opencl_hreg_find(const void* key, hkind_t kind, hentry_t* out) {
  int found = 0;
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  for (hentry_t* e = g_htab[hhash(key)]; e; e = e->next)
    if (e->key == key && e->kind == kind) {
      if (out) *out = *e;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
  return found;
}

/* Removes key of kind; copies it to *out. 1 removed, 0 not found. */
int dh_opencl_hreg_remove(const void* key, hkind_t kind, hentry_t* out) {
  int found = 0;
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  for (hentry_t** pe = &g_htab[hhash(key)]; *pe; pe = &(*pe)->next) {
    hentry_t* e = *pe;
    if (e->key == key && e->kind == kind) {
      if (out) *out = *e;
      *pe = e->next;
      free(e);
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
  return found;
}

/* Frees every handle still registered (shutdown: what the callers leaked). */
void dh_opencl_hreg_release_all(int live, const dh_opencl_device_t* devs) {
  pthread_mutex_lock(&dh_opencl_hreg_lock);
  for (size_t b = 0; b < HBUCKETS; ++b) {
    hentry_t* e = g_htab[b];
    while (e) {
      hentry_t* n = e->next;
      switch (e->kind) {
        case H_BUFFER:
          if (live) clReleaseMemObject((cl_mem)e->key);
          break;
        case H_HOST:
          if (live) {
            cl_command_queue q = devs[e->dev].default_queue.q;
            clEnqueueUnmapMemObject(q, e->mem, e->key, 0, NULL, NULL);
            clFinish(q);
            clReleaseMemObject(e->mem);
          }
          break;
        case H_STREAM: {
          dh_opencl_stream_t* s = e->key;
          if (live) {
            dh_opencl_queue_release(&s->queue);
            dh_error_clear(); /* a failed finish at shutdown changes nothing */
          }
          free(s);
          break;
        }
        case H_EVENT: {
          dh_opencl_event_t* ev = e->key;
          if (live && ev->ev) clReleaseEvent(ev->ev);
          free(ev);
          break;
        }
      }
      free(e);
      e = n;
    }
    g_htab[b] = NULL;
  }
  pthread_mutex_unlock(&dh_opencl_hreg_lock);
}
