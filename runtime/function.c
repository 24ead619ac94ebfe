/*
 * runtime/function.c — devharness/function.h on tvm-ffi's function objects and global
 * table (apache-tvm-ffi 0.1.15 include/tvm/ffi/c_api.h: TVMFFIFunctionCreate,
 * TVMFFIFunctionCall, TVMFFIFunctionSetGlobal/GetGlobal; src/ffi/function.cc
 * "ffi.FunctionRemoveGlobal"). No table of our own is kept. One thing is added: tvm-ffi's
 * table is a plain Map without a lock (src/ffi/function.cc GlobalFunctionTable: Update,
 * Get and Remove are unsynchronised), so devharness's own registrations, lookups and
 * removals take a process-wide rwlock here (lookups share it). Registration by other
 * code (Python, TVM) while devharness threads look names up is not covered; it happens
 * at load time in practice.
 */
#include "devharness/function.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "devharness/error.h"
#include "internal.h"

_Static_assert(sizeof(dh_safe_call_t) == sizeof(TVMFFISafeCallType), "safe call type");

static pthread_rwlock_t g_table_lock = PTHREAD_RWLOCK_INITIALIZER;

int dh_func_create(dh_safe_call_t call, void* self, void (*deleter)(void* self),
                   dh_function_t* out) {
  if (out == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_create: out is NULL");
  out->handle = NULL;
  if (call == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_create: call is NULL");
  /* dh_safe_call_t and TVMFFISafeCallType differ only in dh_any_t vs TVMFFIAny,
   * which are the same struct (devharness/any.h). */
  TVMFFISafeCallType sc;
  memcpy(&sc, &call, sizeof sc);
  TVMFFIObjectHandle h = NULL;
  if (TVMFFIFunctionCreate(self, sc, deleter, &h) != 0) return -1;
  out->handle = h;
  return 0;
}

void dh_func_release(dh_function_t* fn) {
  if (fn == NULL || fn->handle == NULL) return;
  TVMFFIObjectDecRef(fn->handle);
  fn->handle = NULL;
}

int dh__func_call_failed(int rc) {
  if (!dh__error_peek()) dh_error_set(DH_KIND_INTERNAL_ERROR, "function returned %d without an error", rc);
  return -1;
}

int dh__func_call_bad_args(int32_t num_args, const dh_any_t* args) {
  return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_call: %d arguments but args is %s", (int)num_args,
                      args == NULL ? "NULL" : "set");
}

int dh_func_call(const dh_function_t* fn, const dh_any_t* args, int32_t num_args,
                 dh_any_t* out_result) {
  if (__builtin_expect(fn == NULL || fn->handle == NULL, 0)) {
    if (out_result != NULL) {
      out_result->type_index = DH_TYPE_NONE;
      out_result->zero_padding = 0;
      out_result->v_uint64 = 0;
    }
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_call: function is NULL");
  }
  return dh__func_call_fast(fn->handle, args, num_args, out_result);
}

static int name_check(const char* what, const char* name) {
  if (name == NULL || name[0] == '\0')
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: function name is %s", what, name == NULL ? "NULL" : "empty");
  return 0;
}

int dh_func_get(const char* name, dh_function_t* out_fn) {
  if (name == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_get: function name is NULL");
  TVMFFIByteArray n = {name, strlen(name)};
  TVMFFIObjectHandle h = NULL;
  pthread_rwlock_rdlock(&g_table_lock);
  int rc = TVMFFIFunctionGetGlobal(&n, &h);
  pthread_rwlock_unlock(&g_table_lock);
  if (rc != 0) return -1;
  if (h == NULL) return dh_error_set(DH_KIND_KEY_ERROR, "function %s is not registered", name);
  if (out_fn != NULL) out_fn->handle = h;
  else TVMFFIObjectDecRef(h);
  return 0;
}

int dh_func_register(const char* name, dh_safe_call_t call, void* self, int allow_override) {
  return dh_func_register_with_metadata(name, call, self, allow_override, NULL, NULL);
}

int dh_func_register_with_metadata(const char* name, dh_safe_call_t call, void* self, int allow_override,
                                   const char* metadata_json, const char* doc) {
  if (name_check("dh_func_register", name) != 0) return -1;
  if (call == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_register: function %s has a NULL call", name);
  TVMFFIByteArray n = {name, strlen(name)};
  dh_function_t f;
  if (dh_func_create(call, self, NULL, &f) != 0) return -1;
  /* what tvm-ffi's reflection GlobalDef registers: name, doc, metadata JSON, the
   * Function as an AnyView (ffi.GetGlobalFuncMetadata returns the metadata) */
  TVMFFIMethodInfo info;
  memset(&info, 0, sizeof info);
  info.name = n;
  info.doc = (TVMFFIByteArray){doc ? doc : "", doc ? strlen(doc) : 0};
  info.metadata = (TVMFFIByteArray){metadata_json ? metadata_json : "", metadata_json ? strlen(metadata_json) : 0};
  info.method.type_index = kTVMFFIFunction;
  info.method.v_obj = (TVMFFIObject*)f.handle;
  pthread_rwlock_wrlock(&g_table_lock);
  TVMFFIObjectHandle old = NULL;
  int rc = allow_override ? 0 : TVMFFIFunctionGetGlobal(&n, &old);
  if (rc == 0 && old == NULL)
    rc = metadata_json || doc ? TVMFFIFunctionSetGlobalFromMethodInfo(&info, allow_override)
                              : TVMFFIFunctionSetGlobal(&n, f.handle, allow_override);
  pthread_rwlock_unlock(&g_table_lock);
  dh_func_release(&f); /* the table holds its own reference */
  if (old != NULL) {
    TVMFFIObjectDecRef(old);
    return dh_error_set(DH_KIND_KEY_ERROR, "function %s is already registered", name);
  }
  return rc == 0 ? 0 : -1;
}

int dh_func_remove(const char* name) {
  if (name == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_remove: function name is NULL");
  dh_function_t rm;
  if (dh_func_get("ffi.FunctionRemoveGlobal", &rm) != 0)
    return dh_error_prefix("dh_func_remove(%s)", name);
  dh_any_t arg, rv;
  if (dh_any_string(name, strlen(name), &arg) != 0) {
    dh_func_release(&rm);
    return -1;
  }
  pthread_rwlock_wrlock(&g_table_lock);
  int rc = dh_func_call(&rm, &arg, 1, &rv);
  pthread_rwlock_unlock(&g_table_lock);
  dh_any_release(&arg);
  dh_func_release(&rm);
  if (rc != 0) return -1;
  if (rv.type_index == DH_TYPE_BOOL && rv.v_int64 == 0)
    return dh_error_set(DH_KIND_KEY_ERROR, "function %s is not registered", name);
  dh_any_release(&rv);
  return 0;
}

int dh_func_get_metadata(const char* name, char** out_json) {
  if (out_json == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_func_get_metadata: out_json is NULL");
  *out_json = NULL;
  if (name_check("dh_func_get_metadata", name) != 0) return -1;
  dh_function_t get;
  if (dh_func_get("ffi.GetGlobalFuncMetadata", &get) != 0) return -1;
  dh_any_t arg, rv = dh_any_none();
  if (dh_any_string(name, strlen(name), &arg) != 0) {
    dh_func_release(&get);
    return -1;
  }
  pthread_rwlock_rdlock(&g_table_lock);
  int rc = dh_func_call(&get, &arg, 1, &rv);
  pthread_rwlock_unlock(&g_table_lock);
  dh_any_release(&arg);
  dh_func_release(&get);
  dh_byte_array_t b;
  if (rc == 0 && dh_any_as_str(&rv, &b) == 0) {
    *out_json = malloc(b.size + 1);
    if (*out_json != NULL) memcpy(*out_json, b.data, b.size), (*out_json)[b.size] = '\0';
    else rc = dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "dh_func_get_metadata: out of memory");
  } else if (rc == 0) {
    rc = dh_error_set(DH_KIND_TYPE_ERROR, "dh_func_get_metadata(%s): ffi.GetGlobalFuncMetadata returned %s", name,
                      dh_type_index_name(rv.type_index));
  }
  dh_any_release(&rv);
  return rc;
}
