/*
 * machine/health.h — measurement health: what governs the figures of a benchmark run,
 * taken before and after it (machine/health.c, NVML in machine/health_nvml.c), and the
 * verdict "noisy" with its reasons (docs/benchmarks.md "Measurement health"). Used by
 * `devharness bench` (bench/main.c: the JSON context and the summary) and `devharness
 * run` (cli/run_health.c: health.json in the results folder, the run summary). Not
 * thread-safe: call from one thread (the benchmark thread, or run's main thread).
 */
#ifndef DEVHARNESS_MACHINE_HEALTH_H_
#define DEVHARNESS_MACHINE_HEALTH_H_

#include <jansson.h>
#include <stddef.h>

enum { DH_MACHINE_MAX_GPUS = 16 };

/* NVML's clocks-event (throttle) reasons that do not make a run noisy: the GPU is idle
 * (nvmlClocksThrottleReasonGpuIdle, 0x1) or its clocks were set on purpose
 * (nvmlClocksThrottleReasonApplicationsClocksSetting, 0x2); nvml.h of CUDA 12. */
#define DH_MACHINE_BENIGN_THROTTLE 0x3ULL

/* One snapshot. Every text is one line, always filled ("unknown: <why>" when the machine
 * cannot tell). */
typedef struct dh_machine_health {
  char governor[256];     /* cpufreq scaling_governor of each CPU the process may use,
                           * "performance (CPUs 0-15)", or "unknown: no cpufreq (...)" */
  char frequency[256];    /* scaling_cur_freq of the calling thread's CPU, MHz */
  char load[128];         /* /proc/loadavg: 1, 5, 15 min and the online CPUs */
  double load1;           /* 1-minute load average; < 0 unknown */
  int cpus_online;        /* sysconf(_SC_NPROCESSORS_ONLN) */
  double wall_s;          /* CLOCK_MONOTONIC, seconds */
  double busy_s;          /* CPU time every process and the kernel spent, seconds (/proc/stat
                           * "cpu": user, nice, system, irq, softirq); < 0 unknown */
  double steal_s;         /* CPU time the hypervisor gave to others (/proc/stat steal) */
  double own_s;           /* CPU time of this process and its waited-for children
                           * (getrusage RUSAGE_SELF + RUSAGE_CHILDREN, user + system) */
  char thread[256];       /* the calling thread's CPU and NUMA node (sched_getcpu, hwloc) */
  char nvml[512];         /* "NVML <version> (<library>): N GPUs" or "unknown: <why>" */
  int ngpu;
  char gpu[DH_MACHINE_MAX_GPUS][320]; /* per GPU: name, SM and memory clocks (MHz),
                                      * temperature (C), power (W), throttle reasons */
  unsigned long long throttle[DH_MACHINE_MAX_GPUS]; /* NVML reason bits; 0 unknown or none */
} dh_machine_health_t;

/* Takes a snapshot of the machine as the calling thread sees it. NVML
 * (libnvidia-ml.so.1, or the file $DEVHARNESS_NVML_LIB names) is dlopen'd on the first
 * call and kept for the process; its absence is a line in h->nvml, never an error. */
void dh_machine_health_take(dh_machine_health_t* h);

/* The snapshot as a JSON object of strings (keys: cpu_governor, cpu_frequency,
 * load_average, thread, nvml, gpu0...). A new reference. */
json_t* dh_machine_health_json(const dh_machine_health_t* h);

/* Other processes' CPU use, and the hypervisor's steal, in CPUs on average, above
 * which a span is noisy. Steal's is higher: a shared VM (this project's CI) loses about
 * half a CPU to it whenever it computes, which is the machine it is, not a disturbance. */
#define DH_MACHINE_OTHER_CPUS_MAX 0.5
#define DH_MACHINE_STEAL_CPUS_MAX 1.0

/* Appends to reasons ("; "-separated, NUL-terminated, truncated at size) why the span
 * from before to after was noisy: a throttle reason other than DH_MACHINE_BENIGN_THROTTLE
 * on a GPU, in either snapshot; a governor that changed; other work: the CPU time the
 * machine spent over the span less this process tree's own (busy_s - own_s) above
 * DH_MACHINE_OTHER_CPUS_MAX CPUs on average (so devharness's own previous step, which
 * the lagging load average still counts, is not "other work"); steal above
 * DH_MACHINE_STEAL_CPUS_MAX CPUs on average; where /proc/stat is
 * unreadable, a 1-minute load average above the online CPUs. `what` prefixes each
 * reason (e.g. "bench"; NULL or "" none). */
void dh_machine_health_reasons(const char* what, const dh_machine_health_t* before,
                               const dh_machine_health_t* after, char* reasons, size_t size);

/* Appends one reason per copy of >= 1 MiB whose coefficient of variation over the
 * repetitions (the bench summary's "copy_cv": [{name, cv}], cv a fraction) is above
 * max_cv_percent; with more than three, the count and the worst. max_cv_percent <= 0:
 * none. */
void dh_machine_health_cv_reasons(json_t* copy_cv, double max_cv_percent, char* reasons, size_t size);

/* NVML (machine/health_nvml.c, called by dh_machine_health_take): fills h->nvml,
 * h->ngpu, h->gpu and h->throttle. */
void dh_machine_health_nvml(dh_machine_health_t* h);

/* The names of NVML throttle reason bits, "sw_power_cap, hw_slowdown", into buf;
 * "none" for 0. */
const char* dh_machine_throttle_names(unsigned long long bits, char* buf, size_t size);

#endif /* DEVHARNESS_MACHINE_HEALTH_H_ */
