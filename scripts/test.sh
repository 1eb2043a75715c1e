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
exec node --import tsx --test --test-concurrency=1 "$@"
