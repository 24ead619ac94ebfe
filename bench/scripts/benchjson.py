"""bench/scripts/benchjson.py — reads a `devharness bench` run (Google Benchmark JSON),
for compare.py and plot.py: one reader, so both see the same runs."""
import json
import math

from dh_units import UNIT_NS


def finite(x):
    """float(x), or NaN when x (an int of any length) does not fit a double."""
    try:
        return float(x)
    except OverflowError:
        return math.nan


def load(path, strict=True):
    """The measured repetitions of the run in `path`: (times, rates, context).

    times   {run name: [real time in ns, one per repetition]}
    rates   {run name: [bytes_per_second, one per repetition that reports it]}
    context the file's "context" object ({} when absent)

    Measured means run_type "iteration" without error_occurred: Google Benchmark's
    aggregates (_mean, _median, ...) and skipped runs are left out. An entry that is
    not an object, or lacks a string name, a finite numeric real_time or a time_unit of
    ns/us/ms/s, raises ValueError when `strict` (a regression gate must not pass over
    what it cannot read) and is left out otherwise (a plot draws what it can). A time or
    a rate that is NaN, infinite or beyond a double (NaN, Infinity or a 400-digit number
    in the file) is refused in both modes: it would compare as "no change" or draw
    nothing. Raises ValueError("<path>: ...") when the file cannot be read, is not
    UTF-8 JSON, nests deeper than Python's recursion limit or has no "benchmarks" array.
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON: line {e.lineno} column {e.colno}: {e.msg}") from e
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 at byte {e.start}") from e
    except RecursionError as e:
        raise ValueError(f"{path}: JSON nested too deeply") from e
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise ValueError(f"{path}: not Google Benchmark JSON (no \"benchmarks\" array)")
    times, rates = {}, {}
    for i, b in enumerate(data["benchmarks"]):
        if not isinstance(b, dict):
            if strict:
                raise ValueError(f"{path}: benchmarks[{i}] is not an object")
            continue
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        name = b.get("run_name") or b.get("name")
        t = b.get("real_time")
        unit = b.get("time_unit", "ns")
        if not isinstance(name, str) or not isinstance(t, (int, float)) or unit not in UNIT_NS:
            if strict:
                raise ValueError(f"{path}: benchmarks[{i}]: needs name, numeric real_time and "
                                 f"time_unit ns/us/ms/s")
            continue
        ns = finite(t) * UNIT_NS[unit]
        if not math.isfinite(ns):
            raise ValueError(f"{path}: benchmarks[{i}]: real_time is not a finite number ({str(t)[:40]})")
        times.setdefault(name, []).append(ns)
        bps = b.get("bytes_per_second")
        if isinstance(bps, (int, float)):
            if not math.isfinite(finite(bps)):
                raise ValueError(f"{path}: benchmarks[{i}]: bytes_per_second is not a finite number "
                                 f"({str(bps)[:40]})")
            rates.setdefault(name, []).append(float(bps))
    ctx = data.get("context") if isinstance(data.get("context"), dict) else {}
    return times, rates, ctx
