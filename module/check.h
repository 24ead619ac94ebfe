/*
 * module/check.h — `devharness module check LIB.so`: a tvm-ffi kernel library checked
 * from its own type signatures (docs/kernel-libraries.md; module/README.md has the file
 * map). Private to the room; the command's entry is dh_module_main.
 *
 * Shapes: a library exports functions `__tvm_ffi_<name>` (tvm-ffi's library module
 * convention), optionally `__tvm_ffi__metadata_<name>` ({"type_schema": "..."}) and
 * `__tvm_ffi__doc_<name>`. Each function has at most DM_MAX_PARAMS parameters.
 * Not thread-safe: the command's main thread, and the forked case children.
 */
#ifndef DEVHARNESS_MODULE_CHECK_H_
#define DEVHARNESS_MODULE_CHECK_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "devharness/devharness.h"
#include "suite/suite.h"

#define DM_MAX_PARAMS 16
#define DM_MAX_FUNCS 256
#define DM_MAX_NDIM 8 /* = DH_FUNC_SIG_MAX_NDIM */

/* What a parameter of a type schema is, for generating its arguments. */
typedef enum dm_kind {
  DM_TENSOR,     /* "DLTensor*" (a TensorView takes it too) */
  DM_TENSOR_OBJ, /* "ffi.Tensor": a tvm-ffi Tensor object over the same DLTensor
                    (TVMFFITensorFromDLPack) */
  DM_INT,        /* "int" */
  DM_FLOAT,      /* "float" */
  DM_BOOL,       /* "bool" */
  DM_DEVICE,     /* "Device" */
  DM_DTYPE,      /* "DataType" */
  DM_STR,        /* "ffi.String", "const char*" */
  DM_OTHER       /* anything else: no argument can be generated */
} dm_kind_t;

/* One exported function: its name, and what its metadata says. */
typedef struct dm_func {
  char name[128];
  int has_schema;                 /* metadata with a type schema */
  char signature[512];            /* "(DLTensor*, float) -> None", or "" */
  char other[64];                 /* the first parameter type no argument is made for */
  int nparams;                    /* from the schema, -1 without */
  dm_kind_t kinds[DM_MAX_PARAMS];
  /* Without a schema, TVM's printed signature (the function's own refusal of a call
   * without arguments, dh_func_signature_probe, or --signature): has_sig 1, signature
   * its text, nparams and kinds set, and each parameter's shape and dtype. */
  int has_sig;
  char sig_name[128];                        /* the name it prints: an alias's target (TVM's
                                                `main` names its module's function) */
  int alias;                                 /* 1: sig_name is another exported function,
                                                whose cases stand for this one's (main.c) */
  int ndim[DM_MAX_PARAMS];                   /* a tensor's dimensions */
  int64_t dims[DM_MAX_PARAMS][DM_MAX_NDIM];  /* static extents; -1 symbolic (the size tried) */
  DLDataType dtypes[DM_MAX_PARAMS];          /* tensors' element and scalars' types */
} dm_func_t;

/* symbols.c: f's parameters from a parsed TVM signature (has_sig 1). -1 with a
 * ValueError when it has more than DM_MAX_PARAMS parameters. */
int dm_func_from_signature(const dh_func_signature_t* sg, dm_func_t* f);

/* symbols.c: in this process, asks each function without a schema for its signature
 * (dh_func_signature_probe: a call with no arguments; run in a child by main.c). */
int dm_probe_signatures(const char* path, dm_func_t* funcs, size_t n);

/* symbols.c: the functions LIB exports (ELF .dynsym: defined `__tvm_ffi_<name>`,
 * `__tvm_ffi__*` left out), sorted; at most cap. -1 with the error set when the file
 * is not a readable ELF64 shared object. */
int dm_list_exports(const char* path, dm_func_t* out, size_t cap, size_t* count);

/* symbols.c: in this process, loads LIB (dh_module_load) and fills each function's
 * schema from `__tvm_ffi__metadata_<name>` (none: has_schema 0, nparams -1). 0, or -1
 * with the error (the library does not load). */
int dm_read_metadata(const char* path, dm_func_t* funcs, size_t n);

