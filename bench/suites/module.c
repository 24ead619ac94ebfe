/*
 * bench/suites/module.c — the module suite (`bench --suite module --module LIB.so`):
 * what a call of a tvm-ffi kernel library's function costs through tvm-ffi next to a
 * direct C call of the same symbol, per device (docs/kernel-libraries.md "Call
 * overhead"). For each function `__tvm_ffi_<name>` of LIB (dh_module_list_exports)
 * with a type schema (`__tvm_ffi__metadata_<name>`), or without one but reporting its
 * signature when called with no arguments (dh_func_signature_probe: TVM-compiled
 * functions, `tvm.compile(...).export_library`, `__tvm_ffi_main` included):
 *
 *   module/<name>/<spec>/harness  TVMFFIFunctionCall on the Function tvm-ffi's library
 *                                 module gives for <name> (dh_module_load +
 *                                 dh_module_get_function: `ffi.ModuleGetFunction`)
 *   module/<name>/<spec>/raw      the exported symbol `__tvm_ffi_<name>` (dlsym) called
 *                                 as a C function with the same arguments
 *
 * Arguments from the schema: DLTensor* (TensorView) -> float32 tensors of 64 elements on
 * the device (if the call refuses them, the last tensor of 1 element, as a reduction's
 * output), int/bool 1, float 1.0, Device the device. Each iteration is DH_MODULE_BATCH
 * calls, then a sync of the device's default stream (the work of both sides is the
 * same; time is per call, sync included). Arguments from a reported signature: each
 * Tensor([dims], dtype) a compact tensor of that dtype on the device, static dimensions
 * as given, symbolic ones 64 (DH_MODULE_N, the schema path's extent); each scalar 1 of
 * its dtype. The probe runs the function in this process: a function that does not
 * check its arity may crash the run (devharness/function.h). A function
 * with neither a schema nor a signature, or with a parameter of another type
 * (ffi.Tensor included: an object per call would be part of what is timed; a
 * signature's handle), is registered as a skipped benchmark saying why.
 */
#include <dlfcn.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/function.h"
#include "devharness/module.h"
#include "devharness/tensor.h"

#define DH_MODULE_BATCH 16
#define DH_MODULE_MAX_PARAMS 8
#define DH_MODULE_N 64

typedef struct module_ctx {
  DLDevice dev;
  int raw;                 /* direct C call of the symbol */
  dh_function_t fn;        /* the module's Function */
  TVMFFISafeCallType sym;  /* __tvm_ffi_<name> */
  dh_any_t args[DH_MODULE_MAX_PARAMS];
  int32_t nargs;
  DLTensor t[DH_MODULE_MAX_PARAMS];
  int64_t shape[DH_MODULE_MAX_PARAMS][DH_FUNC_SIG_MAX_NDIM], strides[DH_MODULE_MAX_PARAMS][DH_FUNC_SIG_MAX_NDIM];
  char why[512];
} module_ctx_t;

static dh_module_t* g_lib;
static void* g_dl;
/* Every tensor make_args allocated, freed by dh_bench_module_release at the end of the
 * run (the benchmarks' user data points at them until then). */
static struct { DLDevice dev; void* p; }* g_tensors;
static size_t g_ntensors, g_captensors;

static int keep_tensor(DLDevice dev, void* p) {
  if (g_ntensors == g_captensors) {
    size_t cap = g_captensors ? 2 * g_captensors : 16;
    void* n = realloc(g_tensors, cap * sizeof *g_tensors);
    if (n == NULL) return -1;
    g_tensors = n;
    g_captensors = cap;
  }
  g_tensors[g_ntensors].dev = dev;
  g_tensors[g_ntensors++].p = p;
  return 0;
}

void dh_bench_module_release(void) {
  for (size_t i = 0; i < g_ntensors; i++) dh_device_free_data_space(g_tensors[i].dev, g_tensors[i].p);
  free(g_tensors);
  g_tensors = NULL;
  g_ntensors = g_captensors = 0;
}

