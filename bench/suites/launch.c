/*
 * bench/suites/launch.c — the launch suite (host clock; manual time):
 *   launch/throughput/<spec>/{harness,raw}  DH_LAUNCH_BATCH empty-kernel launches, then
 *        one sync; harness = packed calls (dh_func_call, i.e. TVMFFIFunctionCall) of the
 *        backend's "<backend>.noop" with (Device dev), the Function fetched once per
 *        benchmark call from tvm-ffi's global table, as TVM's compiled host code
 *        calls a kernel: the handle is fetched on first use and kept (apache/tvm
 *        v0.27.0 src/target/llvm/codegen_cpu.cc CodeGenCPU::GetPackedFuncHandle);
 *        then dh_device_stream_sync. What the by-name dispatch of dh_device_call would
 *        add per launch is measured by call/backend/3args (bench/suites/call.c;
 *        docs/benchmarks.md "What is measured").
 *        raw = the twin's DH_RAW_LAUNCH with repeat = DH_LAUNCH_BATCH. Time is per
 *        batch; items_per_second = launches per second; counter us_per_launch.
 *   launch/roundtrip/<spec>/{harness,raw}   one launch + sync per iteration.
 */
#include <stdio.h>

#include "bench/measure/timer.h"
#include "bench/suites/suites.h"
#include "devharness/device_api.h"
#include "devharness/error.h"
#include "devharness/function.h"

#define DH_LAUNCH_BATCH 64

typedef struct launch_ctx {
  const dh_bench_device_t* d;
  int batch; /* launches per iteration */
  int raw;
} launch_ctx_t;

static void bm_launch(dh_gb_state_t* st, void* user) {
  const launch_ctx_t* x = user;
  const dh_bench_device_t* d = x->d;
  double total = 0;
  if (x->raw) {
    const dh_raw_context_t* ctx = dh_bench_raw_ctx(x, d, DH_RAW_LAUNCH, 0, 0);
    if (!ctx) {
      dh_bench_skip_error(st, "raw twin setup");
      return;
    }
    while (dh_gb_keep_running(st)) {
      double t0 = dh_bench_now();
      if (dh_device_raw_run(ctx, (uint32_t)x->batch, NULL) != 0) {
        dh_bench_skip_error(st, "raw twin run");
        return;
      }
      double s = dh_bench_now() - t0;
      total += s;
      dh_gb_set_iteration_time(st, s);
    }
  } else {
    dh_any_t arg = dh_any_device(d->dev), rv;
    char key[96];
    snprintf(key, sizeof key, "%s.%s", d->backend->name, DH_FUNC_NOOP);
    dh_function_t fn = {NULL};
    if (dh_func_get(key, &fn) != 0) {
      dh_bench_skip_error(st, "noop lookup");
      return;
    }
    while (dh_gb_keep_running(st)) {
      double t0 = dh_bench_now();
      for (int i = 0; i < x->batch; ++i)
        if (dh_func_call(&fn, &arg, 1, &rv) != 0) {
          dh_func_release(&fn);
          dh_bench_skip_error(st, "noop launch");
          return;
        }
      if (dh_device_stream_sync(d->dev, NULL) != 0) {
        dh_func_release(&fn);
        dh_bench_skip_error(st, "stream_sync");
        return;
      }
      double s = dh_bench_now() - t0;
      total += s;
      dh_gb_set_iteration_time(st, s);
    }
    dh_func_release(&fn);
  }
  int64_t it = dh_gb_iterations(st);
  dh_gb_set_items_processed(st, it * x->batch);
  if (it > 0) dh_gb_counter(st, "us_per_launch", total * 1e6 / ((double)it * x->batch), 0);
  dh_gb_set_label(st, x->batch > 1 ? "64 launches + 1 sync; host clock" : "launch + sync; host clock");
}

int dh_bench_suite_launch(const dh_bench_opts_t* o) {
  int count = 0;
  for (size_t i = 0; i < o->num_devices; ++i) {
    const dh_bench_device_t* d = &o->devices[i];
    for (int k = 0; k < 2; ++k) {
      for (int raw = 0; raw <= 1; ++raw) {
        if (raw && !d->backend->raw) continue;
        launch_ctx_t ctx = {d, k == 0 ? DH_LAUNCH_BATCH : 1, raw};
        launch_ctx_t* x = dh_bench_keep_copy(&ctx, sizeof ctx);
        char name[128];
        snprintf(name, sizeof name, "launch/%s/%s/%s", k == 0 ? "throughput" : "roundtrip",
                 d->spec, raw ? "raw" : "harness");
        if (!x || !dh_bench_register_timed(name, bm_launch, x, o)) return -1;
        ++count;
      }
    }
  }
  return count;
}
