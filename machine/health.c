/*
 * machine/health.c — measurement health snapshots and the noisy verdict (machine/health.h):
 * CPU frequency governor and current frequency (sysfs cpufreq), load average
 * (/proc/loadavg), the calling thread's CPU and NUMA node (sched_getcpu, hwloc); NVML is
 * machine/health_nvml.c.
 */
#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "health.h"

/* Reads the first line of path into buf (newline removed). 0, or -1 with errno. */
static int read_line(const char* path, char* buf, size_t size) {
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char* got = fgets(buf, (int)size, f);
  int e = errno;
  fclose(f);
  if (!got) return errno = e ? e : EIO, -1;
  buf[strcspn(buf, "\n")] = '\0';
  return 0;
}

/* Appends printf text to buf (NUL-terminated, size bytes), truncating. */
static void append(char* buf, size_t size, const char* fmt, const char* a, const char* b) {
  size_t n = strlen(buf);
  if (n + 1 < size) snprintf(buf + n, size - n, fmt, a, b);
}

/* The governor of every CPU the process may use: one name with its CPUs when all agree,
 * else "cpuN name" for each. */
static void take_governor(dh_machine_health_t* h) {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) CPU_ZERO(&cpus);
  char first[64] = "", cur[64], path[128], list[128] = "", each[192] = "";
  int same = 1, any = 0, e = ENOENT;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &cpus)) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
    if (read_line(path, cur, sizeof cur) != 0) {
      e = errno;
      continue;
    }
    char num[16];
    snprintf(num, sizeof num, "%d", c);
    if (!any) snprintf(first, sizeof first, "%s", cur);
    same = same && strcmp(first, cur) == 0;
    append(list, sizeof list, "%s%s", any ? "," : "", num);
    append(each, sizeof each, "%scpu%s ", any ? ", " : "", num);
    append(each, sizeof each, "%s%s", cur, "");
    any = 1;
  }
  if (!any)
    snprintf(h->governor, sizeof h->governor,
             "unknown: no cpufreq (/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor: %s)", strerror(e));
  else if (same)
    snprintf(h->governor, sizeof h->governor, "%s (CPUs %s)", first, list);
  else
    snprintf(h->governor, sizeof h->governor, "%s", each);
}

/* The current frequency of the CPU the calling thread runs on. */
static void take_frequency(dh_machine_health_t* h, int cpu) {
  char path[128], khz[64];
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu < 0 ? 0 : cpu);
  if (read_line(path, khz, sizeof khz) != 0)
    snprintf(h->frequency, sizeof h->frequency, "unknown: no cpufreq (%s: %s)", path, strerror(errno));
  else
    snprintf(h->frequency, sizeof h->frequency, "%.0f MHz (CPU %d, scaling_cur_freq)", atof(khz) / 1e3, cpu);
}

static void take_load(dh_machine_health_t* h) {
  char line[128];
  double l1, l5, l15;
  h->load1 = -1;
  h->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (read_line("/proc/loadavg", line, sizeof line) != 0 || sscanf(line, "%lf %lf %lf", &l1, &l5, &l15) != 3) {
    snprintf(h->load, sizeof h->load, "unknown: /proc/loadavg unreadable");
    return;
  }
  h->load1 = l1;
  snprintf(h->load, sizeof h->load, "%.2f %.2f %.2f (1, 5, 15 min; %d CPUs online)", l1, l5, l15, h->cpus_online);
}

/* CPU time: the machine's (/proc/stat) and this process tree's (getrusage), and the
 * monotonic clock. */
static void take_cpu_time(dh_machine_health_t* h) {
  struct timespec ts;
  struct rusage self, kids;
  unsigned long long v[8] = {0};
  char line[512];
  long tick = sysconf(_SC_CLK_TCK);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  h->wall_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
  h->busy_s = -1;
  if (tick > 0 && read_line("/proc/stat", line, sizeof line) == 0 &&
      sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
             &v[7]) == 8) /* user nice system idle iowait irq softirq steal */
    h->busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)tick, h->steal_s = (double)v[7] / (double)tick;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  h->own_s = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
             (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

/* The calling thread's CPU, its NUMA node and its binding, through hwloc. */
static void take_thread(dh_machine_health_t* h, int cpu) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    snprintf(h->thread, sizeof h->thread, "CPU %d, NUMA node unknown: hwloc topology failed", cpu);
    return;
  }
  int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), node = -1;
  for (int i = 0; i < nodes && cpu >= 0; ++i) {
    hwloc_obj_t n = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
    if (n && hwloc_bitmap_isset(n->cpuset, (unsigned)cpu)) node = (int)n->os_index;
  }
  char bound[128] = "unknown";
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0)
    hwloc_bitmap_list_snprintf(bound, sizeof bound, set);
  hwloc_bitmap_free(set);
  snprintf(h->thread, sizeof h->thread, "CPU %d, NUMA node %d of %d (hwloc); bound to PUs %s", cpu, node, nodes,
           bound);
  hwloc_topology_destroy(topo);
}

void dh_machine_health_take(dh_machine_health_t* h) {
  memset(h, 0, sizeof *h);
  int cpu = sched_getcpu();
  take_governor(h);
  take_frequency(h, cpu);
  take_load(h);
  take_cpu_time(h);
  take_thread(h, cpu);
  dh_machine_health_nvml(h);
}

