#!/usr/bin/python3
"""conformance --shard I/N (and CI_NODE_INDEX/CI_NODE_TOTAL) splits the (device, clause)
cases so that the shards add up to the unsharded run, each case in exactly one shard;
--bundle writes a bundle whose manifest validates against docs/bundle.schema.json;
`merge` joins the shard bundles and `verify` exits 0 only when every case ran exactly
once: it fails on a missing shard, a shard given twice, a truncated or changed file.
A shard's TAP, JUnit and summary list only its own cases (the others counted apart,
never as skips). Bad --shard values are one-line usage errors (exit 2). docs/results.md
"Shards".
Prints TAP. Needs $DEVHARNESS (set by `make test`)."""
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from taplib import count, ok, skip  # noqa: E402
from bundle_common import cases, dh, have_validator, manifest, require_devharness, schema_errors  # noqa: E402

require_devharness()

ENV = {"DEVHARNESS_SIM_DEVICES": "2"}
SEL = ["--device", "sim:1", "--filter", "mem.*,copy.*,stream.*,attr.*"]
tmp = tempfile.mkdtemp(prefix="dh-shards-")
B = lambda name: os.path.join(tmp, name)  # noqa: E731


def keys(bundle):
    return [(c["device"], c["clause"]) for c in cases(bundle)["cases"]]


