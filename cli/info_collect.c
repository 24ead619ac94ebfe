/*
 * cli/info_collect.c — what `info` asks a backend (cli/info.h), asked in isolated
 * children (base/child.h) so that a backend that crashes or blocks in one query costs
 * that query, never the command.
 *
 * The questions of one backend are numbered pieces: 0 is the backend's own (init and
 * its reason, caps, module functions); then, per selected device, one piece per TVM
 * attribute kind, its identity and TVM's index. A child answers the pieces from
 * `start` on, one JSON line each, in order. When it crashes, exits or times out, the
 * piece after its last answer is the one that failed: it is recorded with the child's
 * note ("crashed: SIGSEGV", "timed out after 10 s") and a fresh child goes on from the
 * next piece. After kMaxFailuresInRow failed pieces in a row the remaining ones are
 * recorded as not asked, so a backend that blocks everywhere costs a few timeouts.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/child.h"
#include "base/text.h"
#include "cli/info.h"
#include "devharness/devharness.h"

enum { kDevPieces = DH_ATTR_KIND_COUNT - 1 + 2, kMaxFailuresInRow = 3 };

static const struct {
  uint32_t bit;
  const char* name;
} kCaps[] = {
    {DH_CAP_SINGLE_QUEUE, "single_queue"},
    {DH_CAP_HOST_POINTER_ARITHMETIC, "host_pointer_arithmetic"},
    {DH_CAP_ASYNC_COPY, "async_copy"},
    {DH_CAP_EVENT_TIMING, "event_timing"},
    {DH_CAP_PINNED_HOST, "pinned_host"},
};

/* A backend's text as a JSON string: kept, made valid UTF-8 (invalid bytes as \xNN,
 * base/text.h dh_text_clean) rather than dropped as jansson drops invalid UTF-8. */
json_t* dh_cli_info_string(const char* s) {
  if (s == NULL) return json_null();
  json_t* j = json_string(s);
  if (j != NULL) return j;
  size_t size = strlen(s) * 6 + 1;
  char* copy = malloc(size);
  if (copy == NULL) return json_string("(out of memory)");
  memcpy(copy, s, strlen(s) + 1);
  dh_text_clean(copy, size);
  j = json_string(copy);
  free(copy);
  return j ? j : json_string("(not UTF-8)");
}

static json_t* any_to_json(const dh_any_t* v) {
  switch (v->type_index) {
    case DH_TYPE_INT: return json_integer(v->v_int64);
    case DH_TYPE_BOOL: return json_boolean(v->v_int64);
    case DH_TYPE_FLOAT: return json_real(v->v_float64);
    case DH_TYPE_RAW_STR: return dh_cli_info_string(v->v_c_str ? v->v_c_str : "");
    case DH_TYPE_NONE: return json_null();
    default: {
      char buf[64];
      snprintf(buf, sizeof buf, "<%s>", dh_type_index_name(v->type_index));
      return json_string(buf);
    }
  }
}

/* The vendor identity result bundles key the device by (docs/results.md "Device
 * identity"): the PCI bus id of the backend's optional pci_bus_id function
 * (DH_FUNC_PCI_BUS_ID), null when it has none or says ""; no backend reports a UUID
 * yet (null). */
static json_t* identity_json(DLDevice dev) {
  dh_any_t arg = dh_any_device(dev), rv = dh_any_none();
  dh_byte_array_t s;
  char text[64] = "";
  if (dh_device_call(dev, DH_FUNC_PCI_BUS_ID, &arg, 1, &rv) == 0 && dh_any_as_str(&rv, &s) == 0 && s.size > 0 &&
      s.size < sizeof text) {
    memcpy(text, s.data, s.size);
    text[s.size] = '\0';
  }
  json_t* pci = text[0] ? dh_cli_info_string(text) : json_null();
  dh_error_clear();
  return json_pack("{s:o, s:n}", "pci_bus_id", pci, "uuid");
}

/* TVM's Vulkan order: a stable sort by device type, discrete, integrated, virtual, cpu,
 * other (apache/tvm 5d4dc87 src/backend/vulkan/runtime/vulkan_device_api.cc:56-76), from the
 * vulkan backend's "device_type" target property. -1 when a device does not say. */
