/*
 * backends/skeleton/skeleton_raw.c — the skeleton's raw twin (backend.h
 * dh_raw_twin_t): the benchmarks' copy / sync / launch done straight through your API,
 * so `devharness bench` can show the harness's overhead as a ratio
 * (docs/adding-a-backend.md "Raw twins"). Optional: set .raw = NULL to have none.
 * Calls down into skeleton_device.c only.
 */
#include <stddef.h>

#include "skeleton_internal.h"

static int dh_skeleton_raw_setup(DLDevice dev, dh_raw_op_t op, size_t nbytes, uint32_t flags,
                                 void** out_ctx) {
  (void)op;
  (void)nbytes;
  (void)flags;
  if (out_ctx == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "skeleton raw: out_ctx is NULL");
  *out_ctx = NULL;
  if (dh_skeleton_check_device(dev, "raw setup") != 0) return -1;
  /* TODO(skeleton): allocate and write the buffers of op; NotImplementedError for the
   * ops your API lacks. */
  return dh_skeleton_not_implemented("raw setup");
}

static int dh_skeleton_raw_run(void* ctx, uint32_t repeat, double* out_device_ms) {
  (void)ctx;
  (void)repeat;
  if (out_device_ms != NULL) *out_device_ms = -1;
  /* TODO(skeleton): run op `repeat` times, then one wait; device time from events. */
  return dh_skeleton_not_implemented("raw run");
}

static void dh_skeleton_raw_teardown(void* ctx) {
  (void)ctx; /* TODO(skeleton): free what setup made. */
}

/* TODO(skeleton): the name of your API ("CUDA driver", "OpenCL"); with DH_RAW_COPY_BIDIR,
 * see dh_raw_twin_t.bidir_order and DH_RAW_TWIN_FIELDS (backend.h). */
const dh_raw_twin_t dh_skeleton_raw_twin =
    DH_RAW_TWIN("skeleton", dh_skeleton_raw_setup, dh_skeleton_raw_run, dh_skeleton_raw_teardown);
