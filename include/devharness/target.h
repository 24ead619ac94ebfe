/*
 * devharness/target.h — targets: JSON descriptions of what a device should be.
 *
 * Follows TVM's target rules (apache/tvm v0.27.0 src/target/target.cc, src/target/target_kind.cc):
 * a target is a JSON object with a "kind"; each kind declares typed options with
 * optional defaults; every kind also has kind, keys, tag, device, model, libs, host,
 * from_device. Parsing: missing kind, unknown kind, unknown option (the error lists
 * the known options), wrong type (naming option, expected and got; the string "true"
 * is not a bool; an int is a bool and a bool an int, as TVM's ConfigSchema converts
 * them) are errors; defaults are filled; keys as TVM orders them: the given keys then
 * "device", or "device" then the kind's default keys, de-duplicated; "tag": "" is no
 * tag (TVM writes it); serialising gives JSON that parses back to the same target;
 * from_device N fills the options that are neither given nor defaulted from the live
 * device, as TVM does (defaults are applied first); from_device -1 is no device.
 *
 * Kinds are JSON files in <targets dir>/kinds/<kind>.json, or definitions handed in
 * by plugins (dh_backend_t.target_kind_json). Tags are presets in
 * <targets dir>/tags/<vendor>/<name>.json, named "<vendor>/<name>" ("nvidia/h100").
 * The targets dir is $DEVHARNESS_TARGETS_PATH, else <exe dir>/../../targets (build
 * tree), else <exe dir>/../share/devharness/targets (installed).
 *
 * Kind file format:
 *   {"kind": "opencl", "device_type": 4, "default_keys": ["opencl", "gpu"],
 *    "tvm_kind": "opencl",
 *    "options": {"max_num_threads": {"type": "int", "default": 256}, ...,
 *                "compute_units": {"type": "int", "tvm": false}}}
 * tvm_kind (optional): the TVM target kind this kind exports as (dh_target_to_tvm_json);
 * an option's "tvm": false marks a devharness-only property TVM's kind does not declare.
 * Option types: "bool", "int", "float", "str", "array<str>", "array<int>", "target".
 *
 * Limits: a target or kind file larger than 1 MiB is refused from its size before it is
 * parsed ("ValueError"), as are empty files, non-UTF-8 text, duplicate keys and host
 * JSON nested deeper than 64 levels or host targets nested deeper than 8.
 *
 * Errors: every parse error is ("ParseError" | "TypeError" | "KeyError" |
 * "ValueError") with a one-line message that starts with the origin (file path or
 * "<string>"), then line:column for JSON syntax errors, or the option name, then
 * expected and got, e.g.
 *   "t.json:3:14: JSON syntax error: ..."
 *   "t.json: option 'max_num_threads': expected int, got string \"1024\""
 *   "t.json: unknown option 'foo' for kind 'cuda'; known options: arch, device, ..."
 *
 * Thread-safety: the kind/tag registry is loaded once under a lock; parsed targets
 * are immutable and may be shared across threads.
 */
#ifndef DEVHARNESS_TARGET_H_
#define DEVHARNESS_TARGET_H_

#include <dlpack/dlpack.h>
#include <stddef.h>

#include "devharness/any.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===========================================================================
 * Types
 *===========================================================================*/

/* A parsed, validated target with defaults filled. Immutable; free with
 * dh_target_free. */
typedef struct dh_target dh_target_t;

/*===========================================================================
 * Registry of kinds and tags
 *===========================================================================*/

/* The targets folder in use (see file comment); NULL if none found. Static. */
const char* dh_targets_dir(void);

/* Loads kinds from <dir>/kinds (once; later calls are no-ops). Called implicitly by
 * every function below. Errors name the bad kind file. */
int dh_target_kinds_load(void);

/* Registers a kind from JSON text (plugins' target_kind_json). origin names it in
 * errors. A kind already known is an error ("KeyError"). */
int dh_target_kind_register_json(const char* json_text, const char* origin);

/* Visits every kind name (sorted); returns the count. */
size_t dh_target_kind_list(void (*visit)(const char* kind, void* user), void* user);

/* Visits every tag name "<vendor>/<name>" found under <dir>/tags (sorted). */
size_t dh_target_tag_list(void (*visit)(const char* tag, void* user), void* user);

/*===========================================================================
 * Parsing, serialising
 *===========================================================================*/

/* Parses and validates a target file. *out_target owned by the caller. */
int dh_target_parse_file(const char* path, dh_target_t** out_target);

/* Parses JSON text; `origin` (e.g. "<string>" or a path) prefixes error messages. */
int dh_target_parse_json(const char* json_text, const char* origin, dh_target_t** out_target);

/* Loads tag "vendor/name". Errors: "KeyError" listing the known tags. */
int dh_target_from_tag(const char* tag, dh_target_t** out_target);