static int vulkan_rank(DLDevice dev) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_target_property(dev, "device_type", &v) != 0 || v.type_index != DH_TYPE_RAW_STR) {
    dh_error_clear();
    return -1;
  }
  static const char* const order[] = {"discrete", "integrated", "virtual", "cpu"};
  for (int i = 0; i < 4; ++i)
    if (strstr(v.v_c_str, order[i])) return i;
  return 4;
}

/* TVM's index of device `id` among `count` devices of backend b, or -1 when unknown:
 * tvm-* backends use TVM's numbering; vulkan is re-sorted as TVM does; others (opencl:
 * TVM keeps only GPUs when there is one, which the backend does not report) unknown. */
static int tvm_index(const dh_backend_t* b, int id, int count) {
  if (strncmp(b->name, "tvm-", 4) == 0) return id;
  if (strcmp(b->name, "vulkan") != 0) return -1;
  int mine = vulkan_rank((DLDevice){(DLDeviceType)b->device_type, id});
  if (mine < 0) return -1;
  int index = 0;
  for (int other = 0; other < count; ++other) {
    if (other == id) continue;
    int r = vulkan_rank((DLDevice){(DLDeviceType)b->device_type, other});
    if (r < 0) return -1;
    if (r < mine || (r == mine && other < id)) index++;
  }
  return index;
}

/* The backend's module functions as tvm-ffi sees them: "<backend>.<name>", its
 * signature from the type schema of its metadata (null when it has none). */
static json_t* functions_json(const dh_backend_t* b) {
  json_t* fns = json_array();
  for (size_t i = 0; i < b->num_functions; i++) {
    char key[256], sig[512];
    snprintf(key, sizeof key, "%s.%s", b->name, b->functions[i].name);
    char* meta = NULL;
    json_t* schema = NULL;
    if (dh_func_get_metadata(key, &meta) == 0 && meta[0] != '\0') {
      json_t* m = json_loads(meta, 0, NULL);
      const char* ts = json_string_value(json_object_get(m, "type_schema"));
      if (ts != NULL && dh_type_schema_format(ts, sig, sizeof sig) == 0) schema = dh_cli_info_string(sig);
      json_decref(m);
    }
    dh_error_clear();
    free(meta);
    json_array_append_new(fns, json_pack("{s:o, s:o}", "name", dh_cli_info_string(key), "signature",
                                         schema ? schema : json_null()));
  }
  return fns;
}

/* Piece 0: what the backend says of itself; init happens here. */
static json_t* backend_piece(const dh_backend_t* b) {
  const char* reason = dh_backend_unavailable_reason(b); /* init first: query_caps (ABI 1.5) */
  json_t* caps = json_array();
  for (size_t i = 0; i < sizeof kCaps / sizeof kCaps[0]; ++i)
    if (dh_device_caps(b) & kCaps[i].bit) json_array_append_new(caps, json_string(kCaps[i].name));
  return json_pack("{s:b, s:o, s:o, s:o}", "available", reason == NULL, "unavailable_reason",
                   dh_cli_info_string(reason), "caps", caps, "functions", functions_json(b));
}

/* The selected devices of backend b: their entries in sel, at most max. */
static size_t devices_of(const dh_backend_t* b, const dh_device_list_t* sel, const dh_device_entry_t** out,
                         size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < sel->count && n < max; ++i)
    if (sel->entries[i].backend == b && sel->entries[i].device.device_id >= 0) out[n++] = &sel->entries[i];
  return n;
}

typedef struct {
  const dh_backend_t* b;
  const dh_device_entry_t** devs;
  size_t ndev;
  int start;
} pieces_job_t;

/* Piece p >= 1: one question of one device. */
static json_t* device_piece(const pieces_job_t* job, int p) {
  const dh_device_entry_t* e = job->devs[(p - 1) / kDevPieces];
  int k = (p - 1) % kDevPieces + 1; /* 1..DH_ATTR_KIND_COUNT-1: attribute kinds */
  if (k < DH_ATTR_KIND_COUNT) {
    dh_any_t v = dh_any_none();
    if (dh_device_get_attr(e->device, (dh_attr_kind_t)k, &v) != 0)
      return json_pack("{s:o}", "error", dh_cli_info_string(dh_error_message()));
    return json_pack("{s:o}", "value", any_to_json(&v));
  }
  if (k == DH_ATTR_KIND_COUNT) return json_pack("{s:o}", "identity", identity_json(e->device));
  int ti = tvm_index(job->b, e->device.device_id, e->device_count);
  return json_pack("{s:o}", "tvm_index", ti >= 0 ? json_integer(ti) : json_null());
}

