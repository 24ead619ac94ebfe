#!/bin/sh
# tests/ci/zizmor.t — the GitHub workflows pass zizmor (https://docs.zizmor.sh, pinned in
# ci/python-requirements.txt, in the venv), the static analyser of GitHub Actions
# security: actions pinned by commit, least-privilege permissions per job, no persisted
# credentials, no template injection. --offline (no network) at --min-severity=medium:
# no finding may remain. A copy with an action pinned by tag, a template injection and
# persisted checkout credentials must be reported, so the check can fail.
# Prints TAP; SKIP when the venv has no zizmor.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${VENV:-$root/build/venv}
zz=$venv/bin/zizmor
if [ ! -x "$zz" ]; then
    echo "1..0 # SKIP zizmor is not in the venv $venv (make deps installs it: ci/make-venv.sh)"
    exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..3"
echo "# $("$zz" --version)"
if "$zz" --offline --no-progress --min-severity=medium "$root/.github/workflows/" >"$tmp/out" 2>&1; then
    echo "ok 1 - zizmor --offline: no finding of medium or high severity in .github/workflows/"
else
    echo "not ok 1 - zizmor --offline: no finding of medium or high severity in .github/workflows/"
    sed 's/^/# /' "$tmp/out" | head -80
fi
mkdir -p "$tmp/wf/.github/workflows"
cat >"$tmp/wf/.github/workflows/bad.yml" <<'YML'
name: bad
on: push
permissions: write-all
jobs:
  j:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: echo "${{ github.event.head_commit.message }}"
YML
"$zz" --offline --no-progress --min-severity=medium "$tmp/wf/.github/workflows/" >"$tmp/bad" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "unpinned-uses" "$tmp/bad"; then
    echo "ok 2 - a workflow with an action pinned by tag is reported (exit $rc)"
else
    echo "not ok 2 - a workflow with an action pinned by tag is reported (exit $rc)"
    sed 's/^/# /' "$tmp/bad" | head -40
fi
if grep -q "template-injection" "$tmp/bad" && grep -q "artipacked" "$tmp/bad"; then
    echo "ok 3 - ... and its template injection and persisted checkout credentials too"
else
    echo "not ok 3 - ... and its template injection and persisted checkout credentials too"
    sed 's/^/# /' "$tmp/bad" | head -40
fi
