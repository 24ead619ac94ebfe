/*
 * bench/report/out_file.c — the --out file, complete or absent. Google Benchmark writes its
 * JSON to a temporary name beside it (created before any benchmark runs, so an
 * unwritable --out is a usage error up front); after the run the JSON is read back,
 * the devharness summary added, the result written to a second temporary name,
 * fsynced and renamed over --out. A write that fails (a full disk) or a Google
 * Benchmark file that stops short leaves no --out and says so once; Google Benchmark
 * itself does not check its stream (1.7.1 src/json_reporter.cc), so the read-back is
 * what finds a truncated file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/steps.h"
#include "cmdline/cmdline.h"

int dh_bench_out_open(const char* out, char** out_tmp) {
  size_t n = strlen(out) + 40;
  char* tmp = malloc(n);
  if (tmp == NULL) return dh_cmdline_usage_error("bench", "out of memory");
  snprintf(tmp, n, "%s.partial.%ld", out, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return dh_cmdline_usage_error("bench", "--out '%s': cannot create a file there: %s", dh_cmdline_quote(out),
                                  strerror(e));
  }
  close(fd);
  *out_tmp = tmp;
  return DH_EXIT_OK;
}

void dh_bench_out_discard(const char* out_tmp) {
  if (out_tmp != NULL) unlink(out_tmp);
}

/* Writes root to path as indented JSON, fsynced. 0, or -1 with errno set. */
static int dump_synced(json_t* root, const char* path) {
  FILE* f = fopen(path, "wbx");
  if (f == NULL) return -1;
  int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF && fflush(f) == 0 &&
                   fsync(fileno(f)) == 0
               ? 0
               : -1;
  int e = errno;
  if (fclose(f) != 0 && rc == 0) {
    rc = -1;
    e = errno;
  }
  if (rc != 0) unlink(path);
  errno = e;
  return rc;
}

/* Writes root to final through a temporary name and a rename. 0, or -1 (errno). */
static int publish(json_t* root, const char* final, const char* tmp_base) {
  size_t n = strlen(tmp_base) + 8;
  char* tmp = malloc(n);
  if (tmp == NULL) return errno = ENOMEM, -1;
  snprintf(tmp, n, "%s.json", tmp_base);
  int rc = dump_synced(root, tmp);
  if (rc == 0 && rename(tmp, final) != 0) {
    int e = errno;
    unlink(tmp);
    errno = e;
    rc = -1;
  }
  free(tmp);
  return rc;
}

/* 1 when the file at path ends (after white space) with '}': Google Benchmark finished
 * it, though it may not parse (a NaN it wrote). */
static int ends_complete(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  int last = EOF;
  for (int c; (c = fgetc(f)) != EOF;)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') last = c;
  fclose(f);
  return last == '}';
}

/* Moves the string members of sum's "context_after_run" (what is known only after the
 * run, e.g. devharness.health.noisy) into root's "context", beside Google Benchmark's
 * and dh_gb_add_context's keys (a key already there is kept). */
static void merge_context(json_t* root, json_t* sum) {
  json_t* extra = json_object_get(sum, "context_after_run");
  json_t* ctx = json_object_get(root, "context");
  const char* key;
  json_t* v;
  if (json_is_object(ctx) && json_is_object(extra))
    json_object_foreach(extra, key, v) {
      if (json_is_string(v) && !json_object_get(ctx, key)) json_object_set(ctx, key, v);
    }
  json_object_del(sum, "context_after_run");
}

int dh_bench_out_publish(const char* out, const char* out_tmp, json_t* sum) {
  json_error_t err;
  json_t* root = json_load_file(out_tmp, 0, &err);
  int rc = DH_EXIT_OK;
  if (root != NULL) {
    merge_context(root, sum);
    json_object_set(root, "devharness_summary", sum);
    if (publish(root, out, out_tmp) != 0) {
      fprintf(stderr, "devharness bench: cannot write %s: %s; nothing written\n", out, strerror(errno));
      rc = DH_EXIT_VIOLATION;
    }
    json_decref(root);
  } else if (ends_complete(out_tmp)) {
    /* complete but not JSON to jansson (a NaN): kept as is, the summary beside it */
    char side[PATH_MAX + 16];
    snprintf(side, sizeof side, "%s.summary.json", out);
    if (rename(out_tmp, out) != 0 || publish(sum, side, out_tmp) != 0) {
      fprintf(stderr, "devharness bench: cannot write %s: %s\n", side, strerror(errno));
      rc = DH_EXIT_VIOLATION;
    } else {
      fprintf(stderr, "devharness bench: cannot parse %s back (%s, line %d); summary written to %s\n", out,
              err.text, err.line, side);
    }
  } else {
    fprintf(stderr, "devharness bench: cannot write %s: Google Benchmark's output stopped short (%s, line %d; "
            "disk full?); nothing written\n", out, err.text, err.line);
    rc = DH_EXIT_VIOLATION;
  }
  unlink(out_tmp);
  return rc;
}
