/* Fault: the workspace pool keeps one block per stack depth, the depth per thread but
 * the blocks for the whole process, so a thread's first workspace is every thread's
 * first workspace. Stack-style use on one thread behaves (each depth its own block).
 * Expected clause: mem.workspace_threads. */
#include <pthread.h>

#include "faulty.h"

#define DEPTHS 16
#define BLOCK 8192
static pthread_mutex_t ws_mu = PTHREAD_MUTEX_INITIALIZER;
static void* blocks[DEPTHS]; /* the slip: shared by every thread */
static _Thread_local int depth;

static int depth_alloc(DLDevice dev, size_t nbytes, DLDataType hint, void** out) {
  if (depth >= DEPTHS || nbytes > BLOCK) return dh_sim_backend.alloc_workspace(dev, nbytes, hint, out);
  pthread_mutex_lock(&ws_mu);
  int rc = 0;
  if (blocks[depth] == NULL) rc = dh_sim_backend.alloc_data_space(dev, BLOCK, DH_TEMP_ALLOC_ALIGNMENT, hint, &blocks[depth]);
  if (rc == 0) *out = blocks[depth++];
  pthread_mutex_unlock(&ws_mu);
  return rc;
}

static int depth_free(DLDevice dev, void* ptr) {
  pthread_mutex_lock(&ws_mu);
  int pooled = depth > 0 && ptr != NULL && ptr == blocks[depth - 1];
  if (pooled) depth--;
  pthread_mutex_unlock(&ws_mu);
  return pooled ? 0 : dh_sim_backend.free_workspace(dev, ptr);
}

FAULTY_ENTRY("wsdepth", (faulty.alloc_workspace = depth_alloc, faulty.free_workspace = depth_free))
