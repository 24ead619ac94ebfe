#!/usr/bin/python3
"""tests/store/export.t — `devharness export` (store/py/export.py), the Grafana queries
of docs/results.md and `devharness compare --format markdown|json`, on real data: the
fixture store (twelve nights of tests/store/lib/fixture_store.py, recorded with
`devharness store import`) plus a thirteenth night whose copies report
bytes_per_second, the recorded runs of tests/store/data and synthetic pairs.

Export: the store's medians and quartiles (read straight from its bench_results view)
and the medians of the bundle's own repetitions appear in BMF, CSV and OpenMetrics with
the right numbers and units; the BMF validates against docs/bmf.schema.json
(check-jsonschema) and an invalid BMF is rejected by the same check; the OpenMetrics
text ends with # EOF, every line matches the format's grammar, prometheus-client's
OpenMetrics parser reads it and gets an escaped label value back; a bundle exports what
its store run does; --run by short id; bad input exits 2 (1 for an unwritable -o) with
one line and no file left behind. The docs' Grafana queries, taken by their markers,
give the fixture's known medians and failures. Prints TAP."""
import csv
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "lib"))
from taplib import count, ok, skip  # noqa: E402
import fixture_store  # noqa: E402

DH = os.environ.get("DEVHARNESS", os.path.join(ROOT, "build", "bin", "devharness"))
BUILD = os.environ.get("BUILD", "build")
VENV_PY = os.environ.get("DEVHARNESS_VENV_PY") or os.path.join(ROOT, BUILD, "venv", "bin", "python")
SCHEMA = os.path.join(ROOT, "docs", "bmf.schema.json")
H2D = "copy/h2d/pageable/{}/harness/65536/manual_time"


def run(*args):
    return subprocess.run([DH, *args], capture_output=True, text=True, timeout=120)


def close(a, b, rel=1e-12):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel)


