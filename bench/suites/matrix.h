/*
 * bench/suites/matrix.h — the copy matrix of `devharness bench --suite matrix`: the cells the
 * suite registers (bench/suites/matrix.c) and the N x N tables printed after the run
 * (bench/report/matrix_table.c). Internal to bench/; not thread-safe (the benchmark thread
 * only).
 */
#ifndef DEVHARNESS_BENCH_SUITES_MATRIX_H_
#define DEVHARNESS_BENCH_SUITES_MATRIX_H_

#include <jansson.h>
#include <stddef.h>

#include "bench/measure/measure.h"

/* How the bytes of one cell travel from the source device to the destination. */
typedef enum dh_bench_matrix_path {
  DH_MX_ON_DEVICE = 0, /* source = destination device: a D2D copy on that device */
  DH_MX_PEER = 1,      /* two device ids of one backend: one copy_data_from_to across them */
  DH_MX_DIRECT = 2,    /* one end is cpu: one copy_data_from_to (H2D or D2H) */
  DH_MX_STAGED = 3     /* two backends: src -> host buffer (synced) -> dst, two copies */
} dh_bench_matrix_path_t;

/* One benchmark of the matrix: an ordered pair, a direction mode and a size. */
typedef struct dh_bench_matrix_cell {
  size_t src, dst;       /* indexes into the devices of dh_bench_matrix_devices */
  int bidir;             /* 0: src -> dst; 1: src -> dst and dst -> src at once */
  size_t bytes;          /* per direction */
  dh_bench_matrix_path_t path;
  char name[192];        /* the reported name: matrix/<mode>/<src>/<dst>/harness/<bytes>/manual_time */
  char how[256];         /* the path in words (peer access state for DH_MX_PEER) */
  char why[512];         /* "" while measured; else why not ("unsupported: ...") */
  int verified;          /* 1 once the copied bytes were read back and matched */
} dh_bench_matrix_cell_t;

/* The cells registered so far (kept until dh_bench_free_all) in registration order;
 * *out_n receives their count. NULL when the matrix suite registered nothing. */
dh_bench_matrix_cell_t* const* dh_bench_matrix_cells(size_t* out_n);
/* The devices the matrix spans (the run's devices under test), in row/column order. */
const dh_bench_device_t* dh_bench_matrix_devices(size_t* out_n);
/* Forgets the registered cells (the kept memory itself is freed by dh_bench_free_all). */
void dh_bench_matrix_forget(void);

/* After the run: prints one bandwidth table (GB/s = 10^9 bytes/s, median) and one
 * time-per-copy table (us, median) per direction mode and size, rows = source,
 * columns = destination, cells not measured with their reasons below the table; returns
 * the same as JSON ({"devices": [...], "tables": [...]}, a new reference) for the
 * summary, or NULL when the matrix suite did not run. Medians come from
 * dh_bench_median_ns (bench/report/summary.h). Then forgets the cells. */
json_t* dh_bench_matrix_report(void);

#endif /* DEVHARNESS_BENCH_SUITES_MATRIX_H_ */
