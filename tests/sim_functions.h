/*
 * tests/sim_functions.h — for test plugins built from the sim core (the faulty backends,
 * tests/conformance/faulty.h; tests/bench/bidirorder.c): their backend is a copy of
 * dh_sim_backend with one module function replaced.
 */
#ifndef DEVHARNESS_TESTS_SIM_FUNCTIONS_H_
#define DEVHARNESS_TESTS_SIM_FUNCTIONS_H_

#include <stddef.h>
#include <string.h>

#include "backends/sim/sim.h"
#include "devharness/backend.h"

/* Entries of a caller's table: more than the sim has (extra ones are dropped). */
#define DH_TEST_SIM_FUNCTIONS_MAX 16

/* Copies the sim's module functions into `table` (DH_TEST_SIM_FUNCTIONS_MAX entries,
 * caller-owned, static storage: the backend points at it), puts `replacement` in place
 * of the one named `name`, and makes `b` use the table. Returns the sim's original
 * call for `name`, or NULL when the sim has no such function. Not thread-safe: call it
 * from dh_backend_entry. */
static inline dh_safe_call_t dh_test_sim_replace_function(dh_backend_t* b,
                                                          dh_backend_function_t* table,
                                                          const char* name,
                                                          dh_safe_call_t replacement) {
  size_t n = dh_sim_backend.num_functions < DH_TEST_SIM_FUNCTIONS_MAX
                 ? dh_sim_backend.num_functions
                 : DH_TEST_SIM_FUNCTIONS_MAX;
  dh_safe_call_t orig = NULL;
  for (size_t i = 0; i < n; i++) {
    table[i] = dh_sim_backend.functions[i];
    if (strcmp(table[i].name, name) == 0) {
      orig = table[i].call;
      table[i].call = replacement;
    }
  }
  b->functions = table;
  b->num_functions = n;
  return orig;
}

#endif /* DEVHARNESS_TESTS_SIM_FUNCTIONS_H_ */
