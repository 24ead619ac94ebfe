/*
 * tests/fuzz/replay.c — runs a fuzz target over files without libFuzzer, printing TAP:
 * one test point per file. Usage: fuzz_<name> [FILE_OR_DIR...]; with no arguments,
 * the seed corpus tests/fuzz/corpus/<name>/ and tests/fuzz/regressions/<name>/.
 * A broken invariant traps (the test program dies, which prove reports).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

#define MAX_FILES 4096

static char* files[MAX_FILES];
static int nfiles;

static int cmp(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void collect(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR* d = opendir(path);
    if (!d) return;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      collect(sub);
    }
    closedir(d);
  } else if (S_ISREG(st.st_mode) && nfiles < MAX_FILES) {
    files[nfiles++] = strdup(path);
  }
}

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; ++i) collect(argv[i]);
  if (argc < 2) {
    const char* base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (strncmp(base, "fuzz_", 5) == 0) base += 5;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", DH_SOURCE_DIR, base);
    collect(dir);
    snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/%s", DH_SOURCE_DIR, base);
    collect(dir);
  }
  qsort(files, (size_t)nfiles, sizeof files[0], cmp);
  printf("1..%d\n", nfiles);
  for (int i = 0; i < nfiles; ++i) {
    FILE* f = fopen(files[i], "rb");
    if (!f) {
      printf("not ok %d - %s # cannot open\n", i + 1, files[i]);
      continue;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char* buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
      n += r;
      if (n == cap) {
        cap *= 2;
        unsigned char* nb = realloc(buf, cap);
        if (!nb) break;
        buf = nb;
      }
    }
    fclose(f);
    fflush(stdout);
    LLVMFuzzerTestOneInput(buf, n);
    printf("ok %d - %s\n", i + 1, files[i]);
    free(buf);
    free(files[i]);
  }
  return 0;
}
