#!/usr/bin/python3
"""tests/layering/caps.t — capabilities are read through one façade (issue 35).

A backend's DH_CAP_* flags are what `dh_device_caps(backend)` answers
(include/devharness/device_api.h, runtime/plugin.c): the flags its query_caps found at
init in this process, else what a device probe's child found, else the declared ones;
`dh_backend_t.caps` stays as declared. So no product file outside runtime/ reads
`->caps` or `.caps` (a reader would get the declared or the found flags depending on
when and in which process it reads), and no file outside runtime/ reads a device
entry's `caps` either. backends/ is left out: a plugin declares its own flags and
keeps its own tables of them, and never reads another backend's. The first points check the
checker on made-up lines. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import product_files  # noqa: E402

OWNER = "runtime"
READ = re.compile(r"(->|\.)\s*caps\b(?!\s*=[^=])")


def breaches(rel, text):
    """'rel:line: ...' for every line of text that reads ->caps / .caps outside runtime/."""
    top = rel.split("/", 1)[0]
    if top in (OWNER, "backends"):
        return []
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"/\*.*?\*/|//.*$", "", line)
        if READ.search(code):
            out.append("%s:%d: reads caps: %s (use dh_device_caps)" % (rel, n, line.strip()))
    return out


ok(breaches("cli/info.c", "  if (b->caps & DH_CAP_PINNED_HOST) x();\n") and
   breaches("conformance/runner/runner.c", "  d->caps = e->caps;\n") and
   breaches("bench/devices.c", "  uint32_t c = entry.caps;\n"),
   "the checker refuses b->caps, e->caps and entry.caps read outside runtime/")
ok(not breaches("runtime/plugin.c", "  return backend->caps;\n") and
   not breaches("backends/sim/sim_backend.c", "    .caps = DH_CAP_ASYNC_COPY,\n") and
   not breaches("backends/tvm/tvm_backend.c", "  b->caps = 0; /* none assumed */\n") and
   not breaches("cli/info.c", "  if (dh_device_caps(b) & DH_CAP_PINNED_HOST) x(); /* not ->caps */\n"),
   "the checker allows runtime/, a backend declaring its flags, and dh_device_caps")

files = product_files((".c", ".h", ".cc"))
bad = [b for rel, text in files for b in breaches(rel, text)]
ok(files and not bad, "%d product files: none outside runtime/ reads ->caps or .caps" % len(files), "\n".join(bad))
print("1..%d" % count())