/* In the child: pieces start.. as JSON lines {"p": N, ...}, each written when known. */
static void pieces_child(void* arg, int fd) {
  const pieces_job_t* job = arg;
  int total = 1 + (int)job->ndev * kDevPieces;
  for (int p = job->start; p < total; ++p) {
    json_t* j = p == 0 ? backend_piece(job->b) : device_piece(job, p);
    json_object_set_new(j, "p", json_integer(p));
    char* line = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (line == NULL || dh_write_all(fd, line, strlen(line)) != 0 || dh_write_all(fd, "\n", 1) != 0) {
      free(line);
      return;
    }
    free(line);
  }
}

/* Reads the complete lines of one child's answer into got[]; returns the last piece
 * answered (start - 1 when none). */
static int take_answers(const dh_child_result_t* r, json_t** got, int total, int start) {
  int last = start - 1;
  size_t at = 0;
  while (r->data && at < r->size) {
    char* nl = memchr(r->data + at, '\n', r->size - at);
    if (nl == NULL) break; /* a line cut by the crash: not an answer */
    json_t* j = json_loadb(r->data + at, (size_t)(nl - (r->data + at)), 0, NULL);
    at = (size_t)(nl - r->data) + 1;
    int p = (int)json_integer_value(json_object_get(j, "p"));
    if (j == NULL || p != last + 1 || p >= total) {
      json_decref(j);
      break;
    }
    got[p] = j;
    last = p;
  }
  return last;
}

/* The failure of piece p as its answer: {"failed": "<note>"} (the child's note and the
 * first line of what it printed, e.g. a sanitizer's report). */
static json_t* failed_piece(const dh_child_result_t* r) {
  char note[512];
  size_t n = strcspn(r->err_tail, "\n");
  if (n > 200) n = 200;
  if (n > 0)
    snprintf(note, sizeof note, "%s (it printed: %.*s)", r->note[0] ? r->note : "gave no answer", (int)n,
             r->err_tail);
  else
    snprintf(note, sizeof note, "%s", r->note[0] ? r->note : "gave no answer");
  return json_pack("{s:o}", "failed", dh_cli_info_string(note));
}

/* Asks every piece of job in children; got[p] is each piece's answer afterwards. */
static void ask_pieces(pieces_job_t* job, json_t** got, int total, int timeout_s) {
  int in_row = 0;
  job->start = 0;
  while (job->start < total) {
    dh_child_result_t r;
    dh_child_run(pieces_child, job, timeout_s, &r);
    int last = take_answers(&r, got, total, job->start);
    if (last == total - 1) {
      free(r.data);
      break;
    }
    in_row = last >= job->start ? 1 : in_row + 1;
    got[last + 1] = failed_piece(&r);
    free(r.data);
    job->start = last + 2;
    if (last + 1 == 0 || in_row >= kMaxFailuresInRow) break; /* init failed, or it fails everywhere */
  }
  for (int p = 0; p < total; ++p)
    if (got[p] == NULL)
      got[p] = json_pack("{s:s}", "failed", in_row >= kMaxFailuresInRow
                                                ? "not asked: the queries before it failed 3 times in a row"
                                                : "not asked: the backend's own query failed");
}