static int call_once(module_ctx_t* c, dh_any_t* rv) {
  *rv = dh_any_none();
  if (c->raw) return c->sym(NULL, (const TVMFFIAny*)c->args, c->nargs, (TVMFFIAny*)rv);
  return TVMFFIFunctionCall(c->fn.handle, (TVMFFIAny*)c->args, c->nargs, (TVMFFIAny*)rv);
}

static void bm_module(dh_gb_state_t* st, void* user) {
  module_ctx_t* c = user;
  if (c->why[0]) return dh_gb_skip_with_error(st, c->why);
  dh_any_t rv;
  int rc = 0;
  while (dh_gb_keep_running_batch(st, DH_MODULE_BATCH)) {
    for (int i = 0; i < DH_MODULE_BATCH; i++) {
      rc |= call_once(c, &rv);
      if (rv.type_index >= DH_TYPE_STATIC_OBJECT_BEGIN) dh_any_release(&rv);
    }
    if (c->dev.device_type != kDLCPU) rc |= dh_device_stream_sync(c->dev, NULL);
  }
  if (rc != 0) return dh_bench_skip_error(st, "call failed");
  dh_gb_set_items_processed(st, dh_gb_iterations(st));
  dh_gb_set_label(st, "time per call");
}

/* The parameter types of `name` from its metadata into kinds ('T' tensor, 'I' int, 'B'
 * bool, 'F' float, 'D' device): 0; 1 with why when there is no schema; -1 with why when
 * the schema is unusable or a type has no generated value. */
static int schema_kinds(const char* name, char* kinds, char* why, size_t why_size) {
  char key[200];
  dh_function_t mf;
  dh_any_t rv = dh_any_none();
  dh_byte_array_t b;
  snprintf(key, sizeof key, "_metadata_%s", name);
  if (dh_module_get_function(g_lib, key, &mf) != 0 || dh_func_call(&mf, NULL, 0, &rv) != 0 ||
      dh_any_as_str(&rv, &b) != 0) {
    dh_error_clear();
    return snprintf(why, why_size, "%s: no type schema", name), 1;
  }
  json_t* m = json_loadb(b.data, b.size, 0, NULL); /* the metadata; its type_schema is the runtime's to read */
  static dh_type_schema_t ts; /* 4 KiB; suites run on the command's main thread */
  int rc = dh_type_schema_parse(json_string_value(json_object_get(m, "type_schema")), &ts) == 0 && ts.nparams >= 0 &&
                   ts.nparams <= DH_MODULE_MAX_PARAMS ? 0 : -1;
  if (rc != 0) dh_error_clear(), snprintf(why, why_size, "%s: no usable type schema", name);
  for (int i = 0; rc == 0 && i < ts.nparams; i++) {
    const char* t = ts.params[i];
    kinds[i] = !strcmp(t, "DLTensor*") ? 'T' : !strcmp(t, "int") ? 'I'
               : !strcmp(t, "bool") ? 'B' : !strcmp(t, "float") ? 'F' : !strcmp(t, "Device") ? 'D' : 0;
    if (kinds[i] == 0) rc = -1, snprintf(why, why_size, "%s: parameter %d is %s (no value made for it)", name, i, t);
  }
  kinds[rc == 0 ? ts.nparams : 0] = '\0';
  json_decref(m);
  dh_any_release(&rv);
  dh_func_release(&mf);
  return rc;
}

/* For a function without a type schema: the signature it reports (probed with a call
 * of no arguments), 0 when every parameter can be given a value; -1 with why. */
static int signature_of(const dh_function_t* fn, const char* name, dh_func_signature_t* sig, char* why,
                        size_t why_size) {
  if (dh_func_signature_probe(fn, sig) != 0)
    return snprintf(why, why_size, "%s: no type schema, no signature: %s", name, dh_error_message()), -1;
  if (sig->nparams > DH_MODULE_MAX_PARAMS)
    return snprintf(why, why_size, "%s: its signature has %d parameters (at most %d made)", name, sig->nparams,
                    DH_MODULE_MAX_PARAMS), -1;
  for (int i = 0; i < sig->nparams; i++)
    if (sig->params[i].kind == DH_FUNC_PARAM_OTHER)
      return snprintf(why, why_size, "%s: parameter %s of its signature is not a tensor or scalar (no value made for it)",
                      name, sig->params[i].name), -1;
  why[0] = '\0';
  return 0;
}

