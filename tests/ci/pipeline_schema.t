#!/bin/sh
# tests/ci/pipeline_schema.t — both nightly pipelines validate against their CI
# system's published schema: .github/workflows/*.yml against GitHub's workflow schema,
# .gitlab-ci.yml against GitLab's, with check-jsonschema (pinned in
# ci/python-requirements.txt, installed into the venv by ci/make-venv.sh) and the
# schemas vendored inside its wheel (--builtin-schema: no network). A deliberately
# broken copy of each must fail the same check, so the test cannot pass on a linter
# that accepts everything. Prints TAP; SKIP when the venv has no check-jsonschema.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${VENV:-$root/build/venv}
cjs=$venv/bin/check-jsonschema
if [ ! -x "$cjs" ]; then
    echo "1..0 # SKIP check-jsonschema is not in the venv $venv (make deps installs it: ci/make-venv.sh)"
    exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$tmp/out"; }
# lint SCHEMA FILE: 0 when valid
lint() { "$cjs" --builtin-schema "$1" "$2" >"$tmp/out" 2>&1; }

echo "# $("$cjs" --version)"
set -- "$root"/.github/workflows/*.yml
[ -f "$1" ] && ok "found $# GitHub workflow file(s)" || notok "no .github/workflows/*.yml"
for f; do
    rel=${f#"$root"/}
    if lint vendor.github-workflows "$f"; then ok "$rel: valid against GitHub's workflow schema"
    else notok "$rel: valid against GitHub's workflow schema"; fi
done
if lint vendor.gitlab-ci "$root/.gitlab-ci.yml"; then ok ".gitlab-ci.yml: valid against GitLab's CI schema"
else notok ".gitlab-ci.yml: valid against GitLab's CI schema"; fi

# Broken copies: a job without runs-on/steps (GitHub), a job whose `script` is a
# mapping and an unknown `when` (GitLab). Each must be rejected.
cp "$1" "$tmp/broken.yml"
python3 - "$tmp/broken.yml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s += "\n  broken-job:\n    runs-on: 42\n    steps: not-a-list\n"
open(p, "w").write(s)
PY
if lint vendor.github-workflows "$tmp/broken.yml"; then notok "a broken GitHub workflow is rejected"
else ok "a broken GitHub workflow is rejected"; fi
cp "$root/.gitlab-ci.yml" "$tmp/broken-gitlab.yml"
printf '\nbroken-job:\n  script: {run: 1}\n  when: sometimes\n' >>"$tmp/broken-gitlab.yml"
if lint vendor.gitlab-ci "$tmp/broken-gitlab.yml"; then notok "a broken GitLab pipeline is rejected"
else ok "a broken GitLab pipeline is rejected"; fi
echo "1..$n"
