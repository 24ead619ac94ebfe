"""tests/store/lib/bundle_common.py — what the result-bundle tests share: the devharness
command, running it, and validating a manifest with docs/bundle.schema.json through
check-jsonschema from the project venv ($VENV, as `make test` sets it)."""
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SCHEMA = os.path.join(ROOT, "docs", "bundle.schema.json")
DH = os.environ.get("DEVHARNESS", "")
VENV = os.environ.get("VENV", os.path.join(ROOT, "build", "venv"))
CHECK_JSONSCHEMA = os.path.join(VENV, "bin", "check-jsonschema")


def require_devharness():
    """Ends the test with a TAP skip plan when $DEVHARNESS is not set or not there."""
    if not DH or not os.path.exists(DH):
        print("1..0 # SKIP DEVHARNESS not set or missing")
        sys.exit(0)


def dh(*args, env=None, timeout=300):
    """Runs devharness with args; returns the CompletedProcess (text)."""
    e = dict(os.environ, **(env or {}))
    return subprocess.run([DH] + [str(a) for a in args], capture_output=True, text=True, env=e, timeout=timeout)


def schema_errors(bundle):
    """'' when BUNDLE/manifest.json validates against docs/bundle.schema.json, else the
    validator's output."""
    p = subprocess.run([CHECK_JSONSCHEMA, "--schemafile", SCHEMA, os.path.join(bundle, "manifest.json")],
                       capture_output=True, text=True, timeout=120)
    return "" if p.returncode == 0 else p.stdout + p.stderr


def have_validator():
    return os.access(CHECK_JSONSCHEMA, os.X_OK)


def cases(bundle):
    with open(os.path.join(bundle, "conformance.cases.json")) as f:
        return json.load(f)


def manifest(bundle):
    with open(os.path.join(bundle, "manifest.json")) as f:
        return json.load(f)