try:
    p = dh("conformance", *SEL, "--bundle", B("all"), "-q", env=ENV)
    ok(p.returncode == 0, "unsharded run with --bundle: exit 0", p.stdout + p.stderr)
    full = keys(B("all"))
    ok(len(full) > 30 and len(set(full)) == len(full), "unsharded bundle: %d distinct cases" % len(full))
    parts = []
    for i in (1, 2, 3):
        p = dh("conformance", *SEL, "--shard", "%d/3" % i, "--bundle", B("s%d" % i), "-q", env=ENV)
        ok(p.returncode == 0, "--shard %d/3: exit 0" % i, p.stdout + p.stderr)
        parts.append(keys(B("s%d" % i)))
        m = manifest(B("s%d" % i))
        ok(m["shard"] == {"index": i, "total": 3} and m["command"] == "conformance",
           "shard %d/3: manifest says shard %d of 3" % (i, i), json.dumps(m["shard"]))
    # a shard's own reports list only its cases; the others are counted apart
    for i in (1, 2, 3):
        own, other = len(parts[i - 1]), len(full) - len(parts[i - 1])
        tap = open(os.path.join(B("s%d" % i), "conformance.tap")).read()
        points = [l for l in tap.splitlines() if re.match(r"^\s*(not )?ok \d+ - ", l)]
        inner = [l for l in points if l.startswith("    ")]
        plans = re.findall(r"^    1\.\.(\d+)$", tap, re.M)
        ok(len(inner) == own and sum(int(n) for n in plans) == own and "in shard" not in tap
           and "# shard %d/3: %d cases in other shards (not listed)" % (i, other) in tap,
           "shard %d/3's TAP: its %d cases alone (plans too), no skip of another shard, '%d cases in other "
           "shards'" % (i, own, other), tap[:3000])
        names = [(m.group(1), m.group(2)) for m in re.finditer(
            r'<testcase classname="([^"]*)" name="([^"]*)"', open(os.path.join(B("s%d" % i), "conformance.junit.xml")).read())]
        ok(sorted(names) == sorted(parts[i - 1]), "shard %d/3's JUnit: exactly its %d cases" % (i, own),
           "got %d, extra %s" % (len(names), set(names) - set(parts[i - 1])))
        sm = json.load(open(os.path.join(B("s%d" % i), "conformance.summary.json")))
        t = sm["totals"]
        ok(t.get("other_shards") == other and t["pass"] + t["fail"] + t["skip"] + t["xfail"] == own
           and sm["shard"] == {"index": i, "total": 3},
           "shard %d/3's summary: %d cases counted, %d in other_shards" % (i, own, other), json.dumps(t))
    union = [k for part in parts for k in part]
    ok(sorted(union) == sorted(full), "shards 1/3 + 2/3 + 3/3 add up to the unsharded run (%s = %d)"
       % (" + ".join(str(len(x)) for x in parts), len(full)),
       "missing %s\nextra %s" % (set(full) - set(union), set(union) - set(full)))
    ok(all(len(x) > 0 for x in parts) and len(set(union)) == len(union), "no case in two shards, no shard empty")
    # the same split from GitLab's variables (1-based)
    p = dh("conformance", *SEL, "--bundle", B("ci2"), "-q", env=dict(ENV, CI_NODE_INDEX="2", CI_NODE_TOTAL="3"))
    ok(p.returncode == 0 and sorted(keys(B("ci2"))) == sorted(parts[1]),
       "CI_NODE_INDEX=2 CI_NODE_TOTAL=3 runs the cases of --shard 2/3", p.stderr)
    # the manifests validate
    if have_validator():
        for b in ("all", "s1", "s2", "s3"):
            err = schema_errors(B(b))
            ok(err == "", "%s/manifest.json validates against docs/bundle.schema.json" % b, err)
    else:
        skip("manifests validate against docs/bundle.schema.json", "check-jsonschema not in the venv")
    # merge and verify
    p = dh("merge", B("s1"), B("s2"), B("s3"), "-o", B("merged"))
    ok(p.returncode == 0 and sorted(keys(B("merged"))) == sorted(full), "merge s1 s2 s3: the union of the parts",
       p.stdout + p.stderr)
    if have_validator():
        err = schema_errors(B("merged"))
        ok(err == "", "merged/manifest.json validates against docs/bundle.schema.json", err)
    mm = manifest(B("merged"))
    ok(mm["command"] == "merge" and [s["index"] for s in mm["shards"]] == [1, 2, 3]
       and mm["run_uuid"] not in [manifest(B("s%d" % i))["run_uuid"] for i in (1, 2, 3)],
       "merged manifest: command merge, shards 1,2,3, a new run UUID", json.dumps(mm["shards"]))
    for args, name in (([B("merged")], "the merged bundle"), ([B("s1"), B("s2"), B("s3")], "the three shards"),
                       ([B("all")], "the unsharded bundle")):
        p = dh("verify", *args)
        ok(p.returncode == 0 and "each ran exactly once" in p.stdout, "verify %s: exit 0" % name,
           p.stdout + p.stderr)
    p = dh("verify", B("s1"), B("s3"))
    ok(p.returncode == 1 and "shard 2/3 missing" in p.stdout and "missing (ran in no bundle)" in p.stdout,
       "verify without shard 2/3: exit 1, the shard and its cases named missing", p.stdout + p.stderr)
    p = dh("verify", B("s1"), B("s2"), B("s3"), B("ci2"))
    ok(p.returncode == 1 and "shard 2/3 given more than once" in p.stdout and "ran more than once" in p.stdout,
       "verify with shard 2/3 twice: exit 1, the repeated cases named", p.stdout + p.stderr)
    p = dh("merge", B("s1"), B("s3"), "-o", B("merged13"))
    p2 = dh("verify", B("merged13"))
    ok(p.returncode == 0 and p2.returncode == 1 and "shard 2/3 missing" in p2.stdout,
       "a merged bundle missing shard 2/3: verify exits 1", p2.stdout + p2.stderr)
    # damaged bundles
    shutil.copytree(B("s2"), B("trunc"))
    path = os.path.join(B("trunc"), "conformance.cases.json")
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    p = dh("verify", B("s1"), B("trunc"), B("s3"))
    ok(p.returncode == 1 and "truncated or changed" in p.stderr, "verify with a truncated file: exit 1, said so",
       p.stdout + p.stderr)
    shutil.copytree(B("s2"), B("flip"))
    path = os.path.join(B("flip"), "conformance.cases.json")
    data = bytearray(open(path, "rb").read())
    i = data.index(b'"pass"')
    data[i + 1:i + 5] = b"fail"
    open(path, "wb").write(bytes(data))
    p = dh("verify", B("s1"), B("flip"), B("s3"))
    ok(p.returncode == 1 and "SHA-256 differs" in p.stderr, "verify with a changed file (same size): exit 1",
       p.stdout + p.stderr)
    p = dh("verify", B("nosuch"))
    ok(p.returncode == 1 and "no manifest.json" in p.stderr, "verify of a folder without a bundle: exit 1",
       p.stdout + p.stderr)
    p = dh("merge", B("s1"), "-o", B("merged"))
    ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "already exists" in p.stderr,
       "merge -o an existing folder: exit 2, one line", p.stderr)
    p = dh("conformance", *SEL, "--bundle", B("s1"), "-q", env=ENV)
    ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "already holds a bundle" in p.stderr,
       "--bundle into a folder that holds a bundle: exit 2, one line", p.stderr)
    for cmd in ("conformance", "bench"):
        p = dh(cmd, "--device", "sim:9", "--bundle", B("baddev-" + cmd), env=ENV)
        ok(p.returncode == 2 and not os.path.exists(B("baddev-" + cmd)),
           "%s --bundle with a bad --device: exit 2, no bundle folder left" % cmd, p.stderr)
    # bad shard values
    for bad in ("0/3", "4/3", "1/0", "x", "1/3/3", "2/", "-1/3"):
        p = dh("conformance", "--device", "sim:0", "--shard", bad, env=ENV)
        ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "--shard: expected I/N" in p.stderr
           and p.stdout == "", "--shard %r: exit 2, one line" % bad, p.stdout + p.stderr)
    p = dh("conformance", "--device", "sim:0", env=dict(ENV, CI_NODE_INDEX="5", CI_NODE_TOTAL="3"))
    ok(p.returncode == 2 and "CI_NODE_INDEX/CI_NODE_TOTAL: expected I/N" in p.stderr,
       "CI_NODE_INDEX=5 CI_NODE_TOTAL=3: exit 2 naming the variables", p.stderr)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
