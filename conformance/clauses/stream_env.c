/* conformance/clauses/stream_env.c — the environment stream (TVMFFIEnvSetStream, as
 * PyTorch sets it): kernels and copies of the backend go where it points (docs/contract.md
 * §Streams; the family after stream.c's in the catalogue). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream.h"

/* Queues fill(dptr[0, n), value) through the backend's module function; it runs on the
 * calling thread's current stream. */
static void env_fill(dh_conf_ctx_t* c, int line, void* dptr, size_t n, uint32_t value) {
  DLTensor t;
  int64_t shape[1];
  dh_tensor_init_bytes(&t, dptr, c->dev, 0, n, shape);
  dh_any_t args[2] = {dh_any_tensor(&t), dh_any_int((int64_t)value)}, rv = dh_any_none();
  if (dh_device_call(c->dev, DH_FUNC_FILL, args, 2, &rv) != 0) {
    char call[96];
    snprintf(call, sizeof call, "fill(%zu bytes, 0x%08x) on the environment stream", n, value);
    dc_fail_call(c, __FILE__, line, call);
  }
}

/* Checks that every 4-byte word of buf[0, n) is `value`. */
static void env_check_words(dh_conf_ctx_t* c, int line, const uint8_t* buf, size_t n, uint32_t value,
                            const char* what) {
  for (size_t i = 0; i + 4 <= n; i += 4) {
    uint32_t w;
    memcpy(&w, buf + i, 4);
    if (w != value) {
      char e[32], g[32];
      snprintf(e, sizeof e, "0x%08x", value);
      snprintf(g, sizeof g, "0x%08x", w);
      dc_fail(c, __FILE__, line, e, g, "%s: word at byte %zu", what, i);
      return;
    }
  }
}

/* Sets the environment stream as PyTorch does and checks that the backend sees it. */
static void env_set(dh_conf_ctx_t* c, dh_stream_t s) {
  if (dh_env_set_stream(c->dev, s) != 0) {
    dc_fail_call(c, __FILE__, __LINE__, "TVMFFIEnvSetStream (dh_env_set_stream)");
    return;
  }
  dh_stream_t g = (dh_stream_t)0x1;
  CHECK_OK(dh_device_get_current_stream(c->dev, &g));
  if (g != s) {
    char e[32], gg[32];
    snprintf(e, sizeof e, "%p", s);
    snprintf(gg, sizeof gg, "%p", g);
    FAIL(e, gg, "get_current_stream after TVMFFIEnvSetStream (not the backend's set_stream)");
  }
}

/* dc_big_free, with the environment stream put back to NULL first. */
static void env_free(dh_conf_ctx_t* c, big_t* b) {
  dh_env_set_stream(c->dev, NULL);
  dh_error_clear();
  dc_big_free(c, b);
}

/* fill(A) = value on the environment stream, A read back on s, s synced: A must hold
 * value ("what" says what a difference means). */
static void env_fill_read(dh_conf_ctx_t* c, int line, big_t* b, dh_stream_t s, uint32_t value,
                          const char* what) {
  TRY(env_fill(c, line, b->A, BIG, value));
  TRY(dc_big_read_A(c, b, s));
  DC_SYNC(s);
  env_check_words(c, line, b->out, BIG, value, what);
}

/* Queues on s five D2D round trips C->D->C (16 MiB each) that leave A alone. */
static void env_ballast(dh_conf_ctx_t* c, big_t* b, dh_stream_t s) {
  for (int i = 0; i < 5; i++) {
    TRY(dc_copy(c, __LINE__, b->C, c->dev, 0, b->D, c->dev, 0, BIG, s));
    TRY(dc_copy(c, __LINE__, b->D, c->dev, 0, b->C, c->dev, 0, BIG, s));
  }
}

#define ENV_V1 0x5eed0001u
#define ENV_V2 0x40ffee02u