def main():
    if not os.access(DH, os.X_OK):
        print(f"1..0 # SKIP {DH} not built")
        return 0
    if subprocess.run([VENV_PY, "-c", "import scipy"], capture_output=True).returncode != 0:
        print(f"1..0 # SKIP the project venv ({VENV_PY}) lacks scipy: make deps")
        return 0
    tmp = tempfile.mkdtemp(prefix="dh_export.")
    try:
        store = make_store(tmp)
        if store:
            exports(tmp, store)
            bad_input(tmp, store)
            grafana(store)
        compare_formats(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{count()}")
    return 0


# ------------------------------------------------------------------ the data
def night13(folder):
    """The fixture's night 13 as a bundle whose copies report bytes_per_second (65536
    bytes over each repetition's time) and with 8 repetitions a benchmark (the fixture
    has 9, whose quartiles fall on repetitions: with 8 they interpolate), the manifest's
    digest of bench.json updated."""
    fixture_store.bundle(folder, 13, 7, 5, random.Random(13))
    path = os.path.join(folder, "bench.json")
    doc = json.load(open(path))
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["repetition_index"] < 8]
    for b in doc["benchmarks"]:
        if b["name"].startswith("copy/"):
            b["bytes_per_second"] = 65536 / (b["real_time"] * 1e-9)
    data = json.dumps(doc, indent=1).encode()
    open(path, "wb").write(data)
    mpath = os.path.join(folder, "manifest.json")
    m = json.load(open(mpath))
    m["files"]["bench.json"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    json.dump(m, open(mpath, "w"), indent=1)
    return doc


def make_store(tmp):
    store = os.path.join(tmp, "nightly.sqlite")
    fx = fixture_store.build(store, DH)
    b13 = os.path.join(tmp, "night-13")
    night13(b13)
    im = run("store", "import", "--store", store, b13)
    if not ok(fx.returncode == 0 and "12 imported" in fx.stdout and im.returncode == 0 and "1 imported" in im.stdout,
              "the fixture's twelve nights and a 13th with bytes_per_second recorded with store import",
              fx.stdout + fx.stderr + im.stdout + im.stderr):
        return None
    return store


def stored(store, uuid):
    """{name: (median_ns, q1, q3, bytes_per_second, repetitions, spec)} of one run, from the view."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute("""SELECT b.name, b.median, b.q1, b.q3, b.bytes_per_second, b.repetitions, rd.spec, b.unit
                         FROM bench_results b JOIN runs r USING (run_id) JOIN run_devices rd USING (run_id, device_id)
                         WHERE r.uuid = ?""", (uuid,)).fetchall()
    db.close()
    assert all(r[7] == "ns" for r in rows)
    return {r[0]: r[1:7] for r in rows}


def own_medians(bundle):
    """{name: (median, q1, q3, median bytes/s or None)} from a bundle's repetitions (statistics module)."""
    reps = {}
    for b in json.load(open(os.path.join(bundle, "bench.json")))["benchmarks"]:
        reps.setdefault(b["name"], []).append(b)
    out = {}
    for n, rs in reps.items():
        t = [r["real_time"] for r in rs]
        q = statistics.quantiles(t, n=4, method="inclusive")
        bps = [r["bytes_per_second"] for r in rs if "bytes_per_second" in r]
        out[n] = (statistics.median(t), q[0], q[2], statistics.median(bps) if bps else None)
    return out


# ------------------------------------------------------------------ exports
def exports(tmp, store):
    uuid13 = "00000013-0000-4000-8000-000000000013"
    want = stored(store, uuid13)
    own = own_medians(os.path.join(tmp, "night-13"))
    ok(len(want) == 8 and all(close(want[n][0], own[n][0], 1e-9) and close(want[n][1], own[n][1], 1e-9)
                              for n in want),
       "the store's medians and quartiles of night 13 are those of the bundle's repetitions", (want, own))
    bmf_checks(tmp, store, want, own)
    csv_checks(tmp, store, want)
    om_checks(tmp, store, want)

    # a bundle exports what its store run holds; --run by the short id (history's)
    p_b = run("export", os.path.join(tmp, "night-13"), "--format", "bmf")
    p_s = run("export", "--store", store, "--run", uuid13, "--format", "bmf")
    try:
        jb, js = json.loads(p_b.stdout), json.loads(p_s.stdout)
        same = sorted(jb) == sorted(js) and all(
            close(jb[n][m][k], js[n][m][k]) for n in jb for m in jb[n] for k in jb[n][m]) and \
            all(sorted(jb[n]) == sorted(js[n]) for n in jb)
    except (ValueError, KeyError) as e:
        same = f"{e}"
    ok(same is True and p_b.returncode == 0, "BMF of the night-13 bundle equals BMF of its store run",
       (same, p_b.stderr, p_s.stderr))
    p5 = run("export", "--store", store, "--run", "00000005", "--format", "bmf")
    p12 = run("export", "--store", store, "--run", "00000012-0000-4000-8000-000000000012", "--format", "bmf")
    try:
        v5 = json.loads(p5.stdout)[H2D.format("sim:0")]["latency"]["value"]
        v12 = json.loads(p12.stdout)[H2D.format("sim:0")]["latency"]["value"]
    except (ValueError, KeyError):
        v5 = v12 = None
    ok(v5 is not None and 19000 < v5 < 21000 and 23000 < v12 < 25000 and
       close(v5, stored(store, "00000005-0000-4000-8000-000000000005")[H2D.format("sim:0")][0]),
       "--run 00000005 (short id) and a full UUID: sim:0's h2d harness at ~20 us on night 5, ~24 us on night 12 "
       "(the fixture's 20 % step at night 7)", (v5, v12, p5.stderr))


def bmf_checks(tmp, store, want, own):
    out = os.path.join(tmp, "bmf.json")
    p = run("export", "--store", store, "--format", "bmf", "-o", out)
    try:
        doc = json.load(open(out))
    except (OSError, ValueError) as e:
        ok(False, "export --format bmf -o FILE writes JSON", f"{e}\n{p.stderr}")
        return
    ok(p.returncode == 0 and sorted(doc) == sorted(want), "BMF of --run last (night 13): the run's 8 benchmarks",
       (p.returncode, sorted(doc), p.stderr))
    good = all(close(doc[n]["latency"]["value"], w[0]) and close(doc[n]["latency"]["lower_value"], w[1])
               and close(doc[n]["latency"]["upper_value"], w[2]) for n, w in want.items() if n in doc)
    ok(good, "BMF latency value/lower_value/upper_value = the store's median/q1/q3 in ns",
       json.dumps(doc, indent=1)[:1500])
    thr = {n: m["throughput"]["value"] for n, m in doc.items() if "throughput" in m}
    ok(sorted(thr) == sorted(n for n in want if n.startswith("copy/")) and
       all(close(v, want[n][3]) and close(v, own[n][3], 1e-9) and 1e9 < v < 5e9 for n, v in thr.items()),
       "BMF throughput (bytes/s) for the 4 copies alone: the median bytes_per_second", thr)
    cj = os.path.join(os.path.dirname(VENV_PY), "check-jsonschema")
    if not os.access(cj, os.X_OK):
        skip("BMF validates against docs/bmf.schema.json", f"{cj} missing: make deps")
        return
    v = subprocess.run([cj, "--schemafile", SCHEMA, out], capture_output=True, text=True)
    ok(v.returncode == 0, "the BMF export validates against docs/bmf.schema.json (Bencher's schema)",
       v.stdout + v.stderr)
    bad = os.path.join(tmp, "bad-bmf.json")
    json.dump({"copy/x": {"latency": {"value": "20 us", "lower_value": 1.0}}, "sync/y": {"latency": {"upper": 2}}},
              open(bad, "w"))
    v = subprocess.run([cj, "--schemafile", SCHEMA, bad], capture_output=True, text=True)
    ok(v.returncode == 1 and "'20 us' is not of type 'number'" in v.stdout and "'value' is a required property"
       in v.stdout, "an invalid BMF (value a string, value missing) fails the same schema check", v.stdout + v.stderr)


def csv_checks(tmp, store, want):
    p = run("export", "--store", store, "--format", "csv")
    rows = list(csv.reader(io.StringIO(p.stdout)))
    header = ["run_uuid", "started_at", "git_commit", "device", "stable_id", "benchmark", "kind", "measure",
              "median", "q1", "q3", "unit", "repetitions"]
    ok(p.returncode == 0 and rows and rows[0] == header, "CSV: a header row", rows[:1])
    recs = [dict(zip(header, r)) for r in rows[1:]]
    lat = {r["benchmark"]: r for r in recs if r["measure"] == "latency"}
    thr = {r["benchmark"]: r for r in recs if r["measure"] == "throughput"}
    ok(len(recs) == 12 and sorted(lat) == sorted(want) and sorted(thr) == sorted(n for n in want if "copy/" in n),
       "CSV: one row per benchmark x measure (8 latency, 4 throughput)", p.stdout[:1500])
    good = all(close(float(r["median"]), want[n][0]) and close(float(r["q1"]), want[n][1]) and
               close(float(r["q3"]), want[n][2]) and r["unit"] == "ns" and r["repetitions"] == "8" and
               r["device"] == want[n][5] and r["kind"] == ("twin" if "/raw/" in n else "harness") and
               r["run_uuid"] == "00000013-0000-4000-8000-000000000013" and r["started_at"] == "2026-11-13T02:00:00Z"
               and r["git_commit"] == "b" * 40 and r["stable_id"].startswith("derived:") for n, r in lat.items())
    good = good and all(close(float(r["median"]), want[n][3]) and r["unit"] == "B/s" and r["q1"] == ""
                        for n, r in thr.items())
    ok(good, "CSV: medians, quartiles, units, device, kind (raw rows are twin), run, date and commit as stored",
       p.stdout[:1500])


# The OpenMetrics text grammar (the spec's ABNF for what export writes): descriptors,
# samples with escaped label values, numbers, and # EOF last.
OM_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
OM_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
OM_NUMBER = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Inf|NaN)"
OM_SAMPLE = re.compile(rf"({OM_NAME})(?:\{{{OM_LABEL}(?:,{OM_LABEL})*\}})? {OM_NUMBER}")
OM_DESC = re.compile(rf"# (TYPE|UNIT|HELP) ({OM_NAME}) (.*)")


