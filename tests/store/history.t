#!/usr/bin/python3
"""tests/store/history.t — `devharness history` and `devharness dashboard` on real
stores (twelve nightly result bundles of two devices written by
tests/store/lib/fixture_store.py and recorded with `devharness store import`): the flip on night 5 is reported on night 5
(runs named by date, commit and short run id) and nowhere else, the flaky clause is marked FLAKY and its last flip (pass -> fail) is not
a regression, a clause that flipped under an older commit is not flaky, the 20 % step
of one benchmark is a change point at night 7 and no other series has one (noise only,
raw twin included), a pass -> fail since the previous run exits 1, the default output
is the diff of the latest night against the previous one (header, the new failure
first, at most 40 lines on a night-sized store) and --all the whole timeline, bad input
exits 2 with one line, and the dashboard renders all of it into one self-contained page.
Prints TAP."""
import glob
import html.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from taplib import count, ok, skip  # noqa: E402

DH = os.environ.get("DEVHARNESS", os.path.join(HERE, "..", "..", "build", "bin", "devharness"))
BUILD = os.environ.get("BUILD", "build")
VENV_PY = os.environ.get("DEVHARNESS_VENV_PY") or os.path.join(HERE, "..", "..", BUILD, "venv", "bin", "python")


def run(*args):
    return subprocess.run([DH, *args], capture_output=True, text=True, timeout=120)


def main():
    if not os.access(DH, os.X_OK):
        print(f"1..0 # SKIP {DH} not built")
        return 0
    probe = subprocess.run([VENV_PY, "-c", "import ruptures, jinja2, scipy"], capture_output=True)
    if probe.returncode != 0:
        print(f"1..0 # SKIP the project venv ({VENV_PY}) lacks ruptures/jinja2/scipy: make deps")
        return 0
    tmp = tempfile.mkdtemp(prefix="dh_history.")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{count()}")
    return 0


