#!/usr/bin/python3
"""tests/docs/references.t — every reference in code and docs can be followed by a
reader who has only this repository and the upstream projects it names. Prints TAP.

Scanned: the files git tracks (else every file under the root but what .gitignore leaves out),
except tests/fuzz/corpus/ and tests/fuzz/regressions/ (fuzzer inputs: arbitrary bytes,
not prose) and this file (its self-test names bad references on purpose). Checks, per
file:

1. No reference to material outside the repository: the team's fact sheet and product
   spec ("FACTS" / "SPEC" + ".md"), the team's "shared" folder beside the checkout, the
   team's reference/ folder (no such folder here), or an issue number
   ("issue #N", "#N" not part of an HTML entity "&#N;" or a word).
2. Every repository-relative path (a word starting docs/ include/ runtime/ backends/
   conformance/ tests/ bench/ machine/ cli/ ci/ targets/, not preceded by a path character,
   with an optional :line or :line-line) exists, and the line is within the file.
   The rule that keeps false positives out — not checked are: a path with a
   placeholder (< * $ { % or "...", also right after it: faulty_$(1).c) naming a
   family of files; paths in fenced code blocks of .md files (examples to adapt);
   upstream paths, i.e. right after an upstream project and optional version
   ("apache/tvm v0.27.0 docs/arch/...", "tvm-ffi 0.1.15 include/...") or under an
   include/ folder this repository lacks (include/tvm/..., include/dlpack/...).
3. Every markdown link [text](target) in a .md file whose target is not a URL or an
   in-page anchor points at an existing file, relative to the .md file.
4. A docs/<file>.md path followed by " §Section" names a heading of that file (the
   heading starts with the words given).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SKIP_DIRS = ("tests/fuzz/corpus/", "tests/fuzz/regressions/", "tests/docs/references.t")
TOPS = ("docs", "include", "runtime", "backends", "conformance", "tests", "bench", "machine",
        "cli", "ci", "targets")
FORBIDDEN = re.compile(r"FACTS\.md|SPEC\.md|\.\./shared|(?<![\w./-])reference/|\bissues? #\d+|"
                       r"(?<![&\w])#\d+\b")
PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w./<>*${}%%-]*[\w>*}])(?::(\d+)(?:-(\d+))?)?"
                  % "|".join(TOPS))
CSS_COLOR = re.compile(r"(?:[:=,]\s*|[\"'])#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})(?:[;\"'),\s}]|$)")
SECTION = re.compile(r"(docs/[\w.-]+\.md) §([^)`,;:\n]+)")
MDLINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode("utf-8", "replace")
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        # No git (a new Debian 12 has none): walk the tree, leaving out what .gitignore
        # leaves out (/build*/, /results/, __pycache__/, *.o, *.d) and .git/.
        files = []
        for d, dirs, names in os.walk(ROOT):
            top = os.path.normpath(d) == os.path.normpath(ROOT)
            dirs[:] = [x for x in dirs if x not in (".git", "__pycache__")
                       and not (top and (x.startswith("build") or x == "results"))]
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names
                      if not n.endswith((".o", ".d"))]
    return sorted(f for f in files if not f.startswith(SKIP_DIRS)
                  and os.path.isfile(os.path.join(ROOT, f)))


def read_text(path):
    data = open(os.path.join(ROOT, path), "rb").read()
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


_lines = {}


def line_count(path):
    if path not in _lines:
        t = read_text(path)
        _lines[path] = t.count("\n") + (0 if t.endswith("\n") or not t else 1) if t else 0
    return _lines[path]


_heads = {}


def headings(path):
    if path not in _heads:
        t = read_text(path) or ""
        _heads[path] = [re.sub(r"^#+\s*", "", l).strip().lower()
                        for l in t.splitlines() if re.match(r"#+\s", l)]
    return _heads[path]


def placeholder(p):
    return any(ch in p for ch in "<*${%") or "..." in p


UPSTREAM = re.compile(r"(apache/tvm(-ffi)?|tvm-ffi|dmlc/dlpack|dlpack)( v?\d[\w.]*)?[ `(]*$")


def check_path(p, line, before="", after=""):
    """Returns a problem string, or None. before/after: the line's text around p."""
    if placeholder(p) or after[:1] in ("$", "(", "%", "<", "*", "{") or UPSTREAM.search(before):
        return None
    parts = p.split("/")
    if parts[0] == "include" and not os.path.isdir(os.path.join(ROOT, "include", parts[1])):
        return None
    full = os.path.join(ROOT, p.rstrip("."))
    if not os.path.exists(full):
        return "%s does not exist" % p
    if line and os.path.isfile(full) and int(line) > line_count(p.rstrip(".")):
        return "%s has %d lines, cited :%s" % (p, line_count(p.rstrip(".")), line)
    return None


