/*
 * bench/suites/alloc.c — the alloc suite: dh_device_alloc_data_space +
 * dh_device_free_data_space latency by size, alloc/<spec>/<bytes>, 64 B to 256 MiB in x4
 * steps (quick: 64 B, 64 KiB, 16 MiB). Host clock; one iteration = one alloc + one free
 * (the memory is not touched, so lazily-committing allocators look cheap at large
 * sizes).
 */
#include <stdio.h>

#include "bench/measure/measure.h"
#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"

static void bm_alloc(dh_gb_state_t* st, void* user) {
  const dh_bench_device_t* d = user;
  size_t n = (size_t)dh_gb_range(st, 0);
  DLDataType u8 = {kDLUInt, 8, 1};
  while (dh_gb_keep_running(st)) {
    void* p = NULL;
    if (dh_device_alloc_data_space(d->dev, n, 0, u8, &p) != 0) {
      dh_bench_skip_error(st, "alloc_data_space");
      return;
    }
    if (dh_device_free_data_space(d->dev, p) != 0) {
      dh_bench_skip_error(st, "free_data_space");
      return;
    }
  }
  dh_gb_set_items_processed(st, dh_gb_iterations(st));
  dh_gb_set_label(st, "alloc+free; host clock");
}

int dh_bench_suite_alloc(const dh_bench_opts_t* o) {
  static const int64_t kQuick[] = {64, 64 << 10, 16 << 20};
  int count = 0;
  for (size_t i = 0; i < o->num_devices; ++i) {
    const dh_bench_device_t* d = &o->devices[i];
    char name[128];
    snprintf(name, sizeof name, "alloc/%s", d->spec);
    dh_gb_bench_t* b = dh_bench_register(name, bm_alloc, (void*)d, o, DH_GB_US);
    if (!b) return -1;
    if (o->quick) {
      for (size_t s = 0; s < sizeof kQuick / sizeof kQuick[0]; ++s) dh_gb_bench_arg(b, kQuick[s]);
    } else {
      for (int64_t s = 64; s <= ((int64_t)256 << 20); s *= 4) dh_gb_bench_arg(b, s);
    }
    ++count;
  }
  return count;
}
