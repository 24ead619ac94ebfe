/*
 * tests/conformance/faulty.h — helpers for the faulty backends that prove the
 * conformance suite's power (docs/conformance.md, proof of power). Each faulty_<x>.c
 * builds a plugin from the sim core (backends/sim, SIM_CORE_SRCS) whose dh_backend_entry returns a copy of
 * dh_sim_backend named "faulty_<x>" with exactly one behaviour broken; the suite must
 * then report exactly one clause (tests/conformance/faulty.t holds the expected id).
 */
#ifndef DEVHARNESS_TESTS_CONFORMANCE_FAULTY_H_
#define DEVHARNESS_TESTS_CONFORMANCE_FAULTY_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/sim/sim.h"
#include "devharness/backend.h"
#include "devharness/error.h"
#include "tests/sim_functions.h"

/* The copy every faulty backend edits (one per plugin). */
static dh_backend_t faulty;

/* Defines dh_backend_entry: copies the sim, renames it, then runs `edit`. */
#define FAULTY_ENTRY(NAME, EDIT)                                    \
  __attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void); \
  const dh_backend_t* dh_backend_entry(void) {                      \
    faulty = dh_sim_backend;                                        \
    faulty.name = "faulty_" NAME;                                   \
    faulty.description = "sim with one fault: " NAME;               \
    EDIT;                                                           \
    return &faulty;                                                 \
  }

static inline int faulty_is_host(DLDevice d) { return d.device_type == kDLCPU; }

/* Module functions of the faulty backend: the sim's table with one entry replaced
 * (faulty_replace_function). The packed clauses call the backend's own table through
 * tvm-ffi ("<backend>.<name>"), so a fault here is the backend's, not the runtime's. */
static dh_backend_function_t faulty_fns[DH_TEST_SIM_FUNCTIONS_MAX];

/* Puts `bad` in place of the sim's module function `name`; returns the original. */
static inline dh_safe_call_t faulty_replace_function(const char* name, dh_safe_call_t bad) {
  return dh_test_sim_replace_function(&faulty, faulty_fns, name, bad);
}

/* Puts `bad` in place of one more module function `name` of the table that
 * faulty_replace_function installed (that call starts from the sim's table afresh, so a
 * second call would undo the first); returns the original, NULL when absent. */
static inline dh_safe_call_t faulty_replace_another_function(const char* name, dh_safe_call_t bad) {
  for (size_t i = 0; i < faulty.num_functions; i++)
    if (faulty.functions == faulty_fns && strcmp(faulty_fns[i].name, name) == 0) {
      dh_safe_call_t orig = faulty_fns[i].call;
      faulty_fns[i].call = bad;
      return orig;
    }
  return NULL;
}

#endif /* DEVHARNESS_TESTS_CONFORMANCE_FAULTY_H_ */
