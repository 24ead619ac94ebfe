/* store/merge.c — `devharness merge BUNDLE... -o DIR`: shard bundles of one conformance
 * run joined into one bundle (store/bundle.h dh_store_merge_main; docs/results.md
 * "Shards"); the merged reports are written by the caller's writer (the conformance
 * room's, which owns the reporters' view of a conformance run). */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmdline/cmdline.h"
#include "store/bundle.h"
#include "store/store.h"

static const char kMergeUsage[] =
    "usage: devharness merge BUNDLE... -o DIR\n"
    "\n"
    "Joins the result bundles of the shards of one conformance run (conformance --shard\n"
    "I/N --bundle ...) into one bundle DIR: conformance.cases.json is the union of the\n"
    "parts (each case keeps its device's stable id and its shard), manifest.json gets a\n"
    "new run UUID, command \"merge\", the parts in \"shards\", the devices of every part\n"
    "and the worst part's exit code. The merged reports come from the merged cases, as\n"
    "conformance writes them: conformance.tap (flat layout: one test point per device x\n"
    "clause), conformance.junit.xml (each case once) and conformance.summary.json; a case\n"
    "of a shard not given is a failure in them (\"not run: shard K/N not merged\"). Check\n"
    "the result with devharness verify DIR.\n"
    "  -o, --output DIR  the merged bundle (must not exist; written under a temporary\n"
    "                    name and renamed when whole)\n"
    "exit: 0 merged, 1 DIR could not be written, 2 usage error or a bad bundle (missing,\n"
    "      damaged, of a newer schema, without conformance cases, or parts of different\n"
    "      shard counts)\n";

/* The worst of two exit codes: 1 over 2 over 3 over 0. */
static int worse(int a, int b) {
  static const int kRank[] = {0, 3, 2, 1}; /* rank of 0, 1, 2, 3 */
  int ra = a >= 0 && a <= 3 ? kRank[a] : 3, rb = b >= 0 && b <= 3 ? kRank[b] : 3;
  return ra >= rb ? a : b;
}

/* Appends the strings of array src not yet in dst. */
static void union_strings(json_t* dst, json_t* src) {
  size_t i, j;
  json_t *v, *w;
  json_array_foreach(src, i, v) {
    int have = 0;
    json_array_foreach(dst, j, w) have |= json_equal(v, w);
    if (!have) json_array_append(dst, v);
  }
}

/* Adds part b (shard index idx) to the merged cases document and manifest. */
static void add_part(json_t* doc, json_t* man, const dh_store_loaded_bundle_t* b) {
  json_t* m = b->manifest;
  json_t* shard = json_object_get(m, "shard");
  size_t i, j;
  json_t *c, *d;
  json_array_foreach(b->cases, i, c) {
    json_t* k = json_deep_copy(c);
    const char* sid = dh_store_bundle_stable_id(b, json_string_value(json_object_get(c, "device")));
    json_object_set_new(k, "stable_id", json_string(sid ? sid : ""));
    json_object_set(k, "shard", json_object_get(shard, "index"));
    json_array_append_new(json_object_get(doc, "cases"), k);
  }
  union_strings(json_object_get(doc, "devices"), json_object_get(b->cases_doc, "devices"));
  union_strings(json_object_get(doc, "clauses"), json_object_get(b->cases_doc, "clauses"));
  json_array_foreach(json_object_get(m, "devices"), i, d) {
    int have = 0;
    json_t* e;
    json_array_foreach(json_object_get(man, "devices"), j, e) have |= json_equal(json_object_get(e, "stable_id"), json_object_get(d, "stable_id"));
    if (!have) json_array_append(json_object_get(man, "devices"), d);
  }
  json_array_append_new(json_object_get(man, "shards"),
                        json_pack("{s:O, s:O, s:O}", "run_uuid", json_object_get(m, "run_uuid"), "index",
                                  json_object_get(shard, "index"), "total", json_object_get(shard, "total")));
  const char* s0 = json_string_value(json_object_get(man, "started_at"));
  const char* s1 = json_string_value(json_object_get(m, "started_at"));
  if (strcmp(s1, s0) < 0) json_object_set(man, "started_at", json_object_get(m, "started_at"));
  const char* e0 = json_string_value(json_object_get(man, "ended_at"));
  const char* e1 = json_string_value(json_object_get(m, "ended_at"));
  if (strcmp(e1, e0) > 0) json_object_set(man, "ended_at", json_object_get(m, "ended_at"));
  int ec = worse((int)json_integer_value(json_object_get(man, "exit_code")), (int)json_integer_value(json_object_get(m, "exit_code")));
  json_object_set_new(man, "exit_code", json_integer(ec));
}

/* The merged manifest, from the first part; parts added by add_part. */
static json_t* manifest_from(const dh_store_loaded_bundle_t* first, int argc, char** argv) {
  json_t* man = json_deep_copy(first->manifest);
  char uuid[37];
  dh_store_new_uuid(uuid);
  json_t* cl = json_array();
  json_array_append_new(cl, json_string("devharness"));
  for (int i = 0; i < argc; i++) json_array_append_new(cl, json_string(argv[i]));
  json_object_set_new(man, "run_uuid", json_string(uuid));
  json_object_set_new(man, "command", json_string("merge"));
  json_object_set_new(man, "command_line", cl);
  json_object_set_new(man, "shard", json_pack("{s:i, s:i}", "index", 1, "total", 1));
  json_object_set_new(man, "devices", json_array());
  json_object_set_new(man, "shards", json_array());
  json_object_set_new(man, "files", json_object());
  json_object_set_new(man, "exit_code", json_integer(0));
  return man;
}

