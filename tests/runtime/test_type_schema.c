/* tests/runtime/test_type_schema.c — the one reader of tvm-ffi type schemas
 * (devharness/function.h dh_type_schema_parse, dh_type_schema_format; runtime/
 * type_schema.c): a function schema's parameter and return keys, a schema without
 * named_args (a type, not a function), nested types cut to their key, refusals (not
 * JSON, NULL, too many parameters), and the signature written from the same reading.
 * Schemas as tvm-ffi 0.1.15 writes them (FunctionInfo::TypeSchema). And TVM's printed
 * signatures (dh_func_signature_parse, runtime/func_signature.c), as apache-tvm 0.27's
 * generated argument checks word them: static, symbolic and 0-d shapes, scalars, a
 * type no argument is made for, the signature inside a whole error message, refusals.
 * Prints TAP. */
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

static void test_signature_tvm(void** state) {
  (void)state;
  static dh_func_signature_t sg;
  const char* msg = "Mismatched M.ndim on argument #" "0 when calling:\n"
                    "  `matmul(M: Tensor([16, 16], float32), N: Tensor([16, 16], float32), P: Tensor([16, 16], float32))`,\n"
                    "  expected 2";
  assert_int_equal(dh_func_signature_parse(msg, &sg), 0);
  assert_string_equal(sg.name, "matmul");
  assert_int_equal(sg.nparams, 3);
  assert_string_equal(sg.params[2].name, "P");
  assert_int_equal(sg.params[2].kind, DH_FUNC_PARAM_TENSOR);
  assert_int_equal(sg.params[2].ndim, 2);
  assert_int_equal(sg.params[2].dims[0], 16);
  assert_int_equal(sg.params[2].dims[1], 16);
  assert_int_equal(sg.params[2].dtype.code, kDLFloat);
  assert_int_equal(sg.params[2].dtype.bits, 32);
  assert_int_equal(dh_func_signature_parse("rsum(A: Tensor([n, m * 2], float16), alpha: float32, Z: Tensor([], int8), "
                                           "h: handle)", &sg), 0);
  assert_int_equal(sg.nparams, 4);
  assert_int_equal(sg.params[0].dims[0], -1);
  assert_string_equal(sg.params[0].sym[0], "n");
  assert_string_equal(sg.params[0].sym[1], "m * 2");
  assert_int_equal(sg.params[0].dtype.bits, 16);
  assert_int_equal(sg.params[1].kind, DH_FUNC_PARAM_SCALAR);
  assert_int_equal(sg.params[1].dtype.code, kDLFloat);
  assert_int_equal(sg.params[2].kind, DH_FUNC_PARAM_TENSOR);
  assert_int_equal(sg.params[2].ndim, 0);
  assert_int_equal(sg.params[3].kind, DH_FUNC_PARAM_OTHER);
  assert_int_equal(dh_func_signature_parse("f()", &sg), 0);
  assert_int_equal(sg.nparams, 0);
}

static void test_signature_refusals(void** state) {
  (void)state;
  static dh_func_signature_t sg;
  static const char* const bad[] = {"", "f", "f(A Tensor([n], float32))", "f(A: Tensor(n, float32))",
                                    "f(A: Tensor([n], notadtype))", "f(A: Tensor([1,2,3,4,5,6,7,8,9], int8))",
                                    "f(A: int32) extra", "f(A: int32"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (dh_func_signature_parse(bad[i], &sg) != -1) fail_msg("accepted '%s'", bad[i]);
    assert_string_equal(dh_error_kind(), "ValueError");
    assert_non_null(strstr(dh_error_message(), "signature"));
    dh_error_clear();
  }
  assert_int_equal(dh_func_signature_parse(NULL, &sg), -1);
  dh_error_clear();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_function_schema),
      cmocka_unit_test(test_return_and_no_params),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_signature_tvm),
      cmocka_unit_test(test_signature_refusals),
  };
  cmocka_set_message_output(CM_OUTPUT_TAP);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
