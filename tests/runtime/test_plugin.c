/*
 * tests/runtime/test_plugin.c — the plugin loader (device_api.h "Plugins") against
 * the test plugins of tests/runtime/plugins/test_backend.c: each refusal names the
 * file and the reason; a good plugin registers device_api.<name> and its functions;
 * newer/older minors; lazy once-only init; DEVHARNESS_PLUGIN_PATH discovery; ABI 1.3
 * more_backends (each further struct checked like the plugin's own); the ABI 1.6
 * options channel (runtime/options.c).
 */
#include "rt_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <tvm/ffi/extra/c_env_api.h>

#include "devharness/backend.h"
#include "devharness/device_api.h"

static const char* plugin(const char* name) {
  static char buf[8][PATH_MAX];
  static int next;
  char rel[256];
  snprintf(rel, sizeof rel, "runtime_plugins/libdevharness_%s.so", name);
  next = (next + 1) % 8;
  return rt_path(buf[next], sizeof buf[next], rel);
}

static int teardown(void** state) {
  (void)state;
  dh_plugins_unload_all();
  unsetenv("DEVHARNESS_PLUGIN_PATH");
  return 0;
}

typedef struct {
  const char* file;  /* plugin() name */
  const char* kind;
  const char* reason; /* substring of the message */
} refusal_case_t;

static void test_refusals_name_file_and_reason(void** state) {
  (void)state;
  char size_msg[128];
  snprintf(size_msg, sizeof size_msg, "struct_size %zu is smaller than the ABI 1.0 minimum %zu",
           (size_t)DH_BACKEND_SIZE_V1_0 - sizeof(size_t), (size_t)DH_BACKEND_SIZE_V1_0);
  const refusal_case_t cases[] = {
      {"missing", "IOError", "cannot open plugin: No such file or directory"},
      {"bogus", "ABIError", "not an ELF shared object"},
      {"rtnoentry", "ABIError", "missing entry symbol dh_backend_entry"},
      {"rtnullentry", "ABIError", "dh_backend_entry returned NULL"},
      {"rtbadmajor", "ABIError", "ABI major 2, this devharness speaks 1"},
      {"rtsize0", "ABIError", "struct_size 0 is smaller than the ABI 1.0 minimum"},
      {"rtsmall", "ABIError", size_msg},
      {"rtnullsync", "ABIError", "required entry 'stream_sync' is NULL"},
      {"rtbadname", "ABIError", "backend name 'Bad-Name' does not match [a-z][a-z0-9_-]*"},
      {"rtbadopts", "ABIError", "option --rt-bad: help is NULL, empty or holds a newline"},
  };
  size_t n = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < n; i++) {
    const char* path = plugin(cases[i].file);
    const dh_backend_t* b = (const dh_backend_t*)1;
    if (dh_plugin_load(path, &b) != -1) fail_msg("%s was accepted", path);
    assert_null(b);
    assert_string_equal(dh_error_kind(), cases[i].kind);
    char want[PATH_MAX + 256];
    snprintf(want, sizeof want, "%s: %s", path, cases[i].reason);
    assert_contains(dh_error_message(), want);
    assert_int_equal(dh_plugin_refusal_count(), i + 1);
    assert_string_equal(dh_plugin_refusal(i), dh_error_message());
  }
  assert_null(dh_plugin_refusal(n));
  assert_int_equal(dh_plugin_load(plugin("rtbadmajor"), NULL), -1); /* same refusal: kept once */
  assert_int_equal(dh_plugin_refusal_count(), n);
  assert_int_equal(dh_backend_count(), 0);
  dh_function_t f;
  assert_int_equal(dh_func_get(DH_DEVICE_API_PREFIX "rtsmall", &f), -1);
}