def om_grammar(text):
    """'' when text is OpenMetrics by the grammar above (and its rules on families:
    one TYPE each, UNIT a suffix of the name, samples named after their family), else
    the first offending line."""
    if not text.endswith("# EOF\n"):
        return "does not end with '# EOF\\n'"
    family, seen = None, set()
    for line in text[:-len("# EOF\n")].split("\n")[:-1]:
        d = OM_DESC.fullmatch(line)
        if d:
            kind, name, rest = d.groups()
            if kind == "TYPE":
                if name in seen or rest not in ("gauge", "info", "counter", "unknown"):
                    return line
                family = (name, rest)
                seen.add(name)
            elif family is None or name != family[0] or (kind == "UNIT" and not name.endswith("_" + rest)):
                return line
            continue
        s = OM_SAMPLE.fullmatch(line)
        if not s or family is None or s.group(1) != family[0] + ("_info" if family[1] == "info" else ""):
            return line
    return ""


def om_checks(tmp, store, want):
    p = run("export", "--store", store, "--format", "openmetrics")
    text = p.stdout
    bad = om_grammar(text)
    ok(p.returncode == 0 and bad == "", "OpenMetrics: ends with # EOF, every line of the grammar",
       f"offending: {bad!r}\n{text[:1200]}")
    pat = re.compile(r'devharness_bench_latency_seconds\{device="([^"]*)",benchmark="([^"]*)",kind="(\w+)"\} (\S+)')
    got = {m.group(2): (m.group(1), m.group(3), float(m.group(4))) for m in pat.finditer(text)}
    ok(sorted(got) == sorted(want) and all(close(v[2], want[n][0] / 1e9) and v[0] == want[n][5] for n, v in got.items())
       and "# UNIT devharness_bench_latency_seconds seconds" in text
       and '\ndevharness_run_info{run_uuid="00000013-0000-4000-8000-000000000013",started_at="2026-11-13T02:00:00Z",'
           f'git_commit="{"b" * 40}"}} 1\n' in text,
       "OpenMetrics: latency medians in seconds per device and benchmark, the run's info metric", text[:1500])
    # the parser runs under the project venv's Python, which has prometheus-client pinned
    probe = subprocess.run([VENV_PY, "-c", "import prometheus_client"], capture_output=True)
    code = ("import json, sys\nfrom prometheus_client.openmetrics.parser import text_string_to_metric_families as f\n"
            "out = {}\nfor m in f(sys.stdin.read()):\n"
            "    for s in m.samples:\n"
            "        out.setdefault(m.name + '|' + m.type + '|' + m.unit, []).append([s.name, s.labels, s.value])\n"
            "print(json.dumps(out))\n")
    if probe.returncode != 0:
        skip("prometheus-client's OpenMetrics parser reads the export", f"{VENV_PY} lacks prometheus_client: make deps")
        return
    r = subprocess.run([VENV_PY, "-c", code], input=text, capture_output=True, text=True)
    try:
        fams = json.loads(r.stdout)
    except ValueError:
        fams = {}
    thr = {s[1]["benchmark"]: s[2] for s in fams.get("devharness_bench_throughput_bytes_per_second|gauge|"
                                                    "bytes_per_second", [])}
    ok(r.returncode == 0 and len(fams.get("devharness_bench_latency_q3_seconds|gauge|seconds", [])) == 8
       and sorted(thr) == sorted(n for n in want if "copy/" in n) and all(close(v, want[n][3]) for n, v in thr.items())
       and len(fams.get("devharness_run|info|", [])) == 1,
       "prometheus-client's OpenMetrics parser reads it: gauges with units, 4 throughputs = the stored medians, "
       "one info metric", r.stdout[:800] + r.stderr)
    # a name with a quote, a backslash and a comma: escaped, and read back as it was
    odd = 'copy/h2d/x:0/harness/"q"\\b,c/manual_time'
    bj = os.path.join(tmp, "odd.json")
    json.dump({"context": {"device.x:0": "backend=x"}, "benchmarks": [
        {"name": odd, "run_type": "iteration", "real_time": t, "time_unit": "us"} for t in (1.0, 2.0, 3.0)]},
        open(bj, "w"))
    p = run("export", bj, "--format", "openmetrics")
    r = subprocess.run([VENV_PY, "-c", code], input=p.stdout, capture_output=True, text=True)
    try:
        lat = json.loads(r.stdout)["devharness_bench_latency_seconds|gauge|seconds"]
    except (ValueError, KeyError):
        lat = []
    ok(p.returncode == 0 and om_grammar(p.stdout) == "" and '\\"q\\"\\\\b,c' in p.stdout and len(lat) == 1
       and lat[0][1] == {"device": "x:0", "benchmark": odd, "kind": "harness"} and close(lat[0][2], 2e-6),
       "a bench JSON with a quote and a backslash in a name: escaped, parsed back to the name; 2 us as 2e-06 s",
       p.stdout + p.stderr + r.stdout + r.stderr)