/* Zeroes tensor t of nbytes (a copy from zeroed host memory, then a sync): both sides of
 * a pair compute on the same values, not on what the allocator left (denormals or NaNs
 * there made one side's float work many times slower than the other's). */
static int zero_fill(const DLTensor* t, size_t nbytes) {
  void* z = calloc(1, nbytes);
  if (z == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory");
  DLTensor h = *t;
  h.data = z;
  h.device = (DLDevice){kDLCPU, 0};
  int rc = dh_device_copy_data_from_to(&h, t, NULL);
  if (rc == 0 && t->device.device_type != kDLCPU) rc = dh_device_stream_sync(t->device, NULL);
  free(z);
  return rc;
}

/* Argument i of c: a compact tensor of dtype dt and shape dims[ndim] allocated on c->dev,
 * zeroed, kept until dh_bench_module_release. */
static int tensor_arg(module_ctx_t* c, int32_t i, DLDataType dt, int ndim, const int64_t* dims) {
  int64_t numel = 1;
  size_t nbytes;
  void* p;
  for (int d = ndim - 1; d >= 0; d--) {
    c->shape[i][d] = dims[d];
    c->strides[i][d] = numel;
    if (dims[d] > 0 && numel > INT64_MAX / dims[d]) return dh_error_set(DH_KIND_VALUE_ERROR, "bench: tensor too large");
    numel *= dims[d];
  }
  if (dh_dtype_nbytes((uint64_t)numel, dt, &nbytes) != 0) return -1;
  if (dh_device_alloc_data_space(c->dev, nbytes ? nbytes : 1, 0, dt, &p) != 0) return -1;
  if (keep_tensor(c->dev, p) != 0) {
    dh_device_free_data_space(c->dev, p);
    return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory");
  }
  c->t[i] = (DLTensor){p, c->dev, ndim, dt, c->shape[i], c->strides[i], 0};
  c->args[i] = dh_any_tensor(&c->t[i]);
  return nbytes > 0 ? zero_fill(&c->t[i], nbytes) : 0;
}

/* Arguments of `kinds` on dev into c (tensors allocated there, kept until
 * dh_bench_module_release). `last1`: the last tensor has one element. */
static int make_args(module_ctx_t* c, const char* kinds, int last1) {
  int nt = 0, k = 0;
  for (const char* p = kinds; *p; p++) nt += *p == 'T';
  c->nargs = (int32_t)strlen(kinds);
  for (int32_t i = 0; i < c->nargs; i++) {
    DLDataType f32 = {kDLFloat, 32, 1};
    if (kinds[i] == 'T') {
      int64_t n = last1 && ++k == nt ? 1 : DH_MODULE_N;
      if (tensor_arg(c, i, f32, 1, &n) != 0) return -1;
    } else {
      c->args[i] = kinds[i] == 'I' ? dh_any_int(1) : kinds[i] == 'B' ? dh_any_bool(1)
                   : kinds[i] == 'F' ? dh_any_float(1.0) : dh_any_device(c->dev);
    }
  }
  return 0;
}

/* Arguments of a reported signature on dev into c: its tensors with their dtypes and
 * static dimensions, symbolic dimensions DH_MODULE_N; its scalars 1 of their dtype. */
static int make_sig_args(module_ctx_t* c, const dh_func_signature_t* sig) {
  c->nargs = sig->nparams;
  for (int32_t i = 0; i < c->nargs; i++) {
    const dh_func_param_t* p = &sig->params[i];
    int64_t dims[DH_FUNC_SIG_MAX_NDIM];
    for (int d = 0; d < p->ndim; d++) dims[d] = p->dims[d] < 0 ? DH_MODULE_N : p->dims[d];
    if (p->kind == DH_FUNC_PARAM_TENSOR) {
      if (tensor_arg(c, i, p->dtype, p->ndim, dims) != 0) return -1;
    } else {
      uint8_t code = p->dtype.code;
      c->args[i] = code == kDLInt || code == kDLUInt ? dh_any_int(1) : code == kDLBool ? dh_any_bool(1)
                   : dh_any_float(1.0);
    }
  }
  return 0;
}

/* Finds arguments `name` accepts on dev (a call through tvm-ffi returns 0), or says why
 * not in c->why: from sig when not NULL (one try), else from kinds (two tries). */
static void prepare(module_ctx_t* c, const char* name, const char* kinds, const dh_func_signature_t* sig) {
  dh_any_t rv;
  for (int last1 = 0; last1 < (sig != NULL ? 1 : 2); last1++) {
    if ((sig != NULL ? make_sig_args(c, sig) : make_args(c, kinds, last1)) != 0) {
      snprintf(c->why, sizeof c->why, "%s: arguments: %s", name, dh_bench_error_text());
      return;
    }
    if (call_once(c, &rv) == 0 && (c->dev.device_type == kDLCPU || dh_device_stream_sync(c->dev, NULL) == 0)) {
      if (rv.type_index >= DH_TYPE_STATIC_OBJECT_BEGIN) dh_any_release(&rv);
      c->why[0] = '\0';
      return;
    }
    snprintf(c->why, sizeof c->why, "%s refuses the generated arguments: %s", name, dh_bench_error_text());
  }
}

/* Registers the harness/raw pair of function `name` on device d. */
static int add_pair(const dh_bench_opts_t* o, const dh_bench_device_t* d, const char* name) {
  char kinds[DH_MODULE_MAX_PARAMS + 1], why[512] = "", sym[200], bname[256];
  static dh_func_signature_t sig; /* 23 KiB; suites run on the command's main thread */
  int use_sig = 0;
  dh_function_t fn = {NULL};
  TVMFFISafeCallType direct = NULL;
  snprintf(sym, sizeof sym, "%s%s", DH_MODULE_SYMBOL_PREFIX, name);
  void* addr = dlsym(g_dl, sym);
  memcpy(&direct, &addr, sizeof direct);
  if (dh_module_get_function(g_lib, name, &fn) != 0) snprintf(why, sizeof why, "%s: %s", name, dh_bench_error_text());
  else if (direct == NULL) snprintf(why, sizeof why, "dlsym(%s): %s", sym, dlerror());
  else if (schema_kinds(name, kinds, why, sizeof why) > 0) use_sig = signature_of(&fn, name, &sig, why, sizeof why) == 0;
  for (int raw = 0; raw < 2; raw++) {
    module_ctx_t* c = dh_bench_keep(sizeof *c);
    if (c == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "bench: out of memory");
    c->dev = d->dev;
    c->fn = fn;
    c->sym = direct;
    snprintf(c->why, sizeof c->why, "%s", why);
    if (!why[0]) prepare(c, name, kinds, use_sig ? &sig : NULL);
    c->raw = raw;
    snprintf(bname, sizeof bname, "module/%s/%s/%s", name, d->spec, raw ? "raw" : "harness");
    if (dh_bench_register(bname, bm_module, c, o, DH_GB_NS) == NULL) return -1;
  }
  return 0;
}

int dh_bench_suite_module(const dh_bench_opts_t* o) {
  if (o->module == NULL) return 0; /* the suite needs --module */
  char** names = NULL;
  size_t n = 0;
  if (g_lib == NULL && dh_module_load(o->module, &g_lib) != 0) return dh_error_prefix("--module %s", o->module);
  if (g_dl == NULL && (g_dl = dlopen(o->module, RTLD_LAZY | RTLD_NOLOAD)) == NULL)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "--module %s: dlopen: %s", o->module, dlerror());
  if (dh_module_list_exports(o->module, &names, &n) != 0) return dh_error_prefix("--module");
  int count = 0;
  for (size_t d = 0; d < o->num_devices; d++)
    for (size_t i = 0; i < n; i++) {
      if (add_pair(o, &o->devices[d], names[i]) != 0) return dh_module_free_names(names, n), -1;
      count += 2;
    }
  dh_module_free_names(names, n);
  dh_gb_add_context("devharness.module", o->module);
  return count;
}
