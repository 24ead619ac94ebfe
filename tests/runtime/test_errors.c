/*
 * tests/runtime/test_errors.c — the thread-local error model (error.h), packed calls
 * and the global registry (function.h).
 */
#include "rt_test.h"

#include <pthread.h>

#include "devharness/error.h"
#include "devharness/function.h"

/*---------------------------------------------------------------- errors */

typedef struct {
  const char* kind;
  const char* message;
  pthread_barrier_t* barrier;
  char got_kind[64], got_message[256];
  int had_error;
} thread_arg_t;

static void* error_thread(void* p) {
  thread_arg_t* a = p;
  if (a->kind != NULL) dh_error_set(a->kind, "%s", a->message);
  pthread_barrier_wait(a->barrier); /* every thread has set (or not) its error */
  pthread_barrier_wait(a->barrier);
  a->had_error = dh_error_kind() != NULL;
  snprintf(a->got_kind, sizeof a->got_kind, "%s", dh_error_kind() ? dh_error_kind() : "(none)");
  snprintf(a->got_message, sizeof a->got_message, "%s", dh_error_message());
  return NULL;
}

static void test_errors_are_per_thread(void** state) {
  (void)state;
  pthread_barrier_t b;
  pthread_barrier_init(&b, NULL, 4);
  thread_arg_t args[3] = {{"ValueError", "first thread", &b, "", "", 0},
                          {"KeyError", "second thread", &b, "", "", 0},
                          {NULL, NULL, &b, "", "", 0}};
  pthread_t th[3];
  dh_error_set("IOError", "main thread");
  for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, error_thread, &args[i]);
  pthread_barrier_wait(&b);
  pthread_barrier_wait(&b);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&b);
  assert_string_equal(args[0].got_kind, "ValueError");
  assert_string_equal(args[0].got_message, "first thread");
  assert_string_equal(args[1].got_kind, "KeyError");
  assert_string_equal(args[1].got_message, "second thread");
  assert_false(args[2].had_error);
  assert_string_equal(args[2].got_message, "");
  assert_string_equal(dh_error_kind(), "IOError");
  assert_string_equal(dh_error_message(), "main thread");
}

static void test_error_set_clear_prefix(void** state) {
  (void)state;
  dh_error_clear();
  assert_null(dh_error_kind());
  assert_string_equal(dh_error_message(), "");
  assert_int_equal(dh_error_set("ValueError", "size %d is odd", 3), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_string_equal(dh_error_message(), "size 3 is odd");
  assert_int_equal(dh_error_prefix("sim:%d: %s", 0, "copy_data_from_to"), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_string_equal(dh_error_message(), "sim:0: copy_data_from_to: size 3 is odd");
  /* NULL kind means RuntimeError; a message may quote the previous one */
  dh_error_set(NULL, "again: %s", dh_error_message());
  assert_string_equal(dh_error_kind(), "RuntimeError");
  assert_string_equal(dh_error_message(), "again: sim:0: copy_data_from_to: size 3 is odd");
  /* re-raising with the stored kind and message as arguments */
  dh_error_set("KeyError", "inner");
  dh_error_set(dh_error_kind(), "outer: %s", dh_error_message());
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(), "outer: inner");
  dh_error_prefix("%s", dh_error_message());
  assert_string_equal(dh_error_message(), "outer: inner: outer: inner");
  dh_error_clear();
  assert_int_equal(dh_error_prefix("context"), -1);
  assert_string_equal(dh_error_kind(), "InternalError");
  assert_string_equal(dh_error_message(), "context");
  dh_error_clear();
}

static void test_error_truncation(void** state) {
  (void)state;
  static char big[3 * DH_ERROR_MESSAGE_MAX];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  dh_error_set("ValueError", "%s", big);
  assert_int_equal(strlen(dh_error_message()), DH_ERROR_MESSAGE_MAX - 1);
  dh_error_prefix("p");
  assert_int_equal(strlen(dh_error_message()), DH_ERROR_MESSAGE_MAX - 1);
  assert_true(strncmp(dh_error_message(), "p: xxx", 6) == 0);
  memset(big, 'K', 200);
  big[200] = '\0';
  dh_error_set(big, "m");
  assert_int_equal(strlen(dh_error_kind()), DH_ERROR_KIND_MAX - 1);
  assert_string_equal(dh_error_message(), "m");
  dh_error_clear();
}

/*---------------------------------------------------------------- packed calls */

static int fn_add(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n != 2) return dh_error_set("TypeError", "add: expected 2 arguments, got %d", (int)n);
  *rv = dh_any_int(args[0].v_int64 + args[1].v_int64 + (self ? *(int64_t*)self : 0));
  return 0;
}
static int fn_silent_fail(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)self, (void)args, (void)n, (void)rv;
  return -1;
}
static int fn_const(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  (void)args, (void)n;
  *rv = dh_any_int((int64_t)(intptr_t)self);
  return 0;
}

