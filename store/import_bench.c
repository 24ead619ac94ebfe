/* store/import_bench.c — bench.json's rows as bench_results of one run
 * (store/internal.h; docs/results.md "The store"): the per-repetition rows of each
 * benchmark (Google Benchmark's run_type "iteration", grouped by run_name) as median
 * and quartiles of real_time, its device found by the `backend:id` part of its name,
 * the raw twin by a `raw` or `raw_*` part. Rows naming no device of the bundle are not
 * stored. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n) by linear interpolation (numpy's default). */
static double quantile(const double* v, size_t n, double q) {
  if (n == 0) return NAN;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)floor(pos);
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

/* The device spec and twin flag from a benchmark name's '/'-separated parts. */
static void name_parts(const char* name, const dh_store_loaded_bundle_t* b, char* spec, size_t n, int* twin) {
  spec[0] = '\0';
  *twin = 0;
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", name);
  char* save = NULL;
  for (char* t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
    if (strcmp(t, "raw") == 0 || strncmp(t, "raw_", 4) == 0) *twin = 1;
    if (!spec[0] && strchr(t, ':') && dh_store_bundle_stable_id(b, t)) snprintf(spec, n, "%s", t);
  }
}

/* The values of key in the rows of one benchmark, sorted; count into *n. */
static double* sorted_values(json_t* rows, const char* key, size_t* n) {
  double* v = malloc((json_array_size(rows) + 1) * sizeof *v);
  *n = 0;
  size_t i;
  json_t* r;
  json_array_foreach(rows, i, r) {
    json_t* x = json_object_get(r, key);
    if (v && json_is_number(x)) v[(*n)++] = json_number_value(x);
  }
  if (v) qsort(v, *n, sizeof *v, cmp_double);
  return v;
}

static int insert_row(sqlite3_stmt* st, sqlite3_int64 run_id, sqlite3_int64 dev, const char* name, int twin,
                      json_t* rows) {
  size_t n = 0, nb = 0;
  double* t = sorted_values(rows, "real_time", &n);
  double* bps = sorted_values(rows, "bytes_per_second", &nb);
  int rc = -1;
  if (t && bps && n > 0) {
    const char* unit = json_string_value(json_object_get(json_array_get(rows, 0), "time_unit"));
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, dev);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, twin);
    sqlite3_bind_text(st, 5, unit ? unit : "ns", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)n);
    sqlite3_bind_double(st, 7, quantile(t, n, 0.5));
    sqlite3_bind_double(st, 8, quantile(t, n, 0.25));
    sqlite3_bind_double(st, 9, quantile(t, n, 0.75));
    if (nb) sqlite3_bind_double(st, 10, quantile(bps, nb, 0.5));
    else sqlite3_bind_null(st, 10);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  } else if (t && bps) {
    rc = 0; /* no timed repetition (every one errored): nothing to store */
  }
  free(t);
  free(bps);
  return rc;
}

/* run_name -> array of its iteration rows. */
static json_t* group_rows(json_t* bench) {
  json_t* groups = json_object();
  size_t i;
  json_t* r;
  json_array_foreach(json_object_get(bench, "benchmarks"), i, r) {
    const char* type = json_string_value(json_object_get(r, "run_type"));
    const char* name = json_string_value(json_object_get(r, "run_name"));
    if (!name) name = json_string_value(json_object_get(r, "name"));
    if (!name || (type && strcmp(type, "iteration") != 0) || json_is_true(json_object_get(r, "error_occurred")))
      continue;
    json_t* g = json_object_get(groups, name);
    if (!g) json_object_set_new(groups, name, g = json_array());
    json_array_append(g, r);
  }
  return groups;
}

int dh_store_import_bench(sqlite3* db, sqlite3_int64 run_id, json_t* bench, const dh_store_loaded_bundle_t* b,
                          int (*dev)(void* user, const char* spec, sqlite3_int64* id), void* user) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO bench_results (run_id, device_id, name, twin, unit, repetitions, median, q1, "
                         "q3, bytes_per_second) VALUES (?,?,?,?,?,?,?,?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  json_t* groups = group_rows(bench);
  const char* name;
  json_t* rows;
  int rc = 0;
  json_object_foreach(groups, name, rows) {
    char spec[128];
    int twin;
    sqlite3_int64 id;
    name_parts(name, b, spec, sizeof spec, &twin);
    if (!spec[0] || dev(user, spec, &id) != 0) continue;
    if ((rc = insert_row(st, run_id, id, name, twin, rows)) != 0) break;
  }
  json_decref(groups);
  sqlite3_finalize(st);
  return rc;
}