def body(tmp):
    sql = open(os.path.join(HERE, "..", "..", "store", "schema.sql"), encoding="utf-8").read()
    last = max(int(n) for n in re.findall(r"^-- migration (\d+):", sql, re.M))
    # one schema version for both languages, generated from the SQL: the Python reader's
    # (as the build stages it) and the C writer's (store stats on a new store)
    share = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(HERE, "..", "..", BUILD),
                         "share", "devharness")
    py = subprocess.run([VENV_PY, "-c", "import dh_store; print(dh_store.SCHEMA_VERSION)"], cwd=share,
                        capture_output=True, text=True)
    open(os.path.join(tmp, "fresh.sqlite"), "w").close()  # an empty file: stats makes it a store
    st = run("store", "stats", "--store", os.path.join(tmp, "fresh.sqlite"))
    c = re.search(r"schema version (\d+)", st.stdout)
    ok(py.stdout.strip() == str(last) and c and int(c.group(1)) == last,
       f"the Python reader and the C writer both know schema version {last}, the last migration of "
       f"store/schema.sql", (py.stdout + py.stderr, st.stdout + st.stderr))
    store = os.path.join(tmp, "nightly.sqlite")
    fx = subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), store],
                        capture_output=True, text=True)
    if not ok(fx.returncode == 0 and "12 imported" in fx.stdout,
              "twelve nightly bundles recorded with devharness store import", fx.stdout + fx.stderr):
        return
    p = run("history", "--store", store, "--last", "12", "--json")
    ok(p.returncode == 0, "history --json exits 0 (the only flip since night 11 is flaky)",
       f"exit {p.returncode}\n{p.stderr}")
    try:
        h = json.loads(p.stdout)
    except ValueError as e:
        ok(False, "history --json prints JSON", str(e))
        return
    devs = {d["spec"]: d for d in h["devices"]}
    ok(sorted(devs) == ["cpu:0", "sim:0"], "both devices, by their latest spec", sorted(devs))
    sim = devs["sim:0"]
    cl = sim["clauses"]["clauses"]
    ok(len(sim["clauses"]["runs"]) == 12, "timeline of 12 runs", len(sim["clauses"]["runs"]))
    ok(cl["copy.flip"]["timeline"] == ["pass"] * 4 + ["fail"] * 8, "copy.flip timeline: 4 passes, 8 fails",
       cl["copy.flip"]["timeline"])
    flips = cl["copy.flip"]["flips"]
    ok(len(flips) == 1 and flips[0]["index"] == 4 and flips[0]["from"] == "pass" and flips[0]["to"] == "fail"
       and flips[0]["run"].endswith("000000000005") and not cl["copy.flip"]["flaky"],
       "copy.flip: one flip, pass -> fail at night 5, not flaky", flips)
    ok(cl["sync.flaky"]["flaky"], "sync.flaky (3 changes on nights 7-12, one commit) is FLAKY", cl["sync.flaky"])
    ok(not cl["mem.was_flaky"]["flaky"],
       "mem.was_flaky (changes only under the older commit) is not flaky", cl["mem.was_flaky"])
    ok(not cl["copy.steady"]["flaky"] and not cl["copy.steady"]["flips"], "copy.steady: no flip, not flaky")
    since = sim["clauses"]["since_previous"]
    ok(len(since) == 1 and since[0]["clause"] == "sync.flaky" and since[0]["flaky"] and not since[0]["regression"],
       "since the previous run: sync.flaky pass -> fail, flaky, not a regression", since)
    cps = [(b["name"], [c["index"] for c in b["change_points"]])
           for d in h["devices"] for b in d["benchmarks"] if b["change_points"]]
    ok(cps == [("copy/h2d/pageable/sim:0/harness/65536/manual_time", [6])],
       "one change point in 8 series: the 20 % step of sim:0's h2d harness at night 7", cps)
    step = [b for b in sim["benchmarks"] if b["change_points"]]
    ok(step and 0.15 < step[0]["change_points"][0]["change"] < 0.25, "the change point measures about +20 %",
       step and step[0]["change_points"])

    p = run("history", "--store", store, "--last", "12", "--all")
    ok(p.returncode == 0 and "copy.flip      PPPPFFFFFFFF  [pass->fail on 2026-11-05 aaaaaaa 00000005]" in p.stdout
       and "PPPPPPPFPPPF  FLAKY" in p.stdout and "(FLAKY, not a regression)" in p.stdout
       and "change point: copy/h2d/pageable/sim:0/harness/65536/manual_time from 2026-11-07 bbbbbbb 00000007 "
           "(after 2026-11-06 aaaaaaa 00000006)" in p.stdout
       and "oldest first, 2026-11-01 aaaaaaa 00000001 to 2026-11-12 bbbbbbb 00000012" in p.stdout
       and "at run " not in p.stdout,
       "--all: the timeline, the flip on night 5 and the change point on night 7 named by date, commit and "
       "short run id, FLAKY", p.stdout + p.stderr)
    p = run("history", "--store", store, "--last", "12")
    flaky = [ln for ln in p.stdout.splitlines() if ln.startswith("  sync.flaky on cpu:0, sim:0  PPPPPPPFPPPF")]
    ok(p.returncode == 0 and "new failures" not in p.stdout and len(flaky) == 1
       and "pass -> fail since the previous run, not a regression" in flaky[0]
       and "  copy/h2d/pageable/sim:0/harness/65536/manual_time: 64 KiB, +19.7% (20.06 us -> 24.02 us) "
           "from 2026-11-07 bbbbbbb 00000007, after 2026-11-06 aaaaaaa 00000006" in p.stdout.splitlines(),
       "default: no new failure, the flaky clause once for both devices, the stepped benchmark with its size, "
       "change and nights by date and commit", p.stdout + p.stderr)
    p = run("history", "--store", store, "--device", "sim:0", "--clause", "copy.*", "-q")
    ok(p.returncode == 0 and p.stdout.strip() == "devharness history: 1 device(s), 0 new failure(s) since "
       "the previous run, 0 flaky clause(s), 1 change point(s)",
       "--device sim:0 --clause 'copy.*' -q: the verdict line alone", p.stdout + p.stderr)

    late = os.path.join(tmp, "late.sqlite")
    subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), late, "--flip-night", "12"], check=True, capture_output=True)
    p = run("history", "--store", late, "--device", "derived:" + "c" * 64, "--all")  # by stable_id
    ok(p.returncode == 1 and "copy.flip: pass -> fail (NEW FAILURE)" in p.stdout,
       "--all: a pass -> fail since the previous run that is not flaky: NEW FAILURE, exit 1", p.stdout + p.stderr)
    diff_default(tmp)
    quiet = os.path.join(tmp, "quiet.sqlite")
    subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), quiet, "--step-night", "99"], check=True, capture_output=True)
    p = run("history", "--store", quiet, "--json")
    cps = [b["name"] for d in json.loads(p.stdout)["devices"] for b in d["benchmarks"] if b["change_points"]] \
        if p.returncode == 0 else None
    ok(cps == [], "no step seeded: no change point in any noise-only series", (p.returncode, cps, p.stderr))

    waived(tmp)

    bad = os.path.join(tmp, "bad.sqlite")
    open(bad, "w").write("not sqlite at all\n" * 100)
    newer = os.path.join(tmp, "newer.sqlite")
    shutil.copy(store, newer)
    db = sqlite3.connect(newer)
    db.execute("INSERT INTO schema_version VALUES (99, 'x', 'from the future')")
    db.commit()
    db.close()
    for path, what in ((os.path.join(tmp, "missing.sqlite"), "no such store"), (bad, "not a devharness store"),
                       (newer, "newer than this devharness reads")):
        p = run("history", "--store", path)
        lines = p.stderr.strip().splitlines()
        ok(p.returncode == 2 and len(lines) == 1 and path in lines[0] and what in lines[0],
           f"history on {os.path.basename(path)}: one line '{what}', exit 2", (p.returncode, p.stderr))
    p = run("history", "--store", store, "--device", "opencl:9")
    ok(p.returncode == 2 and "no device 'opencl:9'" in p.stderr, "an unknown --device: exit 2, named",
       (p.returncode, p.stderr))
    p = run("history", "--last", "x")
    ok(p.returncode == 2 and "--last" in p.stderr, "--last x: usage error naming the option", p.stderr)

    out = os.path.join(tmp, "dash")
    p = run("dashboard", "--store", store, "-o", out, "--last", "12")
    page = os.path.join(out, "index.html")
    ok(p.returncode == 0 and os.path.isfile(page), "dashboard writes DIR/index.html", p.stdout + p.stderr)
    if os.path.isfile(page):
        check_page(open(page, encoding="utf-8").read())
        browser(page)
    first_screen(tmp)
    ok(not glob.glob(out + ".tmp-*") and not glob.glob(out + ".old-*"), "no temporary folder left")
    p = run("dashboard", "--store", store, "-o", out)
    ok(p.returncode == 0 and os.path.isfile(page), "dashboard replaces an existing DIR", p.stderr)
    p = run("dashboard", "--store", store, "-o", os.path.join(bad, "sub"))
    ok(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "cannot write" in p.stderr,
       "dashboard into an unwritable place: one line, exit 1", (p.returncode, p.stderr))
    p = run("dashboard", "--store", bad, "-o", out)
    ok(p.returncode == 2 and "not a devharness store" in p.stderr, "dashboard of a foreign file: exit 2",
       (p.returncode, p.stderr))


