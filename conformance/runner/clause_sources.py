#!/usr/bin/python3
"""conformance/runner/clause_sources.py — where each clause's run function is defined.

    clause_sources.py conformance/clauses/*.c > clause_sources.c

Reads the clause tables (`const dh_clause_t dc_<family>_clauses[] = {...};`) of the
given files (an entry may be a call of a macro of the same file that expands to one),
takes each entry's id (its first field) and run function (its sixth,
conformance/clauses/check.h dh_clause_t), finds the line that defines that function in
the same file (`static void fn(dh_conf_ctx_t* c)`, or a macro that defines it,
`WITH_SCRATCH(fn) {`, `DC_WITH_STATE(fn, ...) {`), and writes C: dc_clause_sources[], {id, file, line} sorted by id, read
by suite/junit.c (through runner/list.c dc_clause_source) for the `file` and `line` of a <testcase>. The clause tables stay
as they are (no field, no macro added to them). A run function that cannot be found
is an error (exit 1, naming the clause): a wrong line must never reach a report.
"""
import re
import sys


def strip_comments(text):
    """Comments replaced by spaces of the same length (line numbers kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_top(body, sep):
    """body split at `sep` outside strings, parentheses and braces."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(body):
        ch = body[i]
        if ch in "\"'":
            j = i + 1
            while j < len(body) and body[j] != ch:
                j += 2 if body[j] == "\\" else 1
            cur.append(body[i:j + 1])
            i = j + 1
            continue
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def macros(text):
    """Function-like macros of text: name -> (parameters, body)."""
    found = {}
    for m in re.finditer(r"^#define\s+(\w+)\(([^)]*)\)((?:.*\\\n)*.*)$", text, re.M):
        found[m.group(1)] = ([p.strip() for p in m.group(2).split(",")], m.group(3).replace("\\\n", " "))
    return found


def expand(entry, defs):
    """An entry written as a macro call, `ECHO_CLAUSE("bool", "Bool", echo_bool)`, expanded."""
    m = re.match(r"(\w+)\s*\((.*)\)$", entry, re.S)
    if not m or m.group(1) not in defs:
        return entry
    params, body = defs[m.group(1)]
    args = dict(zip(params, (a.strip() for a in split_top(m.group(2), ","))))
    return re.sub(r"\b\w+\b", lambda w: args.get(w.group(0), w.group(0)), body).strip()


def entries(text):
    """(id, run function) of every entry of every clause table in text."""
    defs = macros(text)
    for m in re.finditer(r"\bdh_clause_t\s+dc_\w+_clauses\s*\[\s*\]\s*=\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            if text[i] in "\"'":
                q, i = text[i], i + 1
                while text[i] != q:
                    i += 2 if text[i] == "\\" else 1
            elif text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        for entry in split_top(text[m.end():i - 1], ","):
            entry = expand(entry.strip(), defs)
            if not entry.startswith("{"):
                continue
            fields = [f.strip() for f in split_top(entry[1:-1], ",")]
            pieces = re.findall(r'"([^"\\]*)"', fields[0])  # "packed.echo_" "bool" joined
            if pieces and len(fields) >= 6:
                yield "".join(pieces), fields[5]


def main(paths):
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = strip_comments(f.read())
        for cid, fn in entries(text):
            # `static void fn(` or a defining macro at the start of a line whose first
            # argument is fn: `WITH_SCRATCH(fn) {`, `DC_WITH_STATE(fn, state_t, v, release) {`
            d = re.search(r"^(?:(?:static\s+)?void\s+" + re.escape(fn) + r"\s*\(|[A-Z_][A-Z0-9_]*\(\s*" +
                          re.escape(fn) + r"\s*[,)][^;{]*\{)", text, re.M)
            if not re.fullmatch(r"[A-Za-z_]\w*", fn) or not d:
                sys.stderr.write("clause_sources.py: %s: clause %s: run function %r is not defined in "
                                 "this file\n" % (path, cid, fn))
                return 1
            rows.append((cid, path, text.count("\n", 0, d.start()) + 1))
    rows.sort()
    print("/* Generated by conformance/runner/clause_sources.py from the clause tables; do not edit. */")
    print('#include "runner/runner.h"\n')
    print("const dc_clause_source_t dc_clause_sources[] = {")
    for cid, path, line in rows:
        print('    {"%s", "%s", %d},' % (cid, path, line))
    print("};")
    print("const size_t dc_clause_source_count = %d;" % len(rows))
    return 0


sys.exit(main(sys.argv[1:]))