/* schema.c: parses a type schema (tvm-ffi 0.1.15 FunctionInfo::TypeSchema) into f. 0,
 * or -1 with a ValueError naming what is wrong. */
int dm_schema_parse(const char* type_schema, dm_func_t* f);

/* A case's answer, written by the child to its pipe: the verdict (DS_PASS, DS_FAIL or
 * DS_SKIP; suite/suite.h) and its message (a skip's reason). */
typedef struct dm_verdict {
  ds_verdict_t verdict;
  char message[1024];
  int unresolved; /* 1: no call was accepted (dm_call_open): module.call_valid fails,
                     the other cases of the function and device are skipped (main.c) */
} dm_verdict_t;

/* Where module.results takes its reference from (--reference, --reference-lib,
 * --reference-py; main.c). */
typedef enum dm_ref_kind { DM_REF_NONE, DM_REF_DEVICE, DM_REF_LIB, DM_REF_PY } dm_ref_kind_t;
typedef struct dm_reference {
  dm_ref_kind_t kind;
  DLDevice dev;           /* DEVICE and LIB: where the reference runs */
  const char* path;       /* LIB: the other library; PY: the NumPy file */
  int implied;            /* 1: the default (cpu:0 for a device that is not cpu) */
} dm_reference_t;

/* Tolerances of a comparison: |got - want| <= atol + rtol * |want| per element;
 * negative: the dtype's default (torch.testing.assert_close's; exact for integers). */
typedef struct dm_tolerance {
  double rtol, atol;
} dm_tolerance_t;

/* What a case is run on. */
typedef struct dm_target {
  const char* path;       /* the library */
  const dm_func_t* func;
  DLDevice dev;           /* the device under test */
  DLDevice alt;           /* another device for wrong_device; device_id -1 if none */
  dm_reference_t ref;     /* module.results' reference */
  uint64_t seed;          /* --seed: the inputs' generator */
  dm_tolerance_t tol;     /* --rtol/--atol, or the function's --tolerance */
  int nondeterministic;   /* --nondeterministic: module.deterministic skipped */
} dm_target_t;

/* cases.c: the case table. */
typedef struct dm_case {
  const char* name;       /* "module.call_valid" */
  const char* what;       /* one line: what it checks */
  int per_device;         /* 0: once per function (no device) */
  void (*run)(const dm_target_t* t, dm_verdict_t* v);
} dm_case_t;
const dm_case_t* dm_cases(size_t* count);

/* args.c: a set of arguments for one call, with the device memory behind them. */
typedef struct dm_args {
  dh_any_t v[DM_MAX_PARAMS + 1];
  int n;
  DLTensor t[DM_MAX_PARAMS];
  int64_t shape[DM_MAX_PARAMS][DM_MAX_NDIM];
  int64_t strides[DM_MAX_PARAMS][DM_MAX_NDIM];
  int64_t numel[DM_MAX_PARAMS];    /* elements of tensor i */
  int stride[DM_MAX_PARAMS];       /* the innermost stride (1, or 2 for a view) */
  size_t pad[DM_MAX_PARAMS];       /* bytes of its buffer before the elements (guard) */
  void* data[DM_MAX_PARAMS];       /* allocations (NULL if none) */
  DLDevice data_dev[DM_MAX_PARAMS];
  size_t data_bytes[DM_MAX_PARAMS];
  void* objs[DM_MAX_PARAMS];       /* tvm-ffi Tensor objects made for ffi.Tensor */
} dm_args_t;

/* How a call's tensors are made: dtype, the length of each, a stride for views. */
typedef struct dm_layout {
  DLDataType dtype;   /* without a signature; with one, each tensor's own */
  int pattern;        /* 0: all [size]; 1: the last tensor [1]; 2: all [1] (no signature) */
  int stride;         /* 1, or 2 for a strided view over a buffer of 2n + 8 elements */
  int odd_tensor;     /* index of a tensor on `alt`, or with `odd_dtype`; -1 none */
  DLDevice alt;       /* used when alt.device_id >= 0 and alt.device_type != 0 */
  DLDataType odd_dtype;
  int sized;          /* 1: symbolic dimensions (and pattern 0's) are `size`; 0: 64 */
  int64_t size;
  size_t pad;         /* guard bytes before and after each tensor's elements */
  int pad_as_offset;  /* 1: the elements start at byte_offset pad of the allocation;
                         0: at data + pad (host-addressable handles only) */
} dm_layout_t;

