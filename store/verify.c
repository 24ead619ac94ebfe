/* store/verify.c — `devharness verify BUNDLE...`: every (device, clause) case of a
 * sharded conformance run ran exactly once across its shard bundles (or the parts a
 * merged bundle lists), every shard is there, every bundle is whole (store/store.h;
 * docs/results.md "Shards"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline/cmdline.h"
#include "store/bundle.h"
#include "store/store.h"

static const char kVerifyUsage[] =
    "usage: devharness verify BUNDLE...\n"
    "\n"
    "Checks that the result bundles of one conformance run add up: every bundle is whole\n"
    "(manifest.json valid, every file it lists present with its size and SHA-256), the\n"
    "shards 1..N are each given once (a merged bundle counts as the parts it lists), and\n"
    "every (device, clause) case of the run's selection ran exactly once across them.\n"
    "One line per problem: a missing or repeated shard, a missing case, a case that ran\n"
    "more than once, a damaged bundle. The cases of `module check` (module.cases.json of\n"
    "its --bundle, a run's module-NAME.cases.json) are checked too: each (case, function,\n"
    "device) once; bundles of module check alone need no conformance shards.\n"
    "exit: 0 every case ran exactly once, 1 a case missing or repeated, a shard missing\n"
    "      or repeated, or a damaged bundle, 2 usage error\n";

enum { MAX_SHOWN = 20 }; /* problem lines of one kind printed before a count */

typedef struct dh_store_tally {
  json_t* count;  /* "device\tclause" -> times it ran */
  json_t* shards; /* "index" -> times given */
  json_t* devices, *clauses;
  long long total; /* the shard total, 0 before the first bundle */
  int problems;
  size_t ndev, ncl; /* distinct devices and clauses of the selection */
  size_t module_files, module_cases; /* `module check` cases files and their cases */
  int module_problems;
} dh_store_tally_t;

static void problem(dh_store_tally_t* t, int* shown, const char* fmt, const char* a, const char* b) {
  t->problems++;
  if ((*shown)++ < MAX_SHOWN) {
    fputs("devharness verify: ", stdout);
    printf(fmt, a, b);
    fputc('\n', stdout);
  }
}

static void add_shard(dh_store_tally_t* t, json_t* index, json_t* total, const char* dir) {
  char key[32];
  if (t->total == 0) t->total = json_integer_value(total);
  if (json_integer_value(total) != t->total) {
    int shown = 0;
    problem(t, &shown, "%s: shard total differs from the first bundle's%s", dh_cmdline_quote(dir), "");
  }
  snprintf(key, sizeof key, "%lld", (long long)json_integer_value(index));
  json_object_set_new(t->shards, key, json_integer(json_integer_value(json_object_get(t->shards, key)) + 1));
}

static void add_bundle(dh_store_tally_t* t, const dh_store_loaded_bundle_t* b) {
  json_t* m = b->manifest;
  size_t i;
  json_t *s, *c;
  if (json_array_size(json_object_get(m, "shards")) > 0) {
    json_array_foreach(json_object_get(m, "shards"), i, s) add_shard(t, json_object_get(s, "index"), json_object_get(s, "total"), b->dir);
  } else {
    json_t* sh = json_object_get(m, "shard");
    add_shard(t, json_object_get(sh, "index"), json_object_get(sh, "total"), b->dir);
  }
  json_array_foreach(b->cases, i, c) {
    char key[512];
    snprintf(key, sizeof key, "%s\t%s", json_string_value(json_object_get(c, "device")),
             json_string_value(json_object_get(c, "clause")));
    json_object_set_new(t->count, key, json_integer(json_integer_value(json_object_get(t->count, key)) + 1));
  }
  json_array_extend(t->devices, json_object_get(b->cases_doc, "devices"));
  json_array_extend(t->clauses, json_object_get(b->cases_doc, "clauses"));
}

/* A `module check` cases file (module.cases.json, or a run's module-NAME.cases.json):
 * every (case, subject) once. */
static void add_module(dh_store_tally_t* t, const char* dir, const char* name, json_t* doc) {
  json_t* seen = json_object();
  size_t i;
  json_t* c;
  int shown = 0;
  json_array_foreach(json_object_get(doc, "cases"), i, c) {
    char key[512], what[600];
    snprintf(key, sizeof key, "%s %s", json_string_value(json_object_get(c, "clause")),
             json_string_value(json_object_get(c, "subject")));
    if (json_object_get(seen, key)) {
      snprintf(what, sizeof what, "%s: module case %s", name, key);
      problem(t, &shown, "%s: %s ran more than once", dh_cmdline_quote(dir), what);
      t->module_problems++;
    }
    json_object_set_new(seen, key, json_true());
  }
  t->module_files++;
  t->module_cases += json_array_size(json_object_get(doc, "cases"));
  json_decref(seen);
}

