/*
 * bench/main.c — `devharness bench`: options, devices, pinning, context, running, and
 * the harness/raw summary (bench/bench.h dh_bench_main).
 */
#include <errno.h>
#include <hwloc.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_internal.h"
#include "devharness/devharness.h"

const char* dh_bench_call_module_path(void);

static const char kUsage[] =
    "usage: devharness bench [--suite LIST] [--device NAME:ID] [--quick] [--out FILE.json]\n"
    "                        [--repetitions N] [--timing auto|host|device]\n"
    "                        [--pin core|node|none]\n"
    "                        [--benchmark_*=...]\n"
    "\n"
    "Microbenchmarks through Google Benchmark, on every device of every loaded backend\n"
    "(or one --device). Each copy/sync/launch benchmark has a raw twin (the backend's\n"
    "vendor API directly) named .../raw/... next to .../harness/...; the summary after the\n"
    "run gives the harness/raw time ratio of every pair.\n"
    "\n"
    "  --suite LIST      comma-separated: call,alloc,copy,sync,launch (default all)\n"
    "  --device SPEC     only this device, e.g. sim:0 (default: every device)\n"
    "  --quick           short min_time and fewer sizes (under a minute here)\n"
    "  --out FILE        Google Benchmark JSON (+ \"devharness_summary\": ratios, CVs)\n"
    "  --repetitions N   repeat each benchmark N times (mean/median/stddev/cv; >= 9 for\n"
    "                    `devharness compare`); N >= 2 runs the repetitions of all\n"
    "                    benchmarks interleaved in random order (undo with\n"
    "                    --benchmark_enable_random_interleaving=false)\n"
    "  --timing MODE     copies: auto or host (default: host clock around copy + sync on\n"
    "                    both sides of every pair) or device (backend events vs the raw\n"
    "                    twin's device timer; not the same span on every API)\n"
    "  --pin MODE        bind the benchmark thread with hwloc: core (default: core 0,\n"
    "                    no device locality is known here), node (NUMA node 0), none\n"
    "  --benchmark_*     passed to Google Benchmark, e.g. --benchmark_filter=copy/h2d\n"
    "                    --benchmark_list_tests=true --benchmark_min_time=0.5\n"
    "\n"
    "Bytes processed count bytes copied once. Exit: 0 ran, 1 nothing matched or output\n"
    "not writable, 2 usage error.\n";

/*--- collected results ---*/
typedef struct res {
  char* name;
  char* agg;
  double ns;
  int error;
} res_t;
static res_t* g_res;
static size_t g_nres, g_capres;

