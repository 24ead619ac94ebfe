/*
 * target/target_impl.h — what the files of the targets code share (private to
 * the target/ files; hidden symbols). TVM's target rules (apache/tvm v0.27.0
 * src/target/target.cc, target_kind.cc): a target is a JSON object with a kind; each
 * kind declares typed options with defaults; the common options kind, keys, tag,
 * device, model, libs, host, from_device exist for every kind.
 *
 * Files (one job each; calls run down this list, never up — tests/layering/call_graph.t):
 *   target_detect.c  dh_target_detect, dh_target_check_device: targets from and against
 *                    a live device
 *   target_parse.c   parsing and validation: tag presets, options, host, from_device,
 *                    defaults, keys; dh_target_parse_json/_file, _from_tag, _resolve
 *   target.c         the parsed target object: accessors, serialising (ours and TVM's)
 *   target_live.c    a device's live option values: its backend, the getter, any -> JSON
 *   target_tag.c     tags: names, the tags folder, dh_target_tag_list
 *   target_kind.c    the targets folder, option types and kinds (kind files, plugins'
 *                    target_kind_json), the registry; small helpers of the files above
 * (JSON files are read within limits by base/json_read.c.)
 *
 * Representation: a parsed target holds its kind (registry-owned, never freed) and
 * one jansson object with every option that has a value (given, from the tag, from
 * the device, or a default), normalised (ints given for floats become reals, keys
 * computed, host a normalised nested object, from_device consumed). Serialising is
 * json_dumps of that object; equality is json_equal. Immutable after parsing.
 */
#ifndef DEVHARNESS_TARGET_TARGET_IMPL_H_
#define DEVHARNESS_TARGET_TARGET_IMPL_H_

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "devharness/backend.h"
#include "devharness/target.h"
#include "base/json_read.h"
#include "base/text.h"

#define DH__HIDDEN __attribute__((visibility("hidden")))

#define DH_TARGET_MAX_HOST_DEPTH 8 /* host inside host ... */
#define DH_TARGET_MAX_TAG_DEPTH 8  /* tag file naming a tag ... */

/*--- option types and kinds (target_kind.c) ---*/

typedef enum opt_type {
  OPT_BOOL,
  OPT_INT,
  OPT_FLOAT,
  OPT_STR,
  OPT_ARRAY_STR,
  OPT_ARRAY_INT,
  OPT_TARGET
} opt_type_t;

typedef struct kind_opt {
  char* name;
  opt_type_t type;
  json_t* def; /* default, or NULL */
  int common;  /* one of the options every kind has */
  int not_tvm; /* "tvm": false: a devharness-only option, left out of the TVM form */
  int not_device; /* "device": false: not a property a device reports (performance data,
                   * floors): neither detected nor checked against the live device */
} kind_opt_t;

typedef struct dh_kind {
  char* name;
  char* tvm_kind; /* "tvm_kind": the TVM target kind this one exports as, or NULL */
  int32_t device_type;
  json_t* default_keys; /* array of strings */
  kind_opt_t* opts;     /* sorted by name */
  size_t num_opts;
} dh_kind_t;

struct dh_target {
  const dh_kind_t* kind;
  json_t* obj;      /* option name -> value */
  char** declared;  /* sorted */
  size_t num_declared;
  char** text_name; /* arrays / targets: their JSON text for dh_target_get */
  char** text;
  size_t num_text;
};

/* "bool", "int", ..., "target". */
DH__HIDDEN const char* dh__opt_type_name(opt_type_t t);
/* Validates v against type t; on success *out is a new reference to the normalised
 * value (int -> real for floats, int <-> bool as TVM converts). Nested targets are left
 * to the caller. On a mismatch returns -1 and writes what was wrong into why. */
DH__HIDDEN int dh__check_value(opt_type_t t, json_t* v, json_t** out, char* why, size_t why_size);
/* The kind named `name`, or NULL (no error set); loads the kind files and registers
 * loaded backends' kinds first. */
DH__HIDDEN const dh_kind_t* dh__lookup_kind(const char* name);
/* The option `name` of kind k, or NULL. */
DH__HIDDEN const kind_opt_t* dh__find_opt(const dh_kind_t* k, const char* name);
/* Appends the known kinds' names ("cpu, cuda, ..." or "(none)") to b. */
DH__HIDDEN void dh__known_kinds(dh_sbuf_t* b);
/* KeyError "<origin>: unknown option '<prefix><name>' for kind 'k'; known options: ...". */
DH__HIDDEN int dh__unknown_option(const char* origin, const char* prefix, const char* name,
                                  const dh_kind_t* k);

/*--- small helpers (target_kind.c) ---*/

/* OutOfMemoryError "targets: out of memory"; returns -1. */
DH__HIDDEN int dh__target_oom(void);
/* qsort comparison of two char* by strcmp. */
DH__HIDDEN int dh__cmp_str_ptr(const void* a, const void* b);

typedef struct str_list {
  char** v;
  size_t n, cap;
} str_list_t;
/* Appends a copy of s; -1 when out of memory. */
DH__HIDDEN int dh__sl_push(str_list_t* l, const char* s);
DH__HIDDEN void dh__sl_free(str_list_t* l);

/*--- tags (target_tag.c) ---*/

/* Path of tag's file into path; -1 when tag is not a valid tag name or has no file. */
DH__HIDDEN int dh__tag_path(const char* tag, char* path, size_t size);
/* KeyError "<where>: unknown tag '<tag>'; known tags: ...". */
DH__HIDDEN int dh__unknown_tag(const char* where, const char* tag);

/*--- live values (target_live.c) ---*/

/* The default getter: the backend's get_target_property (ctx: the dh_backend_t). */
DH__HIDDEN int dh__device_api_getter(void* ctx, DLDevice dev, const char* name, dh_any_t* out);
/* Resolves the backend of dev (loading the default plugins once if needed), checks it
 * serves `kind` (NULL: any) and that dev exists; inits it. */
DH__HIDDEN int dh__backend_for(const dh_kind_t* kind, DLDevice dev, const dh_backend_t** out);
/* A live value as JSON of option type t. 0 ok (*out new ref), 1 None, -1 mismatch (why
 * filled, no error set). */
DH__HIDDEN int dh__any_to_json(opt_type_t t, const dh_any_t* v, json_t** out, char* why, size_t size);

/*--- the target object (target.c) ---*/

/* Builds the dh_target_t around a normalised object (steals obj, takes declared's
 * strings). */
DH__HIDDEN int dh__target_make(const dh_kind_t* k, json_t* obj, str_list_t* declared, dh_target_t** out);

/*--- parsing (target_parse.c) ---*/

/* Parses an already read root object (borrowed); getter NULL = the device API. */
DH__HIDDEN int dh__target_parse_root(json_t* root, const char* origin, dh_target_getter_t getter,
                                     void* gctx, dh_target_t** out);

#endif /* DEVHARNESS_TARGET_TARGET_IMPL_H_ */
