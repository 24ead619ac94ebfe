/*
 * cli/results.h — the SQLite results store, merge and verify
 * (docs/results.md), internal to cli/:
 *   store.c         the store opened: WAL, foreign keys, busy timeout, migrations from
 *                   cli/store_schema.sql (compiled in), backup before migrating
 *   store_import.c  one bundle recorded in one transaction, idempotent by run UUID
 *   store_cmd.c     `devharness store import`
 *   merge.c         `devharness merge BUNDLE... -o DIR`
 *   verify.c        `devharness verify BUNDLE...`
 * Not thread-safe; every function that fails prints one line "devharness CMD: ..." on
 * stderr naming the bundle, file or store.
 */
#ifndef DEVHARNESS_CLI_RESULTS_H_
#define DEVHARNESS_CLI_RESULTS_H_

#include <jansson.h>
#include <limits.h>
#include <sqlite3.h>

#include "store/bundle.h"

/* Opens (creating it and its folder when missing) the store at path: WAL, foreign
 * keys on, busy timeout (10 s; DEVHARNESS_STORE_BUSY_MS overrides), then migrates it
 * to the newest schema (a copy PATH.bak-vN kept first when it had tables). A store of
 * a newer schema is refused. Returns the connection, or NULL after one line with *exit
 * set (2 newer schema or not a store, 1 cannot open or migrate). */
sqlite3* dh_store_open(const char* cmd, const char* path, int* exit_code);
/* The schema version of the newest migration in cli/store_schema.sql. */
int dh_store_latest_version(void);

/* Records one loaded bundle in one transaction. Returns 0 recorded, 1 already there
 * (same run_uuid: nothing changed), -1 after one line (rolled back, store unchanged). */
int dh_store_import(const char* cmd, sqlite3* db, const char* store_path, const dh_results_bundle_t* b);

/* The default store of a results folder: OUTPUT/devharness.sqlite. */
#define DH_STORE_DEFAULT "results/devharness.sqlite"

/* `devharness store`, `devharness merge`, `devharness verify` (cli/main.c's table). */
int dh_cli_store(int argc, char** argv);
int dh_cli_merge(int argc, char** argv);
int dh_cli_verify(int argc, char** argv);

#endif /* DEVHARNESS_CLI_RESULTS_H_ */