def scan(path, text):
    problems = []
    fenced = False
    for n, l in enumerate(text.splitlines(), 1):
        for m in FORBIDDEN.finditer(l):
            if CSS_COLOR.search(l[:m.end() + 1][-(len(m.group(0)) + 12):]):
                continue  # a colour (color: #444; "#888888"), not an issue number
            problems.append("%s:%d: reference outside the repository: %r" % (path, n, m.group(0)))
        if path.endswith(".md") and l.lstrip().startswith("```"):
            fenced = not fenced
            continue
        for m in PATH.finditer(l):
            if fenced:
                break
            why = check_path(m.group(1), m.group(2), l[:m.start()], l[m.end(1):])
            if why:
                problems.append("%s:%d: %s" % (path, n, why))
        for m in SECTION.finditer(l):
            doc, sec = m.group(1), m.group(2).strip().lower()
            if os.path.isfile(os.path.join(ROOT, doc)) and \
                    not any(h.startswith(sec) or sec.startswith(h) for h in headings(doc)):
                problems.append("%s:%d: %s has no section %r" % (path, n, doc, m.group(2).strip()))
        if path.endswith(".md"):
            for m in MDLINK.finditer(l):
                t = m.group(1)
                if re.match(r"[a-z]+:", t) or t.startswith("#"):
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(path), t.split("#")[0]))
                if not os.path.exists(os.path.join(ROOT, target)):
                    problems.append("%s:%d: link target %s does not exist" % (path, n, t))
    return problems


def self_test():
    """The checker itself can fail: known-bad lines are caught, known-good pass."""
    # (spelled in pieces so that this file itself cites nothing outside the repository)
    bad = ["see FACTS" ".md §1", "SPEC" ".md §5", "(issue #13)", "once #11 lands",
           ".." "/shared/reference/x.md", "(reference/tvm-pr1-x.txt)", "docs/no-such-file.md",
           "runtime/device_api.c:999999",
           "docs/contract.md §No such section", "[x](no-such.md)"]
    good = ["&#10;", "docs/contract.md §Attributes", "runtime/device_api.c:1",
            "apache/tvm v0.27.0 include/tvm/runtime/device_api.h:146",
            "backends/<name>/backend.mk", "tests/**/tests.mk", "[x](https://example.org)",
            "build/venv/devharness/tvm/include/x.h", "apache/tvm v0.27.0 docs/arch/x.rst:64-71",
            "tests/fuzz/fuzz_$(1).c", "docs/contract.md §Attributes that CUDA answers"]
    missed = [b for b in bad if not scan("docs/x.md", b)]
    flagged = [g for g in good if scan("docs/x.md", g)]
    return missed, flagged


results = []
missed, flagged = self_test()
results.append((not missed, "the checker flags known-bad references", "missed: %r" % missed))
results.append((not flagged, "the checker passes known-good references", "flagged: %r" % flagged))

files = tracked_files()
results.append((len(files) > 50, "found the repository's files (%d)" % len(files), ""))
for f in files:
    text = read_text(f)
    if text is None:
        continue
    problems = scan(f, text)
    if problems:
        results.append((False, "references in %s" % f, "\n".join(problems)))
results.append((True, "%d files scanned" % len(files), ""))

print("1..%d" % len(results))
for i, (ok, desc, diag) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, desc))
    if not ok and diag:
        for d in diag.splitlines():
            print("# " + d)
sys.exit(0)
