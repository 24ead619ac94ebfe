/* store/import.c — one result bundle recorded in the store in one transaction,
 * idempotent by run UUID (store/internal.h; docs/results.md "The store"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmdline/cmdline.h"
#include "store/bundle.h"
#include "store/internal.h"

typedef struct dh_store_importer {
  const char* cmd;
  const char* path; /* the store, for messages */
  sqlite3* db;
  const dh_store_loaded_bundle_t* b;
  sqlite3_int64 run_id;
  json_t* ids; /* stable_id -> device_id of this bundle's devices */
} dh_store_importer_t;

static int db_fail(const dh_store_importer_t* im, const char* what) {
  fprintf(stderr, "devharness %s: %s: not imported into %s: %s: %s\n", im->cmd, dh_cmdline_quote(im->b->dir),
          dh_cmdline_quote(im->path), what, sqlite3_errmsg(im->db));
  return -1;
}

/* Binds the arguments of fmt ('s' text, 'i' integer, 'd' real, 'D' real or NULL when
 * NaN) to st from index 1. */
static void bind_all(sqlite3_stmt* st, const char* fmt, va_list ap) {
  for (int i = 0; fmt[i]; i++) {
    if (fmt[i] == 's') sqlite3_bind_text(st, i + 1, va_arg(ap, const char*), -1, SQLITE_TRANSIENT);
    else if (fmt[i] == 'i') sqlite3_bind_int64(st, i + 1, va_arg(ap, sqlite3_int64));
    else {
      double v = va_arg(ap, double);
      if (fmt[i] == 'D' && isnan(v)) sqlite3_bind_null(st, i + 1);
      else sqlite3_bind_double(st, i + 1, v);
    }
  }
}

/* Runs sql with the bound arguments; the first column of its first row into *out when
 * out is not NULL (0 when no row). SQLITE_DONE/SQLITE_ROW are success: returns 0, or -1. */
static int run_sql(dh_store_importer_t* im, sqlite3_int64* out, const char* sql, const char* fmt, ...) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(im->db, sql, -1, &st, NULL) != SQLITE_OK) return db_fail(im, "prepare");
  va_list ap;
  va_start(ap, fmt);
  bind_all(st, fmt, ap);
  va_end(ap);
  int rc = sqlite3_step(st);
  if (out) *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_fail(im, "write");
  return 0;
}

static const char* jtext(json_t* o, const char* key) {
  const char* s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}
static sqlite3_int64 jint(json_t* o, const char* key) { return (sqlite3_int64)json_integer_value(json_object_get(o, key)); }

static int add_machine(dh_store_importer_t* im, sqlite3_int64* machine_id) {
  json_t* m = json_object_get(im->b->manifest, "machine");
  if (run_sql(im, NULL,
              "INSERT OR IGNORE INTO machines (fingerprint, hostname, os, kernel, arch, cpu_model, cores, pus, "
              "numa_nodes, memory_bytes) VALUES (?,?,?,?,?,?,?,?,?,?)",
              "ssssssiiii", jtext(m, "fingerprint"), jtext(m, "hostname"), jtext(m, "os"), jtext(m, "kernel"),
              jtext(m, "arch"), jtext(m, "cpu_model"), jint(m, "cores"), jint(m, "pus"), jint(m, "numa_nodes"),
              jint(m, "memory_bytes")) != 0)
    return -1;
  return run_sql(im, machine_id, "SELECT machine_id FROM machines WHERE fingerprint = ?", "s",
                 jtext(m, "fingerprint"));
}

static int add_run(dh_store_importer_t* im, sqlite3_int64 machine_id) {
  json_t* m = im->b->manifest;
  char* argv = json_dumps(json_object_get(m, "command_line"), JSON_COMPACT);
  char now[21];
  dh_store_iso_time(time(NULL), now);
  json_t* shard = json_object_get(m, "shard");
  int rc = run_sql(im, NULL,
                   "INSERT INTO runs (uuid, machine_id, command, command_line, started_at, ended_at, "
                   "devharness_version, git_commit, shard_index, shard_total, profile, waivers_digest, exit_code, "
                   "bundle_schema, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   "sissssssiissiis", jtext(m, "run_uuid"), machine_id, jtext(m, "command"), argv ? argv : "[]",
                   jtext(m, "started_at"), jtext(m, "ended_at"), jtext(json_object_get(m, "devharness"), "version"),
                   jtext(json_object_get(m, "devharness"), "git_commit"), jint(shard, "index"), jint(shard, "total"),
                   jtext(m, "profile"), jtext(m, "waivers_digest"), jint(m, "exit_code"), jint(m, "schema_version"),
                   now);
  free(argv);
  im->run_id = sqlite3_last_insert_rowid(im->db);
  return rc;
}

