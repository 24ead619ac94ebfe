/*
 * tests/hostile/bad_plugin.c — plugins that break backend.h's ABI, for hostile.t.
 * Built once per variant with -DHOSTILE_<X> (tests/hostile/tests.mk):
 *   BADMAJOR   abi_major DH_BACKEND_ABI_MAJOR + 1
 *   SIZE0      struct_size 0
 *   NOENTRY    no dh_backend_entry symbol at all
 *   NULLENTRY  dh_backend_entry returns NULL
 * Every vtable entry is NULL: the loader must refuse these plugins from their header
 * (or the missing entry) before it looks at anything else, and never call into them.
 */
#include "devharness/backend.h"

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
#if defined(HOSTILE_NULLENTRY)
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
