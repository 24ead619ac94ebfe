/* conformance/report/report.c — the table of run reporters and the file writer they
 * share (report/report.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

/* One line per output format, in the order their files are written: X(name) is the
 * dc_reporter_t dc_report_<name> of report/<name>.c, which holds its option, help and
 * calls. */
#define DC_REPORT_FORMATS(X) \
  X(tap)                     \
  X(junit)                   \
  X(summary)                 \
  X(cases)                   \
  /* end of the table */

#define DC_REPORT_DECLARE(name) extern const dc_reporter_t dc_report_##name;
#define DC_REPORT_ENTRY(name) &dc_report_##name,
DC_REPORT_FORMATS(DC_REPORT_DECLARE)
const dc_reporter_t* const dc_reporters[] = {DC_REPORT_FORMATS(DC_REPORT_ENTRY)};
const size_t dc_reporter_count = sizeof dc_reporters / sizeof dc_reporters[0];
_Static_assert(sizeof dc_reporters / sizeof dc_reporters[0] <= DC_REPORTERS_MAX,
               "more reporters than dc_opts_t.report_paths holds (DC_REPORTERS_MAX)");

int dc_write_file(const char* path, const char* text, size_t n) {
  char tmp[4096];
  dc_fmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE* f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "devharness conformance: cannot write %s: %s\n", tmp, strerror(errno));
    return -1;
  }
  int ok = fwrite(text, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "devharness conformance: cannot write %s: %s\n", path, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

