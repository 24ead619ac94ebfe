/*
 * runtime/device_spec.c — device specs "NAME:ID" (devharness/device_api.h "Device specs"):
 * the one parser of them, for the runtime, the command and the conformance runner.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "base/text.h"

int dh_device_spec_split(const char* spec, char* name, size_t name_size, int32_t* out_id) {
  if (spec == NULL) return dh_error_set(DH_KIND_PARSE_ERROR, "device spec is NULL (expected NAME:ID, e.g. sim:0)");
  if (spec[0] == '\0') return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '' is empty (expected NAME:ID, e.g. sim:0)");
  char shown[DH_TEXT_BUF], id_shown[DH_TEXT_BUF]; /* user text as messages show it */
  dh_text_quote(spec, shown, sizeof shown);
  const char* colon = strchr(spec, ':');
  if (colon == NULL)
    return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': missing ':' (expected NAME:ID, e.g. sim:0)", shown);
  if (colon == spec) return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': empty backend name before ':'", shown);
  const char* id = colon + 1;
  if (strchr(id, ':') != NULL)
    return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': more than one ':' (expected NAME:ID, e.g. sim:0)", shown);
  dh_text_quote(id, id_shown, sizeof id_shown);
  if (*id == '\0') return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': missing device id after ':'", shown);
  long long v = 0;
  for (const char* p = id; *p; p++) {
    if (*p < '0' || *p > '9')
      return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': device id '%s' is not a non-negative decimal integer",
                          shown, id_shown);
    v = v * 10 + (*p - '0');
    if (v > INT32_MAX)
      return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': device id '%s' is too large (max %d)", shown, id_shown,
                          INT32_MAX);
  }
  size_t nlen = (size_t)(colon - spec);
  if (name == NULL || nlen >= name_size)
    return dh_error_set(DH_KIND_PARSE_ERROR, "device spec '%s': backend name longer than %zu bytes", shown,
                        name_size ? name_size - 1 : 0);
  memcpy(name, spec, nlen);
  name[nlen] = '\0';
  if (out_id) *out_id = (int32_t)v;
  return 0;
}

int dh_device_parse(const char* spec, DLDevice* out_device, const dh_backend_t** out_backend) {
  if (out_backend) *out_backend = NULL;
  char name[DH_DEVICE_NAME_MAX];
  int32_t id = 0;
  if (dh_device_spec_split(spec, name, sizeof name, &id) != 0) return -1;
  char shown[DH_TEXT_BUF];
  dh_text_quote(spec, shown, sizeof shown);
  const dh_backend_t* b;
  if (dh_device_api_get(name, &b) != 0) return dh_error_prefix("device spec '%s'", shown);
  DLDevice dev = {(DLDeviceType)b->device_type, id};
  int count = 0;
  if (dh_backend_device_count(b, &count) != 0) return dh_error_prefix("device spec '%s'", shown);
  dh_any_t exist = dh_any_int(0);
  if (dh_device_get_attr(dev, DH_ATTR_EXIST, &exist) != 0) return dh_error_prefix("device spec '%s'", shown);
  if (exist.v_int64 == 0) {
    const char* why = dh_backend_unavailable_reason(b);
    return dh_error_set(DH_KIND_INDEX_ERROR, "device spec '%s': backend %s has no device %lld (%d device%s%s%s)", shown,
                        name, (long long)id, count, count == 1 ? "" : "s", why ? ": " : "", why ? why : "");
  }
  if (out_device) *out_device = dev;
  if (out_backend) *out_backend = b;
  return 0;
}