# ------------------------------------------------------------------ bad input
def bad_input(tmp, store):
    notstore = os.path.join(tmp, "notes.txt")
    open(notstore, "w").write("not SQLite\n")
    nobundle = os.path.join(tmp, "empty-folder")
    os.makedirs(nobundle)
    cases = [(["--store", os.path.join(tmp, "none.sqlite"), "--format", "bmf"], 2, "no such store"),
             (["--store", notstore, "--format", "csv"], 2, "not a devharness store"),
             ([nobundle, "--format", "bmf"], 2, "not a result bundle"),
             ([notstore, "--format", "bmf"], 2, "not JSON"),
             (["--store", store, "--format", "xml"], 2, "unknown format 'xml'"),
             (["--store", store], 2, "--format"),
             (["--store", store, "--run", "99999999", "--format", "bmf"], 2, "no run '99999999'"),
             (["--store", store, "--format", "bmf", "-o", os.path.join(tmp, "no", "such", "dir", "x.json")], 1,
              "cannot write")]
    for args, code, what in cases:
        p = run("export", *args)
        lines = p.stderr.strip().splitlines()
        ok(p.returncode == code and len(lines) == 1 and what in lines[0] and p.stdout == "",
           f"export {' '.join(os.path.basename(a) for a in args)}: exit {code}, one line naming it ({what})",
           (p.returncode, p.stderr, p.stdout[:200]))
    # -o over an existing file: replaced whole, no temporary file left beside it
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    target = os.path.join(out, "m.txt")
    open(target, "w").write("old\n")
    p = run("export", "--store", store, "--format", "openmetrics", "-o", target)
    ok(p.returncode == 0 and os.listdir(out) == ["m.txt"] and open(target).read().endswith("# EOF\n"),
       "-o over an existing file: replaced through a renamed temporary file, nothing else left", os.listdir(out))
    p = run("export", "--store", store, "--format", "xml", "-o", target)
    ok(p.returncode == 2 and open(target).read().endswith("# EOF\n"), "a failed export leaves -o FILE as it was",
       p.stderr)


