#!/usr/bin/env bash
# The whole test suite: type check, lint, then every test file (unit, database on SQLite and PostgreSQL, end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit
npx biome check .
if (($# == 0)); then set -- $(find test -name '*.test.ts' | sort); fi
exec node --import tsx --test --test-concurrency=1 "$@"
