/*
 * module/args.c — arguments made from a type schema: tensors allocated on a device
 * through devharness (dh_device_alloc_data_space), passed as DLTensors with real
 * shapes, strides and dtypes; scalars as given. Calls schema.c's types only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <tvm/ffi/c_api.h>

#include "module/check.h"

#define DM_N 64 /* elements of a full-length tensor */

static const dm_layout_t kLayouts[] = {
    {.dtype = {kDLFloat, 32, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLFloat, 32, 1}, .pattern = 1, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLFloat, 32, 1}, .pattern = 2, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLInt, 32, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLInt, 32, 1}, .pattern = 1, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLFloat, 64, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLFloat, 64, 1}, .pattern = 1, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLInt, 64, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLFloat, 16, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
    {.dtype = {kDLUInt, 8, 1}, .pattern = 0, .stride = 1, .odd_tensor = -1},
};

const dm_layout_t* dm_layouts(size_t* count) {
  *count = sizeof kLayouts / sizeof kLayouts[0];
  return kLayouts;
}

/* Copies n bytes between host memory and the buffer (dev, handle), then waits. */
static int copy_bytes(DLDevice dev, void* handle, void* host, size_t n, int to_device) {
  DLTensor d, h;
  int64_t ds, hs;
  DLDevice cpu = {kDLCPU, 0};
  dh_tensor_init_bytes(&d, handle, dev, 0, n, &ds);
  dh_tensor_init_bytes(&h, host, cpu, 0, n, &hs);
  if (dh_device_copy_data_from_to(to_device ? &h : &d, to_device ? &d : &h, NULL) != 0) return -1;
  return dev.device_type == kDLCPU ? 0 : dh_device_stream_sync(dev, NULL);
}

/* Tensor i of a: dims[0..ndim) of dtype, the innermost `stride` apart (a view of
 * stride 2 over 2n + 8 elements), with l->pad guard bytes before and after the
 * elements, in a buffer of its own on dev filled with DM_CANARY. */
static int make_tensor(dm_args_t* a, int i, DLDevice dev, DLDataType dtype, int ndim, const int64_t* dims,
                       const dm_layout_t* l) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (dims[d] < 0 || (dims[d] > 0 && n > INT64_MAX / dims[d] / 4))
      return dh_error_set(DH_KIND_VALUE_ERROR, "tensor %d: dimension %d is %lld", i, d, (long long)dims[d]);
    n *= dims[d];
  }
  int stride = l->stride > 1 ? l->stride : 1;
  size_t elems = (size_t)(stride == 1 ? n : 2 * n + 8), bytes;
  if (dh_dtype_nbytes(elems, dtype, &bytes) != 0) return -1;
  bytes += 2 * l->pad;
  if (dh_device_alloc_data_space(dev, bytes ? bytes : 1, 0, dtype, &a->data[i]) != 0) return -1;
  a->data_dev[i] = dev;
  a->data_bytes[i] = bytes;
  uint8_t* host = malloc(bytes ? bytes : 1);
  if (host == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  memset(host, DM_CANARY, bytes);
  int rc = bytes ? copy_bytes(dev, a->data[i], host, bytes, 1) : 0;
  free(host);
  if (rc != 0) return -1;
  int64_t inner = stride;
  for (int d = ndim - 1; d >= 0; d--) a->shape[i][d] = dims[d], a->strides[i][d] = inner, inner *= dims[d];
  a->numel[i] = n;
  a->stride[i] = stride;
  a->pad[i] = l->pad;
  void* data = l->pad && !l->pad_as_offset ? (uint8_t*)a->data[i] + l->pad : a->data[i];
  a->t[i] = (DLTensor){data, dev, ndim, dtype, a->shape[i], a->strides[i],
                       l->pad_as_offset ? l->pad : 0};
  a->v[i] = dh_any_tensor(&a->t[i]);
  return 0;
}

/* An ffi.Tensor parameter: tensor i wrapped as a tvm-ffi Tensor object
 * (TVMFFITensorFromDLPack; the object's deleter frees only the DLManagedTensor, the
 * memory is freed by dm_args_free after the object is released). */
typedef struct managed {
  DLManagedTensor m;
  int64_t shape[DM_MAX_NDIM], strides[DM_MAX_NDIM];
} managed_t;

static void managed_free(DLManagedTensor* m) { free(m); }

static int wrap_tensor(dm_args_t* a, int i) {
  managed_t* m = calloc(1, sizeof *m);
  if (m == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  memcpy(m->shape, a->shape[i], sizeof m->shape);
  memcpy(m->strides, a->strides[i], sizeof m->strides);
  m->m.dl_tensor = a->t[i];
  m->m.dl_tensor.shape = m->shape;
  m->m.dl_tensor.strides = m->strides;
  m->m.manager_ctx = m;
  m->m.deleter = managed_free;
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPack(&m->m, 0, 0, &h) != 0) return free(m), -1;
  a->objs[i] = h;
  a->v[i].type_index = kTVMFFITensor;
  a->v[i].v_ptr = h;
  return 0;
}

