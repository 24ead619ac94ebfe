// bench/measure/gbench.cc — implementation of the C wrapper around Google Benchmark 1.7.1
// (bench/measure/gbench.h). The project's only C++ file. No exception escapes into C.

#include "bench/measure/gbench.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

benchmark::State* S(dh_gb_state_t* st) { return reinterpret_cast<benchmark::State*>(st); }
const benchmark::State* S(const dh_gb_state_t* st) {
  return reinterpret_cast<const benchmark::State*>(st);
}
benchmark::internal::Benchmark* B(dh_gb_bench_t* b) {
  return reinterpret_cast<benchmark::internal::Benchmark*>(b);
}
dh_gb_bench_t* H(benchmark::internal::Benchmark* b) { return reinterpret_cast<dh_gb_bench_t*>(b); }

// Output file named by --benchmark_out (checked before Google Benchmark sees it,
// because 1.7.1 calls exit(1) when it cannot open the file).
std::string g_out_file;
// --benchmark_color as given ("" when absent): the console reporter is ours, so the
// colour decision is too (use_color).
std::string g_color;

bool g_full_context = false;  // dh_gb_set_full_context

// "ceiling.<device>.<dir>: <value>: <why>" lines of one device, made one line:
// "ceiling <device>: h2d 8.57 GB/s, d2h 8.57 GB/s, ...: <why of the first, to its first
// parenthesis>". The full sentences stay in the JSON context.
struct CeilingLine {
  std::string device, dirs, why;
};

void add_ceiling(std::vector<CeilingLine>& out, const std::string& line) {
  size_t colon = line.find(": ");
  std::string key = line.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : line.substr(colon + 2);
  size_t dot = key.rfind('.');
  std::string device = dot > 8 ? key.substr(8, dot - 8) : key.substr(8);
  std::string dir = dot > 8 ? key.substr(dot + 1) : "";
  size_t c2 = rest.find(": ");
  std::string value = rest.substr(0, c2), why = c2 == std::string::npos ? "" : rest.substr(c2 + 2);
  size_t paren = why.find(" (");
  if (paren != std::string::npos) why.resize(paren);
  if (why.size() > 90) why = why.substr(0, 87) + "...";
  for (CeilingLine& c : out)
    if (c.device == device) {
      c.dirs += ", " + dir + " " + value;
      if (c.why.find(why) == std::string::npos) c.why += "; " + why;
      return;
    }
  out.push_back({device, dir.empty() ? value : dir + " " + value, why});
}

// The header as printed without --verbose (dh_gb_set_full_context).
void print_short_context(std::istringstream& in, std::ostream& out) {
  std::string line;
  std::vector<CeilingLine> ceilings;
  size_t hidden = 0;
  while (std::getline(in, line)) {
    if (line.rfind("devharness.", 0) == 0 && line.rfind("devharness.bandwidth_unit:", 0) != 0) {
      hidden++; /* the unit stays: the table's G/s needs it */
    } else if (line.rfind("ceiling.", 0) == 0) {
      add_ceiling(ceilings, line);
    } else if (line.find("Library was built as DEBUG") != std::string::npos) {
      out << "note: Debian's libbenchmark is built -O2 without NDEBUG, so it calls itself a "
             "DEBUG build; the timed code is devharness's own optimised build\n";
    } else {
      out << line << "\n";
    }
  }
  for (const CeilingLine& c : ceilings)
    out << "ceiling " << c.device << ": " << c.dirs << (c.why.empty() ? "" : ": ") << c.why << "\n";
  if (hidden)
    out << "context: " << hidden << " devharness.* entries (method, pinning, health) in --out's JSON; "
        << "--verbose prints them\n";
}

// Console reporter that also hands each run to the C callback.
class CallbackReporter : public benchmark::ConsoleReporter {
 public:
  CallbackReporter(OutputOptions opts, dh_gb_result_fn fn, void* user)
      : benchmark::ConsoleReporter(opts), fn_(fn), user_(user) {}

