/*
 * cli/info.h — what `devharness info` asks each backend (cli/info_collect.c), internal
 * to the command. Every question to a backend is asked in an isolated child
 * (base/child.h), so a backend whose init, get_attr or module function crashes or
 * blocks costs that question (shown with the signal or the timeout), never info.
 * Not thread-safe (forks; call from the command's one thread).
 */
#ifndef DEVHARNESS_CLI_INFO_H_
#define DEVHARNESS_CLI_INFO_H_

#include <jansson.h>

#include "devharness/devharness.h"

/* Default seconds one child may take before the question in flight is reported as
 * timed out (info --timeout). */
#define DH_CLI_INFO_TIMEOUT_S 10

/* The JSON entry of backend b in `info --json` (docs: info --help; its fields as
 * before: name, description, device_type, device_type_name, target_kind, caps,
 * raw_twin, functions, available, unavailable_reason, device_count_error, devices[]
 * with spec, id, attributes, attribute_errors, identity, api_version_text, tvm_index)
 * for the devices of b in sel, which must have been selected with
 * DH_SELECT_PROBE_IN_CHILD so that this process never initialised b. A question that
 * crashed or timed out is an attribute error "get_attr crashed: SIGSEGV" or, for the
 * backend's own questions, its unavailable_reason. New reference (caller owns);
 * NULL when out of memory. */
json_t* dh_cli_info_backend(const dh_backend_t* b, const dh_device_list_t* sel, int timeout_s);

/* s as a JSON string, kept when it is not UTF-8 (the bad bytes as \xNN); null for NULL.
 * New reference. */
json_t* dh_cli_info_string(const char* s);

#endif /* DEVHARNESS_CLI_INFO_H_ */
