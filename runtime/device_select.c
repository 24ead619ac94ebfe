/*
 * runtime/device_select.c — dh_device_select (devharness/device_api.h "Device
 * selection"): from a --device value, or none, to the devices a command runs on, with
 * one counting rule and one message per bad spec for every command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/child.h"
#include "base/text.h"
#include "internal.h"

#define DEFAULT_PROBE_TIMEOUT_S 10

/* Counts the devices of b in this process (initialising it): a device counts when the
 * backend's count (device_count, else kExist from id 0 up to the first 0 or error)
 * includes it AND set_device accepts its id — an independent route, so a backend that
 * over-reports gets no phantom device (which would fail every clause); the clauses
 * attr.exist_count and attr.exist_past_last name the over-report instead. */
static int count_devices(const dh_backend_t* b, char* reason, size_t rsize) {
  reason[0] = '\0';
  const char* why = dh_backend_unavailable_reason(b);
  if (why) snprintf(reason, rsize, "%s", why);
  int n = 0;
  if (b->device_count != NULL) {
    if (dh_backend_device_count(b, &n) != 0) {
      snprintf(reason, rsize, "device_count failed: %s", dh_error_message());
      n = 0;
    }
  } else {
    for (; n < DH_MAX_DEVICES_PER_BACKEND; n++) {
      dh_any_t v = dh_any_none();
      if (dh_device_get_attr((DLDevice){(DLDeviceType)b->device_type, n}, DH_ATTR_EXIST, &v) != 0) break;
      if (v.type_index != DH_TYPE_INT || v.v_int64 != 1) break;
    }
  }
  for (int id = 0; id < n; id++) {
    if (dh_device_set_device((DLDevice){(DLDeviceType)b->device_type, id}) != 0) {
      n = id;
      break;
    }
  }
  dh_error_clear();
  if (n == 0 && reason[0] == '\0') snprintf(reason, rsize, "backend reports no device (kExist 0 for id 0)");
  return n;
}

/* In the probe child: "<count>\n<caps>\n<reason>" to the pipe (caps: the backend's
 * after init, which query_caps may have found: backend.h ABI 1.5). */
static void probe_child(void* arg, int fd) {
  char reason[512], answer[640];
  const dh_backend_t* b = arg;
  int n = count_devices(b, reason, sizeof reason);
  int len = snprintf(answer, sizeof answer, "%d\n%u\n%s", n, (unsigned)dh_device_caps(b), reason);
  dh_write_all(fd, answer, (size_t)(len < (int)sizeof answer ? len : (int)sizeof answer - 1));
}

/* The count, caps and reason of backend b, in a child when params ask for it (*caps:
 * the declared ones when the probe failed). *failed when the probe itself failed
 * (crashed, hung, exited): the reason says how. */
static int probe(const dh_device_select_params_t* p, const dh_backend_t* b, char* reason, size_t rsize,
                 uint32_t* caps, int* failed) {
  *failed = 0;
  *caps = b->caps;
  if (p->progress) p->progress(b, p->progress_user);
  if (!(p->flags & DH_SELECT_PROBE_IN_CHILD)) {
    int n = count_devices(b, reason, rsize);
    return (*caps = dh_device_caps(b)), n; /* caps after init */
  }
  dh_child_result_t r;
  dh_child_run(probe_child, (void*)b, p->probe_timeout_s > 0 ? p->probe_timeout_s : DEFAULT_PROBE_TIMEOUT_S, &r);
  int n = 0;
  if (r.status != DH_CHILD_ANSWERED || r.size == 0) {
    *failed = 1;
    snprintf(reason, rsize, "device probe (init, kExist) %s", r.status ? r.note : "gave no answer");
    if (r.err_tail[0]) {
      strncat(reason, "; stderr: ", rsize - strlen(reason) - 1);
      strncat(reason, r.err_tail, rsize - strlen(reason) - 1);
    }
  } else {
    char* nl = memchr(r.data, '\n', r.size);
    n = atoi(r.data);
    if (nl != NULL) *caps = (uint32_t)strtoul(nl + 1, NULL, 10); /* "<caps>\n" */
    if (nl != NULL) dh__record_probed_caps(b, *caps);
    if (nl != NULL) nl = memchr(nl + 1, '\n', r.size - (size_t)(nl + 1 - r.data));
    size_t k = nl ? r.size - (size_t)(nl + 1 - r.data) : 0;
    if (k >= rsize) k = rsize - 1;
    if (nl) memcpy(reason, nl + 1, k);
    reason[k] = '\0';
  }
  free(r.data);
  return n;
}

