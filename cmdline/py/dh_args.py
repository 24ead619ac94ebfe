"""cmdline/py/dh_args.py — argument parsing shared by devharness's Python tools (bench's
plot.py, compare.py, matrix_heatmap.py, ratio-table.py; the store's history.py,
dashboard.py): one-line errors and exit status 2, as every devharness command."""
import argparse
import sys


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors ("PROG: message") and exit status 2."""

    def error(self, message):
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def parse(ap, argv):
    """argv parsed by `ap` (a OneLineParser) the way every devharness command does it:
    (namespace, None), or (None, exit status): 0 after --help, 2 after one line on
    stderr. An option `ap` does not know is named first, before argparse would complain
    about missing positional arguments."""
    known = {s for action in ap._actions for s in action.option_strings}
    bad = unknown_option(argv, known)
    if bad is not None:
        print(f"{ap.prog}: unknown option '{bad}' (see {ap.prog} --help)", file=sys.stderr)
        return None, 2
    try:
        return ap.parse_args(argv), None
    except SystemExit as e:
        return None, 0 if e.code == 0 else 2


def unknown_option(argv, known):
    """The first word that looks like an option and is not one of ours, else None:
    named before argparse would complain about missing positional arguments."""
    for word in argv:
        if word == "--":
            return None
        if word.startswith("-") and word != "-" and word.split("=", 1)[0] not in known:
            return word
    return None
