/*
 * tests/fuzz/fuzz_plugin_abi.c — fuzzes the loader's check of the dh_backend_t a
 * plugin's entry hands in (runtime/plugin.c dh__backend_accept, steps 5-9 of
 * dh_plugin_load; rules in devharness/backend.h).
 *
 * The input bytes choose values, sizes, flags and which pointers are NULL; they never
 * become pointers. Header fields (struct_size, abi_major, abi_minor, reserved),
 * device_type, caps and num_functions come from the data; each function pointer is
 * either a real stub or NULL by a data bit; name/description/target_kind strings are
 * NUL-terminated copies of input slices (or NULL); functions points into a
 * fuzzer-owned table (or is NULL), and so does options (ABI 1.6; its strings chosen as
 * name's are). The struct is then copied into a heap buffer of
 * exactly `available` bytes (also from the data), so ASan sees any read past what the
 * plugin handed in.
 *
 * Invariants: never crashes; the verdict equals an independent re-statement of the
 * rules (so an accepted struct satisfies every documented rule and a valid one is not
 * refused); an accepted copy holds exactly min(struct_size, sizeof, available) bytes of
 * the plugin's struct and zeros after them; a refusal is an ABIError whose message
 * starts with the origin and leaves the copy zeroed.
 */
#include <stdlib.h>
#include <string.h>

#include "devharness/devharness.h"
#include "runtime/internal.h"
#include "tests/fuzz/fuzz.h"

/*---------------------------------------------------------------- input reader */

typedef struct reader {
  const uint8_t* p;
  size_t n;
} reader_t;

static uint8_t rd_u8(reader_t* r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}

static uint64_t rd_uint(reader_t* r, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)rd_u8(r) << (8 * i);
  return v;
}

/* Strings: mode byte; 0 -> NULL, else a NUL-terminated copy of the next (mode-1) & 63
 * input bytes (short names are the interesting ones; embedded NULs allowed). Owned by
 * `pool`. */
#define POOL_MAX 16
typedef struct pool {
  char* s[POOL_MAX];
  int n;
} pool_t;

static const char* rd_str(reader_t* r, pool_t* pool) {
  uint8_t mode = rd_u8(r);
  if (mode == 0 || pool->n >= POOL_MAX) return NULL;
  size_t len = (size_t)((mode - 1) & 63);
  if (len > r->n) len = r->n;
  char* s = dh_fuzz_cstr(r->p, len);
  r->p += len;
  r->n -= len;
  if (s != NULL) pool->s[pool->n++] = s;
  return s;
}

/*---------------------------------------------------------------- stubs */

static int st_init(void) { return 0; }
static void st_shutdown(void) {}
static const char* st_reason(void) { return NULL; }
static int st_get_attr(DLDevice d, int32_t k, dh_any_t* o) { (void)d; (void)k; (void)o; return 0; }
static int st_target_prop(DLDevice d, const char* n, dh_any_t* o) { (void)d; (void)n; (void)o; return 0; }
static int st_set_device(DLDevice d) { (void)d; return 0; }
static int st_alloc(DLDevice d, size_t n, size_t a, DLDataType t, void** o) {
  (void)d; (void)n; (void)a; (void)t; (void)o; return 0;
}
static int st_free(DLDevice d, void* p) { (void)d; (void)p; return 0; }
static int st_alloc_ws(DLDevice d, size_t n, DLDataType t, void** o) { (void)d; (void)n; (void)t; (void)o; return 0; }
static int st_alloc_host(DLDevice d, size_t n, void** o) { (void)d; (void)n; (void)o; return 0; }
static int st_copy(const void* f, size_t fo, void* t, size_t to, size_t n, DLDevice df, DLDevice dt,
                   DLDataType th, dh_stream_t s) {
  (void)f; (void)fo; (void)t; (void)to; (void)n; (void)df; (void)dt; (void)th; (void)s; return 0;
}
static int st_create_stream(DLDevice d, dh_stream_t* o) { (void)d; (void)o; return 0; }
static int st_stream(DLDevice d, dh_stream_t s) { (void)d; (void)s; return 0; }
static int st_get_stream(DLDevice d, dh_stream_t* o) { (void)d; (void)o; return 0; }
static int st_sync_from_to(DLDevice d, dh_stream_t a, dh_stream_t b) { (void)d; (void)a; (void)b; return 0; }
static int st_event_create(DLDevice d, dh_event_t* o) { (void)d; (void)o; return 0; }
static int st_event_record(DLDevice d, dh_event_t e, dh_stream_t s) { (void)d; (void)e; (void)s; return 0; }
static int st_event_elapsed(DLDevice d, dh_event_t a, dh_event_t b, double* o) {
  (void)d; (void)a; (void)b; (void)o; return 0;
}
static int st_event_free(DLDevice d, dh_event_t e) { (void)d; (void)e; return 0; }
static int st_call(void* self, const dh_any_t* args, int32_t n, dh_any_t* res) {
  (void)self; (void)args; (void)n; (void)res; return 0;
}
static const dh_raw_twin_t st_raw = {.struct_size = sizeof(dh_raw_twin_t), .api_name = "stub"};
static int st_set_option(const char* n, const char* v) { (void)n; (void)v; return 0; }

