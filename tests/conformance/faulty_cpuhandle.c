/* Fault (cpu): claims DH_CAP_HOST_POINTER_ARITHMETIC but its handles are not the host
 * addresses of the bytes (each handle is 4 KiB past its allocation and every entry
 * translates it back). Expected clause: cap.host_pointer. */
#include <stdlib.h>

#include "faulty_cpu.h"

static dh_backend_function_t fns[16];
static dh_safe_call_t orig_fill;

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  /* handle + nbytes + 4096 stays inside the allocation: reading through it is wrong, not a fault */
  int rc = shift_alloc(dev, nbytes + 4096, alignment < 4096 ? 4096 : alignment, 4096, hint, out);
  return rc;
}

static int bad_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t nbytes,
                    DLDevice dev_from, DLDevice dev_to, DLDataType hint, dh_stream_t stream) {
  return cpu->copy_data_from_to(shift_real((void*)from, 0), from_offset, shift_real(to, 0), to_offset, nbytes,
                                dev_from, dev_to, hint, stream);
}

static int bad_fill(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  if (n >= 1 && args[0].type_index == DH_TYPE_DL_TENSOR_PTR && args[0].v_ptr != NULL) {
    DLTensor t = *(DLTensor*)args[0].v_ptr;
    t.data = shift_real(t.data, 0);
    dh_any_t a[8];
    int32_t k = n < 8 ? n : 8;
    memcpy(a, args, sizeof *a * (size_t)k);
    a[0] = dh_any_tensor(&t);
    return orig_fill(self, a, k, rv);
  }
  return orig_fill(self, args, n, rv);
}

static void edit(void) {
  faulty.alloc_data_space = bad_alloc;
  faulty.free_data_space = shift_free;
  faulty.copy_data_from_to = bad_copy;
  size_t n = cpu->num_functions < 16 ? cpu->num_functions : 16;
  for (size_t i = 0; i < n; i++) {
    fns[i] = cpu->functions[i];
    if (strcmp(fns[i].name, DH_FUNC_FILL) == 0) {
      orig_fill = fns[i].call;
      fns[i].call = bad_fill;
    }
  }
  faulty.functions = fns;
  faulty.num_functions = n;
}

FAULTY_CPU_ENTRY("cpuhandle", edit())
