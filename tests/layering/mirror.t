#!/usr/bin/python3
"""tests/layering/mirror.t — tests/ mirrors the rooms (issue 35): every product room of
tests/layering/rooms.py has a folder tests/<room>/ with a tests.mk that registers its
tests, so a room's tests are found where the room is. Folders of tests/ that are no
room hold what crosses rooms (docs, layering, fuzz, hostile, stress, ci). Prints TAP."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taplib import count, ok  # noqa: E402
from rooms import ROOT, product_rooms  # noqa: E402

CROSSING = {"docs", "layering", "fuzz", "hostile", "stress", "ci", "__pycache__"}
rooms = product_rooms()
ok(len(rooms) >= 10, "rooms.py lists the product rooms (%d)" % len(rooms), " ".join(rooms))
missing = [r for r in rooms if not os.path.isfile(os.path.join(ROOT, "tests", r, "tests.mk"))]
ok(not missing, "every room has tests/<room>/tests.mk", "missing: " + " ".join(missing))
others = sorted(d for d in os.listdir(os.path.join(ROOT, "tests"))
                if os.path.isdir(os.path.join(ROOT, "tests", d)) and d not in rooms and d not in CROSSING)
ok(not others, "every folder of tests/ is a room's or one of the crossing ones (%s)" % ", ".join(sorted(CROSSING)),
   "neither: " + " ".join(others))
print("1..%d" % count())
