"""cmdline/py/dh_units.py — Google Benchmark's time units (a run's "time_unit", the
store's bench_results.unit) as nanoseconds, for every devharness tool that reads
benchmark times: bench's benchjson.py and the store's dh_store.py."""

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
