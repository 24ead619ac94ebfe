/* Fault: claims DH_CAP_SINGLE_QUEUE but create_stream returns real streams.
 * Expected clause: cap.single_queue. */
#include "faulty.h"

FAULTY_ENTRY("singlelie", faulty.caps |= DH_CAP_SINGLE_QUEUE)
