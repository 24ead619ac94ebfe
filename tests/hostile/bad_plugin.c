/*
 * tests/hostile/bad_plugin.c — plugins that break backend.h's ABI, for hostile.t.
 * Built once per variant with -DHOSTILE_<X> (tests/hostile/tests.mk):
 *   BADMAJOR   abi_major DH_BACKEND_ABI_MAJOR + 1
 *   SIZE0      struct_size 0
 *   NOENTRY    no dh_backend_entry symbol at all
 *   NULLENTRY  dh_backend_entry returns NULL
 *   EXIT0      dh_backend_entry calls exit(0)
 *   CTOREXIT   a constructor calls exit(0) while the plugin is being dlopen'd
 *   HANG       dh_backend_entry never returns
 * Every vtable entry is NULL: the loader must refuse these plugins from their header
 * (or the missing entry, or what happened in its probe process) before it looks at
 * anything else, and never call into them from the harness's own process.
 */
#include <stdlib.h>
#include <unistd.h>

#include "devharness/backend.h"

#if defined(HOSTILE_CTOREXIT)
__attribute__((constructor)) static void leave_at_load(void) { exit(0); }
#endif

#if !defined(HOSTILE_NOENTRY)
static const dh_backend_t kBad = {
#if defined(HOSTILE_SIZE0)
    .struct_size = 0,
#else
    .struct_size = sizeof(dh_backend_t),
#endif
#if defined(HOSTILE_BADMAJOR)
    .abi_major = DH_BACKEND_ABI_MAJOR + 1,
#else
    .abi_major = DH_BACKEND_ABI_MAJOR,
#endif
    .abi_minor = DH_BACKEND_ABI_MINOR,
    .name = "hostile",
    .device_type = 13,
};

const dh_backend_t* dh_backend_entry(void);
const dh_backend_t* dh_backend_entry(void) {
#if defined(HOSTILE_EXIT0)
  if (kBad.name != NULL) exit(0);
  return &kBad;
#elif defined(HOSTILE_HANG)
  while (kBad.name != NULL) pause();
  return &kBad;
#elif defined(HOSTILE_NULLENTRY)
  return kBad.name == NULL ? &kBad : (void*)0; /* always NULL; kBad kept referenced */
#else
  return &kBad;
#endif
}
#else
/* Something exported, so the file is a valid shared object without the entry. */
int dh_hostile_not_an_entry(void);
int dh_hostile_not_an_entry(void) { return 0; }
#endif
