/* tests/runtime/test_type_schema.c — the one reader of tvm-ffi type schemas
 * (devharness/function.h dh_type_schema_parse, dh_type_schema_format; runtime/
 * type_schema.c): a function schema's parameter and return keys, a schema without
 * named_args (a type, not a function), nested types cut to their key, refusals (not
 * JSON, NULL, too many parameters), and the signature written from the same reading.
 * Schemas as tvm-ffi 0.1.15 writes them (FunctionInfo::TypeSchema). Prints TAP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "devharness/error.h"
#include "devharness/function.h"

static const char kAdd[] =
    "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"None\"}],\"params\":["
    "{\"type\":\"DLTensor*\"},{\"type\":\"int\"},{\"type\":\"Optional\",\"args\":[{\"type\":\"float\"}]}]}}";

static void test_function_schema(void** state) {
  (void)state;
  static dh_type_schema_t ts;
  assert_int_equal(dh_type_schema_parse(kAdd, &ts), 0);
  assert_int_equal(ts.nparams, 3);
  assert_string_equal(ts.params[0], "DLTensor*");
  assert_string_equal(ts.params[1], "int");
  assert_string_equal(ts.params[2], "Optional");
  assert_string_equal(ts.ret, "None");
  char sig[128];
  assert_int_equal(dh_type_schema_format(kAdd, sig, sizeof sig), 0);
  assert_string_equal(sig, "(DLTensor*, int, Optional[float]) -> None");
}

static void test_return_and_no_params(void** state) {
  (void)state;
  static dh_type_schema_t ts;
  assert_int_equal(dh_type_schema_parse("{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],"
                                        "\"params\":[]}}", &ts), 0);
  assert_int_equal(ts.nparams, 0);
  assert_string_equal(ts.ret, "int");
  /* a type, not a function: its own "args" are no parameters */
  assert_int_equal(dh_type_schema_parse("{\"type\":\"Optional\",\"args\":[{\"type\":\"int\"}]}", &ts), 0);
  assert_int_equal(ts.nparams, -1);
  assert_string_equal(ts.ret, "None");
}

static void test_refusals(void** state) {
  (void)state;
  static dh_type_schema_t ts;
  assert_int_equal(dh_type_schema_parse("{not json", &ts), -1);
  assert_string_equal(dh_error_kind(), "ValueError");
  assert_non_null(strstr(dh_error_message(), "not JSON"));
  assert_int_equal(dh_type_schema_parse(NULL, &ts), -1);
  assert_int_equal(dh_type_schema_parse(kAdd, NULL), -1);
  char many[8192] = "{\"type\":\"ffi.Function\",\"named_args\":{\"params\":[";
  for (int i = 0; i <= DH_TYPE_SCHEMA_MAX_PARAMS; i++) strcat(many, i ? ",{\"type\":\"int\"}" : "{\"type\":\"int\"}");
  strcat(many, "]}}");
  assert_int_equal(dh_type_schema_parse(many, &ts), -1);
  assert_non_null(strstr(dh_error_message(), "parameters"));
  dh_error_clear();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_function_schema),
      cmocka_unit_test(test_return_and_no_params),
      cmocka_unit_test(test_refusals),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
