#!/usr/bin/python3
"""tests/bench/matrix.t — `devharness bench --suite matrix` (bench/suites/matrix.c,
bench/report/matrix_table.c): on every device of this machine (cpu:0, sim:0, sim:1, opencl:0,
vulkan:0 where their backends have devices; a backend without any is a SKIP with its
reason) the summary's copy_matrix has one N x N table per direction mode and size, every
cell a bandwidth and a time or a stated reason, every measured cell's bytes read back
(verified) and its GB/s x us equal to the bytes copied, the same figure as the bench
JSON row; the paths are on-device on the diagonal, peer between sim:0 and sim:1, direct
to and from cpu:0 and staged between two backends; the console prints the same N x N
tables, and `devharness plot` draws them as heatmaps. A backend that refuses copies
between its devices (the faulty_nocross test plugin) gives "unsupported: <its error>"
cells; one whose copies between its devices flip a byte (tests/bench/peerflip.c) gives
"copied bytes differ" cells. The suite is opt-in: plain `bench` does not register it.
No performance figure is asserted. Prints TAP; needs $DEVHARNESS."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402  (tests/taplib.py)

EXPECT = ("cpu:0", "sim:0", "sim:1", "opencl:0", "vulkan:0")
SIZES = (4, 1 << 20)  # --quick


def bench(dh, args, env=None, timeout=600):
    p = subprocess.run([dh, "bench", "--color", "never"] + args, capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout, p.stderr


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def close(a, b, rel=0.01):
    return a > 0 and b > 0 and abs(a - b) <= rel * max(a, b)


def expected_path(a, b):
    if a == b:
        return "on-device"
    if a.split(":")[0] == b.split(":")[0]:
        return "peer"
    if "cpu:0" in (a, b):
        return "direct"
    return "staged"


def check_devices(devs, ctx):
    for spec in EXPECT:
        backend = spec.split(":")[0]
        reason = ctx.get("backend." + backend)
        if spec in devs:
            ok(True, "the matrix spans %s" % spec)
        elif reason:
            skip("the matrix spans %s" % spec, "backend %s: %s" % (backend, reason))
        else:
            ok(False, "the matrix spans %s" % spec, "devices %s, no backend.%s in the context" % (devs, backend))


def check_tables(mx, rows):
    """Shape, values or reasons, verification and the JSON rows of every table."""
    devs = mx.get("devices", [])
    n = len(devs)
    tables = mx.get("tables", [])
    got = sorted((t.get("mode"), t.get("bytes")) for t in tables)
    ok(got == sorted((m, s) for m in ("uni", "bidir") for s in SIZES),
       "one table per direction mode and size (uni, bidir x 4 B, 1 MiB)", repr(got))
    bad_shape, bad_cell, bad_row, measured = [], [], [], 0
    for t in tables:
        for key in ("gbps", "us", "path", "why", "verified"):
            grid = t.get(key, [])
            if len(grid) != n or any(len(r) != n for r in grid):
                bad_shape.append("%s %s %s" % (t.get("mode"), t.get("bytes"), key))
        if bad_shape:
            continue
        for i in range(n):
            for j in range(n):
                g, us, why = t["gbps"][i][j], t["us"][i][j], t["why"][i][j]
                where = "%s %s B %s -> %s" % (t["mode"], t["bytes"], devs[i], devs[j])
                total = t["bytes"] * (2 if t["mode"] == "bidir" else 1)
                if g is not None:
                    measured += 1
                    if not (us and close(g * us * 1e3, total) and t["verified"][i][j] and why == ""):
                        bad_cell.append("%s: %r GB/s, %r us, verified %r, why %r" % (where, g, us, t["verified"][i][j], why))
                    name = "matrix/%s/%s/%s/harness/%d/manual_time" % (t["mode"], devs[i], devs[j], t["bytes"])
                    row = rows.get(name)
                    if not row or not close(row.get("bytes_per_second", 0) / 1e9, g, 0.005) or \
                            "bytes verified" not in row.get("label", ""):
                        bad_row.append("%s: %r" % (name, row))
                elif not why or us is not None:
                    bad_cell.append("%s: neither a value nor a reason (%r, %r)" % (where, us, why))
                if t["path"][i][j] != expected_path(devs[i], devs[j]):
                    bad_cell.append("%s: path %s, expected %s" % (where, t["path"][i][j], expected_path(devs[i], devs[j])))
    ok(not bad_shape and n >= 1, "every table is %d x %d (gbps, us, path, why, verified)" % (n, n), "\n".join(bad_shape))
    ok(not bad_cell, "every cell has a value (GB/s x us = bytes, bytes verified) or a stated reason, "
       "and the path of its pair (%d measured)" % measured, "\n".join(bad_cell))
    ok(not bad_row and measured > 0, "every measured cell is a bench JSON row with the same GB/s and 'bytes verified'",
       "\n".join(bad_row))
    return devs, tables


def cell(tables, mode, size, devs, a, b):
    for t in tables:
        if t.get("mode") == mode and t.get("bytes") == size and a in devs and b in devs:
            i, j = devs.index(a), devs.index(b)
            return t["gbps"][i][j], t["why"][i][j], t["path"][i][j]
    return None, None, None


def check_console(out, devs):
    """The console's N x N tables: a header naming every device, one row per device."""
    blocks = re.findall(r"^-- (uni|bidir), (4 B|1 MiB): (bandwidth|time)[^\n]*\n((?:  .*\n)+)", out, re.M)
    bad = []
    for mode, size, kind, body in blocks:
        lines = [l for l in body.splitlines() if not l.startswith("  n/a ")]
        head = lines[0].split()[3:]  # after "src \ dst"
        if head != devs or len(lines) != len(devs) + 1:
            bad.append("%s %s %s: header %s, %d rows" % (mode, size, kind, head, len(lines) - 1))
            continue
        for spec, line in zip(devs, lines[1:]):
            cells = re.findall(r"(\S+?)[dps]?(?:\s|$)", line.split(None, 1)[1] if " " in line.strip() else "")
            if not line.split()[0] == spec or len(cells) != len(devs):
                bad.append("%s %s %s: row %r" % (mode, size, kind, line))
    ok(len(blocks) == 8 and not bad, "the console prints 8 N x N tables (bandwidth and time per mode and size)",
       "%d tables\n%s" % (len(blocks), "\n".join(bad)))