/* Shards 1..total each once; every device x clause of the selection once. */
static size_t judge(dh_store_tally_t* t) {
  int shown = 0;
  char a[32], b[32];
  snprintf(b, sizeof b, "%lld", t->total);
  for (long long k = 1; k <= t->total; k++) {
    snprintf(a, sizeof a, "%lld", k);
    json_int_t n = json_integer_value(json_object_get(t->shards, a));
    if (n != 1) problem(t, &shown, n == 0 ? "shard %s/%s missing" : "shard %s/%s given more than once", a, b);
  }
  size_t expected = 0, i, j;
  json_t *d, *c;
  json_t* seen = json_object();
  json_t* names = json_object();
  json_array_foreach(t->devices, i, d) json_object_set(names, json_string_value(d), json_true());
  t->ndev = json_object_size(names);
  json_object_clear(names);
  json_array_foreach(t->clauses, i, c) json_object_set(names, json_string_value(c), json_true());
  t->ncl = json_object_size(names);
  json_decref(names);
  shown = 0;
  json_array_foreach(t->devices, i, d) json_array_foreach(t->clauses, j, c) {
    char key[512];
    snprintf(key, sizeof key, "%s\t%s", json_string_value(d), json_string_value(c));
    if (json_object_get(seen, key)) continue;
    json_object_set_new(seen, key, json_true());
    expected++;
    json_int_t n = json_integer_value(json_object_get(t->count, key));
    if (n == 0) problem(t, &shown, "case %s %s missing (ran in no bundle)", json_string_value(d), json_string_value(c));
    else if (n > 1) problem(t, &shown, "case %s %s ran more than once", json_string_value(d), json_string_value(c));
  }
  if (shown > MAX_SHOWN) printf("devharness verify: ... and %d more case problems\n", shown - MAX_SHOWN);
  json_decref(seen);
  return expected;
}

/* The last lines: the module cases (when any), then the conformance cases (unless the
 * bundles are module check's alone). */
static void say_verdict(const dh_store_tally_t* t, int nb, size_t expected, int damaged, int rc) {
  if (t->module_files)
    printf("devharness verify: %zu module cases file%s, %zu module case%s: %s\n", t->module_files,
           t->module_files == 1 ? "" : "s", t->module_cases, t->module_cases == 1 ? "" : "s",
           t->module_problems ? "NOT each ran once" : "each ran once");
  if (t->module_files && t->total == 0 && !damaged) {
    printf("devharness verify: %d bundle%s of module check, no conformance shards (exit %d)\n", nb,
           nb == 1 ? "" : "s", rc);
    return;
  }
  printf("devharness verify: %d bundle%s, %lld shard%s, %zu device%s x %zu clause%s = %zu cases: %s (exit %d)\n",
         nb, nb == 1 ? "" : "s", t->total, t->total == 1 ? "" : "s", t->ndev, t->ndev == 1 ? "" : "s", t->ncl,
         t->ncl == 1 ? "" : "s", expected, rc ? "NOT each ran exactly once" : "each ran exactly once", rc);
}

int dh_store_cmd_verify(int argc, char** argv) {
  static const struct option kOpts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  dh_cmdline_getopt_begin();
  int c;
  while ((c = getopt_long(argc, argv, "h", kOpts, NULL)) != -1) {
    if (c != 'h') return dh_cmdline_bad_option("verify", kOpts, argc, argv);
    fputs(kVerifyUsage, stdout);
    return DH_EXIT_OK;
  }
  if (optind >= argc) return dh_cmdline_usage_error("verify", "no bundle given (see --help)");
  dh_store_tally_t t = {
      .count = json_object(), .shards = json_object(), .devices = json_array(), .clauses = json_array()};
  int damaged = 0;
  for (int i = optind; i < argc; i++) {
    dh_store_loaded_bundle_t b;
    if (dh_store_bundle_load("verify", argv[i], &b) != 0) {
      damaged++;
      continue;
    }
    const char* name;
    json_t* doc;
    json_object_foreach(b.modules, name, doc) add_module(&t, argv[i], name, doc);
    if (!b.cases && !b.modules)
      printf("devharness verify: %s: no conformance cases (conformance.cases.json) nor module cases "
             "(module.cases.json)\n", dh_cmdline_quote(argv[i])), damaged++;
    else if (b.cases) add_bundle(&t, &b);
    dh_store_bundle_free(&b);
  }
  size_t expected = judge(&t);
  int rc = t.problems || damaged ? DH_EXIT_VIOLATION : DH_EXIT_OK;
  say_verdict(&t, argc - optind, expected, damaged, rc);
  json_decref(t.count);
  json_decref(t.shards);
  json_decref(t.devices);
  json_decref(t.clauses);
  return rc;
}