def diff_default(tmp):
    """The default output on a night-sized store (100 steady clauses, copy.flip and 40
    more failing since the latest night, of two devices): the latest night against the
    previous one, named by date, commit and short run id, the seeded new failure first,
    at most 40 lines; --all the whole timeline."""
    big = os.path.join(tmp, "big.sqlite")
    subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), big, "--flip-night", "12",
                    "--extra-clauses", "100", "--extra-flips", "40"], check=True, capture_output=True)
    p = run("history", "--store", big)
    lines = p.stdout.splitlines()
    ok(p.returncode == 1 and 10 < len(lines) <= 40,
       f"default: the diff of the latest night, at most 40 lines ({len(lines)}), exit 1", p.stdout + p.stderr)
    ok(len(lines) > 3 and lines[1] == "  latest    2026-11-12 02:00 UTC  commit bbbbbbb  run 00000012"
       and lines[2] == "  previous  2026-11-11 02:00 UTC  commit bbbbbbb  run 00000011",
       "the header names the latest night and the previous one by UTC date, short commit and short run id",
       p.stdout)
    ok(len(lines) > 4 and lines[3].startswith("new failures: 41 ")
       and lines[4] == "  copy.flip on cpu:0, sim:0: copy.flip: fail",
       "the seeded new failure is the first item after the header: clause, devices, message", p.stdout)
    more = [ln for ln in lines if ln.startswith("  ... and ")]
    shown = [ln for ln in lines if re.match(r"  (copy\.flip|flip\.\d+) on ", ln)]
    ok(len(more) == 1 and more[0] == f"  ... and {41 - len(shown)} more (--all)" and len(shown) < 41
       and any(ln.startswith("flaky: 1 ") for ln in lines) and any(ln.startswith("stepped benchmarks: 1 ")
                                                                  for ln in lines),
       "the cut list ends with '... and N more (--all)' (N right), flaky and stepped still shown", p.stdout)
    ok(lines and lines[-2].startswith("unchanged: 205 device x clause verdict(s) the same in both runs (204 pass, 1 skip)")
       and "at run " not in p.stdout,
       "one line counts what is unchanged; no run is named by its position", p.stdout)
    p = run("history", "--store", big, "--all")
    full = p.stdout.splitlines()
    clauses = ["copy.flip", "copy.steady", "sync.flaky", "mem.was_flaky"] + \
        [f"steady.{i:03d}" for i in range(100)] + [f"flip.{i:03d}" for i in range(40)]
    missing = [(dev, c) for dev in ("cpu:0", "sim:0") for c in clauses
               if not re.search(rf"^== {dev} (?:.*\n)*?    {re.escape(c)} +[PFSXW.]+", p.stdout, re.M)]
    ok(p.returncode == 1 and len(full) > 300 and not missing and "    launch.skip" in p.stdout,
       f"--all: the full timeline, every clause of both devices ({len(full)} lines)",
       (p.returncode, missing[:5], p.stdout[-2000:]))


