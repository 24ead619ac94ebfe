/* conformance/clauses/copy.h — the scratch set the copy families' run functions work on
 * (copy.c, copy_tensor.c): host and device buffers freed at the end of every clause,
 * whichever CHECK returned early. Private to the copy families. */
#ifndef DEVHARNESS_CONFORMANCE_CLAUSES_COPY_H_
#define DEVHARNESS_CONFORMANCE_CLAUSES_COPY_H_

#include <stdlib.h>

#include "check.h"

/* Scratch state freed at the end of every clause (clauses return early on failure). */
typedef struct {
  uint8_t* h[4];
  void* d[4];
} scratch_t;

static inline void scratch_free(dh_conf_ctx_t* c, scratch_t* s) {
  for (int i = 0; i < 4; i++) {
    free(s->h[i]);
    s->h[i] = NULL;
    if (s->d[i]) dh_device_free_data_space(c->dev, s->d[i]);
    s->d[i] = NULL;
  }
}

/* Each run function below works on a scratch set freed afterwards (DC_WITH_STATE), so
 * the bodies may return at any CHECK. */
#define WITH_SCRATCH(name) DC_WITH_STATE(name, scratch_t, s, scratch_free)

#define HOST(i, n) \
  do { if (!(s->h[i] = dc_host_alloc(c, (n)))) return; } while (0)
#define DEV(i, n) \
  do { if (!(s->d[i] = dc_dev_alloc(c, (n)))) return; } while (0)
#define DEV_FREE(i)                                         \
  do {                                                      \
    if (s->d[i]) dh_device_free_data_space(c->dev, s->d[i]); \
    s->d[i] = NULL;                                         \
  } while (0)
#define HOST_FREE(i) do { free(s->h[i]); s->h[i] = NULL; } while (0)

#endif /* DEVHARNESS_CONFORMANCE_CLAUSES_COPY_H_ */
