/*
 * backends/common/host_memcpy_twin.c — the "memcpy" raw twin shared by the host-memory
 * backends (cpu, tvm-cpu); see host_memcpy_twin.h.
 */
#include "backends/common/host_memcpy_twin.h"

#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"

typedef struct dh_common_host_twin_ctx {
  const char* who;
  dh_raw_op_t op;
  size_t nbytes;
  unsigned char* a;
  unsigned char* b;
  unsigned char* c2; /* DH_RAW_COPY_BIDIR: the D2H pair c2 -> d2 */
  unsigned char* d2;
  void (*volatile empty)(void); /* called through a pointer the compiler cannot see */
} dh_common_host_twin_ctx_t;

__attribute__((noinline)) static void dh_host_twin_empty(void) { __asm__ volatile(""); }

void dh_common_host_memcpy_twin_teardown(void* ctx) {
  dh_common_host_twin_ctx_t* c = ctx;
  if (c == NULL) return;
  free(c->a);
  free(c->b);
  free(c->c2);
  free(c->d2);
  free(c);
}

int dh_common_host_memcpy_twin_setup(const char* who, int allow_launch, const char* no_launch_why,
                                     dh_raw_op_t op, size_t nbytes, void** out_ctx) {
  if (out_ctx == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "%s raw: out_ctx is NULL", who);
  *out_ctx = NULL;
  if (op < DH_RAW_COPY_H2D || op > DH_RAW_COPY_BIDIR)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "%s raw: unknown op %d", who, (int)op);
  if (op == DH_RAW_LAUNCH && !allow_launch)
    return dh_error_set(DH_KIND_NOT_IMPLEMENTED_ERROR, "%s raw: op %d: %s", who, (int)op, no_launch_why);
  dh_common_host_twin_ctx_t* c = calloc(1, sizeof *c);
  if (c == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s raw: no memory", who);
  c->who = who;
  c->op = op;
  c->nbytes = nbytes;
  c->empty = dh_host_twin_empty;
  if (op != DH_RAW_STREAM_SYNC && op != DH_RAW_LAUNCH) {
    /* Page-aligned, as the bench's harness buffers are (DH_BENCH_BUFFER_ALIGN): source
     * and destination at the same relative offset (0 mod 4096) on both sides. Two
     * malloc'ed buffers would sit 16 bytes apart modulo 4096, where glibc's memcpy can
     * be many times slower. Every buffer is written (no zero-page reads). */
    size_t an = ((nbytes ? nbytes : 1) + 4095) & ~(size_t)4095;
    int bidir = op == DH_RAW_COPY_BIDIR;
    c->a = aligned_alloc(4096, an);
    c->b = aligned_alloc(4096, an);
    if (bidir) {
      c->c2 = aligned_alloc(4096, an);
      c->d2 = aligned_alloc(4096, an);
    }
    if (c->a == NULL || c->b == NULL || (bidir && (c->c2 == NULL || c->d2 == NULL))) {
      dh_common_host_memcpy_twin_teardown(c);
      return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s raw: cannot allocate %d x %zu bytes", who,
                          bidir ? 4 : 2, nbytes);
    }
    memset(c->a, 0x5a, an);
    memset(c->b, 0xa5, an);
    if (bidir) {
      memset(c->c2, 0x5a, an);
      memset(c->d2, 0xa5, an);
    }
  }
  *out_ctx = c;
  return 0;
}

int dh_common_host_memcpy_twin_run(void* ctx, uint32_t repeat, double* out_device_ms) {
  dh_common_host_twin_ctx_t* c = ctx;
  if (c == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "raw: NULL context");
  if (out_device_ms) *out_device_ms = -1; /* no device timers */
  for (uint32_t i = 0; i < repeat; i++) {
    switch (c->op) {
      case DH_RAW_COPY_H2D: memcpy(c->b, c->a, c->nbytes); break;
      case DH_RAW_COPY_D2H: memcpy(c->a, c->b, c->nbytes); break;
      case DH_RAW_COPY_D2D: memcpy(c->b, c->a, c->nbytes); break;
      case DH_RAW_COPY_BIDIR: /* one queue: the two directions one after the other */
        memcpy(c->b, c->a, c->nbytes);
        memcpy(c->d2, c->c2, c->nbytes);
        break;
      case DH_RAW_STREAM_SYNC:
      case DH_RAW_LAUNCH: c->empty(); break;
    }
  }
  if (c->op == DH_RAW_STREAM_SYNC || c->op == DH_RAW_LAUNCH) c->empty(); /* the final wait */
  return 0;
}
