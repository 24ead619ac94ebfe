/*
 * runtime/target_internal.h — internal hooks of runtime/target*.c, exported from
 * libdevharness.so for tests only (not a public header; not installed).
 *
 * The live-device merge of TVM's from_device (apache/tvm v0.27.0 src/target/target.cc:
 * "from_device: N" fills options from the live device's attributes; options the user gave win) and
 * dh_target_detect both read option values through a getter. The public API uses the
 * device API manager (backend get_target_property); tests pass a fake getter here to
 * exercise the merge without any backend.
 */
#ifndef DEVHARNESS_RUNTIME_TARGET_INTERNAL_H_
#define DEVHARNESS_RUNTIME_TARGET_INTERNAL_H_

#include <dlpack/dlpack.h>

#include "devharness/any.h"
#include "devharness/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads the live value of target option `name` of device `dev` into *out_value
 * (None when the device cannot tell). Returns 0, or -1 with dh_error_set. Strings
 * must live until the getter's owner says otherwise (at least until the call to
 * dh_target_parse_json_with_getter returns). */
typedef int (*dh_target_getter_t)(void* ctx, DLDevice dev, const char* name,
                                  dh_any_t* out_value);

/* dh_target_parse_json, except that "from_device" reads live values through
 * getter(ctx, ...) instead of the device API. getter NULL = the device API.
 * Thread-safe; errors as dh_target_parse_json. */
__attribute__((visibility("default"))) int dh_target_parse_json_with_getter(
    const char* json_text, const char* origin, dh_target_getter_t getter, void* ctx,
    dh_target_t** out_target);

/* dh_target_detect with a getter and an explicit kind (no backend needed): a target
 * of kind `kind` holding every option getter reports for `dev`. */
__attribute__((visibility("default"))) int dh_target_detect_with_getter(
    const char* kind, DLDevice dev, dh_target_getter_t getter, void* ctx,
    dh_target_t** out_target);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_RUNTIME_TARGET_INTERNAL_H_ */
