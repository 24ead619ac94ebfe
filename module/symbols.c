/*
 * module/symbols.c — what a tvm-ffi library exports: its `__tvm_ffi_<name>` functions
 * read from the ELF dynamic symbol table (tvm-ffi's library module has no listing:
 * apache-tvm-ffi 0.1.15 include/tvm/ffi/extra/module.h `symbol::tvm_ffi_symbol_prefix`;
 * names with one more `_` are tvm-ffi's own: `__tvm_ffi__metadata_`, `__tvm_ffi__doc_`,
 * `__tvm_ffi__library_ctx`, ...), and their metadata through tvm-ffi's loader.
 * Calls schema.c.
 */
#include <elf.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/check.h"

#define MAX_LIB_BYTES (1024L * 1024 * 1024)

static int cmp_func(const void* a, const void* b) {
  return strcmp(((const dm_func_t*)a)->name, ((const dm_func_t*)b)->name);
}

/* The whole file into memory (at most MAX_LIB_BYTES). */
static int read_file(const char* path, unsigned char** out, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return dh_error_set(DH_KIND_IO_ERROR, "%s: cannot open", path);
  long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (n < (long)sizeof(Elf64_Ehdr) || n > MAX_LIB_BYTES) {
    fclose(f);
    return dh_error_set(DH_KIND_VALUE_ERROR, "%s: not an ELF shared object (size %ld)", path, n);
  }
  *out = malloc((size_t)n);
  int ok = *out != NULL && fseek(f, 0, SEEK_SET) == 0 && fread(*out, 1, (size_t)n, f) == (size_t)n;
  fclose(f);
  if (!ok) return free(*out), *out = NULL, dh_error_set(DH_KIND_IO_ERROR, "%s: cannot read", path);
  *size = (size_t)n;
  return 0;
}

/* Adds the exported functions of the .dynsym section sh (strings in str) to out. */
static void add_symbols(const unsigned char* img, size_t size, const Elf64_Shdr* sh, const Elf64_Shdr* str,
                        dm_func_t* out, size_t cap, size_t* count) {
  const size_t plen = strlen(DH_MODULE_SYMBOL_PREFIX);
  for (size_t off = sh->sh_offset; off + sizeof(Elf64_Sym) <= sh->sh_offset + sh->sh_size && off + sizeof(Elf64_Sym) <= size;
       off += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    memcpy(&sym, img + off, sizeof sym);
    if (sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name >= str->sh_size) continue;
    const char* name = (const char*)img + str->sh_offset + sym.st_name;
    size_t max = str->sh_size - sym.st_name;
    if (strnlen(name, max) == max || strncmp(name, DH_MODULE_SYMBOL_PREFIX, plen) != 0 || name[plen] == '_' ||
        name[plen] == '\0' || strlen(name + plen) >= sizeof out[0].name || *count >= cap)
      continue;
    memset(&out[*count], 0, sizeof out[*count]);
    snprintf(out[*count].name, sizeof out[*count].name, "%s", name + plen);
    out[*count].nparams = -1;
    (*count)++;
  }
}

int dm_list_exports(const char* path, dm_func_t* out, size_t cap, size_t* count) {
  unsigned char* img = NULL;
  size_t size = 0;
  *count = 0;
  if (read_file(path, &img, &size) != 0) return -1;
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)img;
  int rc = 0;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_DYN ||
      eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
      (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
    rc = dh_error_set(DH_KIND_VALUE_ERROR, "%s: not an ELF64 shared object", path);
  } else {
    const Elf64_Shdr* sh = (const Elf64_Shdr*)(img + eh->e_shoff);
    for (size_t i = 0; i < eh->e_shnum; i++) {
      if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr* str = &sh[sh[i].sh_link];
      if (str->sh_offset > size || str->sh_size > size - str->sh_offset || sh[i].sh_offset > size) continue;
      add_symbols(img, size, &sh[i], str, out, cap, count);
    }
    qsort(out, *count, sizeof *out, cmp_func);
  }
  free(img);
  return rc;
}

/* The string `__tvm_ffi_<prefix><name>` returns, or NULL (no such symbol, an error). */
static char* call_string(dh_module_t* m, const char* prefix, const char* name) {
  char key[200];
  dh_function_t fn;
  snprintf(key, sizeof key, "%s%s", prefix, name);
  if (dh_module_get_function(m, key, &fn) != 0) return dh_error_clear(), NULL;
  dh_any_t rv = dh_any_none();
  dh_byte_array_t b;
  char* s = NULL;
  if (dh_func_call(&fn, NULL, 0, &rv) == 0 && dh_any_as_str(&rv, &b) == 0 && (s = malloc(b.size + 1)) != NULL) {
    memcpy(s, b.data, b.size);
    s[b.size] = '\0';
  }
  dh_error_clear();
  dh_any_release(&rv);
  dh_func_release(&fn);
  return s;
}

int dm_read_metadata(const char* path, dm_func_t* funcs, size_t n) {
  dh_module_t* m;
  if (dh_module_load(path, &m) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    char* meta = call_string(m, "_metadata_", funcs[i].name);
    json_t* j = meta ? json_loads(meta, 0, NULL) : NULL;
    const char* ts = json_string_value(json_object_get(j, "type_schema"));
    if (ts != NULL && dm_schema_parse(ts, &funcs[i]) == 0) {
      funcs[i].has_schema = 1;
      dh_type_schema_format(ts, funcs[i].signature, sizeof funcs[i].signature);
    }
    dh_error_clear();
    json_decref(j);
    free(meta);
  }
  dh_module_free(m);
  return 0;
}
