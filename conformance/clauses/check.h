/*
 * conformance/clauses/check.h — clause catalogue types and the assertion layer of the
 * conformance suite (internal to conformance/, not a public header).
 *
 * A clause is one checkable promise of the DeviceAPI contract (docs/contract.md): an id
 * ("copy.offsets"), a one-line statement, a level (must/should), the source it comes
 * from (TVM DeviceAPI doc section or an anchor suite: IREE HAL CTS, OpenCL-CTS, ...),
 * the capabilities it needs, and a run function.
 *
 * Run functions take `dh_conf_ctx_t* c` (the name `c` is required by the macros
 * below) and talk to the device only through the public dispatch API
 * (devharness/device_api.h: dh_device_*, module functions through dh_device_call).
 * They may read the backend's fields (c->backend: caps, name, function list, whether an
 * optional entry is set) to decide what to test, but never call an entry; the one
 * exception is conformance/clauses/abi.c, whose helpers call a backend's vtable entry
 * directly where the dispatch would hide what the clause tests
 * (tests/layering/vtable_calls.t holds both).
 * Every CHECK_* macro records (message, expected, got, file:line) in *c and RETURNS
 * from the calling function on failure, so a clause stops at its first violation.
 * Helpers that may fail are void functions called through TRY(...), which returns
 * when the helper recorded a failure or skip.
 *
 * Thread-safety: a context belongs to one clause run; helpers running on extra
 * threads must record into their own context (or lock).
 */
#ifndef DEVHARNESS_CONFORMANCE_CHECK_H_
#define DEVHARNESS_CONFORMANCE_CHECK_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "devharness/devharness.h"

/* Clause levels. */
#define DC_MUST 0
#define DC_SHOULD 1

/* Profiles (dh_clause_t.profile; `devharness conformance --profile tvm|strict`).
 * DC_PROFILE_TVM: what TVM's documented DeviceAPI contract requires of every DeviceAPI
 * (apache/tvm docs/arch/device_target_interactions.rst §DeviceAPI, the doc comments of
 * include/tvm/runtime/device_api.h, tvm-ffi's C ABI; versions as in docs/contract.md).
 * DC_PROFILE_STRICT: devharness's sharper rules on top; a `strict` run runs both, a `tvm` run skips these with the
 * reason. 0 is "unset", which the catalogue test rejects: every clause states one. */
#define DC_PROFILE_TVM 1
#define DC_PROFILE_STRICT 2

/* Requirements (dh_clause_t.needs); a device lacking one skips the clause with the
 * reason given by dc_need_reason(). */
#define DC_NEED_MULTI_QUEUE (1u << 0) /* create_stream returns real streams */
#define DC_NEED_HOST_PTR (1u << 1)    /* DH_CAP_HOST_POINTER_ARITHMETIC */
#define DC_NEED_TWO_DEVICES (1u << 2) /* backend has >= 2 devices */
#define DC_NEED_TARGET (1u << 3)      /* --target given */
#define DC_NEED_PINNED_HOST (1u << 4) /* DH_CAP_PINNED_HOST with alloc_host/free_host */
#define DC_NEED_FUNCTIONS (1u << 5)   /* backend lists module functions (num_functions > 0);
                                         TVM's DeviceAPI has none */
#define DC_NEED_OPAQUE (1u << 6)      /* handles are not host addresses (no
                                         DH_CAP_HOST_POINTER_ARITHMETIC) */
#define DC_NEED_TENSOR_COPY (1u << 7) /* the backend takes DLTensors itself (backend.h
                                         copy_tensor_from_to, ABI 1.4); otherwise the core's
                                         checks answer first (harness.copy_checks) */
/* Not a requirement but a scope: a harness self-test (clauses/harness.c) tests
 * devharness's core, not the backend; the runner runs it on the first device of the run
 * and skips it on the others with the reason, so it is reported once per run. */
#define DC_ONCE (1u << 30)
/* Not a requirement but a way to run: with `--jobs N` the runner starts this case only
 * when no other case of the device runs and starts none beside it, because it reads
 * state the device shares between processes (kAvailableGlobalMemory, memory near the
 * device's limit) or times its work. Without it, cases running beside attr.available_*
 * on one H200 moved the figure they read (`--jobs 4`: attr.available_restored failed,
 * alone it passed). */
#define DC_RUN_ALONE (1u << 31)

/* Result status of one case. */
#define DC_PASS 0
#define DC_FAIL 1
#define DC_SKIP 2

struct dh_conf_ctx;
typedef void (*dc_clause_fn)(struct dh_conf_ctx* c);