static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
  (void)st, (void)type, (void)ftw;
  remove(path);
  return 0;
}

/* Writes the merged cases, the reports (m's writer) and the manifest listing every
 * file into a temporary folder renamed to out; nothing is left of it on a failure. */
static int write_merged(const char* out, json_t* doc, json_t* man, dh_store_merge_reports_fn reports,
                        dh_store_merge_t* m) {
  char tmp[PATH_MAX], path[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%.4000s.partial-%ld", out, (long)getpid());
  if (mkdir(tmp, 0755) != 0) goto fail;
  snprintf(path, sizeof path, "%s/conformance.cases.json", tmp);
  if (json_dump_file(doc, path, JSON_INDENT(1)) != 0) goto fail;
  if (reports && reports(tmp, m) != 0) goto gone; /* it said why */
  json_t* files = dh_store_bundle_files(tmp);
  if (!files) goto fail;
  json_object_set_new(man, "files", files);
  snprintf(path, sizeof path, "%s/manifest.json", tmp);
  if (json_dump_file(man, path, JSON_INDENT(1) | JSON_SORT_KEYS) != 0 || rename(tmp, out) != 0) goto fail;
  return 0;
fail:
  fprintf(stderr, "devharness merge: cannot write %s: %s\n", dh_cmdline_quote(out), strerror(errno));
gone:
  nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return DH_EXIT_VIOLATION;
}

static int merge(const char* out, int n, char** dirs, int argc, char** argv, dh_store_merge_reports_fn reports) {
  dh_store_loaded_bundle_t* parts = calloc((size_t)n, sizeof *parts);
  json_t *doc = NULL, *man = NULL;
  int rc = DH_EXIT_USAGE, loaded = 0;
  for (; parts && loaded < n; loaded++) {
    if (dh_store_bundle_load("merge", dirs[loaded], &parts[loaded]) != 0) goto done;
    json_t* tot = json_object_get(json_object_get(parts[loaded].manifest, "shard"), "total");
    if (!parts[loaded].cases) {
      fprintf(stderr, "devharness merge: %s: no conformance cases (conformance.cases.json) to merge\n", dh_cmdline_quote(dirs[loaded]));
      goto done;
    }
    if (loaded && !json_equal(tot, json_object_get(json_object_get(parts[0].manifest, "shard"), "total"))) {
      fprintf(stderr, "devharness merge: %s: shard total %lld differs from %s's\n", dh_cmdline_quote(dirs[loaded]),
              (long long)json_integer_value(tot), dh_cmdline_quote(dirs[0]));
      goto done;
    }
  }
  if (!parts) goto done;
  man = manifest_from(&parts[0], argc, argv);
  doc = json_pack("{s:s, s:i, s:{s:i, s:i}, s:i, s:[], s:[], s:[]}", "schema", "devharness.conformance.cases",
                  "version", 1, "shard", "index", 1, "total", 1, "exit_code", 0, "devices", "clauses", "cases");
  for (int i = 0; i < n; i++) add_part(doc, man, &parts[i]);
  json_object_set(doc, "exit_code", json_object_get(man, "exit_code"));
  dh_store_merge_t m = {.cases_doc = doc, .parts = parts, .nparts = n,
                        .exit_code = (int)json_integer_value(json_object_get(man, "exit_code"))};
  rc = write_merged(out, doc, man, reports, &m);
  if (rc == 0)
    printf("devharness merge: %d bundle%s, %zu cases -> %s (run %s)%s%s\n", n, n == 1 ? "" : "s",
           json_array_size(json_object_get(doc, "cases")), out, json_string_value(json_object_get(man, "run_uuid")),
           m.said[0] ? "; " : "", m.said);
done:
  for (int i = 0; parts && i < loaded; i++) dh_store_bundle_free(&parts[i]);
  free(parts);
  json_decref(doc);
  json_decref(man);
  return rc;
}

int dh_store_merge_main(int argc, char** argv, dh_store_merge_reports_fn reports) {
  static const struct option kOpts[] = {
      {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const char* out = NULL;
  dh_cmdline_getopt_begin();
  int c;
  while ((c = getopt_long(argc, argv, "o:h", kOpts, NULL)) != -1) {
    if (c == 'h') {
      fputs(kMergeUsage, stdout);
      return DH_EXIT_OK;
    }
    if (c != 'o') return dh_cmdline_bad_option("merge", kOpts, argc, argv);
    if (dh_cmdline_set_once("merge", "--output", &out, optarg) != DH_EXIT_OK) return DH_EXIT_USAGE;
  }
  if (!out) return dh_cmdline_usage_error("merge", "-o DIR missing: where to write the merged bundle (see --help)");
  if (optind >= argc) return dh_cmdline_usage_error("merge", "no bundle given (see --help)");
  struct stat st;
  if (stat(out, &st) == 0) return dh_cmdline_usage_error("merge", "-o %s: already exists; give a new folder", dh_cmdline_quote(out));
  return merge(out, argc - optind, argv + optind, argc, argv, reports);
}