static void on_result(const dh_gb_result_t* r, void* user) {
  (void)user;
  if (g_nres == g_capres) {
    size_t cap = g_capres ? 2 * g_capres : 256;
    res_t* n = realloc(g_res, cap * sizeof *n);
    if (!n) return;
    g_res = n;
    g_capres = cap;
  }
  res_t* x = &g_res[g_nres];
  x->name = strdup(r->name);
  x->agg = strdup(r->aggregate);
  if (!x->name || !x->agg) {
    free(x->name);
    free(x->agg);
    return;
  }
  x->ns = r->real_time_ns;
  x->error = r->error_occurred;
  ++g_nres;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median of the measured (non-aggregate) runs of `name`; NAN when none. */
static double median_ns(const char* name) {
  double v[256];
  size_t n = 0;
  for (size_t i = 0; i < g_nres && n < 256; ++i)
    if (!g_res[i].error && !g_res[i].agg[0] && strcmp(g_res[i].name, name) == 0)
      v[n++] = g_res[i].ns;
  if (!n) return NAN;
  qsort(v, n, sizeof v[0], cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Replaces the first "/harness" path component of name by "/<twin>" ("raw" or
 * "raw_released"). 0 if none. */
static int twin_name(const char* name, const char* twin, char* out, size_t size) {
  const char* p = strstr(name, "/harness");
  if (!p || (p[8] != '/' && p[8] != '\0')) return 0;
  snprintf(out, size, "%.*s/%s%s", (int)(p - name), name, twin, p + 8);
  return 1;
}

/* The copy size of a benchmark name: its last all-digit path component ("copy/h2d/
 * pinned/cuda:0/harness/1048576/manual_time" -> 1048576); -1 when none. */
static long long name_size(const char* name) {
  long long size = -1;
  for (const char* p = name; (p = strchr(p, '/')) != NULL;) {
    ++p;
    size_t n = strspn(p, "0123456789");
    if (n > 0 && (p[n] == '/' || p[n] == '\0')) size = atoll(p);
  }
  return size;
}

/* Host-link ceiling from hwloc's PCI attributes (link speed x width, GB/s): the fastest
 * link of a display / 3D / processing-accelerator PCI function. Devices are not matched
 * to PCI functions (no bus id attribute), so this is the ceiling of "the" GPU link on a
 * one-GPU machine. 0 when hwloc sees none (VMs, no PCI access). */
static double g_host_link_gbps;
/* Device memory peak (bytes/s, reads + writes) per device spec, from the backend's
 * optional DH_FUNC_MEMORY_PEAK_BANDWIDTH; the D2D ceiling (bytes counted once) is half. */
typedef struct dev_peak {
  char spec[64];
  double bytes_per_s; /* 0 = unknown */
  int host_link;      /* a GPU device type: its H2D/D2H ceiling is the host link */
} dev_peak_t;
static dev_peak_t g_peaks[64];
static size_t g_npeaks;

static const dev_peak_t* device_peak(const char* spec) {
  for (size_t i = 0; i < g_npeaks; ++i)
    if (strcmp(g_peaks[i].spec, spec) == 0) return &g_peaks[i];
  return NULL;
}

/* Device types behind a host link (PCI): DLPack's GPU types. OpenCL is one of them,
 * so a CPU OpenCL device (PoCL) on a machine with a GPU is quoted against the GPU's
 * link too (devices are not matched to PCI functions). */
static int is_link_type(int32_t t) {
  return t == kDLCUDA || t == kDLOpenCL || t == kDLVulkan || t == kDLROCM || t == kDLMetal;
}
static char g_host_link_desc[256];

static void find_host_link(void) {
  hwloc_topology_t topo;
  snprintf(g_host_link_desc, sizeof g_host_link_desc, "unknown: hwloc sees no GPU PCI function");
  if (hwloc_topology_init(&topo) != 0) return;
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return;
  }
  for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, NULL); o; o = hwloc_get_next_pcidev(topo, o)) {
    unsigned cls = o->attr->pcidev.class_id >> 8;
    if (cls != 0x03 && cls != 0x12) continue; /* display controller, processing accelerator */
    double gbps = o->attr->pcidev.linkspeed;
    if (gbps > g_host_link_gbps) {
      g_host_link_gbps = gbps;
      snprintf(g_host_link_desc, sizeof g_host_link_desc,
               "%.2f GB/s per direction: hwloc PCI link of %04x:%02x:%02x.%x (vendor %04x "
               "device %04x)",
               gbps, o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
               o->attr->pcidev.func, o->attr->pcidev.vendor_id, o->attr->pcidev.device_id);
    }
  }
  hwloc_topology_destroy(topo);
}

static int seen_before(size_t i) {
  for (size_t j = 0; j < i; ++j)
    if (strcmp(g_res[j].name, g_res[i].name) == 0) return 1;
  return 0;
}