static void test_dlopen_failure(void** state) {
  (void)state;
  char path[] = "/tmp/dh_rt_fake_elf_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "\177ELF garbage that is not a shared object", 41), 41);
  close(fd);
  assert_int_equal(dh_plugin_load(path, NULL), -1);
  unlink(path);
  assert_string_equal(dh_error_kind(), "ABIError");
  char want[256];
  snprintf(want, sizeof want, "%s: dlopen failed: ", path);
  assert_contains(dh_error_message(), want);
  assert_int_equal(dh_plugin_load("/tmp", NULL), -1); /* a folder */
  assert_string_equal(dh_error_kind(), "IOError");
  assert_contains(dh_error_message(), "/tmp: not a regular file");
}

static void test_good_plugin_registers(void** state) {
  (void)state;
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(plugin("rtgood"), &b), 0);
  assert_non_null(b);
  assert_string_equal(b->name, "rtgood");
  assert_int_equal(b->device_type, kDLVPI);
  assert_int_equal(b->struct_size, sizeof(dh_backend_t));
  assert_null(b->event_create); /* not provided */
  assert_int_equal(dh_backend_count(), 1);
  assert_ptr_equal(dh_backend_at(0), b);
  assert_null(dh_backend_at(1));
  /* device_api.rtgood returns the backend as an OpaquePtr */
  dh_function_t f;
  dh_any_t rv;
  assert_int_equal(dh_func_get(DH_DEVICE_API_PREFIX "rtgood", &f), 0);
  assert_int_equal(dh_func_call(&f, NULL, 0, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_OPAQUE_PTR);
  assert_ptr_equal(rv.v_ptr, b);
  dh_func_release(&f);
  /* module functions as rtgood.<name> */
  assert_int_equal(dh_func_get("rtgood.echo", &f), 0);
  dh_any_t args[2] = {dh_any_int(0), dh_any_str("x")};
  assert_int_equal(dh_func_call(&f, args, 2, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_RAW_STR);
  assert_ptr_equal(rv.v_c_str, args[1].v_c_str);
  dh_func_release(&f);
  assert_int_equal(dh_func_get("rtgood.raise", &f), 0);
  dh_func_release(&f);
  const dh_backend_t* g = NULL;
  assert_int_equal(dh_device_api_get("rtgood", &g), 0);
  assert_ptr_equal(g, b);
  assert_int_equal(dh_device_api_get_by_type(kDLVPI, &g), 0);
  assert_ptr_equal(g, b);
  /* the same file again: the same backend, nothing new */
  assert_int_equal(dh_plugin_load(plugin("rtgood"), &g), 0);
  assert_ptr_equal(g, b);
  assert_int_equal(dh_backend_count(), 1);
  /* duplicates */
  assert_int_equal(dh_plugin_load(plugin("rtdupname"), NULL), -1);
  assert_string_equal(dh_error_kind(), "ABIError");
  assert_contains(dh_error_message(), "libdevharness_rtdupname.so: a backend named 'rtgood' is already loaded");
  assert_int_equal(dh_plugin_load(plugin("rtduptype"), NULL), -1);
  assert_contains(dh_error_message(),
                  "libdevharness_rtduptype.so: device type 9 (vpi) is already served by backend 'rtgood'");
  assert_int_equal(dh_backend_count(), 1);
  /* unload forgets everything */
  dh_plugins_unload_all();
  assert_int_equal(dh_backend_count(), 0);
  assert_int_equal(dh_func_get(DH_DEVICE_API_PREFIX "rtgood", &f), -1);
  assert_int_equal(dh_func_get("rtgood.echo", &f), -1);
  assert_int_equal(dh_device_api_get_by_type(kDLVPI, &g), -1);
  assert_string_equal(dh_error_message(), "Device API vpi is not enabled");
  assert_int_equal(dh_plugin_refusal_count(), 0);
}

static void test_newer_and_older_minor(void** state) {
  (void)state;
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(plugin("rtnewer"), &b), 0);
  assert_int_equal(b->abi_minor, DH_BACKEND_ABI_MINOR + 1);
  assert_true(b->struct_size > sizeof(dh_backend_t));
  assert_non_null(b->stream_sync);
  assert_null(b->raw);
  assert_int_equal(dh_plugin_load(plugin("rtolder"), &b), 0);
  assert_int_equal(b->struct_size, DH_BACKEND_SIZE_V1_0);
  assert_int_equal(b->num_functions, 5); /* the last V1_0 field is read */
  assert_null(b->event_create);         /* set in the plugin, but past struct_size */
  assert_null(b->raw);
  assert_int_equal(dh_backend_count(), 2);
}

