/*
 * store/internal.h — the SQLite side of the results room (docs/results.md "The store"),
 * internal to store/ (nothing outside store/ opens the store: tests/layering/store.t):
 *   store.c         the store opened: WAL, foreign keys, busy timeout, migrations from
 *                   store/schema.sql (compiled in), backup before migrating
 *   import.c        one bundle recorded in one transaction, idempotent by run UUID
 *   import_bench.c  bench.json's rows of that bundle (import.c's transaction)
 * Not thread-safe; every function that fails prints one line "devharness CMD: ..." on
 * stderr naming the bundle, file or store.
 */
#ifndef DEVHARNESS_STORE_INTERNAL_H_
#define DEVHARNESS_STORE_INTERNAL_H_

#include <jansson.h>
#include <sqlite3.h>

#include "store/bundle.h"
#include "store/store.h"
/* DH_STORE_SCHEMA_VERSION: the version of the newest migration in store/schema.sql,
 * generated from it by store/schema_facts.awk (as the Python reader's SCHEMA_VERSION
 * is), into $(OBJDIR)/gen/store/. */
#include "store/schema_facts.h"

/* Opens (creating it and its folder when missing) the store at path: WAL, foreign
 * keys on, busy timeout (10 s; DEVHARNESS_STORE_BUSY_MS overrides), then migrates it
 * to the newest schema (a copy PATH.bak-vN kept first when it had tables). A store of
 * a newer schema is refused. Returns the connection, or NULL after one line with *exit
 * set (2 newer schema or not a store, 1 cannot open or migrate). */
sqlite3* dh_store_open(const char* cmd, const char* path, int* exit_code);
/* Whether the store holds the run of bundle manifest m: DH_STORE_RUN_NEW (no run of
 * its run_uuid), DH_STORE_RUN_SAME (that run: same UUID, start, end, exit code, command
 * and shard) or DH_STORE_RUN_OTHER (another run under its UUID); -1 when the query
 * fails (sqlite3_errmsg(db) says why; nothing printed). Reads only. */
enum { DH_STORE_RUN_NEW = 0, DH_STORE_RUN_SAME = 1, DH_STORE_RUN_OTHER = 2 };
int dh_store_run_known(sqlite3* db, json_t* m);
/* Records one loaded bundle in one transaction. Returns 0 recorded, 1 already there
 * (dh_store_run_known: the same run; nothing changed), -1 after one line (another run
 * under its UUID, or a failure: rolled back, store unchanged). */
int dh_store_import(const char* cmd, sqlite3* db, const char* store_path, const dh_store_loaded_bundle_t* b);

/* bench.json's benchmark rows of bundle b as bench_results of run_id, inside the
 * caller's transaction (import_bench.c). dev maps a benchmark's device spec to its
 * device_id (0 and *id set, or -1: not a device of the bundle, the rows are skipped).
 * Returns 0, or -1 (sqlite3_errmsg(db) says why; nothing printed). */
int dh_store_import_bench(sqlite3* db, sqlite3_int64 run_id, json_t* bench, const dh_store_loaded_bundle_t* b,
                          int (*dev)(void* user, const char* spec, sqlite3_int64* id), void* user);

#endif /* DEVHARNESS_STORE_INTERNAL_H_ */