def main():
    dh = os.environ.get("DEVHARNESS", "")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    tmp = tempfile.mkdtemp(prefix="dh-matrix-")
    try:
        run_all(dh, tmp)
        run_nocross(dh, tmp)
        run_peerflip(dh, tmp)
        run_opt_in(dh)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % count())


def run_all(dh, tmp):
    out = os.path.join(tmp, "bench.json")
    rc, text, err = bench(dh, ["--suite", "matrix", "--quick", "--out", out])
    data = load(out)
    ok(rc == 0 and data, "bench --suite matrix --quick --out ran", "exit %d\n%s%s" % (rc, text[-1500:], err[-1500:]))
    mx = data.get("devharness_summary", {}).get("copy_matrix", {})
    ok(bool(mx), "the summary has copy_matrix", json.dumps(data.get("devharness_summary", {}))[:2000])
    check_devices(mx.get("devices", []), data.get("context", {}))
    rows = {b["name"]: b for b in data.get("benchmarks", []) if b.get("run_type") == "iteration"}
    devs, tables = check_tables(mx, rows)
    check_console(text, devs)
    for a, b, path in (("sim:0", "sim:1", "peer"), ("cpu:0", "sim:0", "direct"), ("sim:1", "cpu:0", "direct"),
                       ("opencl:0", "vulkan:0", "staged"), ("sim:0", "opencl:0", "staged")):
        if a not in devs or b not in devs:
            skip("%s -> %s measured (%s)" % (a, b, path), "%s or %s has no device here" % (a, b))
            continue
        g1, why1, p1 = cell(tables, "uni", 1 << 20, devs, a, b)
        g2, why2, p2 = cell(tables, "bidir", 1 << 20, devs, a, b)
        ok(g1 and g2 and p1 == p2 == path, "%s -> %s measured at 1 MiB, both modes (%s)" % (a, b, path),
           "uni %r %r %r, bidir %r %r %r" % (g1, why1, p1, g2, why2, p2))
    if "sim:0" in devs and "sim:1" in devs:
        ok(re.search(r"^   sim:0 -> sim:1: peer: .*\(peer access: yes \(", text, re.M),
           "the header states the peer access of sim:0 -> sim:1 (sim.peer_access: yes)", text[-4000:])
    check_heatmaps(dh, out, tmp)