static int call_int(const char* name) {
  dh_function_t f;
  dh_any_t rv;
  if (dh_func_get(name, &f) != 0) return -1000;
  int rc = dh_func_call(&f, NULL, 0, &rv);
  dh_func_release(&f);
  return rc != 0 ? -1000 : (int)rv.v_int64;
}

/* The backend's own function, not the registered one (which runs init first): reads
 * the plugin's init counter without initialising it. */
static int raw_int(const dh_backend_t* b, const char* name) {
  for (size_t i = 0; i < b->num_functions; i++) {
    if (strcmp(b->functions[i].name, name) != 0) continue;
    dh_any_t rv;
    return b->functions[i].call(NULL, NULL, 0, &rv) != 0 ? -1000 : (int)rv.v_int64;
  }
  return -1000;
}

static void* init_thread(void* p) {
  return (void*)(intptr_t)dh_backend_init(p);
}

static void test_lazy_init_once(void** state) {
  (void)state;
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(plugin("rtgood"), &b), 0);
  int before = raw_int(b, "init_calls"); /* the backend's function itself: no init */
  assert_true(before >= 0);
  assert_int_equal(raw_int(b, "init_calls"), before); /* loading did not init */
  pthread_t th[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, init_thread, (void*)b);
  for (int i = 0; i < 4; i++) {
    void* rc;
    pthread_join(th[i], &rc);
    assert_int_equal((intptr_t)rc, 0);
  }
  assert_int_equal(raw_int(b, "init_calls"), before + 1);
  assert_int_equal(dh_backend_init(b), 0);
  assert_int_equal(dh_device_set_device((DLDevice){kDLVPI, 0}), 0);
  /* the registered function (what tvm_ffi calls) runs init once, here already done */
  assert_int_equal(call_int("rtgood.init_calls"), before + 1);
  assert_null(dh_backend_unavailable_reason(b));
  int count = -1;
  assert_int_equal(dh_backend_device_count(b, &count), 0);
  assert_int_equal(count, 1);
  dh_backend_t fake;
  memset(&fake, 0, sizeof fake);
  assert_int_equal(dh_backend_init(&fake), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
}

static void test_init_failure_is_remembered(void** state) {
  (void)state;
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(plugin("rtinitfail"), &b), 0);
  assert_int_equal(dh_backend_init(b), -1);
  assert_string_equal(dh_error_kind(), "RuntimeError");
  assert_string_equal(dh_error_message(), "no rtinitfail hardware");
  assert_int_equal(dh_backend_init(b), -1); /* again: same error, init not re-run */
  assert_string_equal(dh_error_message(), "no rtinitfail hardware");
  assert_int_equal(raw_int(b, "init_calls"), 1);
  /* the registered function runs init first: a failed init is its error */
  dh_function_t f;
  dh_any_t rv;
  assert_int_equal(dh_func_get("rtinitfail.init_calls", &f), 0);
  assert_int_equal(dh_func_call(&f, NULL, 0, &rv), -1);
  dh_func_release(&f);
  assert_string_equal(dh_error_kind(), "RuntimeError");
  assert_string_equal(dh_error_message(), "no rtinitfail hardware");
  assert_int_equal(raw_int(b, "init_calls"), 1);
  assert_string_equal(dh_backend_unavailable_reason(b), "no rtinitfail hardware");
  int count = -1;
  assert_int_equal(dh_backend_device_count(b, &count), 0);
  assert_int_equal(count, 0);
  DLDevice dev = {(DLDeviceType)22, 0};
  dh_any_t v = dh_any_none();
  assert_int_equal(dh_device_get_attr(dev, DH_ATTR_EXIST, &v), 0); /* kExist never fails */
  assert_int_equal(v.type_index, DH_TYPE_INT);
  assert_int_equal(v.v_int64, 0);
  void* p;
  assert_int_equal(dh_device_alloc_data_space(dev, 16, 0, (DLDataType){kDLUInt, 8, 1}, &p), -1);
  assert_string_equal(dh_error_kind(), "RuntimeError");
  assert_string_equal(dh_error_message(), "rtinitfail:0: alloc_data_space: no rtinitfail hardware");
  const dh_backend_t* pb = NULL;
  assert_int_equal(dh_device_parse("rtinitfail:0", &dev, &pb), -1);
  assert_string_equal(dh_error_kind(), "IndexError");
  assert_string_equal(dh_error_message(),
                      "device spec 'rtinitfail:0': backend rtinitfail has no device 0 (0 devices: no rtinitfail hardware)");
}

