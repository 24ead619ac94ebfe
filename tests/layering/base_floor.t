#!/usr/bin/python3
"""tests/layering/base_floor.t — base/ is the ground floor: libdh_base.a calls nothing of
devharness above it (docs/architecture.md "Layers"; base/README.md).

Every dh_* symbol a member of the archive uses (`nm`, undefined: U, or weak w/v) must be
defined by a member of the archive itself; libc, jansson and the like are not dh_*. A
base function that fails records a base error (base/error.h) that its caller raises,
rather than calling the runtime's dh_error_set. The first point checks the checker on
made-up `nm` output. Prints TAP."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
LIB = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "lib", "libdh_base.a")


def calls_up(nm_text):
    """The dh_* symbols members use that no member defines, sorted, as 'member: symbol'."""
    defined, used, member = set(), [], "?"
    for line in nm_text.splitlines():
        if line.endswith(":") and " " not in line:
            member = line[:-1]
            continue
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("U", "w", "v"):
            used.append((member, parts[1]))
        elif len(parts) == 3 and parts[1] not in ("U", "w", "v") and parts[1].isupper():
            defined.add(parts[2])
    return sorted("%s: %s" % (m, s) for m, s in used if s.startswith("dh_") and s not in defined)


sample = ("\ntext.o:\n0000000000000000 T dh_text_quote\n                 U snprintf\n"
          "\njson_read.o:\n                 U dh_text_quote\n                 U dh_error_set\n"
          "                 w dh_hook\n0000000000000010 t dh_local_only\n                 U dh_local_only\n")
ok(calls_up(sample) == ["json_read.o: dh_error_set", "json_read.o: dh_hook", "json_read.o: dh_local_only"],
   "the checker flags dh_* symbols used and defined by no member (undefined, weak, or only static), "
   "not dh_text_quote that a member defines, nor libc", str(calls_up(sample)))
if not os.path.exists(LIB):
    skip("libdh_base.a defines every dh_* symbol it uses", "%s is not built" % LIB)
else:
    out = subprocess.run(["nm", LIB], capture_output=True, text=True, check=True).stdout
    bad = calls_up(out)
    ok(out.strip() and not bad, "libdh_base.a defines every dh_* symbol it uses (it calls nothing above base/)",
       "used by base/ but defined above it:\n" + "\n".join(bad))
print("1..%d" % count())