/* One clause. All strings static. A new clause appends its profile after param:
 *   {"copy.x", "statement", DC_MUST, "source", needs, run, NULL, DC_PROFILE_TVM}
 * source names exactly where the rule comes from: a TVM docs section with its file:line
 * (apache/tvm docs/arch/device_target_interactions.rst), a TVM file:line with its version
 * ("apache/tvm 0.27 src/runtime/device_api.cc:146-147"), tvm-ffi with file:line, an
 * anchor suite (IREE HAL CTS, OpenCL-CTS), or "devharness <file> <entry>" for a rule
 * of our own. A DC_PROFILE_TVM clause cites TVM (docs, header or source) or tvm-ffi. */
typedef struct dh_clause {
  const char* id;        /* "<family>.<name>" */
  const char* statement; /* one line */
  int level;             /* DC_MUST / DC_SHOULD */
  const char* source;    /* see above */
  uint32_t needs;        /* DC_NEED_* */
  dc_clause_fn run;
  const void* param;     /* clause-specific data (table-driven clauses), may be NULL */
  int profile;           /* DC_PROFILE_TVM / DC_PROFILE_STRICT */
} dh_clause_t;

/* Text limits of a result record. */
#define DC_MSG_MAX 1024
#define DC_VAL_MAX 512

/* Context of one case (clause x device) and its result. */
typedef struct dh_conf_ctx {
  /* inputs */
  DLDevice dev;
  const dh_backend_t* backend;
  int num_devices;               /* devices of dev's backend */
  const dh_target_t* target;     /* --target applying to this device, or NULL */
  const char* target_name;       /* as given on the command line, or NULL */
  const dh_clause_t* clause;
  int profile;                   /* DC_PROFILE_TVM / DC_PROFILE_STRICT this device runs: where
                                    TVM names no error kind, tvm accepts any and strict asks ours */
  /* result */
  int status;                    /* DC_PASS / DC_FAIL / DC_SKIP */
  char message[DC_MSG_MAX];
  char expected[DC_VAL_MAX];
  char got[DC_VAL_MAX];
  char file[128];
  int line;
  /* optional list of individual findings (one per line), printed as the YAML list
   * "details" (e.g. one entry per target property mismatch) */
  char details[DC_MSG_MAX];
} dh_conf_ctx_t;

/* Records a failure (first one wins). expected/got may be NULL. Thread-safe only for
 * distinct contexts. */
void dc_fail(dh_conf_ctx_t* c, const char* file, int line, const char* expected,
             const char* got, const char* fmt, ...) __attribute__((format(printf, 6, 7)));
/* Records a failing call: message "<call> failed", expected "0 (success)", got
 * "-1 (<kind>: <message>)" from the thread's last error. */
void dc_fail_call(dh_conf_ctx_t* c, const char* file, int line, const char* call);
/* Records a skip with a reason. */
void dc_skip(dh_conf_ctx_t* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Checks that a call returned -1, and, when want_kind is not NULL, with that error
 * kind. Records a failure and returns 0 otherwise; 1 when it was as wanted. */
int dc_expect_error(dh_conf_ctx_t* c, const char* file, int line, const char* call, int rc,
                    const char* want_kind);
/* Compares n bytes; on the first difference records "<what>: byte <base+i>: expected
 * 0x.., got 0x.. (<k> bytes differ)" and returns 0; 1 when equal. */
int dc_check_bytes(dh_conf_ctx_t* c, const char* file, int line, const char* what,
                   const uint8_t* got, const uint8_t* expected, size_t n, size_t base);

/* dc_check_bytes with `what` formatted from fmt (at most 255 characters). */
int dc_check_bytesf(dh_conf_ctx_t* c, const char* file, int line, const uint8_t* got,
                    const uint8_t* expected, size_t n, size_t base, const char* fmt, ...)
    __attribute__((format(printf, 8, 9)));

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      dc_fail(c, __FILE__, __LINE__, "true: " #cond, "false", __VA_ARGS__); \
      return;                                                             \
    }                                                                     \
  } while (0)

