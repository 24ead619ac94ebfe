/*
 * bench/report/matrix_table.c — the copy matrix after the run (bench/suites/matrix.h
 * dh_bench_matrix_report): N x N tables of bandwidth and time per copy, one pair per
 * direction mode and size, rows = source and columns = destination, from the medians
 * the summary keeps (bench/report/summary.h); the cells not measured say why, below the table.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/summary.h"
#include "bench/suites/matrix.h"

static const char* const kPathName[] = {"on-device", "peer", "direct", "staged"};
static const char kPathMark[] = {'d', 'p', ' ', 's'};
/* Time tables of copies from this size on are in ms (the JSON keeps us). */
static const size_t kMsFrom = (size_t)64 << 20;

static void size_text(size_t n, char* buf, size_t size) {
  if (n >= ((size_t)1 << 20)) snprintf(buf, size, "%zu MiB", n >> 20);
  else if (n >= 1024) snprintf(buf, size, "%zu KiB", n >> 10);
  else snprintf(buf, size, "%zu B", n);
}

/* The cell of (mode, size, src, dst), or NULL. */
static dh_bench_matrix_cell_t* find(dh_bench_matrix_cell_t* const* cells, size_t n, int bidir,
                                    size_t bytes, size_t i, size_t j) {
  for (size_t k = 0; k < n; ++k)
    if (cells[k]->bidir == bidir && cells[k]->bytes == bytes && cells[k]->src == i &&
        cells[k]->dst == j)
      return cells[k];
  return NULL;
}

/* One table's values: seconds per iteration (NAN: not measured) of every (i, j). */
typedef struct grid {
  int bidir;
  size_t bytes, ndev;
  const dh_bench_device_t* devs;
  dh_bench_matrix_cell_t* const* cells;
  size_t ncells;
} grid_t;

static double cell_seconds(const grid_t* g, size_t i, size_t j, dh_bench_matrix_cell_t** out) {
  *out = find(g->cells, g->ncells, g->bidir, g->bytes, i, j);
  if (!*out) return NAN;
  return dh_bench_median_ns((*out)->name) * 1e-9;
}

/* The width of a column: the longest device spec, at least 10, and a space. */
static int column_width(const grid_t* g) {
  size_t w = 10;
  for (size_t j = 0; j < g->ndev; ++j)
    if (strlen(g->devs[j].spec) > w) w = strlen(g->devs[j].spec);
  return (int)w + 1;
}

/* Prints one N x N table: bandwidth (GB/s) when `bw`, else time per copy (us); each
 * value followed by its path mark. */
static void print_table(const grid_t* g, int bw) {
  char sz[32];
  size_text(g->bytes, sz, sizeof sz);
  const char* unit = g->bytes >= kMsFrom ? "ms" : "us";
  char what[160];
  if (bw)
    snprintf(what, sizeof what, "bandwidth, GB/s (10^9 bytes/s; bytes %s)",
             g->bidir ? "counted once per direction, both directions summed" : "copied counted once");
  else if (g->bidir)
    snprintf(what, sizeof what, "time per iteration (both copies and their syncs), %s", unit);
  else
    snprintf(what, sizeof what, "time per copy (copy + sync), %s", unit);
  printf("-- %s, %s: %s\n", g->bidir ? "bidir" : "uni", sz, what);
  int w = column_width(g);
  printf("  %-*s", w, "src \\ dst");
  for (size_t j = 0; j < g->ndev; ++j) printf(" %*s ", w, g->devs[j].spec);
  printf("\n");
  for (size_t i = 0; i < g->ndev; ++i) {
    printf("  %-*s", w, g->devs[i].spec);
    for (size_t j = 0; j < g->ndev; ++j) {
      dh_bench_matrix_cell_t* x;
      double s = cell_seconds(g, i, j, &x);
      if (!x || ((isnan(s) || s <= 0) && !x->why[0])) printf(" %*s ", w, "-");
      else if (isnan(s) || s <= 0) printf(" %*s ", w, "n/a");
      else if (bw) printf(" %*.4g%c", w, (double)x->bytes * (x->bidir ? 2 : 1) / s * 1e-9, kPathMark[x->path]);
      else printf(" %*.4g%c", w, s * (g->bytes >= kMsFrom ? 1e3 : 1e6), kPathMark[x->path]);
    }
    printf("\n");
  }
}

/* The reasons of the cells of g that were not measured. */
static void print_reasons(const grid_t* g) {
  for (size_t i = 0; i < g->ndev; ++i)
    for (size_t j = 0; j < g->ndev; ++j) {
      dh_bench_matrix_cell_t* x;
      double s = cell_seconds(g, i, j, &x);
      if (x && (isnan(s) || s <= 0) && x->why[0])
        printf("  n/a %s -> %s: %s\n", g->devs[i].spec, g->devs[j].spec, x->why);
    }
}