static void test_device_api_get_not_enabled(void** state) {
  (void)state;
  const dh_backend_t* b = (const dh_backend_t*)1;
  assert_int_equal(dh_device_api_get("x", &b), -1);
  assert_null(b);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_contains(dh_error_message(), "Device API x is not enabled: no plugin libdevharness_x.so found in ");
  assert_contains(dh_error_message(), "/lib/devharness");
  setenv("DEVHARNESS_PLUGIN_PATH", "/nowhere/a:/nowhere/b", 1);
  assert_int_equal(dh_device_api_get("x", &b), -1);
  assert_contains(dh_error_message(), "found in /nowhere/a:/nowhere/b:");
  /* a refused plugin of that name: its refusal is the reason */
  assert_int_equal(dh_plugin_load(plugin("rtbadmajor"), NULL), -1);
  assert_int_equal(dh_device_api_get("rtbadmajor", &b), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  char want[PATH_MAX + 128];
  snprintf(want, sizeof want, "Device API rtbadmajor is not enabled: %s: ABI major 2, this devharness speaks 1",
           plugin("rtbadmajor"));
  assert_string_equal(dh_error_message(), want);
}

static void test_plugin_path_discovery(void** state) {
  (void)state;
  char dir[] = "/tmp/dh_rt_plugins_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char good[PATH_MAX], bad[PATH_MAX], other[PATH_MAX];
  snprintf(good, sizeof good, "%s/libdevharness_rtgood.so", dir);
  snprintf(bad, sizeof bad, "%s/libdevharness_rtbadmajor.so", dir);
  snprintf(other, sizeof other, "%s/notaplugin.so", dir); /* ignored: wrong name */
  assert_int_equal(symlink(plugin("rtgood"), good), 0);
  assert_int_equal(symlink(plugin("rtbadmajor"), bad), 0);
  assert_int_equal(symlink(plugin("bogus"), other), 0);
  char env[PATH_MAX];
  snprintf(env, sizeof env, "%s:%s", dir, dir); /* listed twice: loaded once */
  setenv("DEVHARNESS_PLUGIN_PATH", env, 1);
  size_t loaded = dh_plugins_load_default();
  size_t refusals = dh_plugin_refusal_count();
  assert_true(loaded >= 1);
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_device_api_get("rtgood", &b), 0);
  int found_bad = 0;
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s: ABI major 2, this devharness speaks 1", bad);
  for (size_t i = 0; i < refusals; i++) {
    if (strcmp(dh_plugin_refusal(i), want) == 0) found_bad++;
    assert_null(strstr(dh_plugin_refusal(i), "notaplugin"));
  }
  assert_int_equal(found_bad, 1);
  /* again: nothing twice */
  assert_int_equal(dh_plugins_load_default(), 0);
  assert_int_equal(dh_plugin_refusal_count(), refusals);
  unlink(good);
  unlink(bad);
  unlink(other);
  rmdir(dir);
}