/* Appends one entry; -1 with OutOfMemoryError. */
static int add_entry(dh_device_list_t* list, size_t* cap, const dh_backend_t* b, int32_t id, int count,
                     uint32_t caps, int failed, const char* reason) {
  if (list->count == *cap) {
    size_t ncap = *cap ? *cap * 2 : 16;
    dh_device_entry_t* e = realloc(list->entries, ncap * sizeof *e);
    if (e == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "dh_device_select: out of memory");
    list->entries = e;
    *cap = ncap;
  }
  dh_device_entry_t* e = &list->entries[list->count++];
  memset(e, 0, sizeof *e);
  e->backend = b;
  e->device = (DLDevice){(DLDeviceType)b->device_type, id};
  e->device_count = count;
  e->caps = caps;
  e->probe_failed = failed;
  if (id >= 0) {
    snprintf(e->name, sizeof e->name, "%s:%d", b->name, (int)id);
  } else {
    snprintf(e->name, sizeof e->name, "%s (no device)", b->name);
    snprintf(e->reason, sizeof e->reason, "%s", reason);
  }
  if (failed) snprintf(e->reason, sizeof e->reason, "%s", reason);
  return 0;
}

/* The one device a spec names: its backend must be loaded and, when it has devices,
 * have that id; a backend without any gives its no-device entry, as without a spec. */
static int select_one(const dh_device_select_params_t* p, dh_device_list_t* out, size_t* cap) {
  char name[DH_DEVICE_NAME_MAX], shown[DH_TEXT_BUF];
  int32_t id = 0;
  if (dh_device_spec_split(p->spec, name, sizeof name, &id) != 0) return -1;
  dh_text_quote(p->spec, shown, sizeof shown);
  const dh_backend_t* b = NULL;
  if (dh_device_api_get(name, &b) != 0) return dh_error_prefix("device spec '%s'", shown);
  char reason[512];
  uint32_t caps = 0;
  int failed = 0, count = probe(p, b, reason, sizeof reason, &caps, &failed);
  if (count == 0) return add_entry(out, cap, b, -1, 0, caps, failed, reason); /* its no-device entry */
  if (id >= count)
    return dh_error_set(DH_KIND_INDEX_ERROR, "device spec '%s': backend %s has no device %lld (%d device%s%s%s)",
                        shown, name, (long long)id, count, count == 1 ? "" : "s", reason[0] ? ": " : "", reason);
  return add_entry(out, cap, b, id, count, caps, failed, reason);
}

int dh_device_select(const dh_device_select_params_t* params, dh_device_list_t* out_list) {
  if (out_list == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_device_select: out_list is NULL");
  memset(out_list, 0, sizeof *out_list);
  dh_device_select_params_t p = {0};
  if (params != NULL) p = *params;
  if (!(p.flags & DH_SELECT_LOADED_ONLY)) dh_plugins_load_default();
  size_t cap = 0;
  int rc = 0;
  if (p.spec != NULL) {
    rc = select_one(&p, out_list, &cap);
  } else {
    for (size_t i = 0; rc == 0 && i < dh_backend_count(); i++) {
      const dh_backend_t* b = dh_backend_at(i);
      char reason[512];
      uint32_t caps = 0;
      int failed = 0, n = probe(&p, b, reason, sizeof reason, &caps, &failed);
      if (n == 0) rc = add_entry(out_list, &cap, b, -1, 0, caps, failed, reason);
      for (int id = 0; rc == 0 && id < n; id++) rc = add_entry(out_list, &cap, b, id, n, caps, failed, reason);
    }
  }
  if (rc != 0) dh_device_list_free(out_list);
  return rc;
}

void dh_device_list_free(dh_device_list_t* list) {
  if (list == NULL) return;
  free(list->entries);
  list->entries = NULL;
  list->count = 0;
}
