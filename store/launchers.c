/*
 * store/launchers.c — `devharness history`, `dashboard` and `export`: thin launchers of
 * store/py/history.py, dashboard.py and export.py under the project venv's Python, which has the
 * pinned scipy, ruptures and jinja2 of ci/python-requirements.txt (store/store.h;
 * cmdline/script.h finds and runs them).
 */
#include "cmdline/script.h"
#include "store/store.h"

int dh_store_cmd_history(int argc, char** argv) {
  static const dh_cmdline_script_t kHistory = {
      .cmd = "history", .env = "DEVHARNESS_HISTORY_PY", .name = "history.py", .venv = 1};
  return dh_cmdline_run_script(&kHistory, argc, argv);
}

int dh_store_cmd_dashboard(int argc, char** argv) {
  static const dh_cmdline_script_t kDashboard = {
      .cmd = "dashboard", .env = "DEVHARNESS_DASHBOARD_PY", .name = "dashboard.py", .venv = 1};
  return dh_cmdline_run_script(&kDashboard, argc, argv);
}

int dh_store_cmd_export(int argc, char** argv) {
  static const dh_cmdline_script_t kExport = {
      .cmd = "export", .env = "DEVHARNESS_EXPORT_PY", .name = "export.py", .venv = 1};
  return dh_cmdline_run_script(&kExport, argc, argv);
}