/* ABI 1.3: the further backends of more_backends are registered when they pass the
 * plugin's checks, and each that does not is a refusal naming the file and the
 * reason, as is what the plugin reports through refuse; the plugin itself stays. */
static void test_more_backends(void** state) {
  (void)state;
  size_t before = dh_plugin_refusal_count();
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(plugin("rtmore"), &b), 0);
  assert_string_equal(b->name, "rtmore");
  const dh_backend_t* a = NULL;
  assert_int_equal(dh_device_api_get("rtmore-a", &a), 0);
  assert_int_equal(a->device_type, 26);
  assert_int_equal(dh_backend_init(a), 0);
  const dh_backend_t* by_type = NULL;
  assert_int_equal(dh_device_api_get_by_type(26, &by_type), 0);
  assert_ptr_equal(by_type, a);
  assert_int_equal(dh_device_api_get("rtmore-b", NULL), -1);
  /* ffi_device_type: the environment stream of (26, 0) is tvm-ffi's (13, 0) */
  DLDevice dev26 = {(DLDeviceType)26, 0};
  void* s = (void*)(uintptr_t)0x5a5a0;
  assert_int_equal(dh_env_set_stream(dev26, s), 0);
  assert_ptr_equal(TVMFFIEnvGetStream(13, 0), s);
  assert_ptr_equal(TVMFFIEnvGetStream(26, 0), NULL);
  assert_ptr_equal(dh_env_get_stream(dev26), s);
  assert_int_equal(dh_env_set_stream(dev26, NULL), 0);
  assert_ptr_equal(TVMFFIEnvGetStream(13, 0), NULL);
  assert_int_equal(dh_plugin_refusal_count(), before + 3);
  int gave_up = 0, dup_type = 0, bad_name = 0;
  for (size_t i = before; i < dh_plugin_refusal_count(); i++) {
    const char* m = dh_plugin_refusal(i);
    gave_up += strcmp(m, "/rt/more.so: refused: rtmore gave up on it") == 0;
    dup_type += strstr(m, "device type 25") != NULL && strstr(m, "already served by backend 'rtmore'") != NULL &&
                strstr(m, plugin("rtmore")) == m;
    bad_name += strstr(m, "backend name 'Bad' does not match") != NULL;
  }
  assert_int_equal(gave_up, 1);
  assert_int_equal(dup_type, 1);
  assert_int_equal(bad_name, 1);
}

/* ABI 1.6: without the options window a plugin is configured at load and takes no
 * value; with it, its more_backends waits for the close, the values reach set_option
 * in order (its refusals as it raised them, a second value of a one-value option and
 * an undeclared name refused by the runtime), and the backends they name appear at
 * the close; an option name another plugin declares refuses that plugin. */