def waived(tmp):
    """A case a waiver decided is read from the store's two columns: its status (skip) is
    the verdict, so a waiver that starts deciding it is no flip; it is marked W in the
    timeline and "(waived)" on the dashboard."""
    store = os.path.join(tmp, "waived.sqlite")
    subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), store, "--waived-night", "11"], check=True,
                   capture_output=True)
    p = run("history", "--store", store, "--device", "sim:0", "--clause", "launch.*", "--last", "12", "--json")
    v = json.loads(p.stdout)["devices"][0]["clauses"]["clauses"].get("launch.skip") if p.returncode == 0 else None
    ok(v and v["timeline"] == ["skip"] * 12 and v["waived"] == [False] * 10 + [True] * 2 and not v["flips"],
       "a skip decided by a waiver from night 11: status skip every night, waived on nights 11-12, no flip",
       (p.returncode, v, p.stderr))
    p = run("history", "--store", store, "--device", "sim:0", "--clause", "launch.*", "--last", "12", "--all")
    ok(p.returncode == 0 and "launch.skip  SSSSSSSSSSWW\n" in p.stdout and "no verdict changed" in p.stdout,
       "text: the waived nights are W, nothing changed since the previous run", p.stdout + p.stderr)
    out = os.path.join(tmp, "waived-dash")
    p = run("dashboard", "--store", store, "-o", out, "--last", "12")
    page = open(os.path.join(out, "index.html"), encoding="utf-8").read() if p.returncode == 0 else ""
    cell = re.search(r'<td class="([^"]*)" data-clause="launch.skip" data-device="sim:0">([^<]*)</td>', page)
    ok(cell and cell.groups() == ("skip waived", "skip (waived)"),
       "dashboard: the latest cell of a waived skip is class 'skip waived', text 'skip (waived)'",
       (p.returncode, cell and cell.groups(), p.stderr))