  // The context header goes to the output stream (bench.txt in `devharness run`), not
  // stderr. Debian's libbenchmark 1.7.1 is compiled with -O2 but without NDEBUG, so
  // PrintBasicContext says "Library was built as DEBUG. Timings may be affected."; that
  // line is replaced by what it means here.
  bool ReportContext(const Context& context) override {
    std::ostream* err = &GetErrorStream();
    std::ostringstream ss;
    SetErrorStream(&ss);
    bool ok = benchmark::ConsoleReporter::ReportContext(context);
    SetErrorStream(err);
    std::istringstream in(ss.str());
    std::string line;
    std::ostream& out = GetOutputStream();
    if (!g_full_context) {
      print_short_context(in, out);
      out.flush();
      return ok;
    }
    while (std::getline(in, line)) {
      if (line.find("Library was built as DEBUG") != std::string::npos)
        out << "note: Debian's libbenchmark is built -O2 without NDEBUG, so it calls itself a "
               "DEBUG build; the timed code is devharness's own optimised build\n";
      else
        out << line << "\n";
    }
    out.flush();
    return ok;
  }

  void ReportRuns(const std::vector<Run>& reports) override {
    // A run stopped with dh_gb_skip_with_error (no device, no tvm-ffi, a failed device
    // operation) was not measured: said as "not measured: reason", not 1.7.1's
    // "ERROR OCCURRED" (1.7.1 has no SkipWithMessage).
    std::vector<Run> measured;
    for (const Run& r : reports) {
      if (!r.error_occurred) {
        measured.push_back(r);
        continue;
      }
      std::string name = r.benchmark_name();
      std::ostream& out = GetOutputStream();
      out << name;
      for (size_t i = name.size(); i < name_field_width_ + 1; ++i) out << ' ';
      out << "not measured: " << r.error_message << "\n";
    }
    if (!measured.empty()) benchmark::ConsoleReporter::ReportRuns(measured);
    if (!fn_) return;
    for (const Run& r : reports) {
      std::string name = r.run_name.str();
      dh_gb_result_t res;
      std::memset(&res, 0, sizeof res);
      res.name = name.c_str();
      res.aggregate = r.aggregate_name.c_str();
      res.label = r.report_label.c_str();
      res.error_occurred = r.error_occurred ? 1 : 0;
      res.error_message = r.error_message.c_str();
      res.iterations = static_cast<int64_t>(r.iterations);
      res.repetition_index = r.run_type == Run::RT_Aggregate ? -1 : r.repetition_index;
      res.repetitions = r.repetitions;
      double mult = benchmark::GetTimeUnitMultiplier(r.time_unit);  // units per second
      if (r.run_type == Run::RT_Aggregate && r.aggregate_unit == benchmark::kPercentage) {
        // The ratio itself, as Google Benchmark's JSON reporter writes it: the Adjusted
        // getters would multiply it by the time unit and divide it by the repetitions.
        res.real_time_ns = r.real_accumulated_time;
        res.cpu_time_ns = r.cpu_accumulated_time;
      } else {
        res.real_time_ns = r.GetAdjustedRealTime() * 1e9 / mult;
        res.cpu_time_ns = r.GetAdjustedCPUTime() * 1e9 / mult;
      }
      auto it = r.counters.find("bytes_per_second");
      res.bytes_per_second = it != r.counters.end() ? it->second.value : 0.0;
      try {
        fn_(&res, user_);
      } catch (...) {
      }
    }
  }

 private:
  dh_gb_result_fn fn_;
  void* user_;
};

}  // namespace

