#!/usr/bin/env bash
# The whole test suite: type check, lint, then every test file (unit, database on SQLite and PostgreSQL, end-to-end).
# First what the tests need besides npm's packages (scripts/prerequisites.sh: installed, or named in one line).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x node_modules/.bin/tsc && -x node_modules/.bin/biome ]] || {
  echo "prerequisites: npm packages missing: run npm ci (or npm install)" >&2
  exit 1
}
bash scripts/prerequisites.sh
npx tsc --noEmit
npx biome check .
if (($# == 0)); then set -- $(find test -name '*.test.ts' | sort); fi
# The S3 tests start a Ceph gateway on first use (about 0.5 GB); one started by this run is stopped at its end.
s3_was_up=0
curl -s -o /dev/null -m 2 "http://127.0.0.1:${D1NODE_TEST_S3_PORT:-17480}/" && s3_was_up=1
stop_s3_started_here() { ((s3_was_up)) || bash scripts/s3-test-server.sh stop >/dev/null 2>&1 || true; }
trap stop_s3_started_here EXIT
# A test that waits forever (a transaction left open, a lost child process) fails after 20 minutes instead of
# holding the run.
node --import tsx --test --test-concurrency=1 --test-timeout=1200000 "$@"
