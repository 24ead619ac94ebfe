/*
 * tests/runtime/plugins/test_backend.c — one source, many test plugins for the plugin
 * loader tests (tests/runtime/test_plugin.c). Built once per variant with
 * -DRT_VARIANT_<X> (tests/runtime/tests.mk):
 *   GOOD       "rtgood", device type 9 (kDLVPI): a minimal in-memory backend, one device
 *   NEWER      "rtnewer", type 20: abi_minor 1 and a struct_size larger than this ABI's
 *   OLDER      "rtolder", type 21: struct_size = DH_BACKEND_SIZE_V1_0 exactly, with the
 *              optional tail (event_*, raw) set in memory: the loader must read NULL
 *   INITFAIL   "rtinitfail", type 22: init returns -1 ("RuntimeError", "no rtinitfail hardware")
 *   BADMAJOR   abi_major 2            SIZE0      struct_size 0
 *   SMALL      struct_size one field short of DH_BACKEND_SIZE_V1_0
 *   NOENTRY    no dh_backend_entry    NULLENTRY  entry returns NULL
 *   NULLSYNC   stream_sync NULL       BADNAME    name "Bad-Name"
 *   DUPNAME    name "rtgood", type 23 DUPTYPE    "rtduptype", type 9
 *   MORE       "rtmore", type 25, ABI 1.3 more_backends: "rtmore-a" type 26 (good,
 *              ffi_device_type 13),
 *              "rtmore-b" type 25 (taken by rtmore), "Bad" (bad name), and one
 *              refuse("/rt/more.so", ...) of something it gave up on
 *   OPTIONS    "rtopts", type 28, ABI 1.6 options: --rt-lib LIB (repeatable) and
 *              --rt-mode fast|slow (once, unlisted; another value: ValueError "expected
 *              fast or slow"); more_backends gives "rtopts-<LIB>" (type 29, 30, ...) per
 *              --rt-lib value set before it ran
 *   OPTSDUP    "rtoptsdup", type 31, declares --rt-mode too (taken by rtopts)
 *   BADOPTS    "rtbadopts", type 32, an option whose help is NULL
 * Memory is malloc'd host memory (handles are host pointers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/backend.h"

#if defined(RT_VARIANT_NEWER)
#define RT_NAME "rtnewer"
#define RT_TYPE 20
#elif defined(RT_VARIANT_OLDER)
#define RT_NAME "rtolder"
#define RT_TYPE 21
#elif defined(RT_VARIANT_INITFAIL)
#define RT_NAME "rtinitfail"
#define RT_TYPE 22
#elif defined(RT_VARIANT_MORE)
#define RT_NAME "rtmore"
#define RT_TYPE 25
#elif defined(RT_VARIANT_BADNAME)
#define RT_NAME "Bad-Name"
#define RT_TYPE 24
#elif defined(RT_VARIANT_DUPNAME)
#define RT_NAME "rtgood"
#define RT_TYPE 23
#elif defined(RT_VARIANT_DUPTYPE)
#define RT_NAME "rtduptype"
#define RT_TYPE 9
#elif defined(RT_VARIANT_OPTIONS)
#define RT_NAME "rtopts"
#define RT_TYPE 28
#elif defined(RT_VARIANT_OPTSDUP)
#define RT_NAME "rtoptsdup"
#define RT_TYPE 31
#elif defined(RT_VARIANT_BADOPTS)
#define RT_NAME "rtbadopts"
#define RT_TYPE 32
#else
#define RT_NAME "rtgood"
#define RT_TYPE 9
#endif

static int g_init_calls;
static size_t g_last_alignment;

static int check_dev(DLDevice dev) {
  if (dev.device_type != RT_TYPE || dev.device_id != 0)
    return dh_error_set("IndexError", "no device %d", (int)dev.device_id);
  return 0;
}

static int rt_init(void) {
  g_init_calls++;
#if defined(RT_VARIANT_INITFAIL)
  return dh_error_set("RuntimeError", "no rtinitfail hardware");
#else
  return 0;
#endif
}
static const char* rt_unavailable_reason(void) { return NULL; }
static int rt_get_attr(DLDevice dev, int32_t kind, dh_any_t* out) {
  *out = dh_any_none();
  if (kind == DH_ATTR_EXIST) {
    *out = dh_any_int(dev.device_id == 0);
    return 0;
  }
  if (check_dev(dev)) return -1;
  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT) return dh_error_set("ValueError", "bad attribute kind %d", (int)kind);
  if (kind == DH_ATTR_DEVICE_NAME) *out = dh_any_str("rt test device");
  return 0;
}
static int rt_set_device(DLDevice dev) { return check_dev(dev); }
static int rt_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  (void)hint;
  if (check_dev(dev)) return -1;
  g_last_alignment = alignment;
  size_t n = (nbytes + alignment - 1) / alignment * alignment;
  *out = aligned_alloc(alignment, n ? n : alignment);
  return *out ? 0 : dh_error_set("OutOfMemoryError", "cannot allocate %zu bytes", nbytes);
}
static int rt_free(DLDevice dev, void* p) {
  if (check_dev(dev)) return -1;
  free(p);
  return 0;
}
static int rt_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                   DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  (void)dev_from, (void)dev_to, (void)hint, (void)stream;
  memmove((char*)to + to_offset, (const char*)from + from_offset, nbytes);
  return 0;
}
static int rt_create_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  return check_dev(dev);
}
static int rt_stream_op(DLDevice dev, dh_stream_t s) {
  (void)s;
  return check_dev(dev);
}
static int rt_get_stream(DLDevice dev, dh_stream_t* out) {
  *out = NULL;
  return check_dev(dev);
}
static int rt_sync_from_to(DLDevice dev, dh_stream_t a, dh_stream_t b) {
  (void)a, (void)b;
  return check_dev(dev);
}

/* Module functions: echo, raise, and two probes for the tests. */
static int f_echo(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self;
  if (n < 1 || args[0].type_index != DH_TYPE_INT) return dh_error_set("TypeError", "echo: args[0] must be Int");
  if (args[0].v_int64 < 0 || args[0].v_int64 >= n - 1) return dh_error_set("IndexError", "echo: index out of range");
  *rv = args[1 + args[0].v_int64];
  return 0;
}
static int f_raise(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)rv;
  if (n != 2) return dh_error_set("TypeError", "raise: 2 arguments expected");
  return dh_error_set(args[0].v_c_str, "%s", args[1].v_c_str);
}
static int f_init_calls(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)args, (void)n;
  *rv = dh_any_int(g_init_calls);
  return 0;
}
static int f_last_alignment(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)args, (void)n;
  *rv = dh_any_int((int64_t)g_last_alignment);
  return 0;
}
static int f_bad(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)args, (void)n, (void)rv;
  return -1; /* without an error: the core must supply InternalError */
}
static const dh_backend_function_t kFunctions[] = {
    {DH_FUNC_ECHO, f_echo}, {DH_FUNC_RAISE, f_raise}, {"init_calls", f_init_calls},
    {"last_alignment", f_last_alignment}, {"bad", f_bad}};

