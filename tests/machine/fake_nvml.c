/*
 * tests/machine/fake_nvml.c — a FAKE NVML (libnvidia-ml.so.1) for the measurement-health
 * tests (tests/machine/health.sh) on machines without an NVIDIA GPU. Never installed;
 * found only through DEVHARNESS_NVML_LIB (machine/health_nvml.c). Exports the entry
 * points devharness reads, by NVML's documented C ABI (int return codes, 0 success):
 * FAKE_NVML_GPUS GPUs (default 1) named "Fake NVIDIA H100", SM 1755 MHz, memory 2619
 * MHz, 71 C, 312.5 W, and clocks-event (throttle) reasons FAKE_NVML_REASONS (a number
 * strtoull reads, default 0x24: sw_power_cap | sw_thermal_slowdown). FAKE_NVML_INIT
 * set to a number makes nvmlInit_v2 return it (NVML_ERROR_DRIVER_NOT_LOADED is 9).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static unsigned long long env_num(const char* name, unsigned long long fallback) {
  const char* v = getenv(name);
  return v && v[0] ? strtoull(v, NULL, 0) : fallback;
}

static int g_dev[16]; /* handles: &g_dev[i] */

static int index_of(void* d) {
  int i = (int)((int*)d - g_dev);
  return i >= 0 && i < (int)env_num("FAKE_NVML_GPUS", 1) && i < 16 ? i : -1;
}

EXPORT int nvmlInit_v2(void) { return (int)env_num("FAKE_NVML_INIT", 0); }
EXPORT int nvmlShutdown(void) { return 0; }
EXPORT const char* nvmlErrorString(int rc) { return rc == 9 ? "Driver Not Loaded" : rc ? "Unknown Error" : "Success"; }
EXPORT int nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  return snprintf(buf, len, "999.99-fake") < (int)len ? 0 : 7; /* 7: NVML_ERROR_INSUFFICIENT_SIZE */
}
EXPORT int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = (unsigned)env_num("FAKE_NVML_GPUS", 1);
  return 0;
}
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** d) {
  if (i >= 16 || i >= env_num("FAKE_NVML_GPUS", 1)) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *d = &g_dev[i];
  return 0;
}
EXPORT int nvmlDeviceGetName(void* d, char* buf, unsigned len) {
  if (index_of(d) < 0) return 2;
  snprintf(buf, len, "Fake NVIDIA H100");
  return 0;
}
EXPORT int nvmlDeviceGetClockInfo(void* d, int type, unsigned* mhz) {
  if (index_of(d) < 0) return 2;
  *mhz = type == 1 ? 1755 : type == 2 ? 2619 : 1755; /* NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2 */
  return 0;
}
EXPORT int nvmlDeviceGetTemperature(void* d, int sensor, unsigned* c) {
  if (index_of(d) < 0 || sensor != 0) return 2;
  *c = 71;
  return 0;
}
EXPORT int nvmlDeviceGetPowerUsage(void* d, unsigned* mw) {
  if (index_of(d) < 0) return 2;
  *mw = 312500;
  return 0;
}
EXPORT int nvmlDeviceGetCurrentClocksEventReasons(void* d, unsigned long long* bits) {
  if (index_of(d) < 0) return 2;
  *bits = env_num("FAKE_NVML_REASONS", 0x24);
  return 0;
}