/* One device's object from its pieces. */
static json_t* device_from_pieces(const dh_device_entry_t* e, json_t** got) {
  json_t* d = json_object();
  char spec[64];
  json_object_set_new(d, "spec", json_string(dh_device_format(e->device, spec, sizeof spec)));
  json_object_set_new(d, "id", json_integer(e->device.device_id));
  json_t *attrs = json_object(), *errors = json_object();
  for (int k = 1; k < DH_ATTR_KIND_COUNT; ++k) {
    json_t* g = got[k - 1];
    json_t* v = json_object_get(g, "value");
    if (v != NULL)
      json_object_set(attrs, dh_attr_kind_name(k), v);
    else if (json_object_get(g, "error"))
      json_object_set(errors, dh_attr_kind_name(k), json_object_get(g, "error"));
    else
      json_object_set_new(errors, dh_attr_kind_name(k),
                          json_sprintf("get_attr %s", json_string_value(json_object_get(g, "failed"))));
  }
  json_object_set_new(d, "attributes", attrs);
  json_t* id = json_object_get(got[DH_ATTR_KIND_COUNT - 1], "identity");
  json_object_set_new(d, "identity", id ? json_incref(id) : json_pack("{s:n, s:n}", "pci_bus_id", "uuid"));
  /* Vulkan's api_version is the device's apiVersion packed as VK_MAKE_API_VERSION
   * (variant:3 major:7 minor:10 patch:12 bits): also give it as "major.minor.patch". */
  json_t* api = json_object_get(attrs, "api_version");
  if (e->device.device_type == kDLVulkan && json_is_integer(api)) {
    uint32_t v = (uint32_t)json_integer_value(api);
    char text[48];
    snprintf(text, sizeof text, "%u.%u.%u", (v >> 22) & 0x7Fu, (v >> 12) & 0x3FFu, v & 0xFFFu);
    json_object_set_new(d, "api_version_text", json_string(text));
  }
  json_object_set_new(d, "attribute_errors", errors);
  if (json_object_size(errors) == 0) json_object_del(d, "attribute_errors");
  json_t* ti = json_object_get(got[kDevPieces - 1], "tvm_index");
  json_object_set_new(d, "tvm_index", json_is_integer(ti) ? json_incref(ti) : json_null());
  return d;
}

json_t* dh_cli_info_backend(const dh_backend_t* b, const dh_device_list_t* sel, int timeout_s) {
  const dh_device_entry_t* devs[DH_MAX_DEVICES_PER_BACKEND];
  pieces_job_t job = {b, devs, devices_of(b, sel, devs, DH_MAX_DEVICES_PER_BACKEND), 0};
  int total = 1 + (int)job.ndev * kDevPieces;
  json_t** got = calloc((size_t)total, sizeof *got);
  if (got == NULL) return NULL;
  ask_pieces(&job, got, total, timeout_s);
  json_t* j = json_object();
  json_object_set_new(j, "name", json_string(b->name));
  json_object_set_new(j, "description", dh_cli_info_string(b->description));
  json_object_set_new(j, "device_type", json_integer(b->device_type));
  json_object_set_new(j, "device_type_name", json_string(dh_device_type_name(b->device_type)));
  json_object_set_new(j, "target_kind", dh_cli_info_string(b->target_kind));
  json_t* head = got[0];
  const char* failed = json_string_value(json_object_get(head, "failed"));
  json_object_set(j, "caps", failed ? json_array() : json_object_get(head, "caps"));
  json_object_set_new(j, "raw_twin", b->raw ? dh_cli_info_string(b->raw->api_name) : json_null());
  json_object_set(j, "functions", failed ? json_array() : json_object_get(head, "functions"));
  int available = failed == NULL && json_is_true(json_object_get(head, "available"));
  json_object_set_new(j, "available", json_boolean(available));
  if (failed) {
    char why[600];
    snprintf(why, sizeof why, "info's query of the backend (init, caps, functions) %s", failed);
    json_object_set_new(j, "unavailable_reason", dh_cli_info_string(why));
  } else {
    json_object_set(j, "unavailable_reason", json_object_get(head, "unavailable_reason"));
  }
  for (size_t i = 0; i < sel->count; ++i) /* available, yet no device: its device_count failed */
    if (sel->entries[i].backend == b && sel->entries[i].device.device_id < 0 && failed == NULL &&
        json_is_true(json_object_get(head, "available")) &&
        strncmp(sel->entries[i].reason, "device_count failed", 19) == 0)
      json_object_set_new(j, "device_count_error", dh_cli_info_string(sel->entries[i].reason));
  json_t* devices = json_array();
  for (size_t i = 0; i < job.ndev && !failed; ++i)
    json_array_append_new(devices, device_from_pieces(devs[i], got + 1 + i * kDevPieces));
  json_object_set_new(j, "devices", devices);
  for (int p = 0; p < total; ++p) json_decref(got[p]);
  free(got);
  return j;
}
