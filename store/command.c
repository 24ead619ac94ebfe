/* store/command.c — `devharness store import|stats`: result bundles recorded in the
 * SQLite results store, and its row counts (store/store.h; docs/results.md). */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>

#include "cmdline/cmdline.h"
#include "store/internal.h"

static const char kStoreUsage[] =
    "usage: devharness store import [--store PATH] BUNDLE...\n"
    "       devharness store stats [--store PATH]\n"
    "\n"
    "The results store (SQLite; docs/results.md \"The store\").\n"
    "  import  records each result bundle (a folder with manifest.json, as written by\n"
    "          run, conformance --bundle, bench --bundle or merge) in one transaction;\n"
    "          a bundle whose run UUID is already there is skipped (importing twice\n"
    "          changes nothing). A damaged bundle (missing, truncated or changed file,\n"
    "          newer schema) is refused with one line and nothing of it is kept; the\n"
    "          others go on\n"
    "  stats   the store's schema version and the rows of every table\n"
    "  --store PATH  the store (default " DH_STORE_DEFAULT "; created when missing,\n"
    "                migrated when older, a copy PATH.bak-vN kept first)\n"
    "exit: 0 every bundle recorded or already there, 1 the store could not be opened,\n"
    "      written or migrated (locked by another writer for over 10 s: the message says\n"
    "      so; nothing half-written), 2 usage error, a bad bundle, or a store of a newer\n"
    "      schema\n";

/* The run UUID of dir's manifest when the store already holds that run (into uuid): the
 * same UUID with the same start, end, exit code, command and shard, so a bundle
 * imported before is skipped without reading and hashing its files. Another bundle
 * under a stored UUID is left to dh_store_import, which refuses it. */
static int already_there(sqlite3* db, const char* dir, char uuid[64]) {
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  struct stat fst;
  json_t* m = stat(path, &fst) == 0 && S_ISREG(fst.st_mode) ? json_load_file(path, 0, NULL) : NULL;
  const char* u = json_string_value(json_object_get(m, "run_uuid"));
  snprintf(uuid, 64, "%s", u ? u : "");
  int have = uuid[0] && dh_store_run_known(db, m) == DH_STORE_RUN_SAME;
  json_decref(m);
  return have;
}

static int import(const char* store, int n, char** dirs) {
  int code = 0;
  sqlite3* db = dh_store_open("store import", store, &code);
  if (!db) return code;
  int rc = DH_EXIT_OK, added = 0, skipped = 0;
  for (int i = 0; i < n; i++) {
    dh_store_loaded_bundle_t b;
    char uuid[64];
    if (already_there(db, dirs[i], uuid)) {
      printf("skipped %s: run %s is already in the store\n", dirs[i], uuid);
      skipped++;
      continue;
    }
    if (dh_store_bundle_load("store import", dirs[i], &b) != 0) {
      if (rc == DH_EXIT_OK) rc = DH_EXIT_USAGE;
      continue;
    }
    int r = dh_store_import("store import", db, store, &b);
    const char* id = json_string_value(json_object_get(b.manifest, "run_uuid"));
    if (r == 0) {
      printf("imported %s (run %s)\n", dirs[i], id);
      added++;
    } else if (r == 1) {
      printf("skipped %s: run %s is already in the store\n", dirs[i], id);
      skipped++;
    } else {
      rc = DH_EXIT_VIOLATION;
    }
    dh_store_bundle_free(&b);
  }
  sqlite3_close(db);
  printf("devharness store import: %d imported, %d already there, %d refused into %s\n", added, skipped,
         n - added - skipped, store);
  return rc;
}

static int stats(const char* store) {
  int code = 0;
  struct stat st;
  if (stat(store, &st) != 0) { /* stats reads: it never creates a store */
    fprintf(stderr, "devharness store stats: %s: no such store\n", dh_cmdline_quote(store));
    return DH_EXIT_USAGE;
  }
  sqlite3* db = dh_store_open("store stats", store, &code);
  if (!db) return code;
  static const char* const kTables[] = {"machines", "runs", "devices", "run_devices", "clause_results",
                                        "bench_results"};
  printf("store %s: schema version %d\n", store, DH_STORE_SCHEMA_VERSION);
  for (size_t i = 0; i < sizeof kTables / sizeof kTables[0]; i++) {
    char sql[128];
    sqlite3_stmt* st = NULL;
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", kTables[i]);
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    printf("  %-15s %lld\n", kTables[i], n);
  }
  sqlite3_close(db);
  return DH_EXIT_OK;
}

int dh_store_cmd_store(int argc, char** argv) {
  static const struct option kOpts[] = {
      {"store", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char* store = DH_STORE_DEFAULT;
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    fputs(kStoreUsage, stdout);
    return DH_EXIT_OK;
  }
  if (argc < 2 || (strcmp(argv[1], "import") != 0 && strcmp(argv[1], "stats") != 0))
    return dh_cmdline_usage_error("store", "expected 'import BUNDLE...' or 'stats'%s%s%s (see --help)",
                                  argc >= 2 ? ", got '" : "", argc >= 2 ? dh_cmdline_quote(argv[1]) : "",
                                  argc >= 2 ? "'" : "");
  int is_import = strcmp(argv[1], "import") == 0;
  dh_cmdline_getopt_begin();
  int c;
  while ((c = getopt_long(argc - 1, argv + 1, "h", kOpts, NULL)) != -1) {
    if (c == 'h') {
      fputs(kStoreUsage, stdout);
      return DH_EXIT_OK;
    }
    if (c != 's') return dh_cmdline_bad_option("store", kOpts, argc - 1, argv + 1);
    store = optarg;
  }
  if (!is_import) return dh_cmdline_no_operands("store", argc - 1, argv + 1) != DH_EXIT_OK ? DH_EXIT_USAGE : stats(store);
  if (optind >= argc - 1) return dh_cmdline_usage_error("store", "import: no bundle given (see --help)");
  return import(store, argc - 1 - optind, argv + 1 + optind);
}
