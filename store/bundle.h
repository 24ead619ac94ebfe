/*
 * store/bundle.h — a result bundle (docs/results.md "The bundle"), written and read:
 *   bundle.c       the write side: the folder a command's --bundle DIR names, its
 *                  info.json and, written last, its manifest.json (schema
 *                  docs/bundle.schema.json); used by `conformance`, `bench` and `run`
 *   bundle_read.c  the read side: a bundle loaded and checked (manifest schema and
 *                  version, every file's size and SHA-256), its conformance cases and
 *                  bench.json; used by merge, verify and store import
 * Not thread-safe: call from the command's main thread. Every function prints one line
 * "devharness CMD: ..." on stderr when it fails.
 */
#ifndef DEVHARNESS_STORE_BUNDLE_H_
#define DEVHARNESS_STORE_BUNDLE_H_

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <time.h>

/* The manifest's schema and the newest version this devharness writes and reads. */
#define DH_STORE_BUNDLE_SCHEMA "devharness.bundle"
#define DH_STORE_BUNDLE_SCHEMA_VERSION 1
/* The newest conformance.cases.json "version" this devharness reads. */
#define DH_STORE_CASES_VERSION 1
/* The largest bundle file verify and import read (bytes); a larger one is refused. */
#define DH_STORE_BUNDLE_FILE_MAX ((long long)1 << 30)

/* One bundle being written: set by dh_store_bundle_begin. */
typedef struct dh_store_bundle {
  const char* cmd;    /* the command: "conformance", "bench", "run" (static storage) */
  char dir[PATH_MAX]; /* the bundle folder */
  char uuid[40];      /* RFC 4122 v4, lowercase text */
  time_t started;     /* wall clock when the command started */
  int argc;           /* the command's argv (argv[0] = the command name), borrowed */
  char** argv;
  int created;        /* 1 when dh_store_bundle_begin made dir (it did not exist before) */
} dh_store_bundle_t;

/* What the manifest records besides the bundle itself. */
typedef struct dh_store_bundle_meta {
  int shard_index, shard_total;    /* 1-based; 1 of 1 when not sharded */
  const char* profile;             /* "default", "tvm" or "strict" */
  const char* const* waiver_paths; /* the --waivers files, in order (digested) */
  size_t n_waivers;
  int exit_code;                   /* the command's exit code */
} dh_store_bundle_meta_t;

/* Creates dir (and missing parents, mode 0755) and fills *b with a fresh UUID and the
 * start time. dir must not already hold a manifest.json (a bundle is written once).
 * Returns 0, or 2 (DH_EXIT_USAGE) after one line naming dir. */
int dh_store_bundle_begin(dh_store_bundle_t* b, const char* cmd, const char* dir, int argc, char** argv);

/* Gives up a bundle begun but never written (a usage error found late, such as a bad
 * --device): removes its folder when dh_store_bundle_begin created it and it is still empty;
 * a folder the user made is left as it was. Never fails. */
void dh_store_bundle_discard(const dh_store_bundle_t* b);

/* Writes DIR/info.json with `devharness info --json [--device SPEC] [--plugin PATH]...`
 * run in a child (this process initialises no backend), the command's device-option
 * values passed on (cmdline/cmdline.h dh_cmdline_device_option_args). device_spec may be
 * NULL; plugins (n_plugins, at most 16) are the command's --plugin files, so that the
 * manifest lists the devices the command ran on. Returns 0, or -1 after one line (the
 * info exit codes 0 and 3 both count as written). */
int dh_store_bundle_write_info(const dh_store_bundle_t* b, const char* device_spec, const char* const* plugins,
                               size_t n_plugins);

/* Writes DIR/manifest.json (through a temporary name, renamed last): the meta, the
 * machine and devices read from DIR/info.json, and the size and SHA-256 of every other
 * file under DIR. Returns 0, or -1 after one line. */
int dh_store_bundle_finish(const dh_store_bundle_t* b, const dh_store_bundle_meta_t* m);

/* SHA-256 of a file as 64 lowercase hex digits into hex[65], its size into *bytes.
 * Returns 0, or -1 (errno set) when it cannot be read. */
int dh_store_file_sha256(const char* path, char hex[65], long long* bytes);

/* A new RFC 4122 version 4 UUID as lowercase text into out[37] (libuuid). */
void dh_store_new_uuid(char out[37]);

/* t as ISO 8601 UTC, "2026-11-27T11:00:03Z", into out[21]. */
void dh_store_iso_time(time_t t, char out[21]);

/* A bundle read from disk; every json_t is owned (dh_store_bundle_free). */
typedef struct dh_store_loaded_bundle {
  char dir[PATH_MAX];
  json_t* manifest; /* manifest.json, checked: schema, version, required fields */
  json_t* cases_doc; /* conformance.cases.json, or NULL without one */
  json_t* cases;    /* its "cases" array (borrowed from cases_doc), or NULL */
  json_t* bench;    /* bench.json, or NULL without one */
  json_t* modules;  /* the `module check` cases files (module.cases.json, run's
                       module-NAME.cases.json): file name -> its document, each with a
                       "cases" array; NULL without any */
} dh_store_loaded_bundle_t;

/* Loads DIR/manifest.json and checks it (schema "devharness.bundle", a version not
 * newer than this devharness reads, the fields docs/results.md requires) and every file
 * it lists (present, same size, same SHA-256), then loads the cases, the module cases
 * and bench.json.
 * Returns 0, or -1 after one line "devharness CMD: DIR: what is wrong". */
int dh_store_bundle_load(const char* cmd, const char* dir, dh_store_loaded_bundle_t* b);
void dh_store_bundle_free(dh_store_loaded_bundle_t* b);

/* 1 when name is a `module check` cases file of a bundle: "module.cases.json" or
 * "module-NAME.cases.json" at its top level. */
int dh_store_bundle_is_module_cases(const char* name);

/* The stable_id the bundle's manifest gives the device with this spec, or NULL. */
const char* dh_store_bundle_stable_id(const dh_store_loaded_bundle_t* b, const char* spec);

/* The size and SHA-256 of every file under dir but manifest.json and dot files, as a
 * manifest's "files" object ({"NAME": {"bytes", "sha256"}}), or NULL (errno set) when
 * one cannot be read. */
json_t* dh_store_bundle_files(const char* dir);

/* What `devharness merge` (store/merge.c) hands the writer of the merged reports. */
typedef struct dh_store_merge {
  json_t* cases_doc;                      /* the merged conformance.cases.json */
  const dh_store_loaded_bundle_t* parts;  /* the bundles merged, in the order given */
  int nparts;
  int exit_code;                          /* the worst part's (the merged manifest's) */
  char said[512];                         /* the writer's line for merge's stdout, or "" */
} dh_store_merge_t;

/* Writes the merged reports into dir (the merged bundle's folder, before its manifest
 * lists them): 0, or -1 after one line on stderr. */
typedef int (*dh_store_merge_reports_fn)(const char* dir, dh_store_merge_t* m);

/* `devharness merge BUNDLE... -o DIR` (argv[0] = "merge"): the shard bundles joined,
 * reports written by reports (the conformance room's: conformance/conformance.h
 * dh_conformance_merge_main), every file of DIR in its manifest. Returns the exit code
 * (its --help says which). */
int dh_store_merge_main(int argc, char** argv, dh_store_merge_reports_fn reports);

#endif /* DEVHARNESS_STORE_BUNDLE_H_ */
