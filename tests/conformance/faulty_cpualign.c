/* Fault (cpu): requested alignments above 128 bytes get only 128 (a 128-byte pool
 * granule). Expected clause: mem.alignment. */
#include "faulty_cpu.h"

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (alignment > 128) return shift_alloc(dev, nbytes, alignment, 128, hint, out);
  return cpu->alloc_data_space(dev, nbytes, alignment, hint, out);
}

FAULTY_CPU_ENTRY("cpualign", (faulty.alloc_data_space = bad_alloc, faulty.free_data_space = shift_free))
