/*
 * machine/health_nvml.c — NVIDIA GPU telemetry for the health snapshots (machine/health.h):
 * NVML (libnvidia-ml.so.1, the driver's management library) dlopen'd at run time the
 * way the cuda backend dlopens libcuda.so.1, never linked; $DEVHARNESS_NVML_LIB names
 * another file (the tests' fake, tests/machine/fake_nvml.c). The few entry points used
 * are declared here by their documented C ABI (NVML API Reference, nvml.h of CUDA 12:
 * nvmlReturn_t is an int enum, 0 = NVML_SUCCESS; nvmlDevice_t an opaque pointer).
 * Loaded and initialised once per process (nvmlInit_v2 is reference counted; the
 * library stays loaded until exit).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"

typedef struct nvml_device_st* nvml_device_t;
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static struct {
  int tried, ok;
  char why[384];
  int (*init)(void);
  int (*count)(unsigned*);
  int (*handle)(unsigned, nvml_device_t*);
  int (*name)(nvml_device_t, char*, unsigned);
  int (*clock)(nvml_device_t, int, unsigned*);
  int (*temperature)(nvml_device_t, int, unsigned*);
  int (*power)(nvml_device_t, unsigned*);
  int (*reasons)(nvml_device_t, unsigned long long*);
  int (*version)(char*, unsigned);
  const char* (*error)(int);
  char path[256], version_text[80];
} g_nvml;

/* nvmlClocksThrottleReason* / nvmlClocksEventReason* bits of nvml.h (CUDA 12). */
static const struct {
  unsigned long long bit;
  const char* name;
} kReasons[] = {{0x1ULL, "gpu_idle"},           {0x2ULL, "applications_clocks_setting"},
                {0x4ULL, "sw_power_cap"},       {0x8ULL, "hw_slowdown"},
                {0x10ULL, "sync_boost"},        {0x20ULL, "sw_thermal_slowdown"},
                {0x40ULL, "hw_thermal_slowdown"}, {0x80ULL, "hw_power_brake_slowdown"},
                {0x100ULL, "display_clock_setting"}};

const char* dh_machine_throttle_names(unsigned long long bits, char* buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  if (!bits) snprintf(buf, size, "none");
  for (size_t i = 0; i < sizeof kReasons / sizeof kReasons[0]; ++i)
    if ((bits & kReasons[i].bit) && n + 1 < size) {
      n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", kReasons[i].name);
      bits &= ~kReasons[i].bit;
    }
  if (bits && n + 1 < size) snprintf(buf + n, size - n, "%sother 0x%llx", n ? ", " : "", bits);
  return buf;
}

/* dlsym of the first of two names that exists (the newer name first). */
static void* sym2(void* lib, const char* a, const char* b) {
  void* p = dlsym(lib, a);
  return p || !b ? p : dlsym(lib, b);
}

