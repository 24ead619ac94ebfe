"""tests/taplib.py — TAP test points for the Python test scripts (tests/**/*.t).

One numbering per process: ok() and skip() print `ok N - name` / `not ok N - name`
(TAP 13, as Debian 12's prove 3.44 reads it); a failing point is followed by the last
`tail` lines of `diag` as `# ` comments. count() is the number printed so far, for a
plan printed at the end ("1..%d" % count()). Import with the tests/ folder on sys.path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
"""
import sys

_num = 0


def ok(cond, name, diag="", tail=30):
    """Prints one test point; returns cond, so a caller can stop on a failure."""
    global _num
    _num += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (_num, name))
    if not cond:
        for line in str(diag).splitlines()[-tail:]:
            print("# " + line)
    sys.stdout.flush()
    return cond


def skip(name, why):
    """Prints a test point that is skipped, with the reason (never a bare pass)."""
    global _num
    _num += 1
    print("ok %d - %s # SKIP %s" % (_num, name, why))
    sys.stdout.flush()


def count():
    """Test points printed so far."""
    return _num
