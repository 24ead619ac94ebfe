/*
 * bench/launchers.c — `devharness plot` and `compare`: thin launchers of
 * bench/scripts/plot.py (under /usr/bin/python3, Debian's matplotlib) and compare.py
 * (under the project venv's Python, which has the pinned scipy of
 * ci/python-requirements.txt) (bench/bench.h; cmdline/script.h finds and runs them).
 */
#include "bench.h"
#include "cmdline/script.h"

int dh_plot_main(int argc, char** argv) {
  static const dh_cmdline_script_t kPlot = {.cmd = "plot", .env = "DEVHARNESS_PLOT_PY", .name = "plot.py"};
  return dh_cmdline_run_script(&kPlot, argc, argv);
}

int dh_compare_main(int argc, char** argv) {
  static const dh_cmdline_script_t kCompare = {
      .cmd = "compare", .env = "DEVHARNESS_COMPARE_PY", .name = "compare.py", .venv = 1};
  return dh_cmdline_run_script(&kCompare, argc, argv);
}
