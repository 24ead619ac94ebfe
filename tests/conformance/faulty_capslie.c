/* Fault: claims DH_CAP_PINNED_HOST without alloc_host/free_host.
 * Expected clause: cap.pinned_host. */
#include "faulty.h"

FAULTY_ENTRY("capslie", faulty.alloc_host = NULL; faulty.free_host = NULL)