static void test_func_call(void** state) {
  (void)state;
  int64_t bias = 100;
  dh_function_t f;
  assert_int_equal(dh_func_create(fn_add, &bias, NULL, &f), 0);
  dh_any_t args[2] = {dh_any_int(2), dh_any_int(3)};
  dh_any_t rv = dh_any_str("stale");
  assert_int_equal(dh_func_call(&f, args, 2, &rv), 0);
  assert_int_equal(rv.type_index, DH_TYPE_INT);
  assert_int_equal(rv.v_int64, 105);
  rv = dh_any_str("stale");
  assert_int_equal(dh_func_call(&f, args, 1, &rv), -1);
  assert_int_equal(rv.type_index, DH_TYPE_NONE); /* result set to None first */
  assert_string_equal(dh_error_kind(), "TypeError");
  assert_string_equal(dh_error_message(), "add: expected 2 arguments, got 1");
  dh_func_release(&f);
  assert_null(f.handle);
  /* a callee that fails without raising: InternalError (the store is not cleared
   * before a call, as in tvm-ffi: clear it here) */
  dh_error_clear();
  dh_function_t g;
  assert_int_equal(dh_func_create(fn_silent_fail, NULL, NULL, &g), 0);
  assert_int_equal(dh_func_call(&g, NULL, 0, &rv), -1);
  assert_string_equal(dh_error_kind(), "InternalError");
  assert_string_equal(dh_error_message(), "function returned -1 without an error");
  dh_func_release(&g);
  dh_function_t bad = {NULL};
  assert_int_equal(dh_func_call(&bad, NULL, 0, &rv), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_int_equal(dh_func_call(NULL, NULL, 0, &rv), -1);
  assert_int_equal(dh_func_create(NULL, NULL, NULL, &bad), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
}

/* the deleter runs when the last reference goes */
static int g_deleted;
static void count_delete(void* self) { g_deleted += (int)(intptr_t)self; }

static void test_func_deleter(void** state) {
  (void)state;
  g_deleted = 0;
  dh_function_t f;
  assert_int_equal(dh_func_create(fn_const, (void*)7, count_delete, &f), 0);
  dh_any_t rv;
  assert_int_equal(dh_func_call(&f, NULL, 0, &rv), 0);
  assert_int_equal(rv.v_int64, 7);
  assert_int_equal(g_deleted, 0);
  dh_func_release(&f);
  assert_int_equal(g_deleted, 7);
  dh_func_release(&f); /* NULL handle: no-op */
  dh_func_release(NULL);
}

/*---------------------------------------------------------------- registry */

static int64_t call_const(const char* name) {
  dh_function_t f;
  if (dh_func_get(name, &f) != 0) return -1;
  dh_any_t rv;
  int rc = dh_func_call(&f, NULL, 0, &rv);
  dh_func_release(&f);
  return rc == 0 ? rv.v_int64 : -1;
}

static void test_registry_rules(void** state) {
  (void)state;
  dh_function_t f;
  assert_int_equal(dh_func_register("rtreg.b", fn_const, (void*)1, 0), 0);
  assert_int_equal(dh_func_register("rtreg.b", fn_const, (void*)2, 0), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(), "function rtreg.b is already registered");
  assert_int_equal(call_const("rtreg.b"), 1); /* not replaced */
  assert_int_equal(dh_func_register("rtreg.b", fn_const, (void*)2, 1), 0);
  assert_int_equal(call_const("rtreg.b"), 2); /* replaced */
  assert_int_equal(dh_func_get("rtreg.missing", &f), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_string_equal(dh_error_message(), "function rtreg.missing is not registered");
  assert_int_equal(dh_func_register("", fn_const, NULL, 0), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_int_equal(dh_func_register(NULL, fn_const, NULL, 0), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_int_equal(dh_func_register("rtreg.null", NULL, NULL, 0), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  /* the table is tvm-ffi's: its own functions are found by name too */
  assert_int_equal(dh_func_get("ffi.FunctionRemoveGlobal", &f), 0);
  assert_non_null(f.handle);
  dh_func_release(&f);
  assert_int_equal(dh_func_register("rtreg.ab", fn_const, (void*)3, 0), 0);
  assert_int_equal(dh_func_remove("rtreg.ab"), 0);
  assert_int_equal(dh_func_remove("rtreg.ab"), -1);
  assert_string_equal(dh_error_kind(), "KeyError");
  assert_int_equal(dh_func_get("rtreg.ab", &f), -1);
  dh_func_remove("rtreg.b");
}

enum { kThreads = 4, kNamesPerThread = 300 };

static void* registry_thread(void* p) {
  intptr_t t = (intptr_t)p;
  char name[64];
  intptr_t errors = 0;
  for (int i = 0; i < kNamesPerThread; i++) {
    snprintf(name, sizeof name, "rtmt.%d.%d", (int)t, i);
    int64_t want = t * 100000 + i + 1; /* never NULL: a NULL self is tvm-ffi's handle */
    if (dh_func_register(name, fn_const, (void*)(intptr_t)want, 0) != 0) errors++;
    /* look up own and another thread's names while they are being added */
    if (call_const(name) != want) errors++;
    snprintf(name, sizeof name, "rtmt.%d.%d", (int)((t + 1) % kThreads), i / 2);
    dh_function_t g;
    if (dh_func_get(name, &g) == 0) {
      dh_any_t rv;
      if (dh_func_call(&g, NULL, 0, &rv) != 0 || rv.v_int64 != ((t + 1) % kThreads) * 100000 + i / 2 + 1)
        errors++;
      dh_func_release(&g);
    }
  }
  return (void*)errors;
}

static void test_registry_threads(void** state) {
  (void)state;
  pthread_t th[kThreads];
  for (intptr_t t = 0; t < kThreads; t++) pthread_create(&th[t], NULL, registry_thread, (void*)t);
  for (int t = 0; t < kThreads; t++) {
    void* errors;
    pthread_join(th[t], &errors);
    assert_int_equal((intptr_t)errors, 0);
  }
  char name[64];
  for (int t = 0; t < kThreads; t++)
    for (int i = 0; i < kNamesPerThread; i++) {
      snprintf(name, sizeof name, "rtmt.%d.%d", t, i);
      assert_int_equal(call_const(name), t * 100000 + i + 1);
      assert_int_equal(dh_func_remove(name), 0);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors_are_per_thread), cmocka_unit_test(test_error_set_clear_prefix),
      cmocka_unit_test(test_error_truncation),      cmocka_unit_test(test_func_call),
      cmocka_unit_test(test_func_deleter),
      cmocka_unit_test(test_registry_rules),        cmocka_unit_test(test_registry_threads),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