/* Prints the summary and builds its JSON. */
static json_t* summarize(void) {
  json_t* sum = json_object();
  json_t* pairs = json_array();
  json_t* calls = json_object();
  json_t* cvs = json_array();
  printf("\n== devharness summary: harness/raw time ratio (median of runs; < 1 = harness faster)\n");
  int any = 0;
  for (size_t i = 0; i < g_nres; ++i) {
    static const char* const kTwins[] = {"raw", "raw_released"};
    if (g_res[i].agg[0] || seen_before(i)) continue;
    for (size_t t = 0; t < 2; ++t) {
      char twin[512];
      if (!twin_name(g_res[i].name, kTwins[t], twin, sizeof twin)) continue;
      double h = median_ns(g_res[i].name), r = median_ns(twin);
      if (isnan(h) || isnan(r) || r <= 0) continue;
      printf("  %-58s %7.3f  (harness %.3f us, %s %.3f us)%s\n", g_res[i].name, h / r, h * 1e-3,
             kTwins[t], r * 1e-3, h / r < 0.95 ? "  < 0.95: twin defect" : "");
      json_t* p = json_object();
      json_object_set_new(p, "harness", json_string(g_res[i].name));
      json_object_set_new(p, "raw", json_string(twin));
      json_object_set_new(p, "twin", json_string(kTwins[t]));
      json_object_set_new(p, "harness_ns", json_real(h));
      json_object_set_new(p, "raw_ns", json_real(r));
      json_object_set_new(p, "ratio", json_real(h / r));
      json_array_append_new(pairs, p);
      any = 1;
    }
  }
  if (!any) printf("  (no harness/raw pair ran)\n");
  double direct = median_ns("call/direct/3args"), packed = median_ns("call/packed/3args"),
         ffi = median_ns("call/tvm_ffi/3args");
  if (!isnan(packed)) {
    printf("== call: packed/3args %.2f ns", packed);
    json_object_set_new(calls, "packed_3args_ns", json_real(packed));
    if (!isnan(direct) && direct > 0) {
      printf("; packed/direct %.2f", packed / direct);
      json_object_set_new(calls, "packed_over_direct", json_real(packed / direct));
    }
    if (!isnan(ffi) && ffi > 0) {
      printf("; packed/tvm-ffi %.3f", packed / ffi);
      json_object_set_new(calls, "packed_over_tvm_ffi", json_real(packed / ffi));
    } else {
      printf("; tvm-ffi peer skipped");
    }
    printf("\n");
  }
  /* Issue 11's goal: devharness's dispatch adds at most 5 ns or 5 % (the larger) on top
   * of TVMFFIFunctionCall for the same 3-argument call. Two pairs: the same no-op
   * (dh_func_call vs TVMFFIFunctionCall) and the cpu backend's echo (dh_device_call by
   * device and name vs TVMFFIFunctionCall on its handle). */
  const char* pairs3[2][2] = {{"call/packed/3args", "call/tvm_ffi/3args"},
                              {"call/backend/3args", "call/tvm_ffi_backend/3args"}};
  for (int k = 0; k < 2; k++) {
    double a = median_ns(pairs3[k][0]), b = median_ns(pairs3[k][1]);
    if (isnan(a) || isnan(b) || b <= 0) continue;
    double allowed = b * 0.05 > 5.0 ? b * 0.05 : 5.0;
    printf("== dispatch over tvm-ffi: %s %.2f ns - %s %.2f ns = %+.2f ns (%+.1f %%; goal <= %.2f ns): %s\n",
           pairs3[k][0] + 5, a, pairs3[k][1] + 5, b, a - b, 100.0 * (a - b) / b, allowed,
           a - b <= allowed ? "met" : "NOT met");
    char key[64];
    snprintf(key, sizeof key, "%s_over_tvm_ffi_ns", k == 0 ? "packed" : "backend");
    json_object_set_new(calls, key, json_real(a - b));
  }
  int anycv = 0;
  for (size_t i = 0; i < g_nres; ++i) {
    if (strcmp(g_res[i].agg, "cv") != 0 || strncmp(g_res[i].name, "copy/", 5) != 0) continue;
    long long size = name_size(g_res[i].name);
    if (size < (1 << 20)) continue;
    if (!anycv) printf("== coefficient of variation over repetitions, copies >= 1 MiB\n");
    anycv = 1;
    printf("  %-58s %6.2f %%\n", g_res[i].name, 100.0 * g_res[i].ns);
    json_t* c = json_object();
    json_object_set_new(c, "name", json_string(g_res[i].name));
    json_object_set_new(c, "cv", json_real(g_res[i].ns));
    json_array_append_new(cvs, c);
  }
  /* Best harness copy of each direction per device, as % of the ceiling. */
  json_t* best = json_array();
  int anybest = 0;
  static const char* const kDir[] = {"h2d", "d2h", "d2d", "bidir"};
  for (size_t i = 0; i < g_nres; ++i) {
    if (g_res[i].agg[0] || g_res[i].error || strncmp(g_res[i].name, "copy/", 5) != 0 ||
        !strstr(g_res[i].name, "/harness/") || seen_before(i))
      continue;
    /* first result of a (direction, device) group: find the group's best */
    char dir[16], mem[32], spec[96];
    if (sscanf(g_res[i].name, "copy/%15[^/]/%31[^/]/%95[^/]/", dir, mem, spec) != 3) continue;
    int first = 1;
    for (size_t j = 0; j < i && first; ++j) {
      char d2[16], m2[32], s2[96];
      if (!g_res[j].agg[0] && !g_res[j].error && strstr(g_res[j].name, "/harness/") &&
          sscanf(g_res[j].name, "copy/%15[^/]/%31[^/]/%95[^/]/", d2, m2, s2) == 3 &&
          strcmp(d2, dir) == 0 && strcmp(s2, spec) == 0)
        first = 0;
    }
    if (!first) continue;
    double bestbw = 0;
    const char* bestname = NULL;
    for (size_t j = i; j < g_nres; ++j) {
      char d2[16], m2[32], s2[96];
      if (g_res[j].agg[0] || g_res[j].error || !strstr(g_res[j].name, "/harness/") ||
          sscanf(g_res[j].name, "copy/%15[^/]/%31[^/]/%95[^/]/", d2, m2, s2) != 3 ||
          strcmp(d2, dir) != 0 || strcmp(s2, spec) != 0)
        continue;
      double med = median_ns(g_res[j].name);
      long long sz = name_size(g_res[j].name);
      if (isnan(med) || med <= 0 || sz <= 0) continue;
      double bw = (double)sz * (strcmp(dir, "bidir") == 0 ? 2 : 1) / med; /* GB/s */
      if (bw > bestbw) {
        bestbw = bw;
        bestname = g_res[j].name;
      }
    }
    if (!bestname) continue;
    const dev_peak_t* pk = device_peak(spec);
    int is_link = strcmp(dir, "d2d") != 0 && pk && pk->host_link;
    double ceil = is_link ? g_host_link_gbps * (strcmp(dir, "bidir") == 0 ? 2 : 1)
                  : strcmp(dir, "d2d") == 0 && pk ? pk->bytes_per_s / 1e9 / 2 : 0;
    const char* ceil_what = is_link ? "host link (hwloc PCI)"
                                    : "device memory peak / 2 (a copy reads and writes)";
    if (!anybest) printf("== best copy per direction (harness, median), %% of the ceiling\n");
    anybest = 1;
    if (ceil > 0)
      printf("  %-6s %-12s %9.2f GB/s  %5.1f %% of %.1f GB/s, %s  (%s)\n", dir, spec, bestbw,
             100 * bestbw / ceil, ceil, ceil_what, bestname);
    else
      printf("  %-6s %-12s %9.2f GB/s  ceiling unknown  (%s)\n", dir, spec, bestbw, bestname);
    json_t* b = json_object();
    json_object_set_new(b, "direction", json_string(dir));
    json_object_set_new(b, "device", json_string(spec));
    json_object_set_new(b, "benchmark", json_string(bestname));
    json_object_set_new(b, "GBps", json_real(bestbw));
    if (ceil > 0) {
      json_object_set_new(b, "ceiling_GBps", json_real(ceil));
      json_object_set_new(b, "ceiling", json_string(ceil_what));
      json_object_set_new(b, "percent_of_ceiling", json_real(100 * bestbw / ceil));
    }
    json_array_append_new(best, b);
  }
  (void)kDir;
  json_object_set_new(sum, "best_copy", best);
  json_object_set_new(sum, "harness_raw_pairs", pairs);
  json_object_set_new(sum, "call", calls);
  json_object_set_new(sum, "copy_cv", cvs);
  json_object_set_new(sum, "bytes_processed",
                      json_string("bytes copied, counted once (not read + written)"));
  return sum;
}

