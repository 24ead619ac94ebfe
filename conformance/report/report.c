/* conformance/report/report.c — the table of run reporters and the file writer they
 * share (report/report.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

/* One line per output format: its option (--<option> FILE), help and calls are in its
 * own file. The files are written in this order. */
const dc_reporter_t* const dc_reporters[] = {
    &dc_report_tap,
    &dc_report_junit,
    &dc_report_summary,
};
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

