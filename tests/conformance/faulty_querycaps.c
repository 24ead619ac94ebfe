/* Not a fault of one clause: the sim with a query_caps entry (backend.h ABI 1.5), for
 * tests/conformance/query_caps.t. It declares the sim's caps; what query_caps answers
 * after init depends on $DH_QUERY_CAPS:
 *   unset or "single"  the sim's caps plus DH_CAP_SINGLE_QUEUE (the sim makes real
 *                      streams, so cap.single_queue must fail, in the case child, and
 *                      the runner's parent must skip the clauses that need two queues)
 *   "fail"             -1 with a RuntimeError: init fails with it
 *   "bits"             a flag no DH_CAP_* defines (1 << 20): refused as an ABIError */
#include <stdlib.h>
#include <string.h>

#include "faulty.h"

static int querycaps(uint32_t* out_caps) {
  const char* how = getenv("DH_QUERY_CAPS");
  *out_caps = dh_sim_backend.caps;
  if (how != NULL && strcmp(how, "fail") == 0)
    return dh_error_set(DH_KIND_RUNTIME_ERROR, "querycaps: the device did not answer");
  if (how != NULL && strcmp(how, "bits") == 0)
    *out_caps |= 1u << 20;
  else
    *out_caps |= DH_CAP_SINGLE_QUEUE;
  return 0;
}

FAULTY_ENTRY("querycaps", faulty.query_caps = querycaps)