# ------------------------------------------------------------------ Grafana SQL
def grafana(store):
    doc = open(os.path.join(ROOT, "docs", "results.md"), encoding="utf-8").read()
    queries = dict(re.findall(r"<!-- grafana-sql: (\S+) -->\n```sql\n(.*?)```", doc, re.S))
    if not ok(sorted(queries) == ["failing-tonight", "failures-per-run", "median-over-time"],
              "docs/results.md has the three Grafana queries behind their markers", sorted(queries)):
        return
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        med = db.execute(queries["median-over-time"]).fetchall()
        fail = db.execute(queries["failing-tonight"]).fetchall()
        per = db.execute(queries["failures-per-run"]).fetchall()
    except sqlite3.Error as e:
        ok(False, "the Grafana queries run on the store", str(e))
        return
    finally:
        db.close()
    nights = {n: stored(store, f"{n:08d}-0000-4000-8000-{n:012d}") for n in range(1, 14)}
    t0 = 1793498400  # 2026-11-01T02:00:00Z
    expect = [(t0 + 86400 * (n - 1), dev, nights[n][H2D.format(dev)][0]) for n in range(1, 14)
              for dev in ("cpu:0", "sim:0")]
    ok(len(med) == 26 and all(m[0] == e[0] and m[1] == e[1] and close(m[2], e[2]) for m, e in zip(med, expect)),
       "median-over-time: 13 nights x 2 devices, unix time, the stored medians in ns", (med[:4], expect[:4]))
    sim = [m[2] for m in med if m[1] == "sim:0"]
    ok(all(19000 < v < 21000 for v in sim[:6]) and all(23000 < v < 25000 for v in sim[6:]),
       "median-over-time: sim:0 steps from ~20 us to ~24 us at night 7", sim)
    want_fail = sorted((dev, c) for dev in ("cpu:0", "sim:0")
                       for c, s in fixture_store.verdicts(13, 5).items() if s == "fail")
    ok([(f[1], f[3]) for f in fail] == want_fail and want_fail and
       all(f[0] == "2026-11-13T02:00:00Z" and f[4] == f"{f[3]}: fail" and f[2].startswith("derived:") for f in fail),
       f"failing-tonight: night 13's failures {want_fail}, with message and stable id", fail)
    want_per = [(t0 + 86400 * (n - 1), dev, sum(1 for c, s in fixture_store.verdicts(n, 5).items()
                                                if s == "fail" and not (c == "launch.skip" and dev == "cpu:0")))
                for n in range(1, 14) for dev in ("cpu:0", "sim:0")]
    ok(per == want_per, "failures-per-run: the fixture's failing clauses per night and device", (per, want_per))