/* The device row of a stable id (created when new), or 0 after a message. */
static sqlite3_int64 device_row(dh_store_importer_t* im, json_t* d) {
  sqlite3_int64 id = 0;
  if (run_sql(im, NULL, "INSERT OR IGNORE INTO devices (stable_id, backend, name, pci_bus_id, uuid) VALUES (?,?,?,?,?)",
              "sssss", jtext(d, "stable_id"), jtext(d, "backend"), jtext(d, "name"), jtext(d, "pci_bus_id"),
              jtext(d, "uuid")) != 0 ||
      run_sql(im, &id, "SELECT device_id FROM devices WHERE stable_id = ?", "s", jtext(d, "stable_id")) != 0)
    return 0;
  return id;
}

static int add_devices(dh_store_importer_t* im) {
  size_t i;
  json_t* d;
  json_array_foreach(json_object_get(im->b->manifest, "devices"), i, d) {
    sqlite3_int64 id = device_row(im, d);
    json_object_set_new(im->ids, jtext(d, "stable_id"), json_integer(id));
    if (id == 0 || run_sql(im, NULL,
                           "INSERT OR IGNORE INTO run_devices (run_id, device_id, spec, driver_version, "
                           "api_version, target) VALUES (?,?,?,?,?,?)",
                           "iissss", im->run_id, id, jtext(d, "spec"), jtext(d, "driver_version"),
                           jtext(d, "api_version"), jtext(d, "target")) != 0)
      return -1;
  }
  return 0;
}

/* The device_id of a case's or benchmark's device: its stable_id when it carries one
 * (merged bundles), else the manifest's device with that spec; 0 when unknown. */
static sqlite3_int64 device_of(dh_store_importer_t* im, const char* spec, const char* stable) {
  if (!stable || !stable[0]) stable = dh_store_bundle_stable_id(im->b, spec);
  return stable ? (sqlite3_int64)json_integer_value(json_object_get(im->ids, stable)) : 0;
}

/* One case into the prepared INSERT st: on device dev (0: none, the case is left out),
 * as clause. */
static int add_case_as(dh_store_importer_t* im, sqlite3_stmt* st, json_t* c, json_int_t shard, sqlite3_int64 dev,
                       const char* clause) {
  if (dev == 0) return 0; /* a backend without a device: no device row to hold it */
  json_t* sh = json_object_get(c, "shard");
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, im->run_id);
  sqlite3_bind_int64(st, 2, dev);
  sqlite3_bind_text(st, 3, clause, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, jtext(c, "status"), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 5, json_is_true(json_object_get(c, "waived")));
  sqlite3_bind_text(st, 6, jtext(c, "message"), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st, 7, json_number_value(json_object_get(c, "duration_ms")));
  sqlite3_bind_int64(st, 8, sh ? json_integer_value(sh) : shard);
  if (sqlite3_step(st) == SQLITE_DONE) return 0;
  char what[512];
  snprintf(what, sizeof what, "case %s %s", jtext(c, "device"), clause);
  return db_fail(im, what);
}

static int add_case(dh_store_importer_t* im, sqlite3_stmt* st, json_t* c, json_int_t shard) {
  return add_case_as(im, st, c, shard, device_of(im, jtext(c, "device"), jtext(c, "stable_id")), jtext(c, "clause"));
}

/* A `module check` case (its record's device is the library, its subject "FUNCTION
 * DEVICE"): on DEVICE, as the clause "CASE@LIB:FUNCTION" (LIB the library's file
 * name; docs/results.md "Module cases in the store"). A case without a device (once
 * per function: module.metadata) is left out: no device row holds it. */
static int add_module_case(dh_store_importer_t* im, sqlite3_stmt* st, json_t* c) {
  const char* subject = jtext(c, "subject");
  const char* sp = strrchr(subject, ' ');
  if (sp == NULL) return 0;
  const char* lib = strrchr(jtext(c, "device"), '/');
  char clause[512];
  snprintf(clause, sizeof clause, "%s@%s:%.*s", jtext(c, "clause"), lib ? lib + 1 : jtext(c, "device"),
           (int)(strchr(subject, ' ') - subject), subject);
  return add_case_as(im, st, c, 1, device_of(im, sp + 1, NULL), clause);
}

