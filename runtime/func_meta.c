/*
 * runtime/func_meta.c — tvm-ffi metadata of the backends' module functions (read back
 * as signatures by type_schema.c).
 *
 * Every module function backend.h documents ("noop", "fill", ...) is registered as
 * "<backend>.<name>" with the metadata tvm-ffi's export macros write for a C++ typed
 * function (apache-tvm-ffi 0.1.15 include/tvm/ffi/function.h,
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC with TVM_FFI_DLL_EXPORT_INCLUDE_METADATA=1, and
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC): {"type_schema": "<schema JSON as a string>"} and
 * a docstring, the schema in tvm-ffi's form (function_detail.h FunctionInfo::TypeSchema,
 * type keys of type_traits.h StaticTypeKey). A function backend.h does not document is
 * registered without metadata. Variadic tails (echo's, launch's) cannot be written in
 * a schema; the docstring says so.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "devharness/backend.h"
#include "devharness/error.h"
#include "internal.h"

#define T(k) "{\"type\":\"" k "\"}"
#define SCHEMA(ret, params) "{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[" ret "],\"params\":[" params "]}}"

static const struct {
  const char* name;
  const char* schema;
  const char* doc;
} g_meta[] = {
    {DH_FUNC_NOOP, SCHEMA(T("None"), T("Device")),
     "Enqueue an empty kernel on the current stream of dev; returns without waiting."},
    {DH_FUNC_FILL, SCHEMA(T("None"), T("DLTensor*") "," T("int")),
     "Write (uint32_t)value to every 4-byte word of dst (contiguous; byte_offset and size multiples of 4) "
     "on the current stream of dst's device; returns without waiting."},
    {DH_FUNC_ECHO, SCHEMA(T("Any"), T("int") "," T("Any")),
     "echo(index, *values): an owned copy of values[index] (any number of values)."},
    {DH_FUNC_RAISE, SCHEMA(T("None"), T("ffi.String") "," T("ffi.String")),
     "raise(kind, message): raise an error of exactly that kind and message."},
    {DH_FUNC_TRAP, SCHEMA(T("None"), T("Device")),
     "Enqueue a kernel that fails on the device; the next sync of that stream reports it."},
    {DH_FUNC_MEMORY_PEAK_BANDWIDTH, SCHEMA(T("float"), T("Device")),
     "Peak bandwidth of the device memory in bytes/s (reads and writes together)."},
    {DH_FUNC_PCI_BUS_ID, SCHEMA(T("ffi.String"), T("Device")),
     "The device's PCI function \"dddd:bb:dd.f\" (\"\" when its memory is host memory)."},
    {DH_FUNC_PEER_ACCESS, SCHEMA(T("ffi.String"), T("Device") "," T("int")),
     "peer_access(dev, peer_device_id): whether dev addresses the peer's memory directly, in words."},
    {DH_FUNC_LAUNCH, SCHEMA(T("None"), T("void*") "," T("void*") "," T("DLTensor*")),
     "launch(kernel, ctx, *tensors): queue kernel(ctx, ptrs, n) on the environment stream of the tensors' "
     "device (1..8 tensors)."},
    {DH_FUNC_KERNEL_LOG, SCHEMA(T("Any"), T("Device") "," T("int")),
     "kernel_log(dev, i): i < 0: kernels launched on dev; else the stream launch i was queued on."},
};

int dh__func_meta(const char* fn_name, char** out_metadata, const char** out_doc) {
  *out_metadata = NULL;
  *out_doc = NULL;
  for (size_t i = 0; i < sizeof g_meta / sizeof g_meta[0]; i++) {
    if (strcmp(g_meta[i].name, fn_name) != 0) continue;
    json_t* o = json_pack("{s:s}", "type_schema", g_meta[i].schema);
    *out_metadata = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (*out_metadata == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "metadata of %s: out of memory", fn_name);
    *out_doc = g_meta[i].doc;
    return 0;
  }
  return 0;
}