/* The JSON of one (mode, size): rows of GB/s and us (null when not measured), the path
 * and the reason of every cell. */
static json_t* grid_json(const grid_t* g) {
  json_t *t = json_object(), *gbps = json_array(), *us = json_array(), *path = json_array(),
         *why = json_array(), *ver = json_array();
  for (size_t i = 0; i < g->ndev; ++i) {
    json_t *r1 = json_array(), *r2 = json_array(), *r3 = json_array(), *r4 = json_array(),
           *r5 = json_array();
    for (size_t j = 0; j < g->ndev; ++j) {
      dh_bench_matrix_cell_t* x;
      double s = cell_seconds(g, i, j, &x);
      int ok = x && !isnan(s) && s > 0;
      json_array_append_new(r1, ok ? json_real((double)x->bytes * (x->bidir ? 2 : 1) / s * 1e-9) : json_null());
      json_array_append_new(r2, ok ? json_real(s * 1e6) : json_null());
      json_array_append_new(r3, json_string(x ? kPathName[x->path] : ""));
      json_array_append_new(r4, json_string(ok || !x ? "" : x->why[0] ? x->why : "not run (filtered out)"));
      json_array_append_new(r5, json_boolean(x && x->verified));
    }
    json_array_append_new(gbps, r1);
    json_array_append_new(us, r2);
    json_array_append_new(path, r3);
    json_array_append_new(why, r4);
    json_array_append_new(ver, r5);
  }
  json_object_set_new(t, "mode", json_string(g->bidir ? "bidir" : "uni"));
  json_object_set_new(t, "bytes", json_integer((json_int_t)g->bytes));
  json_object_set_new(t, "gbps", gbps);
  json_object_set_new(t, "us", us);
  json_object_set_new(t, "path", path);
  json_object_set_new(t, "why", why);
  json_object_set_new(t, "verified", ver);
  return t;
}

/* 1 when a cell of g ran: measured, or stopped with a reason (not filtered out). */
static int grid_ran(const grid_t* g) {
  for (size_t k = 0; k < g->ncells; ++k) {
    const dh_bench_matrix_cell_t* x = g->cells[k];
    if (x->bidir == g->bidir && x->bytes == g->bytes &&
        (x->why[0] || !isnan(dh_bench_median_ns(x->name))))
      return 1;
  }
  return 0;
}

/* The header: what the marks mean, and the peer access of every peer pair. */
static void print_header(dh_bench_matrix_cell_t* const* cells, size_t n) {
  printf("\n== copy matrix (bench --suite matrix): rows = source, columns = destination; "
         "median of runs, host clock around copy + stream_sync; every cell's bytes read back "
         "and checked once\n"
         "   marks: d = on one device (D2D), p = peer (two device ids of one backend), s = "
         "staged through host memory (src -> host -> dst), none = direct (one end is cpu); "
         "n/a = not measured (reasons below each pair of tables), - = not run (filtered out)\n");
  size_t ndev = 0;
  const dh_bench_device_t* devs = dh_bench_matrix_devices(&ndev);
  for (size_t k = 0; k < n; ++k) /* each peer pair once: its first cell */
    if (cells[k]->path == DH_MX_PEER && !cells[k]->bidir && cells[k]->bytes == cells[0]->bytes)
      printf("   %s -> %s: %s\n", devs[cells[k]->src].spec, devs[cells[k]->dst].spec,
             cells[k]->how);
}

json_t* dh_bench_matrix_report(void) {
  size_t ncells = 0, ndev = 0;
  dh_bench_matrix_cell_t* const* cells = dh_bench_matrix_cells(&ncells);
  const dh_bench_device_t* devs = dh_bench_matrix_devices(&ndev);
  if (!cells || !devs) return NULL;
  json_t *out = json_object(), *names = json_array(), *tables = json_array();
  for (size_t i = 0; i < ndev; ++i) json_array_append_new(names, json_string(devs[i].spec));
  for (size_t k = 0; k < ncells; ++k) {
    const dh_bench_matrix_cell_t* x = cells[k];
    if (x->src != 0 || x->dst != 0) continue; /* one (mode, size) per first cell */
    grid_t g = {x->bidir, x->bytes, ndev, devs, cells, ncells};
    if (!grid_ran(&g)) continue; /* filtered out (or --benchmark_list_tests) */
    if (json_array_size(tables) == 0) print_header(cells, ncells);
    print_table(&g, 1);
    print_table(&g, 0);
    print_reasons(&g);
    json_array_append_new(tables, grid_json(&g));
  }
  if (json_array_size(tables) == 0) { /* nothing of the matrix ran */
    json_decref(out);
    json_decref(names);
    json_decref(tables);
    dh_bench_matrix_forget();
    return NULL;
  }
  json_object_set_new(out, "devices", names);
  json_object_set_new(out, "tables", tables);
  dh_bench_matrix_forget();
  return out;
}