static int ev_create(DLDevice dev, dh_event_t* out) {
  (void)dev;
  *out = NULL;
  return 0;
}
static const dh_raw_twin_t kRaw = {.struct_size = sizeof(dh_raw_twin_t), .api_name = "memcpy"};

/* A later minor: this ABI's struct plus fields it does not know. */
typedef struct {
  dh_backend_t base;
  void* future[4];
} rt_backend_newer_t;

static rt_backend_newer_t g_backend = {
    .base =
        {
            .struct_size = sizeof(dh_backend_t),
            .abi_major = DH_BACKEND_ABI_MAJOR,
            .abi_minor = DH_BACKEND_ABI_MINOR,
            .name = RT_NAME,
            .description = "runtime test plugin",
            .device_type = RT_TYPE,
            .caps = DH_CAP_SINGLE_QUEUE | DH_CAP_HOST_POINTER_ARITHMETIC,
            .init = rt_init,
            .unavailable_reason = rt_unavailable_reason,
            .get_attr = rt_get_attr,
            .set_device = rt_set_device,
            .alloc_data_space = rt_alloc,
            .free_data_space = rt_free,
            .copy_data_from_to = rt_copy,
            .create_stream = rt_create_stream,
            .free_stream = rt_stream_op,
            .set_stream = rt_stream_op,
            .get_current_stream = rt_get_stream,
            .stream_sync = rt_stream_op,
            .sync_stream_from_to = rt_sync_from_to,
            .functions = kFunctions,
            .num_functions = sizeof kFunctions / sizeof kFunctions[0],
#if defined(RT_VARIANT_OLDER)
            /* present in memory but past struct_size: must read as NULL */
            .event_create = ev_create,
            .raw = &kRaw,
#endif
        },
    .future = {&g_backend, &g_backend, &g_backend, &g_backend},
};

