/* base/json_read.c — bounded JSON reading (base/json_read.h), with jansson. */
#include "base/json_read.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/text.h"

void dh_json_describe(const json_t* v, char* buf, size_t size) {
  const char* tname = "null";
  switch (json_typeof(v)) {
    case JSON_OBJECT: tname = "object"; break;
    case JSON_ARRAY: tname = "array"; break;
    case JSON_STRING: tname = "string"; break;
    case JSON_INTEGER: tname = "int"; break;
    case JSON_REAL: tname = "float"; break;
    case JSON_TRUE:
    case JSON_FALSE: tname = "bool"; break;
    case JSON_NULL: tname = "null"; break;
  }
  if (json_is_null(v)) {
    snprintf(buf, size, "null");
    return;
  }
  char* text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (!text) {
    snprintf(buf, size, "%s", tname);
    return;
  }
  if (strlen(text) > 60) memcpy(text + 56, " ...", 5);
  snprintf(buf, size, "%s %s", tname, text);
  free(text);
}

/* jansson seeds its hash function on first object creation; seeding once up front
 * keeps that out of concurrent first uses (jansson docs, "Thread safety"). */
static pthread_once_t g_jansson_once = PTHREAD_ONCE_INIT;
static void seed_jansson(void) { json_object_seed(0); }
void dh_json_init(void) { pthread_once(&g_jansson_once, seed_jansson); }

static int depth_ok(const json_t* v, int depth) {
  if (depth > DH_JSON_MAX_DEPTH) return 0;
  if (json_is_object(v)) {
    const char* k;
    json_t* c;
    json_object_foreach((json_t*)v, k, c) {
      if (!depth_ok(c, depth + 1)) return 0;
    }
  } else if (json_is_array(v)) {
    size_t i;
    json_t* c;
    json_array_foreach(v, i, c) {
      if (!depth_ok(c, depth + 1)) return 0;
    }
  }
  return 1;
}

static int syntax_error(const char* origin, const json_error_t* err) {
  const char* what = "JSON syntax error";
  if (json_error_code(err) == json_error_invalid_utf8) what = "invalid UTF-8";
  else if (json_error_code(err) == json_error_duplicate_key) what = "duplicate key";
  return dh_base_error_set(DH_KIND_PARSE_ERROR, "%s:%d:%d: %s: %s", origin, err->line, err->column,
                           what, err->text);
}

/* Checks a freshly parsed root: an object, not too deep. Steals root on error. */
static int check_root(const char* origin, json_t* root, json_t** out) {
  if (!depth_ok(root, 1)) {
    json_decref(root);
    return dh_base_error_set(DH_KIND_PARSE_ERROR, "%s: nesting deeper than %d levels", origin,
                             DH_JSON_MAX_DEPTH);
  }
  if (!json_is_object(root)) {
    char d[96];
    dh_json_describe(root, d, sizeof d);
    json_decref(root);
    return dh_base_error_set(DH_KIND_TYPE_ERROR, "%s: expected a JSON object, got %s", origin, d);
  }
  *out = root;
  return 0;
}

static int all_space(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return 0;
  return 1;
}

int dh_json_read_text(const char* text, size_t len, const char* origin, json_t** out) {
  dh_json_init();
  if (len > DH_JSON_MAX_BYTES)
    return dh_base_error_set(DH_KIND_VALUE_ERROR, "%s: text is %zu bytes, larger than the 1 MiB limit",
                             origin, len);
  if (all_space(text, len)) return dh_base_error_set(DH_KIND_PARSE_ERROR, "%s: empty input", origin);
  json_error_t err;
  json_t* root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
  if (!root) return syntax_error(origin, &err);
  return check_root(origin, root, out);
}

typedef struct file_reader {
  FILE* f;
  size_t total;
  int too_big, non_space, io_error;
  char buf[65536];
} file_reader_t;

/* jansson callback: streams the file (never holds a second copy), stops past the
 * size limit. */
static size_t read_cb(void* buffer, size_t buflen, void* data) {
  file_reader_t* r = data;
  if (buflen > sizeof r->buf) buflen = sizeof r->buf;
  size_t n = fread(buffer, 1, buflen, r->f);
  if (n == 0 && ferror(r->f)) {
    r->io_error = errno ? errno : EIO;
    return (size_t)-1;
  }
  r->total += n;
  if (r->total > DH_JSON_MAX_BYTES) {
    r->too_big = 1;
    return (size_t)-1;
  }
  if (!r->non_space && !all_space(buffer, n)) r->non_space = 1;
  return n;
}

/* What a file that is not a regular file is, for messages. */
static const char* file_type_name(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISCHR(m) ? "a character device"
       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "of an unknown file type";
}

/* Regular files only, opened with O_NONBLOCK so that a FIFO or a device named by
 * mistake is refused at once instead of blocking the command. */
int dh_json_read_file(const char* path_raw, json_t** out) {
  dh_json_init();
  char path[DH_TEXT_BUF]; /* the name as messages show it */
  dh_text_quote(path_raw, path, sizeof path);
  int fd = open(path_raw, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return dh_base_error_set(DH_KIND_IO_ERROR, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return dh_base_error_set(DH_KIND_IO_ERROR, "%s: cannot stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return dh_base_error_set(DH_KIND_IO_ERROR, "%s: is %s, not a regular file", path,
                             file_type_name(st.st_mode));
  }
  FILE* f = fdopen(fd, "rb");
  if (!f) {
    int e = errno;
    close(fd);
    return dh_base_error_set(DH_KIND_IO_ERROR, "%s: cannot open: %s", path, strerror(e));
  }
  if ((uint64_t)st.st_size > DH_JSON_MAX_BYTES) {
    fclose(f);
    return dh_base_error_set(DH_KIND_VALUE_ERROR, "%s: file is %lld bytes, larger than the 1 MiB limit",
                             path, (long long)st.st_size);
  }
  file_reader_t* r = calloc(1, sizeof *r);
  if (!r) {
    fclose(f);
    return dh_base_error_set(DH_KIND_OUT_OF_MEMORY_ERROR, "%s: out of memory", path);
  }
  r->f = f;
  json_error_t err;
  json_t* root = json_load_callback(read_cb, r, JSON_REJECT_DUPLICATES, &err);
  int too_big = r->too_big, non_space = r->non_space, io_error = r->io_error;
  free(r);
  fclose(f);
  if (too_big) {
    json_decref(root);
    return dh_base_error_set(DH_KIND_VALUE_ERROR, "%s: file is larger than the 1 MiB limit", path);
  }
  if (io_error) {
    json_decref(root);
    return dh_base_error_set(DH_KIND_IO_ERROR, "%s: read error: %s", path, strerror(io_error));
  }
  if (!non_space) {
    json_decref(root);
    return dh_base_error_set(DH_KIND_PARSE_ERROR, "%s: empty file", path);
  }
  if (!root) return syntax_error(path, &err);
  return check_root(path, root, out);
}

