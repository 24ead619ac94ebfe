/* Fault: a stream whose kernel failed on the device stays failed: every later
 * stream_sync of it reports the failure again (the error state is never cleared, the
 * stream never recovers). Expected clause: packed.device_failure. */
#include <pthread.h>

#include "faulty.h"

static dh_safe_call_t orig_trap;
static struct {
  DLDevice dev;
  dh_stream_t s;
} failed[64];
static int nfailed;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int bad_trap(void* self, const dh_any_t* args, int32_t n, dh_any_t* rv) {
  int rc = orig_trap(self, args, n, rv);
  dh_stream_t s = NULL;
  if (rc == 0 && dh_sim_backend.get_current_stream(args[0].v_device, &s) == 0) {
    pthread_mutex_lock(&mu);
    if (nfailed < 64) {
      failed[nfailed].dev = args[0].v_device;
      failed[nfailed++].s = s;
    }
    pthread_mutex_unlock(&mu);
  }
  return rc;
}

static int bad_sync(DLDevice dev, dh_stream_t s) {
  int rc = dh_sim_backend.stream_sync(dev, s);
  if (rc != 0) return rc;
  pthread_mutex_lock(&mu);
  int hit = 0;
  for (int i = 0; i < nfailed; i++)
    if (failed[i].s == s && failed[i].dev.device_id == dev.device_id) hit = 1;
  pthread_mutex_unlock(&mu);
  return hit ? dh_error_set("RuntimeError", "sim:%d: stream_sync: kernel 'trap' failed on the device "
                            "(the stream stays failed)", (int)dev.device_id)
             : 0;
}

FAULTY_ENTRY("trapsticky", (orig_trap = faulty_replace_function(DH_FUNC_TRAP, bad_trap),
                            faulty.stream_sync = bad_sync))