# ------------------------------------------------------------------ compare --format
def bench_json(path, rows, ctx=None, seed=1):
    """rows [(name, median ns, relative noise)], 9 repetitions each (as tests/store/gate.t)."""
    rnd = random.Random(seed)
    bms = [{"name": n, "run_name": n, "run_type": "iteration", "repetitions": 9, "repetition_index": i,
            "iterations": 100, "time_unit": "ns", "real_time": t * (1 + rnd.gauss(0, s)), "cpu_time": t}
           for n, t, s in rows for i in range(9)]
    json.dump({"context": ctx or {}, "benchmarks": bms}, open(path, "w"))
    return path


def text_verdicts(out):
    """{benchmark: verdict} of compare's text table."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+\S+ \S+\s+\S+ \S+\s+[+-]\d+\.\d%\s+\S+\s+\S+\s+(.+)$", line)
        if m and m.group(1) != "benchmark":
            rows[m.group(1)] = m.group(2)
    return rows


def md_rows(out):
    """[(benchmark, verdict)] of compare's markdown table, in its order."""
    return [(m.group(1), m.group(2).strip("*")) for m in
            re.finditer(r"^\| `([^`]+)` \|[^\n]*\| ([^|\n]+) \|$", out, re.M)]


def compare_formats(tmp):
    data = os.path.join(HERE, "data")
    a, b = os.path.join(data, "cpu0-A.json"), os.path.join(data, "cpu0-B.json")
    t, m, j = (subprocess.run([DH, "compare", a, b, *f], capture_output=True, text=True, timeout=300)
               for f in ([], ["--format", "markdown"], ["--format", "json"]))
    tv = text_verdicts(t.stdout)
    try:
        doc = json.loads(j.stdout)
    except ValueError:
        doc = {}
    jv = {r["benchmark"]: r["verdict"] for r in doc.get("rows", [])}
    ok(t.returncode == m.returncode == j.returncode == 0 and len(tv) >= 21 and jv == tv
       and dict(md_rows(m.stdout)) == tv and doc.get("verdict", {}).get("outcome") == "pass"
       and doc["verdict"]["exit"] == 0 and doc["verdict"]["tested"] == 21,
       "compare --format markdown/json on tests/store/data cpu0 A -> B: every text row and verdict, 21 tested, "
       "pass, exit 0 in all three", (t.returncode, m.returncode, j.returncode, len(tv), m.stdout[:600], j.stderr))
    ok(m.stdout.startswith("### devharness compare: no regression\n") and
       "| benchmark | base median | new median | change | p-value | BH p | verdict |\n|---|---:|---:|---:|---:|---:|---|\n"
       in m.stdout, "markdown: a heading with the verdict and a GitHub table", m.stdout[:400])
    rows = [(f"copy/h2d/pageable/x:0/harness/{4 << i}/manual_time", 1000.0 + i, 0.01) for i in range(20)]
    rows.append(("copy/h2d/pageable/x:0/raw/4/manual_time", 900.0, 0.01))
    base = bench_json(os.path.join(tmp, "c1.json"), rows, seed=3)
    slow = bench_json(os.path.join(tmp, "c2.json"), [(n, x * (1.2 if i == 12 else 1.0), s)
                                                      for i, (n, x, s) in enumerate(rows)], seed=4)
    t, m, j = (subprocess.run([DH, "compare", base, slow, *f], capture_output=True, text=True, timeout=300)
               for f in ([], ["--format", "markdown"], ["--format", "json"]))
    order = md_rows(m.stdout)
    try:
        doc = json.loads(j.stdout)
    except ValueError:
        doc = {}
    ok(t.returncode == m.returncode == j.returncode == 1 and order and order[0] == (rows[12][0], "REGRESSION")
       and len(order) == 21 and order[-1][1] == "context (raw twin)"
       and "### devharness compare: **regression**" in m.stdout,
       "one row 20 % slower: exit 1 in all three formats; markdown lists the REGRESSION first, context last",
       (t.returncode, m.returncode, j.returncode, m.stdout[:900]))
    v = doc.get("verdict", {})
    reg = [r for r in doc.get("rows", []) if r["verdict"] == "REGRESSION"]
    ok(v.get("outcome") == "regression" and v.get("regressions") == 1 and v.get("exit") == 1 and len(reg) == 1
       and reg[0]["benchmark"] == rows[12][0] and 0.15 < reg[0]["change"] < 0.25 and reg[0]["bh_p_value"] < 0.05
       and reg[0]["base_repetitions"] == 9 and len(doc["rows"]) == 21 and doc["new"] == slow,
       "json: one object with all 21 rows, the regressed row's change (~+20 %) and BH p, outcome regression",
       j.stdout[:1200])
    ctx = {"devharness.health.noisy": "yes", "devharness.health.reasons": "load average 14.5 on 2 PUs"}
    noisy = bench_json(os.path.join(tmp, "c3.json"), [(n, x * (1.2 if i == 12 else 1.0), s)
                                                       for i, (n, x, s) in enumerate(rows)], ctx=ctx, seed=4)
    j = subprocess.run([DH, "compare", base, noisy, "--format", "json"], capture_output=True, text=True, timeout=300)
    try:
        v = json.loads(j.stdout)["verdict"]
    except (ValueError, KeyError):
        v = {}
    ok(j.returncode == 4 and v.get("outcome") == "noisy" and v.get("regressions") == 0 and v.get("exit") == 4
       and v.get("noisy") == [{"run": f"NEW {noisy}", "reasons": "load average 14.5 on 2 PUs"}],
       "json of a noisy NEW: outcome noisy with its reasons, no regression, exit 4 (as text)", j.stdout[-600:])
    p = subprocess.run([DH, "compare", a, b, "--format", "yaml"], capture_output=True, text=True, timeout=300)
    ok(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "invalid choice: 'yaml'" in p.stderr,
       "compare --format yaml: exit 2, one line", p.stderr)


if __name__ == "__main__":
    sys.exit(main())
