/* Fault (cpu): an alignment below kAllocAlignment (64) is honoured literally, so an
 * allocation asked for alignment 1, 4 or 16 is only 16-aligned. Expected clause:
 * mem.default_alignment. */
#include "faulty_cpu.h"

static int bad_alloc(DLDevice dev, size_t nbytes, size_t alignment, DLDataType hint, void** out) {
  if (alignment < 64) return shift_alloc(dev, nbytes, 64, 16, hint, out);
  return cpu->alloc_data_space(dev, nbytes, alignment, hint, out);
}

FAULTY_CPU_ENTRY("cpudefalign", (faulty.alloc_data_space = bad_alloc, faulty.free_data_space = shift_free))
