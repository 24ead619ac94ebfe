#!/bin/sh
# devharness.sh — the first command on a new machine: installs what the build needs
# (make, the compilers and every other Debian package, through ci/install-deps.sh; as
# root, or with sudo for a user who has it), then runs make with the same arguments.
#   ./devharness.sh run     == make run, after installing the dependencies
#   ./devharness.sh test    == make test, after installing the dependencies
# It exists because a new Debian 12 has no make: only a plain sh script can install it.
# Afterwards plain `make ...` does the same. Exit: make's exit status; 1 when the
# installation failed; 2 when packages are missing and cannot be installed (the
# commands to run are printed).
set -u
cd "$(dirname "$0")" || exit 2
sh ci/check-deps.sh --sudo || exit $?
echo "devharness: make $*"
exec make "$@"
