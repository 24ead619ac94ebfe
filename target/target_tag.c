/*
 * target/target_tag.c — tags: presets named vendor/name, one file each in
 * <targets folder>/tags/<vendor>/<name>.json (target/target_impl.h has the file map).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devharness/device_api.h"
#include "devharness/error.h"
#include "target_impl.h"

static int valid_tag_part(const char* s, size_t n) {
  if (n == 0 || s[0] == '.') return 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '-' || c == '.'))
      return 0;
  }
  return 1;
}

static int valid_tag(const char* tag) {
  const char* slash = strchr(tag, '/');
  if (!slash || strchr(slash + 1, '/')) return 0;
  return valid_tag_part(tag, (size_t)(slash - tag)) && valid_tag_part(slash + 1, strlen(slash + 1));
}

static void collect_tags(str_list_t* out) {
  const char* dir = dh_targets_dir();
  if (!dir) return;
  char tdir[PATH_MAX];
  snprintf(tdir, sizeof tdir, "%s/tags", dir);
  DIR* d = opendir(tdir);
  if (!d) return;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (!valid_tag_part(e->d_name, strlen(e->d_name))) continue;
    char vdir[PATH_MAX];
    if ((size_t)snprintf(vdir, sizeof vdir, "%s/%s", tdir, e->d_name) >= sizeof vdir) continue;
    DIR* v = opendir(vdir);
    if (!v) continue;
    struct dirent* f;
    while ((f = readdir(v)) != NULL) {
      size_t len = strlen(f->d_name);
      if (len <= 5 || strcmp(f->d_name + len - 5, ".json") != 0) continue;
      if (!valid_tag_part(f->d_name, len - 5)) continue;
      char name[PATH_MAX];
      snprintf(name, sizeof name, "%s/%.*s", e->d_name, (int)(len - 5), f->d_name);
      if (dh__sl_push(out, name) != 0) break;
    }
    closedir(v);
  }
  closedir(d);
  if (out->n) qsort(out->v, out->n, sizeof *out->v, dh__cmp_str_ptr);
}

size_t dh_target_tag_list(void (*visit)(const char* tag, void* user), void* user) {
  str_list_t l = {0};
  collect_tags(&l);
  if (visit)
    for (size_t i = 0; i < l.n; ++i) visit(l.v[i], user);
  size_t n = l.n;
  dh__sl_free(&l);
  return n;
}

int dh__tag_path(const char* tag, char* path, size_t size) {
  const char* dir = dh_targets_dir();
  if (!dir || !valid_tag(tag)) return -1;
  if ((size_t)snprintf(path, size, "%s/tags/%s.json", dir, tag) >= size) return -1;
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

int dh__unknown_tag(const char* where, const char* tag) {
  str_list_t l = {0};
  collect_tags(&l);
  dh_sbuf_t b = {0};
  for (size_t i = 0; i < l.n; ++i) {
    if (i) dh_sbuf_add(&b, ", ");
    dh_sbuf_add(&b, l.v[i]);
  }
  if (!l.n) dh_sbuf_add(&b, dh_targets_dir() ? "(none)" : "(none: no targets folder found)");
  char q[DH_TEXT_BUF];
  int rc = dh_error_set(DH_KIND_KEY_ERROR, "%s: unknown tag '%s'; known tags: %s", where,
                        dh_text_quote(tag, q, sizeof q), dh_sbuf_str(&b));
  free(b.s);
  dh__sl_free(&l);
  return rc;
}

