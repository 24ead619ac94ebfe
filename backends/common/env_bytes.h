/*
 * backends/common/env_bytes.h — a byte count from the environment, for the backends'
 * tunable thresholds (DEVHARNESS_CUDA_STAGE_PINNED_MAX in backends/cuda,
 * DEVHARNESS_VULKAN_STAGE_PINNED_MAX in backends/vulkan). Compiled into each plugin
 * that lists it (hidden symbols), not into libdevharness.
 */
#ifndef DEVHARNESS_BACKENDS_COMMON_ENV_BYTES_H_
#define DEVHARNESS_BACKENDS_COMMON_ENV_BYTES_H_

#include <stddef.h>

/* Reads environment variable `name` as a byte count into *out: decimal digits only, no
 * sign, no suffix, at most SIZE_MAX; *out = `deflt` when the variable is unset. 0, or -1
 * when it is set but not a byte count: *out = `deflt` and `reason` (reason_size bytes,
 * always terminated) holds "NAME='VALUE': not a byte count (decimal digits, e.g.
 * 262144)", VALUE cut at 40 bytes (then "...") with bytes outside printable ASCII
 * shown as '?'. Sets no devharness error. Thread-safe as getenv is (call it at init). */
int dh_common_env_bytes(const char* name, size_t deflt, size_t* out, char* reason,
                        size_t reason_size);

#endif /* DEVHARNESS_BACKENDS_COMMON_ENV_BYTES_H_ */
