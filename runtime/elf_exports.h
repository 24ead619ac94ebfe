/*
 * runtime/elf_exports.h — the function symbols an ELF64 shared object exports, read
 * from the file without loading it (behind devharness/module.h
 * dh_module_list_exports). Runtime-internal: hidden, not exported. Thread-safe.
 */
#ifndef DEVHARNESS_RUNTIME_ELF_EXPORTS_H_
#define DEVHARNESS_RUNTIME_ELF_EXPORTS_H_

#include <stddef.h>

#include "internal.h"

/* The defined function symbols (STT_FUNC) of path's .dynsym whose name starts with
 * `prefix` and goes on with a character other than '_', with the prefix cut off,
 * sorted, at most 4096. 0 and *out_names (*out_count strdup'd strings; free with
 * dh_elf_free_names), or -1 with the error set (devharness/error.h): IOError
 * (unreadable), ValueError (not an ELF64 shared object; the message names path). */
DH__INTERNAL int dh_elf_exports(const char* path, const char* prefix, char*** out_names, size_t* out_count);

/* Frees what dh_elf_exports gave. NULL is a no-op. */
DH__INTERNAL void dh_elf_free_names(char** names, size_t count);

#endif /* DEVHARNESS_RUNTIME_ELF_EXPORTS_H_ */
