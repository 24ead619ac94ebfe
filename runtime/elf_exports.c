/*
 * runtime/elf_exports.c — the defined function symbols of an ELF64 shared object with a
 * given prefix, read from the file's dynamic symbol table without loading it (for
 * module.c dh_module_list_exports: tvm-ffi's library module has no listing).
 * Every offset of the file is checked before it is read: any file is safe to give.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devharness/error.h"
#include "elf_exports.h"

#define MAX_LIB_BYTES (1024L * 1024 * 1024)
#define MAX_EXPORTS 4096

static int cmp_name(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* The whole file into memory (at most MAX_LIB_BYTES). */
static int read_file(const char* path, unsigned char** out, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot open", path);
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n < (long)sizeof(Elf64_Ehdr) || n > MAX_LIB_BYTES) {
    fclose(f);
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: not an ELF64 shared object (%ld bytes)", path, n);
  }
  *out = malloc((size_t)n);
  int ok = *out != NULL && fseek(f, 0, SEEK_SET) == 0 && fread(*out, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  if (!ok) return free(*out), *out = NULL, dh_error_set(DH_KIND_IO_ERROR, "%s: cannot read", path);
  *size = (size_t)n;
  return 0;
}

/* Adds the matching functions of the .dynsym section sh (strings in str) to names. */
static int add_symbols(const unsigned char* img, size_t size, const Elf64_Shdr* sh, const Elf64_Shdr* str,
                       const char* prefix, char** names, size_t* count) {
  const size_t plen = strlen(prefix);
  for (size_t off = sh->sh_offset; off + sizeof(Elf64_Sym) <= sh->sh_offset + sh->sh_size && off + sizeof(Elf64_Sym) <= size;
       off += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    memcpy(&sym, img + off, sizeof sym);
    if (sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= str->sh_size) continue;
    const char* name = (const char*)img + str->sh_offset + sym.st_name;
    size_t max = str->sh_size - sym.st_name;
    if (strnlen(name, max) == max || strncmp(name, prefix, plen) != 0 || name[plen] == '_' ||
        name[plen] == '\0' || *count >= MAX_EXPORTS)
      continue;
    if ((names[*count] = strdup(name + plen)) == NULL) return dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
    (*count)++;
  }
  return 0;
}

int dh_elf_exports(const char* path, const char* prefix, char*** out_names, size_t* out_count) {
  unsigned char* img = NULL;
  size_t size = 0, count = 0;
  if (out_names == NULL || out_count == NULL)
    return dh_error_set(DH_KIND_VALUE_ERROR, "dh_elf_exports: NULL output");
  *out_names = NULL;
  *out_count = 0;
  if (path == NULL || prefix == NULL) return dh_error_set(DH_KIND_VALUE_ERROR, "dh_elf_exports: NULL argument");
  if (read_file(path, &img, &size) != 0) return -1;
  char** names = calloc(MAX_EXPORTS, sizeof *names);
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)img;
  int rc = names ? 0 : dh_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "out of memory");
  if (rc == 0 && (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
                  eh->e_type != ET_DYN || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
                  (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum))
    rc = dh_error_set(DH_KIND_VALUE_ERROR, "%s: not an ELF64 shared object", path);
  const Elf64_Shdr* sh = rc == 0 ? (const Elf64_Shdr*)(img + eh->e_shoff) : NULL;
  for (size_t i = 0; rc == 0 && i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr* str = &sh[sh[i].sh_link];
    if (str->sh_offset > size || str->sh_size > size - str->sh_offset || sh[i].sh_offset > size) continue;
    rc = add_symbols(img, size, &sh[i], str, prefix, names, &count);
  }
  free(img);
  if (rc != 0) return dh_elf_free_names(names, count), -1;
  qsort(names, count, sizeof *names, cmp_name);
  *out_names = names;
  *out_count = count;
  return 0;
}

void dh_elf_free_names(char** names, size_t count) {
  for (size_t i = 0; names != NULL && i < count; i++) free(names[i]);
  free(names);
}