/* Loads and initialises NVML once; g_nvml.ok, else g_nvml.why. */
static void load(void) {
  if (g_nvml.tried) return;
  g_nvml.tried = 1;
  const char* env = getenv("DEVHARNESS_NVML_LIB");
  snprintf(g_nvml.path, sizeof g_nvml.path, "%s", env && env[0] ? env : "libnvidia-ml.so.1");
  void* lib = dlopen(g_nvml.path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    snprintf(g_nvml.why, sizeof g_nvml.why, "unknown: no NVML (%.200s not loaded: %.150s)", g_nvml.path, e ? e : "dlopen");
    return;
  }
  *(void**)&g_nvml.init = sym2(lib, "nvmlInit_v2", "nvmlInit");
  *(void**)&g_nvml.count = sym2(lib, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  *(void**)&g_nvml.handle = sym2(lib, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  *(void**)&g_nvml.name = sym2(lib, "nvmlDeviceGetName", NULL);
  *(void**)&g_nvml.clock = sym2(lib, "nvmlDeviceGetClockInfo", NULL);
  *(void**)&g_nvml.temperature = sym2(lib, "nvmlDeviceGetTemperature", NULL);
  *(void**)&g_nvml.power = sym2(lib, "nvmlDeviceGetPowerUsage", NULL);
  *(void**)&g_nvml.reasons =
      sym2(lib, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
  *(void**)&g_nvml.version = sym2(lib, "nvmlSystemGetDriverVersion", NULL);
  *(void**)&g_nvml.error = sym2(lib, "nvmlErrorString", NULL);
  if (!g_nvml.init || !g_nvml.count || !g_nvml.handle) {
    snprintf(g_nvml.why, sizeof g_nvml.why, "unknown: %.200s lacks nvmlInit_v2/nvmlDeviceGetCount_v2", g_nvml.path);
    return;
  }
  int rc = g_nvml.init();
  if (rc != NVML_OK) {
    snprintf(g_nvml.why, sizeof g_nvml.why, "unknown: nvmlInit_v2 failed: %d (%s)", rc,
             g_nvml.error ? g_nvml.error(rc) : "?");
    return;
  }
  if (!g_nvml.version || g_nvml.version(g_nvml.version_text, sizeof g_nvml.version_text) != NVML_OK)
    snprintf(g_nvml.version_text, sizeof g_nvml.version_text, "?");
  g_nvml.ok = 1;
}

/* "<value> <unit>" of one reading, or "?" when the call is missing or fails. */
static const char* reading(int (*fn)(nvml_device_t, int, unsigned*), nvml_device_t d, int arg, double scale,
                           const char* unit, char* buf, size_t size) {
  unsigned v = 0;
  if (!fn || fn(d, arg, &v) != NVML_OK) return "?";
  snprintf(buf, size, "%.*f %s", scale == 1 ? 0 : 1, v * scale, unit);
  return buf;
}

static int power_adapter(nvml_device_t d, int unused, unsigned* v) {
  (void)unused;
  return g_nvml.power ? g_nvml.power(d, v) : -1;
}

/* One GPU's line and throttle bits. */
static void one_gpu(dh_machine_health_t* h, unsigned i) {
  nvml_device_t d = NULL;
  char name[96] = "?", sm[32], mem[32], temp[32], pw[32], names[192] = "unknown";
  int rc = g_nvml.handle(i, &d);
  if (rc != NVML_OK) {
    snprintf(h->gpu[i], sizeof h->gpu[i], "nvmlDeviceGetHandleByIndex_v2(%u) failed: %d", i, rc);
    return;
  }
  if (g_nvml.name && g_nvml.name(d, name, sizeof name) != NVML_OK) snprintf(name, sizeof name, "?");
  unsigned long long bits = 0;
  int have_bits = g_nvml.reasons && g_nvml.reasons(d, &bits) == NVML_OK;
  if (have_bits) {
    h->throttle[i] = bits;
    dh_machine_throttle_names(bits, names, sizeof names);
  }
  snprintf(h->gpu[i], sizeof h->gpu[i],
           "%.90s: SM %s, memory %s, %s, %s, clocks-event (throttle) reasons 0x%llx (%s)", name,
           reading(g_nvml.clock, d, NVML_CLOCK_SM, 1, "MHz", sm, sizeof sm),
           reading(g_nvml.clock, d, NVML_CLOCK_MEM, 1, "MHz", mem, sizeof mem),
           reading(g_nvml.temperature, d, NVML_TEMPERATURE_GPU, 1, "C", temp, sizeof temp),
           reading(power_adapter, d, 0, 1e-3, "W", pw, sizeof pw), bits, names);
}

void dh_machine_health_nvml(dh_machine_health_t* h) {
  load();
  h->ngpu = 0;
  if (!g_nvml.ok) {
    snprintf(h->nvml, sizeof h->nvml, "%s", g_nvml.why);
    return;
  }
  unsigned n = 0;
  int rc = g_nvml.count(&n);
  if (rc != NVML_OK) {
    snprintf(h->nvml, sizeof h->nvml, "unknown: nvmlDeviceGetCount_v2 failed: %d", rc);
    return;
  }
  snprintf(h->nvml, sizeof h->nvml, "NVML of driver %s (%s): %u GPU%s", g_nvml.version_text, g_nvml.path, n,
           n == 1 ? "" : "s");
  for (unsigned i = 0; i < n && i < DH_MACHINE_MAX_GPUS; ++i) one_gpu(h, i);
  h->ngpu = n < DH_MACHINE_MAX_GPUS ? (int)n : DH_MACHINE_MAX_GPUS;
}