/*--- pinning ---*/
static void pin(const char* mode, char* desc, size_t size) {
  if (strcmp(mode, "none") == 0) {
    snprintf(desc, size, "not pinned (--pin none)");
    return;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(desc, size, "not pinned: hwloc topology failed");
    return;
  }
  hwloc_obj_t obj = NULL;
  const char* what = "core 0";
  if (strcmp(mode, "node") == 0) {
    obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
    what = "NUMA node 0";
  } else {
    obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, 0);
    if (!obj) obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
  }
  if (!obj || hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    snprintf(desc, size, "not pinned: hwloc_set_cpubind(%s) failed: %s", what, strerror(errno));
  } else {
    char set[128];
    hwloc_bitmap_list_snprintf(set, sizeof set, obj->cpuset);
    snprintf(desc, size,
             "benchmark thread bound with hwloc to %s (PUs %s); device locality unknown, so "
             "the default; backend threads created at init are not bound",
             what, set);
  }
  hwloc_topology_destroy(topo);
}

static const char* attr_str(DLDevice dev, dh_attr_kind_t k) {
  dh_any_t v = dh_any_none();
  if (dh_device_get_attr(dev, k, &v) != 0) return "?";
  if (v.type_index == DH_TYPE_RAW_STR && v.v_c_str) return v.v_c_str;
  return "n/a";
}