static int add_cases(dh_store_importer_t* im) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(im->db,
                         "INSERT INTO clause_results (run_id, device_id, clause, status, waived, message, "
                         "duration_ms, shard_index) VALUES (?,?,?,?,?,?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return db_fail(im, "prepare");
  json_int_t shard = json_integer_value(json_object_get(json_object_get(im->b->manifest, "shard"), "index"));
  size_t i;
  json_t* c;
  int rc = 0;
  json_array_foreach(im->b->cases, i, c) {
    if ((rc = add_case(im, st, c, shard)) != 0) break;
  }
  const char* name;
  json_t* doc;
  json_object_foreach(im->b->modules, name, doc) {
    json_array_foreach(json_object_get(doc, "cases"), i, c) {
      if (rc == 0) rc = add_module_case(im, st, c);
    }
  }
  sqlite3_finalize(st);
  return rc;
}

static int bench_device(void* user, const char* spec, sqlite3_int64* id) {
  *id = device_of(user, spec, NULL);
  return *id ? 0 : -1;
}

int dh_store_run_known(sqlite3* db, json_t* m) {
  sqlite3_stmt* st = NULL;
  if (sqlite3_prepare_v2(db,
                         "SELECT started_at = ? AND ended_at = ? AND exit_code = ? AND command = ? AND "
                         "shard_index = ? FROM runs WHERE uuid = ?",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_text(st, 1, jtext(m, "started_at"), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, jtext(m, "ended_at"), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 3, jint(m, "exit_code"));
  sqlite3_bind_text(st, 4, jtext(m, "command"), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 5, jint(json_object_get(m, "shard"), "index"));
  sqlite3_bind_text(st, 6, jtext(m, "run_uuid"), -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  int known = rc == SQLITE_ROW ? (sqlite3_column_int(st, 0) ? DH_STORE_RUN_SAME : DH_STORE_RUN_OTHER)
              : rc == SQLITE_DONE ? DH_STORE_RUN_NEW : -1;
  sqlite3_finalize(st);
  return known;
}

int dh_store_import(const char* cmd, sqlite3* db, const char* store_path, const dh_store_loaded_bundle_t* b) {
  dh_store_importer_t im = {.cmd = cmd, .path = store_path, .db = db, .b = b};
  sqlite3_int64 machine_id = 0;
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) return db_fail(&im, "cannot lock the store");
  im.ids = json_object(); /* after BEGIN: every way out below releases it */
  int known = dh_store_run_known(db, b->manifest);
  if (known < 0) {
    db_fail(&im, "read");
    goto fail;
  }
  if (known != DH_STORE_RUN_NEW) {
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    json_decref(im.ids);
    if (known == DH_STORE_RUN_SAME) return 1;
    fprintf(stderr,
            "devharness %s: %s: run UUID %s is already in %s with other contents (start, end, exit code, command "
            "or shard differ); refused\n",
            cmd, dh_cmdline_quote(b->dir), dh_cmdline_quote(jtext(b->manifest, "run_uuid")),
            dh_cmdline_quote(store_path));
    return -1;
  }
  if (add_machine(&im, &machine_id) != 0 || add_run(&im, machine_id) != 0 || add_devices(&im) != 0 ||
      add_cases(&im) != 0)
    goto fail;
  if (b->bench && dh_store_import_bench(db, im.run_id, b->bench, b, bench_device, &im) != 0) {
    db_fail(&im, "bench.json");
    goto fail;
  }
  if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    db_fail(&im, "commit");
    goto fail;
  }
  json_decref(im.ids);
  return 0;
fail:
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  json_decref(im.ids);
  return -1;
}

int dh_store_record(const char* cmd, const char* path, const char* dir, char uuid[64]) {
  int code = 0, rc = -1;
  uuid[0] = '\0';
  sqlite3* db = dh_store_open(cmd, path, &code);
  dh_store_loaded_bundle_t b;
  if (db && dh_store_bundle_load(cmd, dir, &b) == 0) {
    rc = dh_store_import(cmd, db, path, &b) < 0 ? -1 : 0;
    snprintf(uuid, 64, "%s", jtext(b.manifest, "run_uuid"));
    dh_store_bundle_free(&b);
  }
  if (db) sqlite3_close(db);
  return rc;
}