# Appended to a copy of the dashboard (the shipped page has no script): writes the
# rendered positions (getBoundingClientRect, CSS px from the top of the first screen)
# and texts the first-screen checks need into <pre id="probe"> as JSON.
PROBE = """<script>
(function () {
  function r(e) {
    if (!e) return null;
    var b = e.getBoundingClientRect();
    return {x: b.x, y: b.y, w: b.width, h: b.height, text: e.textContent.trim()};
  }
  function texts(f, sel) {
    return [].filter.call(f.querySelectorAll(sel), function (e) {
      return e.textContent.trim() && e.getBoundingClientRect().width > 0;
    }).map(function (e) { return e.textContent.trim(); });
  }
  var out = {inner: [innerWidth, innerHeight], height: document.documentElement.scrollHeight,
             tonight: r(document.getElementById("tonight")), failing: [], stepped: [], charts: []};
  document.querySelectorAll("#tonight tr.failing").forEach(function (tr) {
    out.failing.push({clause: tr.dataset.clause, device: tr.dataset.device, cells: [].map.call(tr.cells, r)});
  });
  document.querySelectorAll("#stepped tr.stepped").forEach(function (tr) {
    out.stepped.push({bench: tr.dataset.bench, row: r(tr), change: r(tr.querySelector(".change"))});
  });
  document.querySelectorAll("figure.bench").forEach(function (f) {
    out.charts.push({id: f.id, x: texts(f, 'g[id*="xtick_"] text'), y: texts(f, 'g[id*="ytick_"] text'),
                     ylabel: texts(f, 'g[id$="matplotlib.axis_2"] > g[id*="-text_"] text')});
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""
FOLD = 900  # the first screen: --window-size=1400,900


def inside(box, outer):
    return box and outer and box["y"] >= outer["y"] and box["y"] + box["h"] <= outer["y"] + outer["h"]


def first_screen(tmp):
    """A thirteenth night with a seeded failure (copy.steady fails on sim:0 alone with a
    distinctive message; copy.flip still fails on both devices since night 5): rendered
    in headless Chromium at 1400x900 from file://, the failing clause, its device and its
    message lie in the Tonight section above the fold and the case is marked NEW FAILURE,
    the stepped benchmark is listed with its change, and every chart has axis tick
    labels and a y axis label with a unit. The first screen is kept as a screenshot."""
    sys.path.insert(0, os.path.join(HERE, "lib"))
    from fixture_store import SEEDED_MESSAGE
    store = os.path.join(tmp, "seeded.sqlite")
    fx = subprocess.run([VENV_PY, os.path.join(HERE, "lib", "fixture_store.py"), store, "--nights", "13",
                         "--seed-fail", "13"], capture_output=True, text=True)
    out = os.path.join(tmp, "seeded-dash")
    p = run("dashboard", "--store", store, "-o", out) if fx.returncode == 0 else fx
    page = os.path.join(out, "index.html")
    if not ok(p.returncode == 0 and os.path.isfile(page), "dashboard of 13 nights, the last with a seeded failure",
              p.stdout + p.stderr):
        return
    text = open(page, encoding="utf-8").read()
    ok("<script" not in text and SEEDED_MESSAGE in text, "the shipped page has no script and holds the message")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        for what in ("failing clause, device and message above the fold", "stepped benchmark listed",
                     "charts have axis tick labels", "first-screen screenshot"):
            skip(what, "chromium not installed (ci/install-deps.sh installs it)")
        return
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size=1400,{FOLD}"]
    probe = os.path.join(out, "probe.html")
    open(probe, "w", encoding="utf-8").write(text.replace("</body>", PROBE + "\n</body>"))
    p = subprocess.run(flags + ["--dump-dom", "file://" + probe], capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">(.*?)</pre>', p.stdout, re.S)
    try:
        got = json.loads(html.unescape(m.group(1))) if m else None
    except ValueError:
        got = None
    if not ok(got is not None, "the probe copy of the page reports its layout", p.stderr[-600:]):
        return
    seeded = [f for f in got["failing"] if (f["clause"], f["device"]) == ("copy.steady", "sim:0")]
    cells = seeded[0]["cells"] if seeded else []
    ok(len(cells) == 4 and [c["text"] for c in (cells[0], cells[1], cells[3])] ==
       ["copy.steady", "sim:0", SEEDED_MESSAGE] and cells[2]["text"].startswith("NEW FAILURE")
       and all(inside(c, got["tonight"]) and c["y"] + c["h"] <= FOLD for c in cells),
       "the seeded failure's clause, device, NEW FAILURE mark and message are in the Tonight section, "
       f"above the fold (y + height <= {FOLD}) at 1400x{FOLD}", (got["inner"], got["tonight"], cells))
    ok(got["failing"] and [(f["clause"], f["device"]) for f in got["failing"]][0] == ("copy.steady", "sim:0")
       and sorted((f["clause"], f["device"]) for f in got["failing"][1:]) == [("copy.flip", "cpu:0"),
                                                                             ("copy.flip", "sim:0")]
       and all(f["cells"][2]["text"].startswith("still failing") for f in got["failing"][1:]),
       "Tonight lists the new failure first, then copy.flip on both devices as still failing",
       [(f["clause"], f["device"], f["cells"][2]["text"]) for f in got["failing"]])
    st = got["stepped"]
    change = re.fullmatch(r"\+(\d+\.\d)%", st[0]["change"]["text"]) if st and st[0]["change"] else None
    ok(len(st) == 1 and st[0]["bench"] == "copy/h2d/pageable/sim:0/harness/65536/manual_time" and change
       and 15 < float(change.group(1)) < 25 and st[0]["row"]["y"] + st[0]["row"]["h"] <= FOLD,
       "the stepped benchmark is listed on the first screen with its change (about +20 %)", st)
    bad = [c for c in got["charts"] if len(c["x"]) < 2 or len(c["y"]) < 2 or len(c["ylabel"]) != 1
           or not re.search(r"\((ns|us|ms|s)\)$", c["ylabel"][0])]
    ok(len(got["charts"]) == 6 and not bad and got["charts"][0]["id"].endswith("sim_0-copy_h2d_pageable_sim_0_"
                                                                            "harness_65536_manual_time"),
       "6 charts, the stepped one first, each with x and y tick labels and a y label with its unit",
       (bad or got["charts"])[:2])
    outdir = os.path.join(HERE, "..", "..", BUILD, "test-output", "history") if not os.path.isabs(BUILD) \
        else os.path.join(BUILD, "test-output", "history")
    os.makedirs(outdir, exist_ok=True)
    shot = os.path.join(outdir, "first-screen.png")
    if os.path.exists(shot):
        os.unlink(shot)
    p = subprocess.run(flags + [f"--screenshot={shot}", "file://" + os.path.abspath(page)], capture_output=True,
                       text=True, timeout=120, cwd=outdir)
    ok(p.returncode == 0 and os.path.isfile(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
       f"first screen (1400x{FOLD}) of the seeded night kept: {os.path.normpath(shot)} "
       f"(page {got['height']} px tall)", p.stderr[-600:])


def console_lines(stderr):
    """Chromium's log lines of console messages (INFO:CONSOLE:N] "text", source: ...)."""
    return [ln for ln in stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]