/*---------------------------------------------------------------- the independent rules */

static int name_ok(const char* s) {
  if (s == NULL) return 0;
  size_t n = strlen(s);
  if (n == 0 || n >= 48) return 0;
  if (s[0] < 'a' || s[0] > 'z') return 0;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return 0;
  }
  return 1;
}

/* ABI 1.6: an option name, [a-z][a-z0-9-]*, 1..31 bytes. */
static int option_name_ok(const char* s) {
  if (s == NULL) return 0;
  size_t n = strlen(s);
  if (n == 0 || n > 31 || s[0] < 'a' || s[0] > 'z') return 0;
  for (size_t i = 1; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-')) return 0;
  return 1;
}

static int text_ok(const char* s) { return s != NULL && s[0] != '\0' && strchr(s, '\n') == NULL; }

/* 1 when the ABI 1.6 option table of `b` meets backend.h's rules. */
static int options_ok(const dh_backend_t* b) {
  if (b->num_options == 0) return 1;
  if (b->num_options > DH_BACKEND_MAX_OPTIONS || b->options == NULL || b->set_option == NULL) return 0;
  for (size_t i = 0; i < b->num_options; i++) {
    const dh_backend_option_t* o = &b->options[i];
    if (!option_name_ok(o->name) || !text_ok(o->value_name) || !text_ok(o->help)) return 0;
    if (o->flags & ~(uint32_t)DH_BACKEND_OPTION_FLAGS_ALL) return 0;
    for (size_t j = 0; j < i; j++)
      if (strcmp(b->options[j].name, o->name) == 0) return 0;
  }
  return 1;
}

/* 1 when the copied view `b` meets backend.h's per-struct rules. */
static int rules_ok(const dh_backend_t* b) {
  if (!b->init || !b->unavailable_reason || !b->get_attr || !b->set_device || !b->alloc_data_space ||
      !b->free_data_space || !b->copy_data_from_to || !b->create_stream || !b->free_stream ||
      !b->set_stream || !b->get_current_stream || !b->stream_sync || !b->sync_stream_from_to)
    return 0;
  if (!b->alloc_workspace != !b->free_workspace) return 0;
  if (!name_ok(b->name)) return 0;
  /* 0 (DH_DEVICE_TYPE_ASSIGN) from an ABI >= 1.2 struct: the loader assigns one */
  int assign = b->device_type == DH_DEVICE_TYPE_ASSIGN && b->abi_minor >= 2;
  if (!assign && (b->device_type < 1 || b->device_type >= DH__MAX_DEVICE_TYPES)) return 0;
  if (b->num_functions > 0 && b->functions == NULL) return 0;
  for (size_t i = 0; i < b->num_functions; i++)
    if (!b->functions[i].name || !b->functions[i].name[0] || !b->functions[i].call) return 0;
  return options_ok(b);
}

static int all_zero(const void* p, size_t n) {
  const unsigned char* c = (const unsigned char*)p;
  for (size_t i = 0; i < n; i++)
    if (c[i]) return 0;
  return 1;
}

/*---------------------------------------------------------------- target */

#define MAX_FUNCS 8
#define MAX_OPTS 20 /* more than DH_BACKEND_MAX_OPTIONS, so the limit is reached */
#define TAIL 64 /* bytes past sizeof(dh_backend_t): a newer minor's fields */

static int g_verbose; /* DH_FUZZ_VERBOSE=1: print each verdict (for checking seeds) */

int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  g_verbose = getenv("DH_FUZZ_VERBOSE") != NULL;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  reader_t r = {data, size};
  pool_t pool = {{0}, 0};
  unsigned char image[sizeof(dh_backend_t) + TAIL];
  memset(image, 0, sizeof image);
  dh_backend_t* b = (dh_backend_t*)(void*)image;
  dh_backend_function_t funcs[MAX_FUNCS];
  memset(funcs, 0, sizeof funcs);
  dh_backend_option_t opts[MAX_OPTS];
  memset(opts, 0, sizeof opts);

  /* header */
  uint8_t m = rd_u8(&r);
  static const size_t sizes[] = {0, 1, 8, 16, DH_BACKEND_SIZE_V1_0 - 1, DH_BACKEND_SIZE_V1_0,
                                 offsetof(dh_backend_t, event_create), offsetof(dh_backend_t, raw),
                                 sizeof(dh_backend_t) - 1, sizeof(dh_backend_t), sizeof(dh_backend_t) + 8,
                                 sizeof(dh_backend_t) + TAIL, (size_t)1 << 31, SIZE_MAX / 2, SIZE_MAX - 7,
                                 SIZE_MAX};
  enum { kNumSizes = sizeof sizes / sizeof sizes[0] };
  if (m < 0xe0)
    b->struct_size = sizes[m % kNumSizes];
  else
    b->struct_size = (size_t)rd_uint(&r, 8);
  uint8_t hm = rd_u8(&r);
  b->abi_major = (hm & 1) ? DH_BACKEND_ABI_MAJOR : (uint16_t)rd_uint(&r, 2);
  b->abi_minor = (hm & 2) ? DH_BACKEND_ABI_MINOR : (uint16_t)rd_uint(&r, 2);
  b->reserved = (hm & 4) ? 0 : (uint32_t)rd_uint(&r, 4);

  /* identity */
  b->name = rd_str(&r, &pool);
  b->description = rd_str(&r, &pool);
  uint8_t dm = rd_u8(&r);
  b->device_type = (dm & 0x80) ? (int32_t)(uint32_t)rd_uint(&r, 4) : (int32_t)(dm & 0x7f) - 4;
  b->caps = (uint32_t)rd_uint(&r, 1) | ((hm & 8) ? (uint32_t)rd_uint(&r, 3) << 8 : 0);
  b->target_kind = rd_str(&r, &pool);
  b->target_kind_json = (hm & 16) ? rd_str(&r, &pool) : NULL;

  /* entries: one bit each, set = real stub, clear = NULL */
  uint32_t present = (uint32_t)rd_uint(&r, 4);
  if (hm & 32) present = ~present; /* makes "almost all present" as likely as "almost none" */
#define ENTRY(bit, field, stub) b->field = (present & (1u << (bit))) ? (stub) : NULL
  ENTRY(0, init, st_init);
  ENTRY(1, shutdown, st_shutdown);
  ENTRY(2, unavailable_reason, st_reason);
  ENTRY(3, get_attr, st_get_attr);
  ENTRY(4, get_target_property, st_target_prop);
  ENTRY(5, set_device, st_set_device);
  ENTRY(6, alloc_data_space, st_alloc);
  ENTRY(7, free_data_space, st_free);
  ENTRY(8, alloc_workspace, st_alloc_ws);
  ENTRY(9, free_workspace, st_free);
  ENTRY(10, alloc_host, st_alloc_host);
  ENTRY(11, free_host, st_free);
  ENTRY(12, copy_data_from_to, st_copy);
  ENTRY(13, create_stream, st_create_stream);
  ENTRY(14, free_stream, st_stream);
  ENTRY(15, set_stream, st_stream);
  ENTRY(16, get_current_stream, st_get_stream);
  ENTRY(17, stream_sync, st_stream);
  ENTRY(18, sync_stream_from_to, st_sync_from_to);
  ENTRY(19, event_create, st_event_create);
  ENTRY(20, event_record, st_event_record);
  ENTRY(21, event_elapsed_ms, st_event_elapsed);
  ENTRY(22, event_free, st_event_free);
  ENTRY(23, raw, &st_raw);
#undef ENTRY

  /* module functions: a real table (num_functions <= its length) or NULL with any count */
  uint8_t fm = rd_u8(&r);
  if (fm & 0x80) {
    b->functions = NULL;
    b->num_functions = (fm & 0x40) ? (size_t)rd_uint(&r, 8) : (size_t)(fm & 0x3f);
  } else {
    b->functions = funcs;
    b->num_functions = (size_t)(fm % (MAX_FUNCS + 1));
    for (size_t i = 0; i < b->num_functions; i++) {
      uint8_t c = rd_u8(&r);
      funcs[i].name = (c & 1) ? rd_str(&r, &pool) : (c & 2) ? "" : (c & 4) ? NULL : "fill";
      funcs[i].call = (c & 8) ? NULL : st_call;
    }
  }

  /* a newer minor's tail */
  for (size_t i = sizeof(dh_backend_t); i < sizeof image; i++) image[i] = rd_u8(&r);

  /* how many bytes the plugin really handed in */
  uint8_t am = rd_u8(&r);
  size_t available;
  if (am < 0xc0)
    available = sizeof image;
  else if (am < 0xe0)
    available = sizeof(dh_backend_t);
  else
    available = (size_t)rd_uint(&r, 2) % (sizeof image + 1);
  const char* origin = (am & 1) && am >= 0xc0 ? NULL : "fuzz/libdevharness_fuzz.so";

  /* ABI 1.6 options, read last (older seeds end before: no options): mode byte, then
   * one byte per option choosing each string (a slice, a fixed one, "" or NULL) */
  uint8_t om = rd_u8(&r);
  if (om != 0) {
    b->options = (om & 0x20) ? NULL : opts;
    b->num_options = b->options ? (size_t)((om & 0x1f) % (MAX_OPTS + 1)) : (size_t)(om & 0x1f);
    b->set_option = (om & 0x40) ? NULL : st_set_option;
    for (size_t i = 0; b->options != NULL && i < b->num_options; i++) {
      uint8_t c = rd_u8(&r);
      opts[i].name = (c & 1) ? rd_str(&r, &pool) : (c & 2) ? "tvm-lib" : (c & 4) ? NULL : "rpc";
      opts[i].value_name = (c & 8) ? NULL : (c & 16) ? "" : "PATH";
      opts[i].help = (c & 32) ? rd_str(&r, &pool) : "its help";
      opts[i].flags = (c & 64) ? (uint32_t)rd_u8(&r) : (c & 128) ? DH_BACKEND_OPTION_REPEATABLE : 0;
    }
  }

  /* the bytes the loader may read, exactly */
  unsigned char* handed = malloc(available ? available : 1);
  if (handed == NULL) goto out;
  memcpy(handed, image, available);

  /* expected verdict */
  size_t copy = b->struct_size < sizeof(dh_backend_t) ? b->struct_size : sizeof(dh_backend_t);
  if (copy > available) copy = available;
  int expect = available >= offsetof(dh_backend_t, reserved) && b->abi_major == DH_BACKEND_ABI_MAJOR &&
               b->struct_size >= DH_BACKEND_SIZE_V1_0 && copy >= DH_BACKEND_SIZE_V1_0;
  dh_backend_t view;
  memset(&view, 0, sizeof view);
  if (expect) {
    memcpy(&view, image, copy);
    expect = rules_ok(&view);
  }

  dh_backend_t out;
  memset(&out, 0xa5, sizeof out);
  dh_error_clear();
  int rc = dh__backend_accept(origin, (const dh_backend_t*)(void*)handed, available, &out);
  if (g_verbose) fprintf(stderr, "# %s %s\n", rc == 0 ? "accepted" : "refused:", rc == 0 ? "" : dh_error_message());
  if (rc != 0 && rc != -1) dh_fuzz_fail("dh__backend_accept returned %d", rc);
  if ((rc == 0) != expect) {
    dh_fuzz_fail("verdict %s but the rules say %s (struct_size %zu, abi %u.%u, available %zu, name '%s', "
                 "device_type %d): %s",
                 rc == 0 ? "accepted" : "refused", expect ? "accept" : "refuse", b->struct_size,
                 (unsigned)b->abi_major, (unsigned)b->abi_minor, available, b->name ? b->name : "(NULL)",
                 (int)b->device_type, rc ? dh_error_message() : "");
  }
  if (rc == 0) {
    if (memcmp(&out, image, copy) != 0) dh_fuzz_fail("accepted copy differs from the plugin's first %zu bytes", copy);
    if (!all_zero((unsigned char*)&out + copy, sizeof out - copy))
      dh_fuzz_fail("accepted copy is not zero past the %zu bytes copied", copy);
    if (!rules_ok(&out) || out.abi_major != DH_BACKEND_ABI_MAJOR || out.struct_size < DH_BACKEND_SIZE_V1_0)
      dh_fuzz_fail("accepted copy breaks a rule");
  } else {
    const char* kind = dh_error_kind();
    const char* msg = dh_error_message();
    const char* want = origin ? origin : "(plugin)";
    if (kind == NULL || strcmp(kind, "ABIError") != 0)
      dh_fuzz_fail("refusal of kind '%s', expected ABIError", kind ? kind : "(none)");
    if (strncmp(msg, want, strlen(want)) != 0 || msg[strlen(want)] != ':')
      dh_fuzz_fail("refusal message does not start with the origin: '%s'", msg);
    if (!all_zero(&out, sizeof out)) dh_fuzz_fail("refused copy is not zeroed");
  }
  free(handed);
out:
  for (int i = 0; i < pool.n; i++) free(pool.s[i]);
  return 0;
}
