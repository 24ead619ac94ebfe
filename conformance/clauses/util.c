/* conformance/clauses/util.c — assertion layer and device helpers (see check.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static void copy_str(char* dst, size_t size, const char* src) {
  if (!src) src = "";
  snprintf(dst, size, "%s", src);
}

void dc_fail(dh_conf_ctx_t* c, const char* file, int line, const char* expected,
             const char* got, const char* fmt, ...) {
  if (c->status == DC_FAIL) return; /* first violation wins */
  c->status = DC_FAIL;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->message, sizeof c->message, fmt, ap);
  va_end(ap);
  copy_str(c->expected, sizeof c->expected, expected);
  copy_str(c->got, sizeof c->got, got);
  const char* base = strstr(file, "conformance/");
  copy_str(c->file, sizeof c->file, base ? base : file);
  c->line = line;
}

void dc_fail_call(dh_conf_ctx_t* c, const char* file, int line, const char* call) {
  char got[DC_VAL_MAX];
  const char* kind = dh_error_kind();
  snprintf(got, sizeof got, "-1 (%s: %s)", kind ? kind : "no error stored", dh_error_message());
  dc_fail(c, file, line, "0 (success)", got, "%s failed", call);
}

void dc_skip(dh_conf_ctx_t* c, const char* fmt, ...) {
  if (c->status != DC_PASS) return;
  c->status = DC_SKIP;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->message, sizeof c->message, fmt, ap);
  va_end(ap);
}

int dc_expect_error(dh_conf_ctx_t* c, const char* file, int line, const char* call, int rc,
                    const char* want_kind) {
  char exp[DC_VAL_MAX], got[DC_VAL_MAX];
  snprintf(exp, sizeof exp, "-1 with %s", want_kind ? want_kind : "an error");
  if (rc == 0) {
    dc_fail(c, file, line, exp, "0 (success)", "%s should fail", call);
    return 0;
  }
  const char* kind = dh_error_kind();
  if (rc != -1) {
    snprintf(got, sizeof got, "%d", rc);
    dc_fail(c, file, line, exp, got, "%s returned neither 0 nor -1", call);
    return 0;
  }
  if (!kind || !*dh_error_message()) {
    snprintf(got, sizeof got, "-1 with %s, message \"%s\"", kind ? kind : "no error kind",
             dh_error_message());
    dc_fail(c, file, line, "-1 with an error kind and a message", got,
            "%s failed without a stored error", call);
    return 0;
  }
  if (want_kind && strcmp(kind, want_kind) != 0) {
    snprintf(got, sizeof got, "-1 with %s: %s", kind, dh_error_message());
    dc_fail(c, file, line, exp, got, "%s failed with the wrong error kind", call);
    return 0;
  }
  dh_error_clear();
  return 1;
}

int dc_check_bytes(dh_conf_ctx_t* c, const char* file, int line, const char* what,
                   const uint8_t* got, const uint8_t* expected, size_t n, size_t base) {
  if (memcmp(got, expected, n) == 0) return 1;
  size_t first = n, count = 0;
  for (size_t i = 0; i < n; i++) {
    if (got[i] != expected[i]) {
      if (first == n) first = i;
      count++;
    }
  }
  if (count == 0) return 1;
  char e[32], g[32];
  snprintf(e, sizeof e, "0x%02x", expected[first]);
  snprintf(g, sizeof g, "0x%02x", got[first]);
  dc_fail(c, file, line, e, g, "%s: byte %zu: expected %s, got %s (%zu of %zu bytes differ)",
          what, base + first, e, g, count, n);
  return 0;
}

int dc_check_bytesf(dh_conf_ctx_t* c, const char* file, int line, const uint8_t* got,
                    const uint8_t* expected, size_t n, size_t base, const char* fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return dc_check_bytes(c, file, line, what, got, expected, n, base);
}

DLDevice dc_host(void) {
  DLDevice d = {kDLCPU, 0};
  return d;
}

DLDataType dc_u8(void) {
  DLDataType t = {kDLUInt, 8, 1};
  return t;
}

void dc_pattern(uint8_t* buf, size_t n, uint32_t seed) {
  /* byte i = (i*131 + (i>>8)*71 + seed) & 0xff; since 256*131 = 0 (mod 256), byte
   * j of 256-byte block b is (j*131 + b*71 + seed) & 0xff: a table plus a constant */
  uint8_t t[256];
  for (unsigned j = 0; j < 256; j++) t[j] = (uint8_t)(j * 131u);
  for (size_t b = 0; b * 256 < n; b++) {
    uint8_t k = (uint8_t)(b * 71u + seed);
    size_t len = n - b * 256 < 256 ? n - b * 256 : 256;
    uint8_t* p = buf + b * 256;
    for (size_t j = 0; j < len; j++) p[j] = (uint8_t)(t[j] + k);
  }
}

