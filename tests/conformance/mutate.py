#!/usr/bin/python3
"""Mutation test of the conformance suite: `make mutate`.

Applies small faults one at a time to a copy of the sim backend's sources
(backends/sim/*.c): off-by-one sizes, dropped offsets, missing locks, skipped waits,
wrong error kinds, dropped work. Each mutant is built into its own
libdevharness_sim.so and run with `devharness conformance --plugin <it> --device
sim:0 --filter <clauses>` RUNS times (default 5); a mutant is caught when every run
exits 1 (a clause failed). The score is caught / applicable mutants; survivors are
listed with the reason the table below gives for them; a mutant whose reason starts
with "equivalent" changes nothing the contract can observe: when it survives it is listed
but not counted as applicable (when it is caught, it counts as caught).

Each mutant is (name, file, [(old, new), ...], clause filter, why). `old` must occur
exactly once in the file; a stale mutant (text not found) is an error, so the list
cannot silently rot when the sim changes.

Environment: DEVHARNESS (the CLI), BUILD (build folder), CC, MUTATE_JOBS (default 2),
MUTATE_RUNS (default 5), MUTATE_ONLY (comma-separated mutant names). A full run writes
$BUILD/mutate-results.tsv (mutant, status, clauses that failed), the input of
tests/conformance/power.py.
Prints TAP (one test per mutant) and a summary; exit 0 when the score >= 95 %.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# The file each mutant's text is in (build() finds the text in any sim source).
B = "sim_backend.c"
D = "sim_device.c"
S = "sim_stream.c"
K = "sim_kernels.c"
M = "sim_memory.c"

MUTANTS = [
    # ---- copies: dropped offsets, off-by-one and truncated sizes, host source
    ("copy_h2d_drop_src_offset", B,
     [("memcpy(cmd->staging, (const char*)from + from_offset, nbytes);",
       "memcpy(cmd->staging, (const char*)from, nbytes);")],
     "copy.*", "H2D ignores the host source byte_offset"),
    ("copy_drop_dev_src_offset", B,
     [("cmd->src = src_buf->data + from_offset;", "cmd->src = src_buf->data;")],
     "copy.*", "D2H/D2D ignore the device source byte_offset"),
    ("copy_drop_dev_dst_offset", B,
     [("dst_buf->data + to_offset;", "dst_buf->data;")],
     "copy.*", "H2D/D2D ignore the device destination byte_offset"),
    ("copy_drop_host_dst_offset", B,
     [("cmd->dst = to_host ? (uint8_t*)to + to_offset", "cmd->dst = to_host ? (uint8_t*)to")],
     "copy.*", "D2H ignores the host destination byte_offset"),
    ("copy_size_minus_one", B,
     [("  cmd->nbytes = nbytes;\n  if (from_host) {", "  cmd->nbytes = nbytes - (nbytes > 1);\n  if (from_host) {")],
     "copy.*", "every copy one byte short"),
    ("copy_truncate_mib", B,
     [("  cmd->nbytes = nbytes;\n  if (from_host) {",
       "  cmd->nbytes = nbytes > ((size_t)1 << 20) ? nbytes & ~(((size_t)1 << 20) - 1) : nbytes;\n  if (from_host) {")],
     "copy.h2d_d2h_sizes,copy.d2d_sizes", "copies above 1 MiB truncated to whole MiB"),
    ("copy_truncate_64k", S,
     [("if (cmd->nbytes) memmove(cmd->dst, cmd->src, cmd->nbytes);",
       "if (cmd->nbytes) memmove(cmd->dst, cmd->src, cmd->nbytes > 65536 ? cmd->nbytes & ~(size_t)65535 : cmd->nbytes);")],
     "copy.h2d_d2h_sizes,copy.d2d_sizes", "the worker copies whole 64 KiB chunks only"),
    ("copy_host_source_late", B,
     [("    cmd->src = cmd->staging;\n  } else {\n    cmd->src = src_buf->data + from_offset;",
       "    cmd->src = (uint8_t*)from + from_offset;\n  } else {\n    cmd->src = src_buf->data + from_offset;")],
     "copy.host_source_released,copy.pinned_host", "H2D reads the host source when the worker runs"),
    ("copy_zero_length_writes", B,
     [("if (nbytes == 0) { /* validated; nothing to do */",
       "if (nbytes == 0) { /* validated; nothing to do */\n"
       "    if (to_host && to) ((uint8_t*)to)[to_offset > 0 ? to_offset - 1 : 0] ^= 0x5a;\n"
       "    else if (dst_buf && dst_buf->size) dst_buf->data[0] ^= 0x5a;")],
     "copy.zero_length", "a zero-length copy flips a byte next to the range"),
    ("copy_range_off_by_one", D,
     [("if (offset > b->size || nbytes > b->size - offset)",
       "if (offset > b->size || nbytes >= b->size - offset)")],
     "copy.*", "a copy that ends exactly at the end of an allocation is refused"),
    ("copy_cross_device_wrong_dst", B,
     [("if (!to_host && dh_sim_device_get(dev_to, &d_to) != 0) return -1;",
       "if (!to_host && dh_sim_device_get(from_host ? dev_to : dev_from, &d_to) != 0) return -1;")],
     "copy.cross_device", "D2D between two sim devices looks the destination up on the source device"),
    # ---- streams: skipped waits, dropped work, reversed order
    ("stream_sync_no_wait", S,
     [("while (s->completed < target) pthread_cond_wait(&s->done_cv, &s->mu);",
       "(void)target;")],
     "stream.*", "stream_sync returns without waiting"),
    ("stream_order_noop", S,
     [("  if (src == dst) return 0;\n  dh_sim_marker_t* m", "  if (src == dst || 1) return 0;\n  dh_sim_marker_t* m")],
     "stream.*", "sync_stream_from_to does nothing"),
    ("stream_order_reversed", B,
     [("rc = dh_sim_stream_order(s_src, s_dst);", "rc = dh_sim_stream_order(s_dst, s_src);")],
     "stream.*", "sync_stream_from_to makes src wait for dst"),
    ("stream_free_drops_work", S,
     [("  if (s->tail) s->tail->next = cmd;\n  else s->head = cmd;\n  s->tail = cmd;",
       "  if (cmd->kind == DH_SIM_CMD_STOP) {\n"
       "    while (s->head) { dh_sim_cmd_t* x = s->head; s->head = x->next; dh_sim_cmd_discard(x); }\n"
       "    s->head = s->tail = cmd;\n"
       "  } else {\n"
       "    if (s->tail) s->tail->next = cmd;\n    else s->head = cmd;\n    s->tail = cmd;\n  }")],
     "stream.free_pending", "free_stream discards the commands still queued"),
    ("stream_tls_global", S,
     [("int dh_sim_set_stream(DLDevice dev, dh_stream_t stream) {",
       "static dh_stream_t dh_sim_g_stream[DH_SIM_MAX_DEVICES];\n"
       "int dh_sim_set_stream(DLDevice dev, dh_stream_t stream) {"),
      ("  return dh_env_set_stream(dh_sim_dev(d->id), stream);\n}",
       "  dh_sim_g_stream[d->id] = stream;\n  return 0;\n}"),
      ("*out_stream = dh_env_get_stream(dh_sim_dev(d->id));", "*out_stream = dh_sim_g_stream[d->id];")],
     "stream.*", "the current stream is shared by all threads"),
    ("stream_get_current_null", S,
     [("*out_stream = dh_env_get_stream(dh_sim_dev(d->id));", "*out_stream = NULL;")],
     "stream.*", "get_current_stream always answers NULL"),
    ("stream_free_null_errors", B,
     [("if (stream == NULL) return 0; /* the default stream lives until shutdown */",
       "if (stream == NULL) return dh_error_set(\"ValueError\", \"sim: NULL stream\");")],
     "stream.*", "free_stream(NULL) is an error"),
    # ---- memory: missing locks, accounting, error kinds, stale handles
    ("mem_table_add_no_lock", D,
     [("                     void** out_handle) {\n  pthread_mutex_lock(&t->mu);",
       "                     void** out_handle) {\n  (void)0;")],
     "mem.concurrent", "the handle table's add runs without its lock"),
    ("mem_table_remove_no_lock", D,
     [("  struct dh_sim_slot* s;\n  pthread_mutex_lock(&t->mu);\n  int rc = dh_sim_table_find(t, kind, device_id, handle, what, &s);\n  if (rc == 0) {\n    *out_obj = s->obj;",
       "  struct dh_sim_slot* s;\n  int rc = dh_sim_table_find(t, kind, device_id, handle, what, &s);\n  if (rc == 0) {\n    *out_obj = s->obj;")],
     "mem.concurrent", "the handle table's remove runs without its lock"),
    ("mem_oom_kind", D,
     [("return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR,\n                        \"sim:%d: cannot allocate",
       "return dh_error_set(DH_KIND_RUNTIME_ERROR,\n                        \"sim:%d: cannot allocate")],
     "mem.*", "too large an allocation fails with RuntimeError"),
    ("mem_no_oom_check", D,
     [("if (charged > avail) {", "if (charged > avail && 0) {")],
     "mem.*", "no device-memory limit (malloc decides)"),
    ("mem_free_null_errors", D,
     [("int dh_sim_mem_free(dh_sim_device_t* d, void* handle) {\n  if (handle == NULL) return 0;",
       "int dh_sim_mem_free(dh_sim_device_t* d, void* handle) {\n  if (handle == NULL) return dh_error_set(\"ValueError\", \"NULL\");")],
     "mem.*", "free_data_space(NULL) is an error"),
    ("mem_zero_bytes_refused", B,
     [("  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;\n  return dh_sim_mem_alloc(d, nbytes, alignment, out_ptr);",
       "  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;\n"
       "  if (nbytes == 0) return dh_error_set(\"ValueError\", \"zero bytes\");\n"
       "  return dh_sim_mem_alloc(d, nbytes, alignment, out_ptr);")],
     "mem.*", "a zero-byte allocation is refused"),
    ("mem_free_leaks", D,
     [("  /* Queued commands may still hold references; the bytes go when they are done. */\n  dh_sim_obj_release(obj);",
       "  (void)obj;")],
     "mem.*,attr.*", "free_data_space never gives the memory back"),
    ("mem_stale_handle_accepted", D,
     [("DH_SIM_KIND_BUFFER, d->id, handle, \"data space handle\",\n                          &obj) != 0)\n    return -1;",
       "DH_SIM_KIND_BUFFER, d->id, handle, \"data space handle\",\n                          &obj) != 0)\n    return 0;")],
     "mem.*", "freeing an unknown or freed handle reports success"),
    ("mem_available_wrong", D,
     [("size_t avail = dh_sim_state.config.memory_bytes - d->used;\n  pthread_mutex_unlock(&d->mu);\n  return avail;",
       "size_t avail = dh_sim_state.config.memory_bytes;\n  pthread_mutex_unlock(&d->mu);\n  return avail;")],
     "attr.*,mem.*", "kAvailableGlobalMemory ignores live allocations"),
    # ---- attributes and devices: off-by-one ids, wrong error kinds
    ("attr_exist_off_by_one", B,
     [("dev.device_id >= 0 && dev.device_id < dh_sim_state.config.num_devices;",
       "dev.device_id >= 0 && dev.device_id <= dh_sim_state.config.num_devices;")],
     "attr.*,device.*", "kExist reports a phantom device past the last"),
    ("attr_bad_kind_index_error", B,
     [("return dh_error_set(DH_KIND_VALUE_ERROR, \"sim: unknown attribute kind %d",
       "return dh_error_set(DH_KIND_INDEX_ERROR, \"sim: unknown attribute kind %d")],
     "attr.*", "an unknown attribute kind gives IndexError"),
    ("device_bad_id_value_error", D,
     [("if (DH_BACKEND_CHECK_DEVICE(dev, n, \"sim: device id %d out of range",
       "if (!dh_backend_device_id_valid(dev.device_id, n) &&\n"
       "      dh_error_set(DH_KIND_VALUE_ERROR, \"sim: device id %d out of range")],
     "attr.*,device.*,stream.*", "an invalid device id gives ValueError"),
    ("attr_exist_first_only", B,
     [("dev.device_id >= 0 && dev.device_id < dh_sim_state.config.num_devices;",
       "dev.device_id == 0;")],
     "attr.*,device.*", "kExist denies every device but the first"),
    ("attr_exist_minus_one", B,
     [("dev.device_id >= 0 && dev.device_id < dh_sim_state.config.num_devices;",
       "dev.device_id >= -1 && dev.device_id < dh_sim_state.config.num_devices;")],
     "attr.*", "kExist is 1 for device id -1"),
    ("attr_empty_name", B,
     [("case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(DH_SIM_DEVICE_NAME); break;",
       "case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(\"\"); break;")],
     "attr.*", "kDeviceName is empty"),
    ("attr_compute_version_major", B,
     [("*out_value = dh_any_str(\"1.0\");", "*out_value = dh_any_str(\"1\");")],
     "attr.*", "kComputeVersion lacks the minor number"),
    ("attr_thread_dims_two", B,
     [("dh_any_str(\"[1024, 1024, 64]\")", "dh_any_str(\"[1024, 1024]\")")],
     "attr.*", "kMaxThreadDimensions has two entries"),
    ("attr_warp_zero", B,
     [("case DH_ATTR_WARP_SIZE: *out_value = dh_any_int(32); break;",
       "case DH_ATTR_WARP_SIZE: *out_value = dh_any_int(0); break;")],
     "attr.*", "kWarpSize is 0"),
    ("attr_total_zero", B,
     [("      *out_value = dh_any_int((int64_t)dh_sim_state.config.memory_bytes);\n      break;",
       "      *out_value = dh_any_int(0);\n      break;")],
     "attr.*", "kTotalGlobalMemory is 0"),
    ("attr_available_above_total", B,
     [("*out_value = dh_any_int((int64_t)dh_sim_mem_available(d));",
       "*out_value = dh_any_int((int64_t)dh_sim_mem_available(d) + 4096);")],
     "attr.*", "kAvailableGlobalMemory exceeds kTotalGlobalMemory"),
    ("attr_invalid_id_answers", B,
     [("                        DH_ATTR_KIND_COUNT - 1);\n  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;",
       "                        DH_ATTR_KIND_COUNT - 1);\n  dh_sim_device_t* d;\n"
       "  if (dh_sim_device_get(dev, &d) != 0) { dh_error_clear(); d = &dh_sim_state.devices[0]; }")],
     "attr.*", "get_attr answers for an invalid device id as for device 0"),
    ("attr_unknown_kind_none", B,
     [("  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)\n    return dh_error_set(",
       "  if (kind < 0 || kind >= DH_ATTR_KIND_COUNT)\n    return 0;\n  if (0) return dh_error_set(")],
     "attr.*", "an unknown attribute kind answers None"),
    ("attr_name_unstable", B,
     [("case DH_ATTR_DEVICE_NAME: *out_value = dh_any_str(DH_SIM_DEVICE_NAME); break;",
       "case DH_ATTR_DEVICE_NAME: { static _Atomic int flip; *out_value = dh_any_str(flip++ & 1 ? "
       "DH_SIM_DEVICE_NAME : DH_SIM_DEVICE_NAME \" \"); break; }")],
     "attr.*", "kDeviceName alternates between two values"),
    ("mem_limit_48mib", D,
     [("if (charged > avail) {", "if (charged > avail || nbytes > ((size_t)48 << 20)) {")],
     "mem.*", "allocations above 48 MiB fail (OutOfMemoryError)"),
    ("mem_lanes_refused", B,
     [("                            DLDataType type_hint, void** out_ptr) {\n  (void)type_hint;",
       "                            DLDataType type_hint, void** out_ptr) {\n"
       "  if (type_hint.lanes > 1) return dh_error_set(\"ValueError\", \"sim: lanes\");")],
     "mem.*", "allocation refuses a type hint with lanes > 1"),
    ("table_cap_64", D,
     [("if (cap > DH_SIM_SLOT_MASK) {", "if (cap > 64) {")],
     "mem.*,stream.*", "at most 64 live handles of a kind per device"),
    ("stream_free_fails", B,
     [("  if (dh_sim_table_remove(&d->streams, DH_SIM_KIND_STREAM, d->id, stream, \"stream\", &obj) != 0)\n    return -1;",
       "  if (dh_sim_table_remove(&d->streams, DH_SIM_KIND_STREAM, d->id, stream, \"stream\", &obj) != 0)\n    return -1;\n"
       "  if (obj) return dh_error_set(\"RuntimeError\", \"sim: stream busy\");")],
     "stream.*", "free_stream of a created stream fails"),
    ("stream_default_not_null", S,
     [("*out_stream = dh_env_get_stream(dh_sim_dev(d->id));",
       "*out_stream = dh_env_get_stream(dh_sim_dev(d->id)) ? dh_env_get_stream(dh_sim_dev(d->id)) : (dh_stream_t)0x1;")],
     "stream.*", "a thread that never set a stream gets a non-NULL handle"),
    ("stream_set_all_devices", S,
     [("  return dh_env_set_stream(dh_sim_dev(d->id), stream);\n}",
       "  for (int i = 0; i < dh_sim_state.config.num_devices; i++) dh_env_set_stream(dh_sim_dev(i), stream);\n"
       "  return 0;\n}")],
     "stream.*", "set_stream sets the current stream of every device"),
    # ---- a kernel that fails on the device (module function trap)
    ("trap_failure_dropped", S,
     [("    if (trap && s->failed_seq == 0) s->failed_seq = seq;\n", "")],
     "stream.error_at_sync,packed.device_failure", "the worker does not record a failed kernel"),
    ("trap_failure_sticky", S,
     [("  s->failed_seq = 0;\n  pthread_mutex_unlock(&s->mu);", "  pthread_mutex_unlock(&s->mu);")],
     "stream.error_at_sync,packed.device_failure", "a reported failure is never cleared"),
    ("stream_sync_ignores_failure", S,
     [("int rc = dh_sim_stream_wait_report(s);", "int rc = dh_sim_stream_wait(s);")],
     "stream.error_at_sync,packed.device_failure", "stream_sync waits but does not report failures"),
    ("trap_not_queued", K,
     [("enqueue_kernel(args[0].v_device, DH_SIM_CMD_TRAP)", "enqueue_kernel(args[0].v_device, DH_SIM_CMD_NOOP)")],
     "stream.error_at_sync,packed.device_failure", "trap queues an empty kernel that cannot fail"),
    ("device_set_invalid_ok", B,
     [("int dh_sim_set_device(DLDevice dev) {\n  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;",
       "int dh_sim_set_device(DLDevice dev) {\n  dh_sim_device_t* d;\n"
       "  if (dh_sim_device_get(dev, &d) != 0) { dh_error_clear(); return 0; }")],
     "device.*,attr.*", "set_device accepts any device id"),
    ("device_set_second_fails", B,
     [("int dh_sim_set_device(DLDevice dev) {\n  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;",
       "int dh_sim_set_device(DLDevice dev) {\n  dh_sim_device_t* d;\n  if (dh_sim_device_get(dev, &d) != 0) return -1;\n"
       "  if (d->id == 1) return dh_error_set(\"IndexError\", \"sim: device 1 is busy\");")],
     "device.*,attr.*", "set_device refuses device id 1"),
    ("functions_no_fill", B,
     [("    {DH_FUNC_FILL, dh_sim_func_fill},\n", "")],
     "packed.*", "the fill function is not registered"),
    ("fill_misaligned_accepted", B,
     [("  if (t->byte_offset % 4 || nbytes % 4)\n", "  if (0)\n")],
     "packed.*", "fill accepts a misaligned offset or size"),
    ("noop_no_type_check", B,
     [("  if (num_args < 1 || args[0].type_index != DH_TYPE_DEVICE)\n    return dh_error_set(DH_KIND_TYPE_ERROR, \"sim.noop:",
       "  if (num_args < 1)\n    return dh_error_set(DH_KIND_TYPE_ERROR, \"sim.noop:")],
     "packed.*", "noop does not check its argument's type"),
    # ---- events (device-side timing)
    ("event_elapsed_reversed", B,
     [("*out_ms = ((double)t1 - (double)t0) / 1e6;", "*out_ms = ((double)t0 - (double)t1) / 1e6;")],
     "event.*", "elapsed time has the wrong sign"),
    ("event_elapsed_no_wait", S,
     [("  while (e->done < target) pthread_cond_wait(&e->cv, &e->mu);\n  *out_time_ns = e->time_ns;",
       "  *out_time_ns = e->done < target ? dh_sim_now_ns() : e->time_ns;")],
     "event.*", "event_elapsed_ms does not wait for the end event"),
    ("event_record_host_time", S,
     [("      uint64_t now = dh_sim_now_ns();\n      pthread_mutex_lock(&e->mu);\n      e->time_ns = now;",
       "      pthread_mutex_lock(&e->mu);\n      uint64_t now = e->time_ns; (void)now;")],
     "event.*", "a recorded event keeps its old timestamp (0)"),
    ("copy_ignores_stream", B,
     [("  if (dh_sim_stream_get(ds, stream, &s) != 0) goto fail;", "  if (dh_sim_stream_get(ds, NULL, &s) != 0) goto fail;")],
     "copy.*,stream.*", "copies always go to the default stream, whatever stream is passed"),
    ("stream_completed_early", S,
     [("    uint64_t seq = cmd->seq;\n    dh_sim_cmd_run(cmd);",
       "    uint64_t seq = cmd->seq;\n"
       "    pthread_mutex_lock(&s->mu);\n    s->completed = seq;\n    pthread_cond_broadcast(&s->done_cv);\n"
       "    pthread_mutex_unlock(&s->mu);\n    dh_sim_cmd_run(cmd);")],
     "stream.*", "the worker reports a command complete before running it"),
    ("stream_order_same_errors", S,
     [("  if (src == dst) return 0;\n  dh_sim_marker_t* m",
       "  if (src == dst) return dh_error_set(\"ValueError\", \"same stream\");\n  dh_sim_marker_t* m")],
     "stream.*", "sync_stream_from_to(s, s) is an error"),
    ("handle_generation_kept", D,
     [("    s->gen = (s->gen + 1) & DH_SIM_GEN_MASK;", "    (void)0;")],
     "mem.*", "equivalent: a freed slot's handle is valid again once the slot is reused (a reused "
     "handle is a live handle, as CUDA reuses addresses; no clause can tell)"),
    # ---- kernels (packed functions)
    ("fill_ignores_offset", B,
     [("  cmd->dst = b->data + t->byte_offset;", "  cmd->dst = b->data;")],
     "packed.*", "fill ignores the tensor's byte_offset"),
    ("noop_not_queued", B,
     [("  return enqueue_kernel(args[0].v_device, DH_SIM_CMD_NOOP);",
       "  dh_sim_device_t* d;\n  return dh_sim_device_get(args[0].v_device, &d);")],
     "packed.*", "equivalent: noop returns without queueing the empty kernel (an empty kernel has no "
     "observable effect for the contract)"),

    ("fill_last_word_skipped", S,
     [("for (size_t i = 0; i + 4 <= cmd->nbytes; i += 4)", "for (size_t i = 0; i + 4 < cmd->nbytes; i += 4)")],
     "packed.*", "fill leaves the last 4-byte word"),
    # ---- issue 26, suite power: size arithmetic, resources over cycles, workspaces
    ("mem_round_up_wraps", M,
     [("    if (charged > SIZE_MAX - DH_ALLOC_ALIGNMENT) charged = SIZE_MAX;\n    else charged +=",
       "    charged +=")],
     "mem.*", "rounding the size up to whole 64-byte blocks wraps: SIZE_MAX succeeds behind a 0-byte block"),
    ("copy_range_check_wraps", M,
     [("if (offset > b->size || nbytes > b->size - offset)", "if (offset + nbytes > b->size)")],
     "mem.*,copy.*", "the copy range check `offset + nbytes > size` wraps for offsets near SIZE_MAX"),
    ("stream_free_keeps_worker", S,
     [("  int rc = dh_sim_stream_close((dh_sim_stream_t*)obj);\n  dh_sim_obj_release(obj);\n  return rc;",
       "  (void)obj; /* the worker thread and its stack stay */\n  return 0;")],
     "mem.*,stream.*", "free_stream leaves the stream's worker thread running (a thread and its stack per stream)"),
    ("workspace_pool_kept_listed", M,
     [("      d->ws_count--; /* off the free list: a live workspace is its owner's alone */\n"
       "      d->ws_free[i] = d->ws_free[d->ws_count];\n      d->ws_size[i] = d->ws_size[d->ws_count];\n",
       "")],
     "mem.*", "alloc_workspace hands out a pooled block without taking it off the free list (two live "
     "workspaces share it)"),
    ("attr_available_process_wide", D,
     [("size_t avail = dh_sim_state.config.memory_bytes - d->used;\n  pthread_mutex_unlock(&d->mu);\n  return avail;",
       "size_t avail = dh_sim_state.config.memory_bytes - d->used;\n  pthread_mutex_unlock(&d->mu);\n"
       "  for (int i = 0; i < dh_sim_state.config.num_devices; i++)\n"
       "    if (&dh_sim_state.devices[i] != d) avail -= dh_sim_state.devices[i].used;\n  return avail;")],
     "attr.*", "kAvailableGlobalMemory subtracts every device's allocations (one count for the process)"),
    # ---- the environment stream (TVMFFIEnvSetStream) and storage freed under a queued write
    ("kernels_ignore_env_stream", K,
     [("  return dh_sim_stream_get(d, dh_env_get_stream(dh_sim_dev(d->id)), out);",
       "  return dh_sim_stream_get(d, NULL, out);")],
     "stream.env_*", "fill, noop and trap run on the default stream, not the environment stream"),
    ("stream_current_private", S,
     [("int dh_sim_set_stream(DLDevice dev, dh_stream_t stream) {",
       "_Thread_local dh_stream_t dh_sim_private_stream[DH_SIM_MAX_DEVICES];\n"
       "int dh_sim_set_stream(DLDevice dev, dh_stream_t stream) {"),
      ("  return dh_env_set_stream(dh_sim_dev(d->id), stream);\n}",
       "  dh_sim_private_stream[d->id] = stream;\n  return 0;\n}"),
      ("*out_stream = dh_env_get_stream(dh_sim_dev(d->id));", "*out_stream = dh_sim_private_stream[d->id];"),
      ("  return dh_sim_stream_get(d, dh_env_get_stream(dh_sim_dev(d->id)), out);",
       "  extern _Thread_local dh_stream_t dh_sim_private_stream[DH_SIM_MAX_DEVICES];\n"
       "  return dh_sim_stream_get(d, dh_sim_private_stream[d->id], out);")],
     "stream.env_*", "the current stream lives in the backend's own thread-local table: a stream "
     "set through TVMFFIEnvSetStream is never seen"),
    ("copy_null_stream_is_current", B,
     [("  if (dh_sim_stream_get(ds, stream, &s) != 0) goto fail;",
       "  if (dh_sim_stream_get(ds, stream ? stream : dh_env_get_stream(stream_dev), &s) != 0) goto fail;")],
     "stream.env_*", "a copy given the NULL stream goes to the environment stream"),
    ("mem_free_pools_at_once", B,
     [("int dh_sim_mem_alloc(dh_sim_device_t* d, size_t nbytes, size_t alignment, void** out_handle) {\n",
       "static dh_sim_buffer_t* dh_sim_pool[DH_SIM_MAX_DEVICES];\n"
       "int dh_sim_mem_alloc(dh_sim_device_t* d, size_t nbytes, size_t alignment, void** out_handle) {\n"
       "  if (nbytes > 0 && alignment <= DH_ALLOC_ALIGNMENT) {\n"
       "    pthread_mutex_lock(&d->mu);\n"
       "    dh_sim_buffer_t* pb = dh_sim_pool[d->id];\n"
       "    if (pb && pb->size == nbytes) { dh_sim_pool[d->id] = NULL; pb->charged = nbytes; d->used += nbytes; }\n"
       "    else pb = NULL;\n"
       "    pthread_mutex_unlock(&d->mu);\n"
       "    if (pb) return dh_sim_table_add(&d->buffers, DH_SIM_KIND_BUFFER, d->id, &pb->obj, out_handle);\n"
       "  }\n"),
      ("  /* Queued commands may still hold references; the bytes go when they are done. */\n"
       "  dh_sim_obj_release(obj);\n",
       "  dh_sim_buffer_t* fb = (dh_sim_buffer_t*)obj;\n"
       "  pthread_mutex_lock(&d->mu);\n"
       "  d->used -= fb->charged;\n  fb->charged = 0;\n"
       "  dh_sim_buffer_t* old = dh_sim_pool[d->id];\n  dh_sim_pool[d->id] = fb;\n"
       "  pthread_mutex_unlock(&d->mu);\n"
       "  dh_sim_obj_release(old ? &old->obj : NULL);\n")],
     "mem.free_queued*", "free_data_space pools the storage at once; the next allocation of that size "
     "gets it while a queued copy still writes it"),
    # ---- past the list (docs/contract.md "What else a backend could get wrong")
    ("stream_order_null_skipped", S,
     [("  if (dh_sim_device_get(dev, &d) != 0) return -1;\n  int rc = -1;\n"
       "  if (dh_sim_stream_get(d, src, &s_src) == 0 && dh_sim_stream_get(d, dst, &s_dst) == 0)",
       "  if (dh_sim_device_get(dev, &d) != 0) return -1;\n  int rc = -1;\n"
       "  if (src == NULL || dst == NULL) return 0;\n"
       "  if (dh_sim_stream_get(d, src, &s_src) == 0 && dh_sim_stream_get(d, dst, &s_dst) == 0)")],
     "stream.*", "sync_stream_from_to with the default stream on either side does nothing"),
    ("copy_h2d_past_queue", B,
     [("  src_buf = dst_buf = NULL;\n  int rc = dh_sim_stream_enqueue(s, cmd);",
       "  src_buf = dst_buf = NULL;\n"
       "  if (from_host) {\n    memcpy(cmd->dst, cmd->src, nbytes);\n    dh_sim_cmd_discard(cmd);\n"
       "    dh_sim_obj_release(&s->obj);\n    return 0;\n  }\n"
       "  int rc = dh_sim_stream_enqueue(s, cmd);")],
     "copy.*", "an H2D writes the device bytes at once, ahead of the work queued on its stream"),
    ("event_keeps_first_record", S,
     [("    rc = dh_sim_event_enqueue(e, s);", "    rc = e->requested ? 0 : dh_sim_event_enqueue(e, s);")],
     "event.*", "recording an event again is ignored: it keeps its first record"),
    ("fill_first_dim_only", K,
     [("  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;\n",
       "  if (dh_tensor_nbytes(t, &nbytes) != 0) return -1;\n"
       "  if (t->ndim > 1) nbytes = (size_t)t->shape[0] * ((size_t)t->dtype.bits * t->dtype.lanes / 8);\n")],
     "packed.*", "fill sizes a multi-dimensional tensor from shape[0] alone"),
    ("copy_same_buffer_reads_dst", B,
     [("    cmd->src = src_buf->data + from_offset;",
       "    cmd->src = src_buf == dst_buf ? dst_buf->data + to_offset : src_buf->data + from_offset;")],
     "copy.*", "a D2D within one buffer reads at the destination offset"),
]


def build(tmp, name, file_, repl, cc, build_dir):
    src = os.path.join(tmp, "src")
    shutil.copytree("backends/sim", src)
    srcs = sorted(os.path.join(src, f) for f in os.listdir(src) if f.endswith(".c"))
    texts = {p: open(p).read() for p in srcs}
    for old, new in repl:
        # `file_` names the file the text is in; when code moves between the sim's
        # files, the one source that holds the text is used.
        where = [p for p in srcs if texts[p].count(old) == 1]
        if os.path.join(src, file_) in where:
            where = [os.path.join(src, file_)]
        if len(where) != 1 or sum(t.count(old) for t in texts.values()) != 1:
            return "stale mutant: %r found %d times in backends/sim/*.c" % (
                old[:60], sum(t.count(old) for t in texts.values()))
        texts[where[0]] = texts[where[0]].replace(old, new)
    for p, text in texts.items():
        open(p, "w").write(text)
    out = os.path.join(tmp, "libdevharness_sim.so")
    cmd = [cc, "-Iinclude", "-I.", "-D_GNU_SOURCE", "-std=c11", "-Wall", "-Wextra", "-O1",
           "-fPIC", "-pthread", "-fvisibility=hidden", "-shared", "-o", out] + srcs + \
          ["-L" + os.path.join(build_dir, "lib"), "-ldevharness",
           "-Wl,-rpath," + os.path.abspath(os.path.join(build_dir, "lib"))]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        return "build failed: " + p.stdout[-400:]
    return None


def run_mutant(m):
    name, file_, repl, filt, why = m
    dh = os.environ["DEVHARNESS"]
    build_dir = os.environ.get("BUILD", "build")
    cc = os.environ.get("CC", "cc")
    runs = int(os.environ.get("MUTATE_RUNS", "5"))
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="dh-mutant-")
    try:
        err = build(tmp, name, file_, repl, cc, build_dir)
        if err:
            return name, "error", err, [], time.time() - t0
        lib = os.path.join(tmp, "libdevharness_sim.so")
        results = []
        for _ in range(runs):
            p = subprocess.run([dh, "conformance", "--plugin", lib, "--device", "sim:0", "--filter", filt,
                                "--timeout", "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=600)
            failed = sorted({l.split(" - ")[1].split()[0] for l in p.stdout.splitlines()
                             if l.startswith("    not ok ")})
            results.append((p.returncode, failed))
        caught = all(rc == 1 for rc, _ in results)
        return name, "caught" if caught else "survived", "", results, time.time() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if not os.environ.get("DEVHARNESS") or not os.path.exists(os.environ["DEVHARNESS"]):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return 0
    only = [x for x in os.environ.get("MUTATE_ONLY", "").split(",") if x]
    mutants = [m for m in MUTANTS if not only or m[0] in only]
    jobs = int(os.environ.get("MUTATE_JOBS", "2"))
    runs = int(os.environ.get("MUTATE_RUNS", "5"))
    t0 = time.time()
    print("1..%d" % len(mutants))
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        outs = list(ex.map(run_mutant, mutants))
    caught = survived = errors = equivalent = 0
    for i, (name, status, err, results, secs) in enumerate(outs, 1):
        why = [m for m in mutants if m[0] == name][0][4]
        clauses = sorted({c for _, f in results for c in f})
        if status == "survived" and why.startswith("equivalent"):
            equivalent += 1
            n = sum(1 for rc, _ in results if rc == 1)
            print("ok %d - %s survived, not applicable (caught in %d of %d runs) # %s" %
                  (i, name, n, runs, why))
        elif status == "caught":
            caught += 1
            print("ok %d - %s caught %d/%d runs by %s (%.1f s) # %s" %
                  (i, name, runs, runs, ",".join(clauses), secs, why))
        elif status == "survived":
            survived += 1
            n = sum(1 for rc, _ in results if rc == 1)
            print("not ok %d - %s SURVIVED (caught in %d of %d runs; %s) # %s" %
                  (i, name, n, runs, ",".join(clauses) or "no clause failed", why))
        else:
            errors += 1
            print("not ok %d - %s %s" % (i, name, err))
    # results for tests/conformance/power.py (the proof-of-power table)
    res_path = os.environ.get("MUTATE_RESULTS", os.path.join(os.environ.get("BUILD", "build"),
                                                             "mutate-results.tsv"))
    if not only:
        with open(res_path, "w") as f:
            for name, status, err, results, secs in outs:
                clauses = sorted({c for rc, fl in results if rc == 1 for c in fl})
                f.write("%s\t%s\t%s\n" % (name, status, ",".join(clauses)))
    applicable = caught + survived
    score = 100.0 * caught / applicable if applicable else 0.0
    print("# mutation score: %d of %d applicable mutants caught in %d of %d runs each = %.1f %% "
          "(%d equivalent survivors not counted, %d errors; %.0f s wall, -j%d)" %
          (caught, applicable, runs, runs, score, equivalent, errors, time.time() - t0, jobs))
    return 0 if score >= 95.0 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