#define CHECK_OK(call)                                 \
  do {                                                 \
    if ((call) != 0) {                                 \
      dc_fail_call(c, __FILE__, __LINE__, #call);      \
      return;                                          \
    }                                                  \
  } while (0)

/* want_kind: error kind string or NULL for any error. */
#define CHECK_ERR(call, want_kind)                                                   \
  do {                                                                               \
    int dc_rc_ = (call);                                                             \
    if (!dc_expect_error(c, __FILE__, __LINE__, #call, dc_rc_, (want_kind))) return; \
  } while (0)

#define CHECK_EQ_INT(got_v, exp_v, ...)                                           \
  do {                                                                            \
    long long dc_g_ = (long long)(got_v), dc_e_ = (long long)(exp_v);             \
    if (dc_g_ != dc_e_) {                                                         \
      char dc_eb_[32], dc_gb_[32];                                                \
      snprintf(dc_eb_, sizeof dc_eb_, "%lld", dc_e_);                             \
      snprintf(dc_gb_, sizeof dc_gb_, "%lld", dc_g_);                             \
      dc_fail(c, __FILE__, __LINE__, dc_eb_, dc_gb_, __VA_ARGS__);                \
      return;                                                                     \
    }                                                                             \
  } while (0)

#define CHECK_BYTES(what, got_p, exp_p, n, base)                                          \
  do {                                                                                    \
    if (!dc_check_bytes(c, __FILE__, __LINE__, (what), (const uint8_t*)(got_p),          \
                        (const uint8_t*)(exp_p), (n), (base)))                            \
      return;                                                                             \
  } while (0)

/* CHECK_BYTES naming what it compares with printf arguments:
 *   CHECK_BYTESF(got, want, n, 0, "H2D from host byte_offset %zu", off); */
#define CHECK_BYTESF(got_p, exp_p, n, base, ...)                                       \
  do {                                                                                 \
    if (!dc_check_bytesf(c, __FILE__, __LINE__, (const uint8_t*)(got_p),              \
                         (const uint8_t*)(exp_p), (n), (base), __VA_ARGS__))          \
      return;                                                                          \
  } while (0)

#define FAIL(exp_s, got_s, ...)                                  \
  do {                                                           \
    dc_fail(c, __FILE__, __LINE__, (exp_s), (got_s), __VA_ARGS__); \
    return;                                                      \
  } while (0)

#define SKIP(...)             \
  do {                        \
    dc_skip(c, __VA_ARGS__);  \
    return;                   \
  } while (0)

/* Defines the run function `name` of a clause that works on state the clause must
 * release however it ends: the body that follows the macro receives `var`, a pointer
 * to a zeroed state_t, and may return at any CHECK; release(c, var) runs afterwards.
 *   DC_WITH_STATE(in_order, big_t, b, big_free) { TRY(big_setup(c, b)); ... } */
#define DC_WITH_STATE(name, state_t, var, release)        \
  static void name##_body(dh_conf_ctx_t* c, state_t* var); \
  static void name(dh_conf_ctx_t* c) {                     \
    state_t dc_state_;                                     \
    memset(&dc_state_, 0, sizeof dc_state_);               \
    name##_body(c, &dc_state_);                            \
    release(c, &dc_state_);                                \
  }                                                        \
  static void name##_body(dh_conf_ctx_t* c, state_t* var)

/* Calls a void helper that records into c, returns when it failed or skipped. */
#define TRY(expr)                     \
  do {                                \
    expr;                             \
    if (c->status != DC_PASS) return; \
  } while (0)

/*===========================================================================
 * Helpers (conformance/clauses/util.c). All record failures into c with the caller's
 * file:line where given; all device traffic goes through dh_device_*.
 *===========================================================================*/

#define DC_SENTINEL 0xdeadbeefu
#define DC_MIB ((size_t)1 << 20)

/* Host CPU device {kDLCPU, 0}. */
DLDevice dc_host(void);
/* uint8 dtype (the default type hint). */
DLDataType dc_u8(void);
/* Position-dependent pattern: byte i = (i*131 + (i>>8)*71 + seed) & 0xff. */
void dc_pattern(uint8_t* buf, size_t n, uint32_t seed);
/* Fills with the 0xdeadbeef sentinel (little-endian bytes ef be ad de repeating,
 * aligned to the buffer start). */
void dc_sentinel(uint8_t* buf, size_t n);
/* malloc that records a failure on NULL (n == 0 allocates 1 byte). Caller frees. */
uint8_t* dc_host_alloc(dh_conf_ctx_t* c, size_t n);

/* Device allocation on c->dev (alignment 0 = default); NULL and a failure recorded
 * when it fails. */
void* dc_dev_alloc(dh_conf_ctx_t* c, size_t n);
/* Frees device memory; records a failure when it fails. */
void dc_dev_free(dh_conf_ctx_t* c, void* p);

/* Flat byte copies through dh_device_copy_data_from_to with 1-D uint8 tensors; the
 * offsets go in byte_offset. stream: the stream argument. Failures are recorded with
 * `line` naming the caller. */
void dc_copy(dh_conf_ctx_t* c, int line, const void* from, DLDevice from_dev, size_t from_off,
             void* to, DLDevice to_dev, size_t to_off, size_t n, dh_stream_t stream);
#define DC_H2D(host, hoff, dptr, doff, n, s) \
  TRY(dc_copy(c, __LINE__, (host), dc_host(), (hoff), (dptr), c->dev, (doff), (n), (s)))
#define DC_D2H(dptr, doff, host, hoff, n, s) \
  TRY(dc_copy(c, __LINE__, (dptr), c->dev, (doff), (host), dc_host(), (hoff), (n), (s)))
#define DC_D2D(sptr, soff, dptr, doff, n, s) \
  TRY(dc_copy(c, __LINE__, (sptr), c->dev, (soff), (dptr), c->dev, (doff), (n), (s)))
#define DC_SYNC(s) CHECK_OK(dh_device_stream_sync(c->dev, (s)))

/* Writes n bytes of `host` to (dptr, off) and waits (NULL stream). */
void dc_upload(dh_conf_ctx_t* c, int line, void* dptr, size_t off, const uint8_t* host, size_t n);
/* Reads n bytes at (dptr, off) into `host` and waits (NULL stream). */
void dc_download(dh_conf_ctx_t* c, int line, void* dptr, size_t off, uint8_t* host, size_t n);
#define DC_UPLOAD(dptr, off, host, n) TRY(dc_upload(c, __LINE__, (dptr), (off), (host), (n)))
#define DC_DOWNLOAD(dptr, off, host, n) TRY(dc_download(c, __LINE__, (dptr), (off), (host), (n)))

/* Creates a stream; *out may be NULL on single-queue devices. */
void dc_stream_create(dh_conf_ctx_t* c, dh_stream_t* out);

/* Monotonic clock in milliseconds. */
double dc_now_ms(void);
/* Starts n (at most DC_THREADS_MAX) threads, thread i running fn((char*)args + i *
 * stride), and joins them all; 0. When one cannot be started: the failure recorded in c,
 * a line on stderr naming `who`, -1 (threads already started are left to the case's
 * timeout, as they may wait at a barrier the missing one never reaches). */
/* mem.c: allocates n bytes on c's device, writes a pattern made from seed, reads it
 * back (offset 0, NULL stream) and records the first difference; shared by the memory
 * families (mem.c, mem_lifetime.c, mem_distinct.c). */
void dc_roundtrip_size(dh_conf_ctx_t* c, size_t n, uint32_t seed);

#define DC_THREADS_MAX 64
int dc_run_threads(dh_conf_ctx_t* c, int n, void* (*fn)(void*), void* args, size_t stride,
                   const char* who);

/*===========================================================================
 * Catalogue (one table per family, in issue order)
 *===========================================================================*/

/* The clause families in catalogue order (the order of --list, the reports and the
 * goldens): X(name) is the table dc_<name>_clauses[] with dc_<name>_count entries,
 * defined in clauses/<family>.c. A new family is one row here, the registration idiom
 * of the report formats (suite/report.c), the bench suites (bench/suites/suites.h)
 * and the commands (cli/main.c). */
#define DC_CLAUSE_FAMILIES(X)                                        \
  X(attr)                                                            \
  X(mem) X(mem_lifetime) X(mem_distinct)                             \
  X(copy) X(copy_tensor) X(copy_async)                               \
  X(stream) X(stream_env)                                            \
  X(packed) X(device) X(event) X(cap) X(harness)
#define DC_FAMILY_DECLARE(name)                   \
  extern const dh_clause_t dc_##name##_clauses[]; \
  extern const size_t dc_##name##_count;
DC_CLAUSE_FAMILIES(DC_FAMILY_DECLARE)

/* Proof of power (conformance/clauses/power.c, generated by tests/conformance/power.py): per
 * clause, the faulty backends and sim mutants that fail it ("(only)": it alone), or
 * why none does. Strings static; empty when none. */
typedef struct dc_power {
  const char* id;
  const char* faulty;  /* "faulty_x (only), faulty_y" */
  const char* mutants; /* "mutant_a (only), mutant_b" */
  const char* note;    /* why nothing fails it; "" when something does */
} dc_power_t;
extern const dc_power_t dc_power[];
extern const size_t dc_power_count;

/* Every clause in catalogue order (conformance/clauses/catalogue.c); *out_count receives the count. */
const dh_clause_t* const* dc_catalogue(size_t* out_count);
/* 1 when clause id matches one of the n fnmatch globs, or n is 0 (catalogue.c). */
int dc_clause_matches(const char* const* globs, size_t n, const char* id);
/* A profile's name: "tvm", "strict" or "unset" (catalogue.c). */
const char* dc_profile_name(int profile);

/*--- conformance/clauses/abi.c: the plugin ABI itself, below the dispatch API ---*/

/* The backend's flat copy_data_from_to entry called directly with a uint8 type hint on
 * the default stream (the dispatch returns before the backend on nbytes 0, so this is
 * how copy.zero_length reaches the entry with nothing to copy). Returns the entry's
 * result; its error stays raised. */
int dc_abi_copy_flat(const dh_backend_t* b, const void* from, size_t from_offset, void* to, size_t to_offset,
                     size_t nbytes, DLDevice dev_from, DLDevice dev_to);

#endif /* DEVHARNESS_CONFORMANCE_CHECK_H_ */
