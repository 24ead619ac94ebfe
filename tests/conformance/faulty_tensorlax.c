/* Fault: takes DLTensors itself (copy_tensor_from_to, ABI 1.4) but checks nothing:
 * it copies the smaller side's packed bytes and ignores strides, so tensors of
 * different byte sizes and non-contiguous views are copied instead of refused. Copies of
 * matching compact tensors (every other clause) behave.
 * Expected clauses: copy.size_mismatch, copy.non_contiguous. */
#include "faulty.h"
#include "devharness/tensor.h"

static size_t packed_bytes(const DLTensor* t) {
  size_t b = 0;
  return dh_tensor_nbytes(t, &b) == 0 ? b : 0;
}

static int lax_copy(const DLTensor* from, const DLTensor* to, dh_stream_t stream) {
  size_t nf = packed_bytes(from), nt = packed_bytes(to);
  return dh_sim_backend.copy_data_from_to(from->data, (size_t)from->byte_offset, to->data, (size_t)to->byte_offset,
                                          nf < nt ? nf : nt, from->device, to->device, from->dtype, stream);
}

FAULTY_ENTRY("tensorlax", (faulty.copy_tensor_from_to = lax_copy))