json_t* dh_machine_health_json(const dh_machine_health_t* h) {
  json_t* o = json_object();
  json_object_set_new(o, "cpu_governor", json_string(h->governor));
  json_object_set_new(o, "cpu_frequency", json_string(h->frequency));
  json_object_set_new(o, "load_average", json_string(h->load));
  json_object_set_new(o, "thread", json_string(h->thread));
  json_object_set_new(o, "nvml", json_string(h->nvml));
  for (int i = 0; i < h->ngpu; ++i) {
    char key[16];
    snprintf(key, sizeof key, "gpu%d", i);
    json_object_set_new(o, key, json_string(h->gpu[i]));
  }
  return o;
}

/* Appends "<what>: <text>" to reasons with "; " before it when not first. */
static void add_reason(char* reasons, size_t size, const char* what, const char* text) {
  if (reasons[0]) append(reasons, size, "%s%s", "; ", "");
  if (what && what[0]) append(reasons, size, "%s%s", what, ": ");
  append(reasons, size, "%s%s", text, "");
}

/* Throttle reasons of GPU g, before and after in one reason when they agree. */
static void throttle_reason(const char* what, const dh_machine_health_t* before, const dh_machine_health_t* after,
                            int g, char* reasons, size_t size) {
  unsigned long long b = g < before->ngpu ? before->throttle[g] & ~DH_MACHINE_BENIGN_THROTTLE : 0;
  unsigned long long a = g < after->ngpu ? after->throttle[g] & ~DH_MACHINE_BENIGN_THROTTLE : 0;
  char text[512], names[160];
  for (int s = 0; s < 2; ++s) {
    unsigned long long bits = s ? a : b;
    if (!bits || (s == 1 && a == b)) continue;
    snprintf(text, sizeof text, "gpu%d throttled %s (NVML clocks-event reasons 0x%llx: %s)", g,
             a == b ? "before and after" : s ? "after" : "before", bits,
             dh_machine_throttle_names(bits, names, sizeof names));
    add_reason(reasons, size, what, text);
  }
}

void dh_machine_health_reasons(const char* what, const dh_machine_health_t* before,
                               const dh_machine_health_t* after, char* reasons, size_t size) {
  char text[512];
  int ngpu = before->ngpu > after->ngpu ? before->ngpu : after->ngpu;
  for (int g = 0; g < ngpu; ++g) throttle_reason(what, before, after, g, reasons, size);
  if (strncmp(before->governor, "unknown", 7) != 0 && strcmp(before->governor, after->governor) != 0) {
    snprintf(text, sizeof text, "CPU governor changed from %.200s to %.200s", before->governor, after->governor);
    add_reason(reasons, size, what, text);
  }
  int cpus = before->cpus_online > 0 ? before->cpus_online : after->cpus_online;
  double span = after->wall_s - before->wall_s;
  if (before->busy_s >= 0 && after->busy_s >= 0 && span > 0) {
    double other = ((after->busy_s - before->busy_s) - (after->own_s - before->own_s)) / span;
    if (other > DH_MACHINE_OTHER_CPUS_MAX) {
      snprintf(text, sizeof text,
               "other processes used %.2f CPUs on average over %.1f s (/proc/stat less devharness's own CPU time, "
               "1-minute load average %.2f before, %.2f after, %d CPUs online)",
               other, span, before->load1, after->load1, cpus);
      add_reason(reasons, size, what, text);
    }
    double steal = (after->steal_s - before->steal_s) / span;
    if (steal > DH_MACHINE_STEAL_CPUS_MAX) {
      snprintf(text, sizeof text, "the hypervisor took %.2f CPUs on average over %.1f s (/proc/stat steal)", steal, span);
      add_reason(reasons, size, what, text);
    }
  } else if (cpus > 0 && (before->load1 > cpus || after->load1 > cpus)) {
    snprintf(text, sizeof text,
             "1-minute load average %.2f before, %.2f after, above the %d online CPUs (other work ran)",
             before->load1, after->load1, cpus);
    add_reason(reasons, size, what, text);
  }
}

void dh_machine_health_cv_reasons(json_t* copy_cv, double max_cv_percent, char* reasons, size_t size) {
  if (max_cv_percent <= 0 || !json_is_array(copy_cv)) return;
  size_t i, over = 0;
  json_t* c;
  double worst = 0;
  const char* worst_name = "";
  char text[512];
  json_array_foreach(copy_cv, i, c) {
    double cv = 100 * json_number_value(json_object_get(c, "cv"));
    const char* name = json_string_value(json_object_get(c, "name"));
    if (cv <= max_cv_percent || !name) continue;
    if (++over <= 3) {
      snprintf(text, sizeof text, "CV %.1f %% above %g %% on %.300s", cv, max_cv_percent, name);
      add_reason(reasons, size, NULL, text);
    }
    if (cv > worst) worst = cv, worst_name = name;
  }
  if (over > 3) {
    snprintf(text, sizeof text, "%zu copies >= 1 MiB with CV above %g %% in all (worst %.1f %%, %.300s)", over,
             max_cv_percent, worst, worst_name);
    add_reason(reasons, size, NULL, text);
  }
}