static void test_options_channel(void** state) {
  (void)state;
  assert_int_equal(dh_plugin_load(plugin("rtopts"), NULL), 0);
  assert_int_equal(dh_backend_option_count(), 2);
  const dh_backend_t* owner = NULL;
  assert_string_equal(dh_backend_option_at(1, &owner)->name, "rt-lib");
  assert_string_equal(owner->name, "rtopts");
  assert_int_equal(dh_backend_option_at(0, NULL)->flags, DH_BACKEND_OPTION_UNLISTED); /* accepted, listed too */
  assert_null(dh_backend_option_at(2, &owner));
  assert_null(owner);
  assert_int_equal(dh_backend_option_set("rt-lib", "a"), -1);
  assert_string_equal(dh_error_kind(), "RuntimeError");
  assert_contains(dh_error_message(), "backend 'rtopts' is configured already");
  dh_plugins_unload_all();

  dh_backend_options_open();
  assert_int_equal(dh_plugin_load(plugin("rtopts"), NULL), 0);
  assert_int_equal(dh_backend_option_set("rt-lib", "a"), 0);
  assert_int_equal(dh_backend_option_set("rt-lib", "b"), 0);
  assert_int_equal(dh_backend_option_set("rt-mode", "medium"), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_string_equal(dh_error_message(), "expected fast or slow");
  assert_int_equal(dh_backend_option_set("rt-mode", "fast"), 0);
  assert_int_equal(dh_backend_option_set("rt-mode", "slow"), -1);
  assert_string_equal(dh_error_message(), "given twice, it takes one value");
  assert_int_equal(dh_backend_option_set("rt-nope", "x"), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_int_equal(dh_backend_option_set(NULL, "x"), -1);
  assert_int_equal(dh_device_api_get("rtopts-a", NULL), -1); /* held back until the close */
  assert_int_equal(dh_plugin_load(plugin("rtoptsdup"), NULL), -1);
  assert_contains(dh_error_message(), "option --rt-mode is already declared by backend 'rtopts'");
  dh_backend_options_close();
  const dh_backend_t* a = NULL;
  assert_int_equal(dh_device_api_get("rtopts-a", &a), 0);
  assert_int_equal(a->device_type, 29);
  assert_int_equal(a->num_options, 0); /* a further struct's options are not its own */
  assert_int_equal(dh_device_api_get("rtopts-b", NULL), 0);
  assert_int_equal(dh_backend_option_count(), 2);
  assert_int_equal(dh_backend_option_set("rt-lib", "c"), -1);
  assert_string_equal(dh_error_kind(), "RuntimeError");
}

/* An accepted plugin stays mapped after dh_plugins_unload_all (the vendor stacks under
 * a real plugin keep threads running in it); a refused one is unmapped; loading the
 * accepted file again works and initialises it again. */
static void test_unload_keeps_accepted_plugins_mapped(void** state) {
  (void)state;
  char good[PATH_MAX], refused[PATH_MAX];
  snprintf(good, sizeof good, "%s", plugin("rtgood"));
  snprintf(refused, sizeof refused, "%s", plugin("rtbadmajor"));
  const dh_backend_t* b = NULL;
  assert_int_equal(dh_plugin_load(good, &b), 0);
  assert_int_equal(dh_backend_init(b), 0);
  assert_int_equal(dh_plugin_load(refused, NULL), -1);
  void* h = dlopen(refused, RTLD_NOW | RTLD_NOLOAD);
  if (h != NULL) fail_msg("refused plugin %s is still mapped", refused);
  int calls = call_int("rtgood.init_calls");
  dh_plugins_unload_all();
  h = dlopen(good, RTLD_NOW | RTLD_NOLOAD);
  if (h == NULL) fail_msg("accepted plugin %s was unmapped by dh_plugins_unload_all", good);
  dlclose(h);
  assert_int_equal(dh_plugin_load(good, &b), 0);
  assert_int_equal(dh_backend_init(b), 0);
  assert_int_equal(call_int("rtgood.init_calls"), calls + 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_refusals_name_file_and_reason, teardown),
      cmocka_unit_test_teardown(test_dlopen_failure, teardown),
      cmocka_unit_test_teardown(test_good_plugin_registers, teardown),
      cmocka_unit_test_teardown(test_newer_and_older_minor, teardown),
      cmocka_unit_test_teardown(test_lazy_init_once, teardown),
      cmocka_unit_test_teardown(test_init_failure_is_remembered, teardown),
      cmocka_unit_test_teardown(test_device_api_get_not_enabled, teardown),
      cmocka_unit_test_teardown(test_plugin_path_discovery, teardown),
      cmocka_unit_test_teardown(test_unload_keeps_accepted_plugins_mapped, teardown),
      cmocka_unit_test_teardown(test_more_backends, teardown),
      cmocka_unit_test_teardown(test_options_channel, teardown),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
