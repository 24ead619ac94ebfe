/*
 * backends/sim/sim_entry.c — the plugin's one exported symbol.
 *
 * Kept apart from the backend itself (sim_backend.c and the files below it) so faulty variants can link the
 * sim core (SIM_CORE_SRCS in backend.mk) with their own entry returning a modified
 * copy of dh_sim_backend (see sim.h).
 */
#include "sim.h"

/* Returns the sim backend (static storage, valid until the plugin is unloaded).
 * Exported with default visibility; every other sim symbol is hidden. */
__attribute__((visibility("default"))) const dh_backend_t* dh_backend_entry(void) {
  return &dh_sim_backend;
}