def check_heatmaps(dh, results, tmp):
    """devharness plot draws the matrix as heatmaps (bench/scripts/matrix_heatmap.py)."""
    plots = os.path.join(tmp, "plots")
    p = subprocess.run([dh, "plot", results, "-o", plots, "--svg"], capture_output=True, text=True, timeout=300)
    if "matplotlib is needed" in p.stderr:
        skip("plot draws matrix_bandwidth and matrix_latency heatmaps", "python3-matplotlib missing")
        return
    files = [os.path.join(plots, "matrix_%s.%s" % (k, e)) for k in ("bandwidth", "latency") for e in ("png", "svg")]
    pngs_ok = all(os.path.exists(f) and os.path.getsize(f) > 1000 for f in files) and \
        all(open(f, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for f in files if f.endswith(".png"))
    ok(p.returncode == 0 and pngs_ok and all(f in p.stdout for f in files),
       "plot --svg draws matrix_bandwidth and matrix_latency heatmaps (PNG and SVG)",
       "exit %d\n%s%s" % (p.returncode, p.stdout[-800:], p.stderr[-800:]))


def run_nocross(dh, tmp):
    build = os.environ.get("BUILD", "build")
    lib = os.path.abspath(os.path.join(build, "tests", "conformance", "libdevharness_faulty_nocross.so"))
    if not os.path.exists(lib):
        skip("a backend that refuses copies between its devices: unsupported cells", "faulty_nocross not built")
        return
    plugdir = os.path.join(tmp, "plugins")
    os.makedirs(plugdir)
    os.symlink(lib, os.path.join(plugdir, os.path.basename(lib)))
    out = os.path.join(tmp, "nocross.json")
    rc, text, err = bench(dh, ["--suite", "matrix", "--quick", "--out", out,
                               "--benchmark_filter=faulty_nocross:./faulty_nocross:./harness/4/"],
                          env={"DEVHARNESS_PLUGIN_PATH": plugdir})
    mx = load(out).get("devharness_summary", {}).get("copy_matrix", {})
    devs, tables = mx.get("devices", []), mx.get("tables", [])
    a, b = "faulty_nocross:0", "faulty_nocross:1"
    res = [cell(tables, m, 4, devs, x, y) for m in ("uni", "bidir") for x, y in ((a, b), (b, a))]
    diag = [cell(tables, m, 4, devs, a, a)[0] for m in ("uni", "bidir")]
    ok(rc == 0 and all(g is None and why.startswith("unsupported: ValueError:") and
                                         "no copies between devices" in why for g, why, _ in res if why is not None)
       and all(r[1] for r in res) and all(diag),
       "a backend that refuses copies between its devices: 'unsupported: <its error>' cells, the diagonal measured",
       "exit %d %r diag %r\n%s%s" % (rc, res, diag, text[-1500:], err[-800:]))
    ok(re.search(r"^  n/a faulty_nocross:0 -> faulty_nocross:1: unsupported: ValueError: .*no copies between devices",
                 text, re.M), "the console names the unsupported pair and the reason", text[-3000:])
    ok(sum(1 for t in tables) == 2, "only the tables that ran are printed and stored (4 B, both modes)",
       repr([(t.get("mode"), t.get("bytes")) for t in tables]))


def run_peerflip(dh, tmp):
    build = os.environ.get("BUILD", "build")
    plugdir = os.path.abspath(os.path.join(build, "tests", "bench", "peerflip"))
    if not os.path.exists(os.path.join(plugdir, "libdevharness_peerflip.so")):
        skip("a backend whose copies between devices flip a byte: 'copied bytes differ' cells",
             "tests/bench/peerflip.c not built")
        return
    out = os.path.join(tmp, "peerflip.json")
    rc, text, err = bench(dh, ["--suite", "matrix", "--quick", "--out", out,
                               "--benchmark_filter=peerflip:./peerflip:./harness/4/"],
                          env={"DEVHARNESS_PLUGIN_PATH": plugdir})
    mx = load(out).get("devharness_summary", {}).get("copy_matrix", {})
    devs, tables = mx.get("devices", []), mx.get("tables", [])
    a, b = "peerflip:0", "peerflip:1"
    res = [cell(tables, m, 4, devs, x, y) for m in ("uni", "bidir") for x, y in ((a, b), (b, a))]
    diag = [cell(tables, m, 4, devs, x, x)[0] for m in ("uni", "bidir") for x in (a, b)]
    want = re.compile(r"^copied bytes differ: ValueError: (src -> dst|dst -> src): byte 0 of 4 arrived as 0x[0-9a-f]{2}, "
                      r"expected 0x(5a|a5)$")
    ok(rc == 0 and all(g is None and why and want.match(why) for g, why, _ in res) and all(diag),
       "copies between devices that flip a byte: 'copied bytes differ' cells naming the byte, the diagonal measured",
       "exit %d %r diag %r\n%s%s" % (rc, res, diag, text[-1500:], err[-800:]))


def run_opt_in(dh):
    rc, text, err = bench(dh, ["--quick", "--device", "sim:0", "--benchmark_list_tests=true"])
    rc2, text2, err2 = bench(dh, ["--quick", "--device", "sim:0", "--suite", "matrix", "--benchmark_list_tests=true"])
    listed = re.findall(r"^matrix/\S+$", text2, re.M)
    ok(rc == 0 and rc2 == 0 and "matrix/" not in text and len(listed) == 4 and "copy matrix" not in text2,
       "matrix is opt-in: plain bench lists none of it, --suite matrix on sim:0 lists 4 (1 x 1, 2 modes, 2 sizes), "
       "and a listing prints no table", "%d %d\n%s\n%s%s" % (rc, rc2, text[-500:], text2[-1500:], err2[-500:]))


if __name__ == "__main__":
    main()
