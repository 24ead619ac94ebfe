#!/usr/bin/python3
"""tests/layering/type_schema.t — one reader of tvm-ffi type schemas (issue 35): only
runtime/type_schema.c (devharness/function.h dh_type_schema_parse and
dh_type_schema_format) looks into a schema's JSON; module check and the module bench
suite read schemas through it. So no other product file gets a schema's "named_args",
"params" or "return" out of JSON (jansson's json_object_get / json_unpack with those
keys); writing a schema (runtime/func_meta.c) is no reading. The first points check the
checker on made-up lines. Prints TAP."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import product_files  # noqa: E402

OWNER = "runtime/type_schema.c"
READ = re.compile(r'json_object_get\s*\([^;]*"(named_args|params|return)"')


def breaches(rel, text):
    if rel == OWNER:
        return []
    return ["%s:%d: reads a type schema (%s): use dh_type_schema_parse" % (rel, n, m.group(1))
            for n, line in enumerate(text.splitlines(), 1) for m in [READ.search(line)] if m]


ok(breaches("module/schema.c", '  const json_t* p = json_object_get(json_object_get(s, "named_args"), "params");\n') and
   breaches("bench/suites/module.c", '  ps = json_object_get(n, "params");\n'),
   "the checker refuses json_object_get of named_args / params outside runtime/type_schema.c")
ok(not breaches(OWNER, '  json_object_get(s, "named_args");\n') and
   not breaches("runtime/func_meta.c", '#define SCHEMA(r, p) "{\\"named_args\\":{\\"return\\":[" r "]}}"\n'),
   "the checker allows the reader itself and a schema being written")
files = product_files((".c", ".h", ".cc"))
bad = [b for rel, text in files for b in breaches(rel, text)]
ok(len(files) > 150 and not bad, "%d product files: only %s reads type schemas" % (len(files), OWNER), "\n".join(bad))
print("1..%d" % count())