/* A scalar argument's value: ival for Int and Bool parameters, fval for Float. */
typedef struct dm_scalar {
  int64_t ival;
  double fval;
} dm_scalar_t;

/* args.c: how many of f's parameters are tensors (DLTensor* or ffi.Tensor). */
int dm_count_tensors(const dm_func_t* f);
/* args.c: builds the arguments of f for layout l on dev (tensors filled with
 * DM_CANARY bytes, scalars from sc). 0, or -1 with the error (allocation or copy
 * failed, a parameter no argument can be made for). dm_args_free frees everything
 * (also after a failure). */
int dm_args_make(const dm_func_t* f, DLDevice dev, const dm_layout_t* l, dm_scalar_t sc, dm_args_t* a);
void dm_args_free(dm_args_t* a);
/* args.c: reads back the whole buffer of tensor i into host memory (malloc'd *out,
 * data_bytes[i] bytes); dm_args_write writes it from buf. */
int dm_args_read(const dm_args_t* a, int i, uint8_t** out);
int dm_args_write(const dm_args_t* a, int i, const uint8_t* buf);
/* args.c: bytes per element of tensor i, and the byte span of its elements in its
 * buffer (from pad[i]). */
size_t dm_args_esize(const dm_args_t* a, int i);
size_t dm_args_span(const dm_args_t* a, int i);
/* args.c: the layouts call_valid tries, in order; *count of them. */
const dm_layout_t* dm_layouts(size_t* count);
/* args.c: the byte every generated buffer is filled with. */
#define DM_CANARY 0xA5

/* call.c: a function of the library, found by name, and what was resolved for
 * calling it (the schema's or signature's kinds, or inferred ones, with the first
 * layout a call returned for). */
typedef struct dm_call {
  dh_module_t* mod;
  dh_function_t fn;
  dm_func_t f;
  dm_layout_t layout;
  char inferred[160]; /* "" with a schema or signature; else "no type schema; inferred (...)" */
} dm_call_t;
/* Loads the library and resolves the function; -1 with the verdict set (DS_FAIL, or
 * DS_SKIP when no layout is known and none was found: what to give). */
int dm_call_open(const dm_target_t* t, dm_call_t* c, dm_verdict_t* v);
/* One call with arguments of layout l (scalars from sc): 0 returned and the device
 * settled, -1 raised, -2 the arguments could not be made. */
int dm_call_try(dm_call_t* c, DLDevice dev, const dm_layout_t* l, dm_scalar_t sc);
/* Waits for dev's default stream and its environment stream. */
int dm_settle(DLDevice dev);
void dm_verdict(dm_verdict_t* v, ds_verdict_t code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
/* "Kind: message" of the raised error into buf ("(none)" when nothing is raised). */
const char* dm_error_text(char* buf, size_t size);

/* results.c: the cases that look at what a function computes (docs/kernel-libraries.md
 * "What the results cases check"). */
void dm_case_results(const dm_target_t* t, dm_verdict_t* v);
void dm_case_edge_values(const dm_target_t* t, dm_verdict_t* v);
void dm_case_writes(const dm_target_t* t, dm_verdict_t* v);
void dm_case_bounds(const dm_target_t* t, dm_verdict_t* v);
void dm_case_deterministic(const dm_target_t* t, dm_verdict_t* v);
void dm_case_byte_offset(const dm_target_t* t, dm_verdict_t* v);
void dm_case_float_width(const dm_target_t* t, dm_verdict_t* v);

/* reference.c: the reference's tensors after the same call: *out[i] (malloc'd,
 * data_bytes of tensor i of a) for every tensor, from the inputs in[i] (the whole
 * buffers as given to the checked call). 0; -1 with the error naming the reference
 * (its file and function) when it cannot be run, lacks the function or raises. */
int dm_reference_run(const dm_target_t* t, const dm_call_t* c, const dm_layout_t* l, const dm_args_t* a,
                     uint8_t* const* in, uint8_t** out);

#endif /* DEVHARNESS_MODULE_CHECK_H_ */