#if defined(RT_VARIANT_MORE)
static dh_backend_t g_more[3];
static size_t rt_more_backends(const dh_backend_t** out, size_t max, dh_backend_refuse_fn refuse) {
  static const char* const kNames[3] = {"rtmore-a", "rtmore-b", "Bad"};
  static const int32_t kTypes[3] = {26, 25, 27};
  refuse("/rt/more.so", "/rt/more.so: refused: rtmore gave up on it");
  size_t n = 0;
  for (size_t i = 0; i < 3 && n < max; i++) {
    g_more[i] = g_backend.base;
    g_more[i].name = kNames[i];
    g_more[i].device_type = kTypes[i];
    g_more[i].more_backends = NULL;
    /* rtmore-a: tvm-ffi's environment knows its devices as type 13 (test_more_backends) */
    g_more[i].ffi_device_type = i == 0 ? 13 : 0;
    out[n++] = &g_more[i];
  }
  return n;
}
#endif

#if defined(RT_VARIANT_OPTIONS) || defined(RT_VARIANT_OPTSDUP) || defined(RT_VARIANT_BADOPTS)
static const dh_backend_option_t kOptions[] = {
    {"rt-mode", "MODE", "fast or slow", DH_BACKEND_OPTION_UNLISTED}, /* a program's to give */
#if defined(RT_VARIANT_OPTIONS)
    {"rt-lib", "LIB", "a library: its devices are rtopts-<LIB>:0 (repeatable)", DH_BACKEND_OPTION_REPEATABLE},
#elif defined(RT_VARIANT_BADOPTS)
    {"rt-bad", "X", NULL, 0},
#endif
};
static char g_libs[3][16];
static int g_num_libs;
static int rt_set_option(const char* name, const char* value) {
  if (strcmp(name, "rt-mode") == 0)
    return strcmp(value, "fast") == 0 || strcmp(value, "slow") == 0 ? 0
                                                                    : dh_error_set("ValueError", "expected fast or slow");
  if (g_num_libs >= 3 || strlen(value) >= sizeof g_libs[0]) return dh_error_set("ValueError", "too many or too long");
  strcpy(g_libs[g_num_libs++], value);
  return 0;
}
#endif

#if defined(RT_VARIANT_OPTIONS)
static dh_backend_t g_opt_more[3];
static char g_opt_names[3][32];
static size_t rt_opt_more_backends(const dh_backend_t** out, size_t max, dh_backend_refuse_fn refuse) {
  (void)refuse;
  size_t n = 0;
  for (int i = 0; i < g_num_libs && n < max; i++) {
    g_opt_more[i] = g_backend.base;
    snprintf(g_opt_names[i], sizeof g_opt_names[i], "rtopts-%s", g_libs[i]);
    g_opt_more[i].name = g_opt_names[i];
    g_opt_more[i].device_type = 29 + i;
    g_opt_more[i].more_backends = NULL;
    out[n++] = &g_opt_more[i];
  }
  return n;
}
#endif

static void setup_variant(void) {
  dh_backend_t* b = &g_backend.base;
  (void)b;
  (void)ev_create;
  (void)kRaw;
#if defined(RT_VARIANT_NEWER)
  b->abi_minor = DH_BACKEND_ABI_MINOR + 1;
  b->struct_size = sizeof(rt_backend_newer_t);
#elif defined(RT_VARIANT_OLDER)
  b->struct_size = DH_BACKEND_SIZE_V1_0;
#elif defined(RT_VARIANT_BADMAJOR)
  b->abi_major = DH_BACKEND_ABI_MAJOR + 1;
#elif defined(RT_VARIANT_SIZE0)
  b->struct_size = 0;
#elif defined(RT_VARIANT_SMALL)
  b->struct_size = DH_BACKEND_SIZE_V1_0 - sizeof(size_t);
#elif defined(RT_VARIANT_NULLSYNC)
  b->stream_sync = NULL;
#elif defined(RT_VARIANT_MORE)
  b->more_backends = rt_more_backends;
#endif
#if defined(RT_VARIANT_OPTIONS) || defined(RT_VARIANT_OPTSDUP) || defined(RT_VARIANT_BADOPTS)
  b->options = kOptions;
  b->num_options = sizeof kOptions / sizeof kOptions[0];
  b->set_option = rt_set_option;
#endif
#if defined(RT_VARIANT_OPTIONS)
  b->more_backends = rt_opt_more_backends;
#endif
}

#if defined(RT_VARIANT_NOENTRY)
const dh_backend_t* dh_backend_entry_misspelled(void);
const dh_backend_t* dh_backend_entry_misspelled(void) {
  setup_variant();
  return &g_backend.base;
}
#else
const dh_backend_t* dh_backend_entry(void);
const dh_backend_t* dh_backend_entry(void) {
  setup_variant();
#if defined(RT_VARIANT_NULLENTRY)
  return NULL;
#else
  return &g_backend.base;
#endif
}
#endif
