#!/usr/bin/python3
"""tests/cli/help.t — every command and subcommand answers -h and --help alike: exit 0,
its usage on stdout, nothing on stderr, and an exit-code line that names every code the
command can return (the top level and run: 0-3; conformance: 0-3; the others the codes
their help promises, each with its meaning). Needs $DEVHARNESS (set by `make test`).
Prints TAP."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok  # noqa: E402

dh = os.environ.get("DEVHARNESS", "")
if not dh or not os.path.exists(dh):
    print("1..0 # SKIP DEVHARNESS not set or missing")
    sys.exit(0)

# command words -> exit codes its help must name
COMMANDS = [([], "0123"), (["info"], "023"), (["run"], "0123"), (["conformance"], "0123"),
            (["bench"], "0123"), (["plot"], "012"), (["compare"], "012"), (["history"], "012"),
            (["dashboard"], "012"), (["export"], "012"), (["targets"], "02"),
            (["targets", "list"], "02"), (["targets", "show"], "02"), (["targets", "validate"], "02"),
            (["targets", "detect"], "02"), (["module"], "0123")]
env = dict(os.environ, COLUMNS="100")
for words, codes in COMMANDS:
    name = " ".join(["devharness"] + words)
    outs = []
    for flag in ("-h", "--help"):
        p = subprocess.run([dh] + words + [flag], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=60)
        outs.append(p.stdout)
        ok(p.returncode == 0 and "usage" in p.stdout.lower() and p.stderr == "",
           "%s %s: exit 0, usage on stdout, nothing on stderr" % (name, flag),
           "exit %d\nstderr: %s" % (p.returncode, p.stderr[-500:]))
    ok(outs[0] == outs[1], "%s: -h and --help print the same" % name)
    text = " ".join(outs[1].split())
    m = re.search(r"\bexit(?: codes| status)?(?: \([^)]*\))?: (.*)", text, re.I)
    named = set(re.findall(r"\b([0-3]) [a-z]", m.group(1))) if m else set()
    ok(named >= set(codes), "%s --help names exit codes %s" % (name, ", ".join(codes)),
       "exit line: %s" % (m.group(0)[:300] if m else "none"))
print("1..%d" % count())
