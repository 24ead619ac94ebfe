#!/usr/bin/python3
"""tests/backends/cuda/ceilings_fake.t — a GPU's ceilings end to end, on the FAKE driver
(tests/backends/cuda/fake_libcuda.c: cuDeviceGetPCIBusId says 0000:3B:00.0) and a fake
sysfs tree ($DEVHARNESS_SYSFS_ROOT; docs/benchmarks.md "Ceilings"): cuda:0's host link
is read from its PCI function (Gen5 x16 = 63.02 GB/s per direction, 128b/130b; the idle
current Gen1 reported, not used), capped by a slower upstream port (Gen4 x8), h2d/d2h
are the link, bidir twice it; d2d is half the --expect target's memory_bandwidth_gbps
(nvidia/h100: 3350) or, without one, half the backend's memory_peak_bandwidth; a floor
above the link fails bench with measured, ceiling and floor. "1..0 # SKIP" without the
fake driver. Prints TAP; needs $DEVHARNESS and $BUILD (set by `make test`)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from taplib import ok  # noqa: E402  (tests/taplib.py)


def fake_sysfs(root, port, dev, cur):
    """root/devices/pci0000:00/0000:00:01.0/0000:3b:00.0 with its link files, linked from bus/pci/devices."""
    port_dir = os.path.join(root, "devices", "pci0000:00", "0000:00:01.0")
    fn = os.path.join(port_dir, "0000:3b:00.0")
    os.makedirs(fn, exist_ok=True)
    for d, (speed, width) in ((port_dir, port), (fn, dev)):
        open(os.path.join(d, "max_link_speed"), "w").write("%s GT/s PCIe\n" % speed)
        open(os.path.join(d, "max_link_width"), "w").write("%d\n" % width)
    open(os.path.join(fn, "current_link_speed"), "w").write("%s GT/s PCIe\n" % cur[0])
    open(os.path.join(fn, "current_link_width"), "w").write("%d\n" % cur[1])
    bus = os.path.join(root, "bus", "pci", "devices")
    os.makedirs(bus, exist_ok=True)
    if not os.path.islink(os.path.join(bus, "0000:3b:00.0")):
        os.symlink("../../../devices/pci0000:00/0000:00:01.0/0000:3b:00.0", os.path.join(bus, "0000:3b:00.0"))


def bench(dh, fake, root, out, *extra):
    env = dict(os.environ, LD_LIBRARY_PATH=fake, DEVHARNESS_SYSFS_ROOT=root)
    p = subprocess.run([dh, "bench", "--device", "cuda:0", "--suite", "copy", "--quick", "--color", "never",
                        "--benchmark_filter=copy/h2d/pinned/cuda:0/harness/1048576", "--out", out] + list(extra),
                       capture_output=True, text=True, timeout=300, env=env)
    ctx = json.load(open(out))["context"] if os.path.exists(out) else {}
    return p, ctx


def main():
    dh = os.environ.get("DEVHARNESS", "")
    fake = os.path.abspath(os.path.join(os.environ.get("BUILD", "build"), "tests", "cuda-fake", "dev"))
    if not dh or not os.path.exists(dh):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        return
    if not os.path.exists(os.path.join(fake, "libcuda.so.1")):
        print("1..0 # SKIP fake driver %s/libcuda.so.1 not built" % fake)
        return
    print("1..6")
    tmp = tempfile.mkdtemp(prefix="dh-ceilfake-")
    root = os.path.join(tmp, "sys")
    fake_sysfs(root, ("32.0", 16), ("32.0", 16), ("2.5", 16))
    p, ctx = bench(dh, fake, root, os.path.join(tmp, "a.json"), "--expect", "nvidia/h100")
    link = ctx.get("ceiling.cuda:0.host_link", "")
    ok(p.returncode == 0 and link.startswith("63.02 GB/s per direction: host link PCIe Gen5 x16, 128b/130b, of "
                                             "0000:3b:00.0 from sysfs") and "current 2.5 GT/s x16" in link,
       "cuda:0's host link from sysfs: Gen5 x16 = 63.02 GB/s, 128b/130b, the idle current Gen1 only reported",
       "exit %d\n%s\n%s" % (p.returncode, link, p.stderr[-1500:]))
    ok(all(ctx.get("ceiling.cuda:0." + d, "").startswith("63.02 GB/s: host link PCIe Gen5") for d in ("h2d", "d2h"))
       and ctx.get("ceiling.cuda:0.bidir", "").startswith("126.03 GB/s: 2 x host link"),
       "h2d and d2h ceilings are the link, bidir twice it", json.dumps({k: v for k, v in ctx.items()
                                                                          if k.startswith("ceiling")}, indent=1))
    ok(re.match(r"^1675\.00 GB/s: device memory 3350 GB/s / 2 .*--expect target \(NVIDIA H100 datasheet",
                ctx.get("ceiling.cuda:0.d2d", "")),
       "d2d ceiling: half the --expect target's memory_bandwidth_gbps, with its source", ctx.get("ceiling.cuda:0.d2d"))
    fake_sysfs(root, ("16.0", 8), ("32.0", 16), ("16.0", 8))  # the same GPU in a Gen4 x8 slot
    p, ctx = bench(dh, fake, root, os.path.join(tmp, "b.json"))
    ok(ctx.get("ceiling.cuda:0.h2d", "").startswith("15.75 GB/s: host link PCIe Gen4 x8, 128b/130b"),
       "a slower upstream port caps the link (Gen4 x8 = 15.75 GB/s)", ctx.get("ceiling.cuda:0.h2d", ""))
    ok(re.match(r"^1676\.1[0-9] GB/s: device memory 3352 GB/s / 2 .*cuda\.memory_peak_bandwidth",
                ctx.get("ceiling.cuda:0.d2d", "")),
       "without --expect the d2d ceiling is half the backend's memory_peak_bandwidth", ctx.get("ceiling.cuda:0.d2d"))
    target = os.path.join(tmp, "t.json")
    json.dump({"kind": "cuda", "expect": ["h2d pinned 1MiB >= 10000%"]}, open(target, "w"))
    p, ctx = bench(dh, fake, root, os.path.join(tmp, "c.json"), "--expect", target)
    ok(p.returncode == 1 and re.search(r"^not ok 1 - expect cuda:0: h2d pinned 1MiB >= 10000%: measured [0-9.e+-]+ "
                                       r"GB/s, ceiling 15.75 GB/s \(host link PCIe Gen4 x8.*\), floor 1575 GB/s "
                                       r"\(10000 % of the ceiling\): below its floor$", p.stdout, re.M),
       "a floor above the link: bench exits 1 with measured, ceiling (the link) and floor",
       "exit %d\n%s" % (p.returncode, p.stdout[-1500:]))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