void dc_sentinel(uint8_t* buf, size_t n) {
  static const uint8_t s[4] = {0xef, 0xbe, 0xad, 0xde};
  size_t done = n < 4 ? n : 4;
  memcpy(buf, s, done);
  while (done < n) { /* doubling copies keep the 4-byte phase */
    size_t k = done < n - done ? done : n - done;
    memcpy(buf + done, buf, k);
    done += k;
  }
}

uint8_t* dc_host_alloc(dh_conf_ctx_t* c, size_t n) {
  uint8_t* p = malloc(n ? n : 1);
  if (!p) dc_fail(c, __FILE__, __LINE__, "memory", "NULL", "host malloc(%zu) failed", n);
  return p;
}

void* dc_dev_alloc(dh_conf_ctx_t* c, size_t n) {
  void* p = NULL;
  if (dh_device_alloc_data_space(c->dev, n, 0, dc_u8(), &p) != 0) {
    char call[96];
    snprintf(call, sizeof call, "alloc_data_space(%zu bytes)", n);
    dc_fail_call(c, __FILE__, __LINE__, call);
    return NULL;
  }
  if (!p && n > 0) {
    dc_fail(c, __FILE__, __LINE__, "a handle", "NULL",
            "alloc_data_space(%zu bytes) returned 0 and a NULL handle", n);
  }
  return p;
}

void dc_dev_free(dh_conf_ctx_t* c, void* p) {
  if (dh_device_free_data_space(c->dev, p) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "free_data_space");
}

void dc_copy(dh_conf_ctx_t* c, int line, const void* from, DLDevice from_dev, size_t from_off,
             void* to, DLDevice to_dev, size_t to_off, size_t n, dh_stream_t stream) {
  DLTensor tf, tt;
  int64_t sf, st;
  dh_tensor_init_bytes(&tf, (void*)from, from_dev, from_off, n, &sf);
  dh_tensor_init_bytes(&tt, to, to_dev, to_off, n, &st);
  if (dh_device_copy_data_from_to(&tf, &tt, stream) != 0) {
    char call[160];
    snprintf(call, sizeof call, "copy_data_from_to(%s -> %s, %zu bytes, offsets %zu -> %zu)",
             from_dev.device_type == kDLCPU && to_dev.device_type != kDLCPU ? "host" : "device",
             to_dev.device_type == kDLCPU && from_dev.device_type != kDLCPU ? "host" : "device",
             n, from_off, to_off);
    dc_fail_call(c, __FILE__, line, call);
  }
}

void dc_upload(dh_conf_ctx_t* c, int line, void* dptr, size_t off, const uint8_t* host, size_t n) {
  dc_copy(c, line, host, dc_host(), 0, dptr, c->dev, off, n, NULL);
  if (c->status) return;
  if (dh_device_stream_sync(c->dev, NULL) != 0) dc_fail_call(c, __FILE__, line, "stream_sync(NULL)");
}

void dc_download(dh_conf_ctx_t* c, int line, void* dptr, size_t off, uint8_t* host, size_t n) {
  dc_copy(c, line, dptr, c->dev, off, host, dc_host(), 0, n, NULL);
  if (c->status) return;
  if (dh_device_stream_sync(c->dev, NULL) != 0) dc_fail_call(c, __FILE__, line, "stream_sync(NULL)");
}

void dc_stream_create(dh_conf_ctx_t* c, dh_stream_t* out) {
  *out = NULL;
  if (dh_device_create_stream(c->dev, out) != 0)
    dc_fail_call(c, __FILE__, __LINE__, "create_stream");
}

double dc_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int dc_run_threads(dh_conf_ctx_t* c, int n, void* (*fn)(void*), void* args, size_t stride,
                   const char* who) {
  pthread_t th[DC_THREADS_MAX];
  if (n > DC_THREADS_MAX) n = DC_THREADS_MAX;
  for (int i = 0; i < n; i++)
    if (pthread_create(&th[i], NULL, fn, (char*)args + (size_t)i * stride) != 0) {
      /* the threads started wait at a barrier that never opens: the case's timeout
       * ends them; say why first */
      dc_fail(c, __FILE__, __LINE__, NULL, NULL, "pthread_create failed for thread %d", i);
      fprintf(stderr, "%s: pthread_create failed\n", who);
      return -1;
    }
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  return 0;
}