def browser(page):
    """The page in headless Chromium from file://: the rendered DOM has the matrix and
    the charts, no console message; a screenshot is kept in $BUILD/test-output/history/."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        skip("dashboard in headless Chromium", "chromium not installed (ci/install-deps.sh installs it)")
        skip("dashboard screenshot", "chromium not installed")
        return
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
             "--window-size=1200,2400"]
    url = "file://" + os.path.abspath(page)
    try:
        p = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        ok(False, "dashboard in headless Chromium", "chromium --dump-dom ran over 120 s")
        return
    pg = Page()
    pg.feed(p.stdout)
    console = console_lines(p.stderr)
    ok(p.returncode == 0 and len(pg.cells) == 9 and pg.svgs == 6 and pg.cps == 1 and not console,
       "headless Chromium renders the page from file://: 9 matrix cells, 6 charts, 1 change point, "
       "no console message", (p.returncode, len(pg.cells), pg.svgs, pg.cps, console, p.stderr[-600:]))
    outdir = os.path.join(HERE, "..", "..", BUILD, "test-output", "history") if not os.path.isabs(BUILD) \
        else os.path.join(BUILD, "test-output", "history")
    os.makedirs(outdir, exist_ok=True)
    shot = os.path.join(outdir, "dashboard.png")
    if os.path.exists(shot):
        os.unlink(shot)
    try:
        p = subprocess.run(flags + [f"--screenshot={shot}", url], capture_output=True, text=True, timeout=120,
                           cwd=outdir)
    except subprocess.TimeoutExpired:
        ok(False, "dashboard screenshot", "chromium --screenshot ran over 120 s")
        return
    ok(p.returncode == 0 and os.path.isfile(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
       f"screenshot of the dashboard kept: {os.path.normpath(shot)}", p.stderr[-600:])
    probe = os.path.join(os.path.dirname(page), "console-probe.html")
    open(probe, "w").write('<html><body><script>console.error("probe-42")</script></body></html>')
    p = subprocess.run(flags + ["--dump-dom", "file://" + probe], capture_output=True, text=True, timeout=120)
    ok(any("probe-42" in ln for ln in console_lines(p.stderr)),
       "the console check sees a console.error of a probe page (it can fail)", p.stderr[-600:])


class Page(html.parser.HTMLParser):
    """Collects the dashboard's matrix cells, charts, change-point marks and external references."""

    def __init__(self):
        super().__init__()
        self.cells, self.svgs, self.cps, self.external, self.scripts = [], 0, 0, [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-clause" in a:
            self.cells.append((a["data-device"], a["data-clause"], a.get("class", "")))
        self.svgs += tag == "svg"
        self.cps += tag == "g" and bool(re.fullmatch(r"c\d+-cp-[ht]\d+", a.get("id") or ""))
        self.scripts += tag == "script"
        for k in ("src", "href"):
            if k in a and "://" in (a[k] or "") and not a[k].startswith("http://www.w3.org/"):
                self.external.append(a[k])
        if tag == "svg" and a.get("xmlns", "").startswith("http://www.w3.org/"):
            pass


def check_page(text):
    pg = Page()
    pg.feed(text)
    cells = {(d, c): cls for d, c, cls in pg.cells}
    ok(len(cells) == 9 and cells.get(("sim:0", "copy.flip")) == "fail"
       and cells.get(("sim:0", "sync.flaky")) == "fail flaky" and cells.get(("cpu:0", "copy.steady")) == "pass"
       and cells.get(("sim:0", "launch.skip")) == "skip",
       "matrix: 9 device x clause cells with the latest verdicts, the flaky one marked", cells)
    ok(pg.svgs == 6 and pg.cps == 1,
       "6 benchmark charts (inline SVG, 8 series: each h2d harness series with its raw twin), 1 change point marked",
       (pg.svgs, pg.cps))
    ok(not pg.external and pg.scripts == 0, "self-contained: no script, nothing fetched over the network",
       pg.external)
    ok("sync.flaky: pass &rarr; fail (flaky, not a regression)" in text,
       "the flip since the previous run is shown as flaky, not a regression")


if __name__ == "__main__":
    sys.exit(main())
