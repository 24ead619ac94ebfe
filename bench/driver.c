/*
 * bench/driver.c — devharness-bench, a standalone driver of the benchmark entry points
 * (bench/bench.h) for tests and for use without the full CLI:
 *     devharness-bench bench|plot|compare ARGS...
 * Exit status: the entry point's; DH_EXIT_USAGE (2, cmdline/cmdline.h) on usage errors.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cmdline/cmdline.h"

int main(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: devharness-bench bench|plot|compare [ARGS...]  (each has --help)\n");
    return argc < 2 ? DH_EXIT_USAGE : DH_EXIT_OK;
  }
  if (strcmp(argv[1], "bench") == 0) return dh_bench_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "plot") == 0) return dh_plot_main(argc - 1, argv + 1);
  if (strcmp(argv[1], "compare") == 0) return dh_compare_main(argc - 1, argv + 1);
  fprintf(stderr, "devharness-bench: unknown command '%s'\n", argv[1]);
  return DH_EXIT_USAGE;
}
