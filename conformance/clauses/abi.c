/*
 * conformance/clauses/abi.c — the one place in conformance/ that calls a backend's vtable
 * (dh_backend_t, devharness/backend.h) directly instead of the dispatch API: where the
 * dispatch would hide the behaviour a clause tests. Every other clause goes through
 * devharness/device_api.h (tests/layering/vtable_calls.t holds the rule).
 */
#include "check.h"

int dc_abi_copy_flat(const dh_backend_t* b, const void* from, size_t from_offset, void* to, size_t to_offset,
                     size_t nbytes, DLDevice dev_from, DLDevice dev_to) {
  return b->copy_data_from_to(from, from_offset, to, to_offset, nbytes, dev_from, dev_to, dc_u8(), NULL);
}