extern "C" {

dh_gb_bench_t* dh_gb_register(const char* name, dh_gb_fn_t fn, void* user) {
  if (!name || !fn) return nullptr;
  try {
    return H(benchmark::RegisterBenchmark(
        name, [fn, user](benchmark::State& st) { fn(reinterpret_cast<dh_gb_state_t*>(&st), user); }));
  } catch (...) {
    return nullptr;
  }
}

#define DH_GB_BUILDER(expr) \
  do {                      \
    if (!b) return nullptr; \
    try {                   \
      B(b)->expr;           \
    } catch (...) {         \
      return nullptr;       \
    }                       \
    return b;               \
  } while (0)

dh_gb_bench_t* dh_gb_bench_arg(dh_gb_bench_t* b, int64_t x) { DH_GB_BUILDER(Arg(x)); }

dh_gb_bench_t* dh_gb_bench_args(dh_gb_bench_t* b, const int64_t* args, size_t n) {
  if (!args && n) return nullptr;
  DH_GB_BUILDER(Args(std::vector<int64_t>(args, args + n)));
}

dh_gb_bench_t* dh_gb_bench_range_multiplier(dh_gb_bench_t* b, int multiplier) {
  if (multiplier < 2) return nullptr;
  DH_GB_BUILDER(RangeMultiplier(multiplier));
}

dh_gb_bench_t* dh_gb_bench_range(dh_gb_bench_t* b, int64_t lo, int64_t hi) {
  if (lo < 0 || hi < lo) return nullptr;
  DH_GB_BUILDER(Range(lo, hi));
}

dh_gb_bench_t* dh_gb_bench_dense_range(dh_gb_bench_t* b, int64_t lo, int64_t hi, int step) {
  if (step < 1 || hi < lo) return nullptr;
  DH_GB_BUILDER(DenseRange(lo, hi, step));
}

dh_gb_bench_t* dh_gb_bench_arg_name(dh_gb_bench_t* b, const char* name) {
  if (!name) return nullptr;
  DH_GB_BUILDER(ArgName(name));
}

dh_gb_bench_t* dh_gb_bench_iterations(dh_gb_bench_t* b, int64_t n) {
  if (n < 1) return nullptr;
  DH_GB_BUILDER(Iterations(n));
}

dh_gb_bench_t* dh_gb_bench_min_time(dh_gb_bench_t* b, double seconds) {
  if (!(seconds > 0)) return nullptr;
  DH_GB_BUILDER(MinTime(seconds));
}

dh_gb_bench_t* dh_gb_bench_min_warmup_time(dh_gb_bench_t* b, double seconds) {
  if (!(seconds >= 0)) return nullptr;
  DH_GB_BUILDER(MinWarmUpTime(seconds));
}

dh_gb_bench_t* dh_gb_bench_repetitions(dh_gb_bench_t* b, int n) {
  if (n < 1) return nullptr;
  DH_GB_BUILDER(Repetitions(n));
}

dh_gb_bench_t* dh_gb_bench_use_manual_time(dh_gb_bench_t* b) { DH_GB_BUILDER(UseManualTime()); }
dh_gb_bench_t* dh_gb_bench_use_real_time(dh_gb_bench_t* b) { DH_GB_BUILDER(UseRealTime()); }

dh_gb_bench_t* dh_gb_bench_unit(dh_gb_bench_t* b, dh_gb_unit_t unit) {
  if (unit < DH_GB_NS || unit > DH_GB_S) return nullptr;
  DH_GB_BUILDER(Unit(static_cast<benchmark::TimeUnit>(unit)));
}

void dh_gb_clear_registered(void) { benchmark::ClearRegisteredBenchmarks(); }

int dh_gb_keep_running(dh_gb_state_t* st) { return st && S(st)->KeepRunning() ? 1 : 0; }

int dh_gb_keep_running_batch(dh_gb_state_t* st, int64_t n) {
  if (!st) return 0;
  if (n < 1) n = 1;
  return S(st)->KeepRunningBatch(n) ? 1 : 0;
}

void dh_gb_pause_timing(dh_gb_state_t* st) {
  if (st) S(st)->PauseTiming();
}
void dh_gb_resume_timing(dh_gb_state_t* st) {
  if (st) S(st)->ResumeTiming();
}
void dh_gb_set_iteration_time(dh_gb_state_t* st, double seconds) {
  if (st) S(st)->SetIterationTime(seconds);
}

int64_t dh_gb_range(const dh_gb_state_t* st, size_t i) {
  if (!st) return 0;
  return S(st)->range(i);
}

int64_t dh_gb_iterations(const dh_gb_state_t* st) {
  return st ? static_cast<int64_t>(S(st)->iterations()) : 0;
}

void dh_gb_set_bytes_processed(dh_gb_state_t* st, int64_t bytes) {
  /* as State::SetBytesProcessed (benchmark.h 1.7.1), but with SI prefixes: the console
   * table prints 54.41G/s for 54.41e9 bytes/s, as the run summary and the plots print
   * GB/s (SetBytesProcessed would print 1024-based G/s, i.e. GiB/s). The JSON value is
   * bytes per second either way. */
  if (st)
    S(st)->counters["bytes_per_second"] =
        benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate,
                           benchmark::Counter::kIs1000);
}
void dh_gb_set_items_processed(dh_gb_state_t* st, int64_t items) {
  if (st) S(st)->SetItemsProcessed(items);
}

