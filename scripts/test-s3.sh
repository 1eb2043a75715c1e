#!/usr/bin/env bash
# The end-to-end tests whose nodes keep their bytes in S3 (D1NODE_TEST_STORE=s3: each test node gets a bucket of
# its own on the RADOS Gateway of scripts/s3-test-server.sh), on SQLite and PostgreSQL. Left out: tests that look
# into the store's folder on purpose (crash, disk-full, mn-faults, stalled-upload, audit-command,
# scheduled-audit, backup-restore*) and tests that start nodes without the test helper (processes of their own,
# the federation). test/e2e/s3-store.test.ts, crash-s3.test.ts and store-migrate.test.ts run on S3 always.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/s3-test-server.sh start
files=(
  auth-certificates auth-cn-lookup auth-matrix auth-proxy auth-rate-limit auth-token-lifetime
  checksum-algorithm-names cn-authorization cn-diagnostic cn-identity cn-mn-federation cn-register
  cn-replication cn-reservations cn-search cn-sysmeta cn-token-keys cn-view
  conformance-content conformance-core conformance-mn-update-sysmeta conformance-read conformance-sid
  conformance-storage conformance-sysmeta-changed conformance-update-sysmeta
  database-frozen error-documents get-replica list-trailing-slash metrics
  mn-check mn-concurrency mn-package mn-read mn-replicate mn-storage mn-view
  node-client-certificate node-names nul-byte range-interop range-reads
  search-index-catch-up search-index-command search-packages search-query tricky-identifiers view-citation
)
if (($# == 0)); then set -- "${files[@]/#/test/e2e/}"; set -- "${@/%/.test.ts}"; fi
D1NODE_TEST_STORE=s3 exec node --import tsx --test --test-concurrency=1 "$@"