/* Tensor parameter i's shape under l: the signature's (symbolic dimensions at the
 * size tried), else 1-D: [size] or [1] by pattern (k of ntensors). Its ndim. */
static int tensor_shape(const dm_func_t* f, const dm_layout_t* l, int i, int k, int ntensors, int64_t* dims) {
  int64_t size = l->sized ? l->size : DM_N;
  if (f->has_sig) {
    for (int d = 0; d < f->ndim[i]; d++) dims[d] = f->dims[i][d] >= 0 ? f->dims[i][d] : size;
    return f->ndim[i];
  }
  dims[0] = l->pattern == 2 || (l->pattern == 1 && k == ntensors - 1) ? 1 : size;
  return 1;
}

int dm_count_tensors(const dm_func_t* f) {
  int n = 0;
  for (int i = 0; i < f->nparams; i++) n += f->kinds[i] == DM_TENSOR || f->kinds[i] == DM_TENSOR_OBJ;
  return n;
}

int dm_args_make(const dm_func_t* f, DLDevice dev, const dm_layout_t* l, dm_scalar_t sc, dm_args_t* a) {
  memset(a, 0, sizeof *a);
  int ntensors = dm_count_tensors(f), k = 0;
  for (int i = 0; i < f->nparams; i++) {
    a->n = i + 1;
    switch (f->kinds[i]) {
      case DM_TENSOR:
      case DM_TENSOR_OBJ: {
        int odd = l->odd_tensor == k;
        DLDevice d = odd && l->alt.device_type != 0 && l->alt.device_id >= 0 ? l->alt : dev;
        DLDataType dt = odd && l->odd_dtype.bits ? l->odd_dtype : f->has_sig ? f->dtypes[i] : l->dtype;
        int64_t dims[DM_MAX_NDIM];
        int ndim = tensor_shape(f, l, i, k++, ntensors, dims);
        if (make_tensor(a, i, d, dt, ndim, dims, l) != 0) return -1;
        if (f->kinds[i] == DM_TENSOR_OBJ && wrap_tensor(a, i) != 0) return -1;
        break;
      }
      case DM_INT: a->v[i] = dh_any_int(f->has_sig && f->dtypes[i].code == kDLUInt && sc.ival < 0 ? 0 : sc.ival); break;
      case DM_FLOAT: a->v[i] = dh_any_float(sc.fval); break;
      case DM_BOOL: a->v[i] = dh_any_bool(sc.ival != 0); break;
      case DM_DEVICE: a->v[i] = dh_any_device(dev); break;
      case DM_DTYPE: a->v[i] = dh_any_dtype(l->dtype); break;
      case DM_STR: a->v[i] = dh_any_str("x"); break;
      default:
        return dh_error_set(DH_KIND_TYPE_ERROR, "parameter %d of %s is %s: no argument can be made for it", i,
                            f->name, f->other);
    }
  }
  return 0;
}

void dm_args_free(dm_args_t* a) {
  char kind[DH_ERROR_KIND_MAX], msg[DH_ERROR_MESSAGE_MAX];
  const char* k = dh_error_kind();
  if (k != NULL) snprintf(kind, sizeof kind, "%s", k), snprintf(msg, sizeof msg, "%s", dh_error_message());
  for (int i = 0; i < DM_MAX_PARAMS; i++) {
    if (a->objs[i] != NULL) TVMFFIObjectDecRef(a->objs[i]), a->objs[i] = NULL;
    if (a->data[i] != NULL) dh_device_free_data_space(a->data_dev[i], a->data[i]), a->data[i] = NULL;
  }
  dh_error_clear();
  if (k != NULL) dh_error_set(kind, "%s", msg); /* the caller's error stays raised */
}

int dm_args_read(const dm_args_t* a, int i, uint8_t** out) {
  *out = malloc(a->data_bytes[i] ? a->data_bytes[i] : 1);
  if (*out == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  if (a->data_bytes[i] && copy_bytes(a->data_dev[i], a->data[i], *out, a->data_bytes[i], 0) != 0)
    return free(*out), *out = NULL, -1;
  return 0;
}

int dm_args_write(const dm_args_t* a, int i, const uint8_t* buf) {
  return a->data_bytes[i] ? copy_bytes(a->data_dev[i], a->data[i], (void*)buf, a->data_bytes[i], 1) : 0;
}

size_t dm_args_esize(const dm_args_t* a, int i) {
  return ((size_t)a->t[i].dtype.bits * a->t[i].dtype.lanes + 7) / 8;
}

size_t dm_args_span(const dm_args_t* a, int i) {
  size_t n = (size_t)a->numel[i];
  return (a->stride[i] == 1 ? n : 2 * n + 8) * dm_args_esize(a, i);
}