static int has_suite(const char* list, const char* s) {
  if (!list) return 1;
  size_t n = strlen(s);
  for (const char* p = list; *p;) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, s, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int dh_bench_main(int argc, char** argv) {
  const char* suites = NULL;
  const char* device = NULL;
  const char* out = NULL;
  const char* pin_mode = "core";
  const char* timing = "auto";
  int quick = 0, reps = 0;
  char** gb = calloc((size_t)argc + 8, sizeof *gb);
  if (!gb) return 2;
  int ngb = 0;
  gb[ngb++] = argc > 0 ? argv[0] : "bench";
  /* Defaults first, so the user's --benchmark_* flags (parsed later) win. */
  int min_time_at = ngb++;
  int warmup_at = ngb++;
  int reps_at = ngb++;
  int interleave_at = ngb++;
  gb[reps_at] = "--benchmark_repetitions=1";
  gb[interleave_at] = "--benchmark_enable_random_interleaving=false";
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* rep_text = NULL;
    int took = 0;
#define VALUE(opt, var)                                                          \
  if (!took && strcmp(a, opt) == 0) {                                            \
    if (i + 1 >= argc) {                                                         \
      fprintf(stderr, "devharness bench: %s needs a value\n%s", opt, kUsage);  \
      free(gb);                                                                  \
      return 2;                                                                  \
    }                                                                            \
    var = argv[++i];                                                             \
    took = 1;                                                                    \
  }                                                                              \
  if (!took && strncmp(a, opt "=", sizeof opt) == 0) {                           \
    var = a + sizeof opt;                                                        \
    took = 1;                                                                    \
  }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(kUsage, stdout);
      free(gb);
      return 0;
    }
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
      continue;
    }
    VALUE("--suite", suites)
    VALUE("--device", device)
    VALUE("--out", out)
    VALUE("--pin", pin_mode)
    VALUE("--timing", timing)
    VALUE("--repetitions", rep_text)
    if (rep_text) {
      char* end;
      long r = strtol(rep_text, &end, 10);
      if (!*rep_text || *end || r < 1 || r > 1000) {
        fprintf(stderr, "devharness bench: --repetitions wants an integer 1..1000, got '%s'\n",
                rep_text);
        free(gb);
        return 2;
      }
      reps = (int)r;
    }
    if (took) continue;
    if (strncmp(a, "--benchmark_", 12) == 0) {
      gb[ngb++] = argv[i];
      continue;
    }
    fprintf(stderr, "devharness bench: unknown option '%s'\n%s", a, kUsage);
    free(gb);
    return 2;
