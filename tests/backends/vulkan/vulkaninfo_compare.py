#!/usr/bin/python3
"""Compares what the devharness Vulkan backend reports for vulkan:0 with `vulkaninfo --text`
for the same physical device (matched by deviceName): name, API version, driver version,
max compute work-group invocations / size, shared memory, storage buffer range, subgroup
size, driver name, device-local heap sizes. Prints TAP.

devharness values come from `$BUILD/tests/test_vulkan --dump-attrs` (the plugin loaded
directly, validation layer on); when $DEVHARNESS exists and `info --json` mentions the
device, its name is checked too. No vulkaninfo or no Vulkan device: the plan is skipped.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ok_count = 0
tests = []


def check(cond, name, diag=""):
    tests.append((bool(cond), name, diag))


def skip_all(reason):
    print("1..0 # SKIP " + reason)
    sys.exit(0)


def main():
    build = os.environ.get("BUILD", "build")
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    prog = os.path.join(root if not os.path.isabs(build) else "", build, "tests", "test_vulkan")
    if not os.path.exists(prog):
        skip_all("test_vulkan not built at %s" % prog)
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    env["DEVHARNESS_VK_VALIDATION"] = "1"
    p = subprocess.run([prog, "--dump-attrs"], capture_output=True, text=True, env=env, timeout=60)
    if p.returncode != 0:
        print("1..1")
        print("not ok 1 - test_vulkan --dump-attrs exited %d" % p.returncode)
        print("# " + (p.stdout + p.stderr).replace("\n", "\n# "))
        sys.exit(1)
    dh = json.loads(p.stdout)
    if dh.get("devices", 0) < 1:
        skip_all("no Vulkan device: %s" % dh.get("reason", "?"))
    if shutil.which("vulkaninfo") is None:
        skip_all("vulkaninfo not installed")
    vi = subprocess.run(["vulkaninfo", "--text"], capture_output=True, text=True, env=env, timeout=60)
    text = vi.stdout
    if "Device Properties and Extensions" not in text:
        skip_all("vulkaninfo --text printed no device properties (rc %d)" % vi.returncode)
    text = text.split("Device Properties and Extensions", 1)[1]
    blocks = re.split(r"^GPU\d+:\s*$", text, flags=re.M)[1:]
    a, pr = dh["attrs"], dh["props"]
    blk = None
    for b in blocks:
        m = re.search(r"^\s*deviceName\s*=\s*(.*?)\s*$", b, re.M)
        if m and m.group(1) == a["device_name"]:
            blk = b
            break
    check(blk is not None, "vulkaninfo lists a device named %r" % a["device_name"],
          "vulkaninfo names: %s" % re.findall(r"deviceName\s*=\s*(.*)", text))
    if blk is None:
        return

    def val(key):
        m = re.search(r"^\s*%s\s*=\s*(.*?)\s*$" % re.escape(key), blk, re.M)
        return m.group(1) if m else None

    def ival(key):
        v = val(key)
        if v is None:
            return None
        m = re.match(r"(0x[0-9a-fA-F]+|\d+)", v)
        return int(m.group(1), 0) if m else None

    api = val("apiVersion")  # "1.3.230 (4206822)"
    m = re.match(r"(\d+)\.(\d+)\.(\d+) \((\d+)\)", api or "")
    check(m and int(m.group(4)) == pr["vulkan_api_version"], "vulkan_api_version",
          "vulkaninfo %r, devharness %r" % (api, pr["vulkan_api_version"]))
    check(m and int(m.group(4)) == a["api_version"], "kApiVersion is the device's apiVersion, not the loader header's",
          "vulkaninfo %r, devharness %r" % (api, a["api_version"]))
    api_text = m and "%s.%s.%s" % m.group(1, 2, 3)
    check(m and "%s.%s" % (m.group(1), m.group(2)) == a["compute_version"], "kComputeVersion",
          "vulkaninfo %r, devharness %r" % (api, a["compute_version"]))
    drv = val("driverVersion")  # "0.0.1 (1)"
    m = re.match(r"(\S+) \((\d+)\)", drv or "")
    check(m and int(m.group(2)) == pr["driver_version"], "driver_version (int)",
          "vulkaninfo %r, devharness %r" % (drv, pr["driver_version"]))
    check(m and m.group(1) == a["driver_version"], "kDriverVersion (decoded)",
          "vulkaninfo %r, devharness %r" % (drv, a["driver_version"]))
    name = val("driverName")
    check(name == pr["driver_name"], "driver_name", "vulkaninfo %r, devharness %r" % (name, pr["driver_name"]))
    inv = ival("maxComputeWorkGroupInvocations")
    check(inv == a["max_threads_per_block"] == pr["max_num_threads"], "maxComputeWorkGroupInvocations",
          "vulkaninfo %r, devharness %r/%r" % (inv, a["max_threads_per_block"], pr["max_num_threads"]))
    m = re.search(r"maxComputeWorkGroupSize: count = 3\s+(\d+)\s+(\d+)\s+(\d+)", blk)
    dims = json.loads(a["max_thread_dimensions"])
    check(m and [int(x) for x in m.groups()] == dims, "maxComputeWorkGroupSize",
          "vulkaninfo %r, devharness %r" % (m and m.groups(), dims))
    shm = ival("maxComputeSharedMemorySize")
    check(shm == a["max_shared_memory_per_block"] == pr["max_shared_memory_per_block"],
          "maxComputeSharedMemorySize", "vulkaninfo %r, devharness %r" % (shm, a["max_shared_memory_per_block"]))
    sbr = ival("maxStorageBufferRange")
    check(sbr == pr["max_storage_buffer_range"], "maxStorageBufferRange",
          "vulkaninfo %r, devharness %r" % (sbr, pr["max_storage_buffer_range"]))
    for key, prop in (("maxPushConstantsSize", "max_push_constants_size"),
                      ("maxUniformBufferRange", "max_uniform_buffer_range")):
        v = ival(key)
        check(v == pr[prop], key, "vulkaninfo %r, devharness %r" % (v, pr[prop]))
    sg = ival("subgroupSize")
    check(sg == a["warp_size"] == pr["thread_warp_size"], "subgroupSize",
          "vulkaninfo %r, devharness %r" % (sg, a["warp_size"]))
    heaps = re.findall(r"memoryHeaps\[\d+\]:\s+size\s*=\s*(\d+)[^\n]*\n\s*flags:[^\n]*\n((?:\s+MEMORY_HEAP_\w+\n)*)", blk)
    local = sum(int(sz) for sz, flags in heaps if "DEVICE_LOCAL" in flags)
    if local == 0:
        local = sum(int(sz) for sz, _ in heaps)
    check(heaps and local == a["total_global_memory"], "device-local heap sizes = kTotalGlobalMemory",
          "vulkaninfo heaps %r, devharness %r" % (heaps, a["total_global_memory"]))
    check("validation error" not in p.stderr, "no validation error while querying", p.stderr[-2000:])

    # no ICD: the plugin still initialises and says why it has no device
    env2 = dict(env)
    env2["VK_ICD_FILENAMES"] = env2["VK_DRIVER_FILES"] = "/nonexistent/devharness_no_icd.json"
    q = subprocess.run([prog, "--dump-attrs"], capture_output=True, text=True, env=env2, timeout=60)
    try:
        nd = json.loads(q.stdout)
    except ValueError:
        nd = {}
    check(q.returncode == 0 and nd.get("devices") == 0 and "ICD" in nd.get("reason", ""),
          "no ICD: 0 devices and a reason naming the missing ICD", "rc %d, out %r" % (q.returncode, q.stdout))

    cli = os.environ.get("DEVHARNESS")
    if cli and os.path.exists(cli):
        c = subprocess.run([cli, "info", "--json"], capture_output=True, text=True, env=env, timeout=120)
        check(c.returncode == 0 and a["device_name"] in c.stdout, "devharness info --json shows %r" % a["device_name"],
              "rc %d, stderr %s" % (c.returncode, c.stderr[-500:]))
        try:
            devs = [d for b in json.loads(c.stdout)["backends"] if b["name"] == "vulkan" for d in b.get("devices", [])]
        except (ValueError, KeyError):
            devs = []
        got = [(d["attributes"].get("api_version"), d.get("api_version_text")) for d in devs
               if d["attributes"].get("device_name") == a["device_name"]]
        check(got and got[0] == (a["api_version"], api_text),
              "info --json: api_version %r and api_version_text %r" % (a["api_version"], api_text), "got %r" % got)
        t = subprocess.run([cli, "info", "--device", "vulkan:0"], capture_output=True, text=True, env=env, timeout=120)
        want = "%s (%d)" % (api_text, a["api_version"])
        line = [ln for ln in t.stdout.splitlines() if ln.strip().startswith("api_version")]
        check(line and line[0].split(None, 1)[1] == want, "info text: api_version %s" % want,
              "got %r" % line)


main()
print("1..%d" % len(tests))
failed = 0
for i, (good, name, diag) in enumerate(tests, 1):
    print("%s %d - %s" % ("ok" if good else "not ok", i, name))
    if not good:
        failed += 1
        for line in str(diag).splitlines() or [""]:
            print("# " + line)
sys.exit(1 if failed else 0)
