/* Fault: each created stream starts a completion-poller thread that free_stream never
 * stops, so every create/free pair leaks a thread and its 8 MiB stack mapping (the
 * issue 26 finding: 2.4 GiB of address space after 300 pairs). Streams work as the
 * sim's.
 * Expected clause: mem.cycles_no_leak. */
#include <pthread.h>

#include "faulty.h"

static pthread_mutex_t poll_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t poll_cv = PTHREAD_COND_INITIALIZER;

static void* poller(void* arg) {
  (void)arg;
  pthread_mutex_lock(&poll_mu);
  for (;;) pthread_cond_wait(&poll_cv, &poll_mu); /* the stop signal never comes */
  return NULL;
}

static int leaky_create(DLDevice dev, dh_stream_t* out) {
  if (dh_sim_backend.create_stream(dev, out) != 0) return -1;
  pthread_t t;
  if (pthread_create(&t, NULL, poller, NULL) == 0) pthread_detach(t);
  return 0;
}

FAULTY_ENTRY("streamleak", faulty.create_stream = leaky_create)