void dh_gb_counter(dh_gb_state_t* st, const char* name, double value, int flags) {
  if (!st || !name) return;
  try {
    S(st)->counters[name] =
        benchmark::Counter(value, static_cast<benchmark::Counter::Flags>(flags));
  } catch (...) {
  }
}

void dh_gb_set_label(dh_gb_state_t* st, const char* label) {
  if (!st || !label) return;
  try {
    S(st)->SetLabel(label);
  } catch (...) {
  }
}

void dh_gb_skip_with_error(dh_gb_state_t* st, const char* message) {
  if (!st) return;
  S(st)->SkipWithError(message ? message : "skipped");
}

int dh_gb_error_occurred(const dh_gb_state_t* st) { return st && S(st)->error_occurred() ? 1 : 0; }

int dh_gb_initialize(int* argc, char** argv) {
  if (!argc || !argv) return 0;
  static const char kOut[] = "--benchmark_out=";
  static const char kColor[] = "--benchmark_color=";
  for (int i = 1; i < *argc; ++i) {
    if (argv[i] && std::strncmp(argv[i], kOut, sizeof kOut - 1) == 0) g_out_file = argv[i] + sizeof kOut - 1;
    if (argv[i] && std::strncmp(argv[i], kColor, sizeof kColor - 1) == 0) g_color = argv[i] + sizeof kColor - 1;
  }
  try {
    benchmark::Initialize(argc, argv);
  } catch (...) {
  }
  return *argc > 0 ? *argc - 1 : 0;
}

void dh_gb_set_full_context(int full) { g_full_context = full != 0; }

void dh_gb_add_context(const char* key, const char* value) {
  if (!key || !value) return;
  try {
    benchmark::AddCustomContext(key, value);
  } catch (...) {
  }
}

/* Colour as Google Benchmark's --benchmark_color says (true/yes/1 or false/no/0;
 * src/benchmark.cc IsColorTerminal and IsTruthyFlagValue, 1.7.1), and for "auto" or no
 * flag when stdout is a terminal and NO_COLOR is unset or empty (no-color.org). */
static bool use_color() {
  const std::string& c = g_color;
  if (c == "true" || c == "yes" || c == "1" || c == "always") return true;
  if (c == "false" || c == "no" || c == "0" || c == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && (no_color == nullptr || no_color[0] == '\0');
}

long dh_gb_run_specified(dh_gb_result_fn on_result, void* user) {
  if (!g_out_file.empty()) {
    FILE* f = std::fopen(g_out_file.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "bench: cannot write --benchmark_out file '%s': %s\n",
                   g_out_file.c_str(), std::strerror(errno));
      return -1;
    }
    std::fclose(f);
  }
  try {
    auto opts = use_color() ? benchmark::ConsoleReporter::OO_Color : benchmark::ConsoleReporter::OO_None;
    CallbackReporter display(opts, on_result, user);
    return static_cast<long>(benchmark::RunSpecifiedBenchmarks(&display));
  } catch (...) {
    return -1;
  }
}

void dh_gb_shutdown(void) { benchmark::Shutdown(); }

}  // extern "C"
