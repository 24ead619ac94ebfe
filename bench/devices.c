/*
 * bench/devices.c — the devices a benchmark run measures (bench/steps.h): which ones, and
 * what the run's context says about each, their ceilings (machine/ceilings.h) included.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/report/expect.h"
#include "bench/report/summary.h"
#include "bench/steps.h"
#include "bench/suites/suites.h"
#include "cmdline/cmdline.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "machine/ceilings.h"

/* A string attribute of dev for the context: "?" when it cannot be read, "n/a" when it
 * is not a string. */
static const char* attr_str(DLDevice dev, dh_attr_kind_t k) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_attr(dev, k, &v) != 0) return "?";
  if (v.type_index == DH_TYPE_RAW_STR && v.v_c_str) return v.v_c_str;
  return "n/a";
}

int dh_bench_find_devices(const char* suites, const char* spec, dh_bench_device_t** devs,
                          size_t* ndev) {
  *ndev = 0;
  if (!dh_bench_suites_need_devices(suites)) return (*devs = calloc(1, sizeof **devs)) ? 0 : DH_EXIT_USAGE;
  dh_device_list_t sel;
  dh_device_select_params_t params = {.spec = spec};
  if (dh_cmdline_select_devices("bench", &params, &sel) != DH_EXIT_OK) return DH_EXIT_USAGE;
  if (!(*devs = calloc(sel.count + 1, sizeof **devs))) {
    dh_device_list_free(&sel);
    return DH_EXIT_USAGE;
  }
  for (size_t i = 0; i < sel.count; ++i) {
    const dh_device_entry_t* e = &sel.entries[i];
    if (e->device.device_id < 0) {
      char key[128], val[600];
      snprintf(key, sizeof key, "backend.%s", e->backend->name);
      snprintf(val, sizeof val, "no devices: %s", e->reason[0] ? e->reason : "unknown reason");
      dh_gb_add_context(key, val);
      fprintf(stderr, "devharness bench: backend %s: %s\n", e->backend->name, val);
      continue;
    }
    dh_bench_device_t* d = &(*devs)[(*ndev)++];
    d->dev = e->device;
    d->backend = e->backend;
    dh_device_format(d->dev, d->spec, sizeof d->spec);
  }
  dh_device_list_free(&sel);
  if (spec != NULL && *ndev == 0) { /* the named device's backend has none */
    fprintf(stderr, "devharness bench: --device %s: NO DEVICE; nothing was measured\n", dh_cmdline_quote(spec));
    return DH_EXIT_NO_DEVICE;
  }
  return 0;
}

void dh_bench_describe_devices(const dh_bench_device_t* devs, size_t ndev) {
  for (size_t i = 0; i < ndev; ++i) {
    char key[128], val[1024];
    snprintf(key, sizeof key, "device.%s", devs[i].spec);
    snprintf(val, sizeof val,
             "backend=%s; name=%s; driver=%s; target=%s; timing=%s; raw_twin=%s", 
             devs[i].backend->name, attr_str(devs[i].dev, DH_ATTR_DEVICE_NAME),
             attr_str(devs[i].dev, DH_ATTR_DRIVER_VERSION),
             devs[i].backend->target_kind ? devs[i].backend->target_kind : "none",
             (dh_device_caps(devs[i].backend) & DH_CAP_EVENT_TIMING) ? "device events (copies)"
                                                           : "host clock",
             devs[i].backend->raw && devs[i].backend->raw->api_name ? devs[i].backend->raw->api_name
                                                                  : "none");
    dh_gb_add_context(key, val);
    dh_any_t arg = dh_any_device(devs[i].dev), rv = dh_any_none();
    if (dh_device_call(devs[i].dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH, &arg, 1, &rv) == 0 &&
        rv.type_index == DH_TYPE_FLOAT && rv.v_float64 > 0) {
      snprintf(key, sizeof key, "ceiling.%s.device_memory", devs[i].spec);
      snprintf(val, sizeof val,
               "%.1f GB/s reads + writes (%s.%s: memory clock x 2 x bus width / 8); D2D with "
               "bytes counted once peaks at half",
               rv.v_float64 / 1e9, devs[i].backend->name, DH_FUNC_MEMORY_PEAK_BANDWIDTH);
      dh_gb_add_context(key, val);
    } else {
      dh_error_clear();
    }
  }
}

void dh_bench_find_ceilings(const dh_bench_device_t* devs, size_t ndev) {
  for (size_t i = 0; i < ndev; ++i) {
    const dh_bench_device_t* d = &devs[i];
    const char* source = NULL;
    double memory = dh_bench_expect_memory_gbps(d->dev.device_type, &source);
    char key[128], val[640];
    dh_machine_device_ceilings(d, memory, source, val, sizeof val);
    if (val[0]) {
      snprintf(key, sizeof key, "ceiling.%s.host_link", d->spec);
      dh_gb_add_context(key, val);
    }
    for (int k = 0; k < DH_MACHINE_DIR_COUNT; ++k) {
      const dh_machine_ceiling_t* c = dh_machine_ceiling_get(d->spec, k);
      snprintf(key, sizeof key, "ceiling.%s.%s", d->spec, dh_machine_dir_name(k));
      if (c->gbps > 0) snprintf(val, sizeof val, "%.2f GB/s: %s", c->gbps, c->what);
      else snprintf(val, sizeof val, "%s", c->what);
      dh_gb_add_context(key, val);
    }
  }
}