#undef VALUE
  }
  static const char* const kSuites[] = {"call", "alloc", "copy", "sync", "launch"};
  if (suites) {
    for (const char* p = suites; *p;) {
      const char* e = strchr(p, ',');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      int ok = 0;
      for (size_t k = 0; k < 5; ++k)
        if (strlen(kSuites[k]) == len && strncmp(p, kSuites[k], len) == 0) ok = 1;
      if (!ok) {
        fprintf(stderr, "devharness bench: --suite: unknown suite '%.*s' (known: call, alloc, "
                        "copy, sync, launch)\n", (int)len, p);
        free(gb);
        return 2;
      }
      if (!e) break;
      p = e + 1;
    }
  }
  if (strcmp(timing, "auto") && strcmp(timing, "host") && strcmp(timing, "device")) {
    fprintf(stderr, "devharness bench: --timing wants auto, host or device, got '%s'\n", timing);
    free(gb);
    return 2;
  }
  if (strcmp(pin_mode, "core") && strcmp(pin_mode, "node") && strcmp(pin_mode, "none")) {
    fprintf(stderr, "devharness bench: --pin wants core, node or none, got '%s'\n", pin_mode);
    free(gb);
    return 2;
  }
  gb[min_time_at] = quick ? "--benchmark_min_time=0.01" : "--benchmark_min_time=0.1";
  gb[warmup_at] = quick ? "--benchmark_min_warmup_time=0.002" : "--benchmark_min_warmup_time=0.02";
  char reps_flag[64];
  snprintf(reps_flag, sizeof reps_flag, "--benchmark_repetitions=%d", reps > 0 ? reps : 1);
  gb[reps_at] = reps_flag;
  /* With repetitions, interleave them (Google Benchmark shuffles the repetitions of all
   * selected benchmarks together), so a harness benchmark and its raw twin see the same
   * load drift and their ratio is not skewed by it; --benchmark_enable_random_interleaving
   * given by the user wins (it comes later). */
  const char* order = "single repetition";
  if (reps >= 2) {
    gb[interleave_at] = "--benchmark_enable_random_interleaving=true";
    order = "interleaved: the repetitions of all benchmarks run in one random order";
  }
  for (int k = interleave_at + 1; k < ngb; ++k)
    if (strncmp(gb[k], "--benchmark_enable_random_interleaving", 38) == 0)
      order = gb[k]; /* the user's flag, as given */
  char* out_flag = NULL;
  if (out) {
    size_t n = strlen(out) + 32;
    out_flag = malloc(n);
    if (!out_flag) {
      free(gb);
      return 2;
    }
    snprintf(out_flag, n, "--benchmark_out=%s", out);
    gb[ngb++] = out_flag;
    gb[ngb++] = "--benchmark_out_format=json";
  }
  gb[ngb] = NULL;

  /* Executable folder. */
  char exe[PATH_MAX] = ".";
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = '\0';
    char* slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
  } else {
    snprintf(exe, sizeof exe, ".");
  }

  /* Backends and devices (inits every backend, before pinning: their threads stay free). */
  dh_plugins_load_default();
  for (size_t i = 0; i < dh_plugin_refusal_count(); ++i)
    fprintf(stderr, "devharness bench: plugin refused: %s\n", dh_plugin_refusal(i));
  size_t cap = 16, ndev = 0;
  dh_bench_device_t* devs = calloc(cap, sizeof *devs);
  int rc = 2;
  if (!devs) goto done;
  int want_devices = has_suite(suites, "alloc") || has_suite(suites, "copy") ||
                     has_suite(suites, "sync") || has_suite(suites, "launch");
  if (device && want_devices) {
    DLDevice d;
    const dh_backend_t* be;
    if (dh_device_parse(device, &d, &be) != 0) {
      fprintf(stderr, "devharness bench: --device %s: %s: %s\n", device, dh_error_kind(),
              dh_error_message());
      goto done;
    }
    devs[0].dev = d;
    devs[0].backend = be;
    dh_device_format(d, devs[0].spec, sizeof devs[0].spec);
    ndev = 1;
  } else if (want_devices) {
    for (size_t b = 0; b < dh_backend_count(); ++b) {
      const dh_backend_t* be = dh_backend_at(b);
      int n = 0;
      if (dh_backend_device_count(be, &n) != 0) n = 0;
      const char* why = dh_backend_unavailable_reason(be);
      if (n == 0) {
        char key[128];
        snprintf(key, sizeof key, "backend.%s", be->name);
        char val[512];
        snprintf(val, sizeof val, "no devices: %s", why ? why : "unknown reason");
        dh_gb_add_context(key, val);
        fprintf(stderr, "devharness bench: backend %s: %s\n", be->name, val);
      }
      for (int id = 0; id < n; ++id) {
        if (ndev == cap) {
          dh_bench_device_t* nd = realloc(devs, 2 * cap * sizeof *nd);
          if (!nd) goto done;
          devs = nd;
          cap *= 2;
        }
        devs[ndev].dev.device_type = be->device_type;
        devs[ndev].dev.device_id = id;
        devs[ndev].backend = be;
        dh_device_format(devs[ndev].dev, devs[ndev].spec, sizeof devs[ndev].spec);
        ++ndev;
      }
    }
  }
  for (size_t i = 0; i < ndev; ++i) {
    char key[128], val[1024];
    snprintf(key, sizeof key, "device.%s", devs[i].spec);
    snprintf(val, sizeof val,
             "backend=%s; name=%s; driver=%s; target=%s; timing=%s; raw_twin=%s", 
             devs[i].backend->name, attr_str(devs[i].dev, DH_ATTR_DEVICE_NAME),
             attr_str(devs[i].dev, DH_ATTR_DRIVER_VERSION),
             devs[i].backend->target_kind ? devs[i].backend->target_kind : "none",
             (devs[i].backend->caps & DH_CAP_EVENT_TIMING) ? "device events (copies)"
                                                           : "host clock",
             devs[i].backend->raw && devs[i].backend->raw->api_name ? devs[i].backend->raw->api_name
                                                                  : "none");
    dh_gb_add_context(key, val);
    /* Device memory ceiling, where the backend reports it. */
    dh_any_t arg = dh_any_device(devs[i].dev), rv = dh_any_none();
    dev_peak_t* pk = g_npeaks < 64 ? &g_peaks[g_npeaks++] : NULL;
    if (pk) {
      snprintf(pk->spec, sizeof pk->spec, "%s", devs[i].spec);
      pk->host_link = is_link_type(devs[i].dev.device_type);
    }
    if (pk && dh_device_call(devs[i].dev, DH_FUNC_MEMORY_PEAK_BANDWIDTH, &arg, 1, &rv) == 0 &&
        rv.type_index == DH_TYPE_FLOAT && rv.v_float64 > 0) {
      pk->bytes_per_s = rv.v_float64;
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

  /* Backends may start a device's default-stream worker lazily: start them now, before
   * pinning, so they do not inherit the benchmark thread's binding. */
  for (size_t i = 0; i < ndev; ++i)
    if (dh_device_stream_sync(devs[i].dev, NULL) != 0) dh_error_clear();
  int host_timing = strcmp(timing, "device") != 0;
  dh_gb_add_context("devharness.timing",
                    host_timing
                        ? "host clock around copy + sync on both sides of every pair (--timing "
                          "auto/host): device events and the twins' device timers do not bracket "
                          "the same span on every API (docs/benchmarks.md)"
                        : "copies: device events (harness) vs raw twin device timers where "
                          "available (--timing device; not like for like on every API), else "
                          "host clock; sync, launch: host clock");
  {
    char v[256];
    snprintf(v, sizeof v,
             "every copy buffer (host, pinned, device; harness and twin) %d-byte aligned: source "
             "and destination at relative offset 0 mod 4096 on both sides",
             DH_BENCH_BUFFER_ALIGN);
    dh_gb_add_context("devharness.buffer_alignment", v);
    snprintf(v, sizeof v,
             "buffers and twin contexts kept for the whole run (up to %zu MiB, then least "
             "recently used released), every buffer written before timing, one untimed copy "
             "before each repetition's timed loop",
             dh_bench_cache_budget() >> 20);
    dh_gb_add_context("devharness.buffers", v);
  }
  dh_gb_add_context("devharness.helper_threads",
                    "backend default-stream workers started before pinning; streams and raw twin "
                    "contexts created with the binding widened to all PUs (placed alike)");
  find_host_link();
  dh_gb_add_context("ceiling.host_link", g_host_link_desc);

  char pindesc[512];
  pin(pin_mode, pindesc, sizeof pindesc);
  dh_gb_add_context("devharness.pinning", pindesc);
  dh_gb_add_context("devharness.version", DH_VERSION_STRING);
  dh_gb_add_context("devharness.bytes_processed", "bytes copied, counted once");
  dh_gb_add_context("devharness.mode", quick ? "quick" : "full");
  dh_gb_add_context("devharness.repetition_order", order);

  dh_gb_initialize(&ngb, gb);
  if (ngb > 1) {
    fprintf(stderr, "devharness bench: Google Benchmark does not know '%s'\n", gb[1]);
    goto done;
  }

  dh_bench_opts_t o = {quick, reps, devs, ndev, exe, host_timing};
  int (*const fns[5])(const dh_bench_opts_t*) = {dh_bench_suite_call, dh_bench_suite_alloc,
                                                 dh_bench_suite_copy, dh_bench_suite_sync,
                                                 dh_bench_suite_launch};
  for (size_t k = 0; k < 5; ++k) {
    if (!has_suite(suites, kSuites[k])) continue;
    if (fns[k](&o) < 0) {
      fprintf(stderr, "devharness bench: suite %s: %s: %s\n", kSuites[k], dh_error_kind(),
              dh_error_message());
      rc = 1;
      goto done;
    }
  }
  if (has_suite(suites, "call")) {
    const char* fp = dh_bench_ffi_peer_path();
    dh_gb_add_context("tvm_ffi.library", fp[0] ? fp : "not loaded (call/tvm_ffi skipped)");
    if (dh_bench_ffi_peer_version()[0])
      dh_gb_add_context("tvm_ffi.version", dh_bench_ffi_peer_version());
    const char* mp = dh_bench_call_module_path();
    dh_gb_add_context("devharness.call_module", mp[0] ? mp : "not loaded");
  }

  long matched = dh_gb_run_specified(on_result, NULL);
  dh_bench_cache_release();
  if (matched < 0) {
    rc = 1;
    goto done;
  }
  if (matched == 0) {
    fprintf(stderr, "devharness bench: no benchmark matched\n");
    rc = 1;
    goto done;
  }
  json_t* sum = summarize();
  rc = 0;
  if (out) {
    json_error_t err;
    json_t* root = json_load_file(out, 0, &err);
    if (!root) {
      /* e.g. a NaN Google Benchmark wrote: keep its file, put the summary beside it. */
      char side[PATH_MAX + 16];
      snprintf(side, sizeof side, "%s.summary.json", out);
      fprintf(stderr,
              "devharness bench: cannot parse %s back (%s, line %d); summary written to %s\n",
              out, err.text, err.line, side);
      if (json_dump_file(sum, side, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "devharness bench: cannot write %s\n", side);
        rc = 1;
      }
    } else {
      json_object_set(root, "devharness_summary", sum);
      if (json_dump_file(root, out, JSON_INDENT(2)) != 0) {
        fprintf(stderr, "devharness bench: cannot write %s: %s\n", out, strerror(errno));
        rc = 1;
      }
      json_decref(root);
    }
  }
  json_decref(sum);
  fflush(stdout);
done:
  dh_bench_free_all();
  for (size_t i = 0; i < g_nres; ++i) {
    free(g_res[i].name);
    free(g_res[i].agg);
  }
  free(g_res);
  g_res = NULL;
  g_nres = g_capres = 0;
  free(devs);
  free(out_flag);
  free(gb);
  return rc;
}
