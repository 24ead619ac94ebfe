#!/usr/bin/python3
"""tests/ci/install_deps.t — ci/install-deps.sh checks before it asks for root: as a
user who is not root (this user, or `nobody` through setpriv when the tests run as
root), with every package installed it exits 0 and says so (a CI job on a non-root
runner whose image has the packages passes); with one package reported missing (a
dpkg-query on PATH that says valgrind is not installed) it exits 2 naming it and the
command to run. The script is read from stdin so that `nobody` need not read the
checkout. Prints TAP."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from taplib import count, ok, skip  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "ci", "install-deps.sh")

if shutil.which("dpkg-query") is None:
    print("1..0 # SKIP no dpkg-query (not a Debian system)")
    sys.exit(0)
prefix = []
if os.geteuid() == 0:
    if shutil.which("setpriv") is None:
        print("1..0 # SKIP running as root and setpriv is absent: cannot run as another user")
        sys.exit(0)
    prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

# Every package installed? (the test's premise; make test runs after check-deps)
real = subprocess.run(["sh", "-c", "sh '%s' --print" % SCRIPT], stdout=subprocess.PIPE, text=True).stdout
packages = real.split("--no-install-recommends", 1)[1].split()
have_all = all(subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", p], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.startswith("ii") for p in packages)

tmp = tempfile.mkdtemp(prefix="dh-install-deps-")
os.chmod(tmp, 0o755)
try:
    def run(path_prefix=None):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}
        if path_prefix:
            env["PATH"] = path_prefix + ":" + env["PATH"]
        with open(SCRIPT, "rb") as f:
            return subprocess.run(prefix + ["sh", "-s"], stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env, cwd=tmp, timeout=120)

    if have_all:
        p = run()
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        ok(p.returncode == 0 and "already installed" in out,
           "not root, every package installed: exit 0, 'already installed'", "exit %d: %s" % (p.returncode, out))
    else:
        skip("not root, every package installed", "some packages of ci/install-deps.sh are not installed here")

    fake = os.path.join(tmp, "dpkg-query")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do [ "$a" = valgrind ] && { printf "un "; exit 0; }; done\n'
                'exec /usr/bin/dpkg-query "$@"\n')
    os.chmod(fake, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    p = run(tmp)
    err = p.stderr.decode("utf-8", "replace")
    ok(p.returncode == 2 and "valgrind" in err.splitlines()[0] and "apt-get install" in err,
       "not root, valgrind missing: exit 2, names it and the command to run", "exit %d: %s" % (p.returncode, err))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
print("1..%d" % count())