/* A path when such a file exists, else a tag. */
int dh_target_resolve(const char* path_or_tag, dh_target_t** out_target);

/* Frees; NULL is a no-op. */
void dh_target_free(dh_target_t* target);

/* Serialises to JSON (keys sorted, indented when `pretty`), a malloc'd string the
 * caller frees. Parsing it back gives an equal target (dh_target_equal). NULL on
 * allocation failure (error stored). */
char* dh_target_to_json(const dh_target_t* target, int pretty);

/* Serialises in the form TVM's tvm.target.Target(...) accepts: the kind file's
 * "tvm_kind" as kind, "tag": "" (devharness tags are not TVM's), the keys, then every
 * option the target has except those the kind file marks "tvm": false (devharness-only
 * properties) and host; keys in TVM's ToConfig order (kind, tag, keys, options; apache/tvm
 * 5d4dc87 src/target/target.cc:151-164). malloc'd, the caller frees. NULL with "KeyError" when
 * the kind has no TVM counterpart (sim), or on allocation failure. */
char* dh_target_to_tvm_json(const dh_target_t* target, int pretty);

/* 1 when both have the same kind and the same option values, else 0. */
int dh_target_equal(const dh_target_t* a, const dh_target_t* b);

/* The target's kind name (owned by the target). */
const char* dh_target_kind_name(const dh_target_t* target);

/* The target kind's DLPack device type. */
int32_t dh_target_device_type(const dh_target_t* target);

/* Option value as an any: bool/int/float/str (RawStr owned by the target); arrays
 * and nested targets as RawStr holding their JSON (owned by the target). None when
 * the option is unset and has no default. Errors: "KeyError" for an option the kind
 * does not have. */
int dh_target_get(const dh_target_t* target, const char* option, dh_any_t* out_value);

/* Number of options that were given explicitly (in the JSON or by the tag), and the
 * i-th name in sorted order (owned by the target). These are the "declared"
 * properties that attr.target_match checks. */
size_t dh_target_declared_count(const dh_target_t* target);
const char* dh_target_declared_name(const dh_target_t* target, size_t i);

/*===========================================================================
 * Live devices
 *===========================================================================*/

/* Builds the target of a live device: the backend's target kind with every option
 * the backend reports through get_target_property (TVM from_device). Errors: the
 * backend has no target kind ("KeyError"), or its errors. */
int dh_target_detect(DLDevice dev, dh_target_t** out_target);

/* Compares every declared option (except kind, keys, tag, device, model, libs, host,
 * from_device) with the live value from the backend's get_target_property. For each
 * mismatch calls on_mismatch(option, expected_text, got_text, user). An option the
 * device does not report (None) is not a mismatch but is passed to on_unchecked
 * (may be NULL). Returns the number of mismatches (>= 0), or -1 with an error if the
 * device cannot be queried or the target's kind does not match the backend's. */
int dh_target_check_device(const dh_target_t* target, DLDevice dev,
                           void (*on_mismatch)(const char* option, const char* expected,
                                               const char* got, void* user),
                           void (*on_unchecked)(const char* option, void* user),
                           void* user);

/*===========================================================================
 * Live values from elsewhere (a getter)
 *===========================================================================
 * TVM's from_device merge ("from_device: N" fills options from the live device's
 * attributes, options the user gave win: apache/tvm v0.27.0 src/target/target.cc) and
 * dh_target_detect read option values through the device API manager (the backend's
 * get_target_property). These two take the values from a caller's getter instead: a
 * device that is not a loaded backend's, or a fake one in a test
 * (tests/target/test_target_parse.c). */

/* Reads the live value of target option `name` of device `dev` into *out_value (None
 * when the device cannot tell). Returns 0, or -1 with dh_error_set. Strings must live
 * at least until the call that was handed the getter returns. Called on the caller's
 * thread. */
typedef int (*dh_target_getter_t)(void* ctx, DLDevice dev, const char* name,
                                  dh_any_t* out_value);

/* dh_target_parse_json, except that "from_device" reads live values through
 * getter(ctx, ...) instead of the device API; getter NULL = the device API.
 * Thread-safe when the getter is; errors as dh_target_parse_json. */
int dh_target_parse_json_with_getter(const char* json_text, const char* origin,
                                     dh_target_getter_t getter, void* ctx,
                                     dh_target_t** out_target);

/* dh_target_detect with a getter and an explicit kind (no backend needed): a target of
 * kind `kind` holding every option getter reports for `dev`. Errors: "KeyError" for
 * an unknown kind, or the getter's. */
int dh_target_detect_with_getter(const char* kind, DLDevice dev, dh_target_getter_t getter,
                                 void* ctx, dh_target_t** out_target);

#ifdef __cplusplus
}
#endif
#endif /* DEVHARNESS_TARGET_H_ */
