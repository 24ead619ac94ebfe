#!/usr/bin/python3
"""tests/backends/cuda/link_nvidia_smi.t — on a machine with an NVIDIA GPU: the host link
devharness reads from sysfs for cuda:0 (bench context ceiling.cuda:0.host_link,
docs/benchmarks.md "Ceilings") is the link `nvidia-smi -q` reports for the same PCI
function: bus id, PCIe generation (Device Max, Host Max, Max) and width (Max), and the
ceiling's GB/s is that generation's rate x width x encoding. "1..0 # SKIP <reason>"
without nvidia-smi or a cuda device. Prints TAP; needs $DEVHARNESS (set by `make test`)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)

GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
ENC = {1: 0.8, 2: 0.8, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}


def smi_link(text):
    """{bus, max, current, device_max, host_max, width_max, width_current} from nvidia-smi -q."""
    out = {}
    m = re.search(r"^\s*Bus Id\s*:\s*(\S+)", text, re.M)
    out["bus"] = m.group(1).lower() if m else None
    gen = re.search(r"PCIe Generation\s*\n((?:\s+[A-Za-z ]+:\s*\S+\s*\n)+)", text)
    for line in (gen.group(1).splitlines() if gen else []):
        k, _, v = line.partition(":")
        out[k.strip().lower().replace(" ", "_")] = int(v) if v.strip().isdigit() else None
    width = re.search(r"Link Width\s*\n((?:\s+[A-Za-z ]+:\s*\S+\s*\n)+)", text)
    for line in (width.group(1).splitlines() if width else []):
        k, _, v = line.partition(":")
        n = re.match(r"\s*(\d+)x", v)
        out["width_" + k.strip().lower().replace(" ", "_")] = int(n.group(1)) if n else None
    return out


def main():
    dh = os.environ.get("DEVHARNESS", "")
    smi = shutil.which("nvidia-smi")
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    if not smi:
        print("1..0 # SKIP nvidia-smi not found (no NVIDIA driver here)")
        return
    tmp = tempfile.mkdtemp(prefix="dh-link-")
    out = os.path.join(tmp, "b.json")
    p = subprocess.run([dh, "bench", "--device", "cuda:0", "--suite", "copy", "--quick", "--out", out,
                        "--benchmark_filter=copy/h2d/pinned/cuda:0/harness/4/"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode == 3:
        print("1..0 # SKIP no cuda device: %s" % p.stderr.strip().splitlines()[-1:])
        return
    print("1..5")
    ctx = json.load(open(out))["context"] if p.returncode == 0 else {}
    link = ctx.get("ceiling.cuda:0.host_link", "")
    m = re.match(r"^([0-9.]+) GB/s per direction: host link PCIe Gen(\d) x(\d+), [^,]+, of (\S+) from sysfs "
                 r"\(device max ([0-9.]+) GT/s x(\d+), upstream port max ([0-9.]+) GT/s x(\d+), current ([0-9.]+) GT/s "
                 r"x(\d+)\)", link)
    ok(m, "bench context has the sysfs link of cuda:0", "exit %d\n%s\n%s" % (p.returncode, link, p.stderr[-1500:]))
    if not m:
        for i in range(2, 6):
            print("ok %d - # SKIP no sysfs link to compare" % i)
        return
    gbps, gen, width, bus = float(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)
    dev_gts, host_gts = float(m.group(5)), float(m.group(7))
    q = subprocess.run([smi, "-q", "-i", "0000" + bus], capture_output=True, text=True, timeout=60)
    s = smi_link(q.stdout)
    print("# devharness: %s" % link)
    print("# nvidia-smi: %s" % s)
    ok(s.get("bus") == "0000" + bus, "the same PCI function (bus id %s)" % bus, q.stdout[:1500] + q.stderr)
    gen_of = {v: k for k, v in GTS.items()}
    ok(s.get("device_max") == gen_of.get(dev_gts) and s.get("host_max") == gen_of.get(host_gts),
       "PCIe generation: sysfs device max / upstream port max = nvidia-smi Device Max / Host Max", str(s))
    ok(s.get("max") == gen and s.get("width_max") == width,
       "the ceiling's link (Gen%d x%d) = nvidia-smi Max generation and Max width" % (gen, width), str(s))
    want = GTS[gen] * width * ENC[gen] / 8
    ok(abs(gbps - want) < 0.01, "ceiling %.2f GB/s = %.1f GT/s x %d x encoding / 8 = %.2f GB/s" %
       (gbps, GTS[gen], width, want), link)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
