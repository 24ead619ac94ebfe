/*
 * module/args.c — arguments made from a type schema: tensors allocated on a device
 * through devharness (dh_device_alloc_data_space), passed as DLTensors with real
 * shapes, strides and dtypes; scalars as given. Calls schema.c's types only.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <tvm/ffi/c_api.h>

#include "module/check.h"

#define DM_N 64 /* elements of a full-length tensor */

static const dm_layout_t kLayouts[] = {
    {{kDLFloat, 32, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}}, {{kDLFloat, 32, 1}, 1, 1, -1, {0, 0}, {0, 0, 0}},
    {{kDLFloat, 32, 1}, 2, 1, -1, {0, 0}, {0, 0, 0}}, {{kDLInt, 32, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}},
    {{kDLInt, 32, 1}, 1, 1, -1, {0, 0}, {0, 0, 0}},   {{kDLFloat, 64, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}},
    {{kDLFloat, 64, 1}, 1, 1, -1, {0, 0}, {0, 0, 0}}, {{kDLInt, 64, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}},
    {{kDLFloat, 16, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}}, {{kDLUInt, 8, 1}, 0, 1, -1, {0, 0}, {0, 0, 0}},
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

/* Tensor i of a: n elements of dtype, `stride` apart, in a buffer of its own on dev
 * filled with DM_CANARY. */
static int make_tensor(dm_args_t* a, int i, DLDevice dev, DLDataType dtype, int64_t n, int stride) {
  size_t elems = (size_t)(stride == 1 ? n : 2 * n + 8), bytes;
  if (dh_dtype_nbytes(elems, dtype, &bytes) != 0) return -1;
  if (dh_device_alloc_data_space(dev, bytes, 0, dtype, &a->data[i]) != 0) return -1;
  a->data_dev[i] = dev;
  a->data_bytes[i] = bytes;
  uint8_t* host = malloc(bytes ? bytes : 1);
  if (host == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  memset(host, DM_CANARY, bytes);
  int rc = copy_bytes(dev, a->data[i], host, bytes, 1);
  free(host);
  if (rc != 0) return -1;
  a->shape[i] = n;
  a->strides[i] = stride;
  a->t[i] = (DLTensor){a->data[i], dev, 1, dtype, &a->shape[i], &a->strides[i], 0};
  a->v[i] = dh_any_tensor(&a->t[i]);
  return 0;
}

/* An ffi.Tensor parameter: tensor i wrapped as a tvm-ffi Tensor object
 * (TVMFFITensorFromDLPack; the object's deleter frees only the DLManagedTensor, the
 * memory is freed by dm_args_free after the object is released). */
typedef struct managed {
  DLManagedTensor m;
  int64_t shape, stride;
} managed_t;

static void managed_free(DLManagedTensor* m) { free(m); }

static int wrap_tensor(dm_args_t* a, int i) {
  managed_t* m = calloc(1, sizeof *m);
  if (m == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  m->shape = a->shape[i];
  m->stride = a->strides[i];
  m->m.dl_tensor = a->t[i];
  m->m.dl_tensor.shape = &m->shape;
  m->m.dl_tensor.strides = &m->stride;
  m->m.manager_ctx = m;
  m->m.deleter = managed_free;
  TVMFFIObjectHandle h = NULL;
  if (TVMFFITensorFromDLPack(&m->m, 0, 0, &h) != 0) return free(m), -1;
  a->objs[i] = h;
  a->v[i].type_index = kTVMFFITensor;
  a->v[i].v_ptr = h;
  return 0;
}

/* How many elements tensor number k (of ntensors) has under pattern p. */
static int64_t tensor_len(int p, int k, int ntensors) {
  return p == 2 || (p == 1 && k == ntensors - 1) ? 1 : DM_N;
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
        DLDataType dt = odd && l->odd_dtype.bits ? l->odd_dtype : l->dtype;
        if (make_tensor(a, i, d, dt, tensor_len(l->pattern, k++, ntensors), l->stride) != 0) return -1;
        if (f->kinds[i] == DM_TENSOR_OBJ && wrap_tensor(a, i) != 0) return -1;
        break;
      }
      case DM_INT: a->v[i] = dh_any_int(sc.ival); break;
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
  if (copy_bytes(a->data_dev[i], a->data[i], *out, a->data_bytes[i], 0) != 0) return free(*out), *out = NULL, -1;
  return 0;
}