DC_WITH_STATE(env_kernels, big_t, b, env_free) {
  TRY(dc_big_setup(c, b, 1));
  dh_stream_t s = b->s1;
  if (!s) SKIP("single queue: create_stream returns NULL, the environment stream is the default stream");
  TRY(env_set(c, s));
  /* 1. s busy ahead: the chain ends writing A (new pattern); fill(A) on the env stream
   * must come after it. A fill on another queue runs at once and the chain's last copy
   * overwrites it. */
  TRY(dc_big_chain(c, b, s));
  TRY(env_fill_read(c, __LINE__, b, s, ENV_V1,
                    "A read on the environment stream after chain -> fill(A) on it (a fill on another "
                    "stream ran before the chain ended)"));
  /* 2. the default stream busy: fill(A) on the env stream must not wait behind it; only
   * s is waited for. A fill on the default stream has not run yet when s's D2H reads. */
  dc_sentinel(b->out, BIG);
  TRY(env_ballast(c, b, NULL));
  TRY(env_fill_read(c, __LINE__, b, s, ENV_V2,
                    "A read on the environment stream after fill(A) on it, the default stream busy, "
                    "only the environment stream synced (the fill went to the default stream?)"));
  DC_SYNC(NULL);
  /* 3. trap on the env stream: the failure is the env stream's to report. */
  if (dc_has_trap(c->backend)) {
    dh_any_t arg = dh_any_device(c->dev), rv = dh_any_none();
    int rc = dh_device_call(c->dev, DH_FUNC_TRAP, &arg, 1, &rv);
    int rc_sync = rc == 0 ? dh_device_stream_sync(c->dev, s) : -1;
    dh_error_clear();
    dh_device_stream_sync(c->dev, s); /* whatever is left of the failure */
    dh_device_stream_sync(c->dev, NULL);
    dh_error_clear();
    if (rc_sync == 0)
      FAIL("-1 with the device-side failure", "0 (success)",
           "stream_sync of the environment stream after trap on it (trap ran on another stream?)");
  }
}

DC_WITH_STATE(env_copies, big_t, b, env_free) {
  TRY(dc_big_setup(c, b, 1));
  dh_stream_t s = b->s1;
  if (!s) SKIP("single queue: create_stream returns NULL, the environment stream is the default stream");
  TRY(env_set(c, s));
  dh_stream_t cur = NULL;
  CHECK_OK(dh_device_get_current_stream(c->dev, &cur));
  /* 1. a copy given the current stream (as TVM's callers pass GetCurrentStream) runs
   * behind the chain queued there: the D2H of A sees the chain's last write. */
  TRY(dc_big_chain(c, b, s));
  TRY(dc_big_read_A(c, b, cur));
  DC_SYNC(s);
  CHECK_BYTES("A read by a copy on the current (environment) stream behind a chain that writes A",
              b->out, b->neu, BIG, 0);
  /* 2. with s current and busy, copies given NULL run on the default stream: the H2D and
   * D2H of D each end with stream_sync(NULL) (TVM Tensor::CopyTo does the same) and see
   * their own bytes, not s's queue. */
  TRY(env_ballast(c, b, s));
  dc_pattern(b->old, BIG, 5);
  dc_sentinel(b->out, BIG);
  DC_UPLOAD(b->A, 0, b->old, BIG);
  DC_DOWNLOAD(b->A, 0, b->out, BIG);
  CHECK_BYTES("round trip through the NULL stream while another stream is the environment stream "
              "and busy (did the copies go to the environment stream?)", b->out, b->old, BIG, 0);
}

const dh_clause_t dc_stream_env_clauses[] = {
    {"stream.env_kernels", "fill and trap run on the stream set through tvm-ffi's environment "
     "(TVMFFIEnvSetStream, as PyTorch and TVM set it): behind its queued work, not on the default "
     "stream, their failure its to report", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/extra/c_env_api.h:43-63 TVMFFIEnvSetStream; devharness "
     "backend.h fill, trap (\"the calling thread's current stream\")",
     DC_NEED_FUNCTIONS | DC_NEED_MULTI_QUEUE, env_kernels, NULL, DC_PROFILE_STRICT},
    {"stream.env_copies", "with a stream set through TVMFFIEnvSetStream, get_current_stream answers "
     "it, a copy given it runs behind its work, and copies given NULL still run on the default "
     "stream", DC_MUST,
     "tvm-ffi 0.1.15 include/tvm/ffi/extra/c_env_api.h:43-63; apache/tvm 0.27 "
     "src/runtime/device_api.cc:171-173 GetCurrentStream, src/runtime/tensor.cc:211-220 "
     "Tensor::CopyTo (copy on nullptr, then StreamSync(nullptr)), tensor.cc:246-263",
     DC_NEED_MULTI_QUEUE, env_copies, NULL, DC_PROFILE_TVM},
};
const size_t dc_stream_env_count = sizeof dc_stream_env_clauses / sizeof dc_stream_env_clauses[0];
