#!/usr/bin/env bash
# The end-to-end tests whose nodes keep their bytes in S3 (D1NODE_TEST_STORE=s3: each test node gets a bucket of
# its own on the RADOS Gateway of scripts/s3-test-server.sh), on SQLite and PostgreSQL. Left out: tests that look
# into the store's folder on purpose (crash, disk-full, mn-faults, stalled-upload, audit-command,
# scheduled-audit, backup-restore*) and tests that start nodes without the test helper (processes of their own,
# the federation). test/e2e/ops/s3-store.test.ts, crash-s3.test.ts and store-migrate.test.ts run on S3 always.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/s3-test-server.sh start
files=(
  auth/auth-certificates auth/auth-cn-lookup auth/auth-matrix auth/auth-proxy auth/auth-rate-limit
  auth/auth-token-lifetime cn/cn-authorization cn/cn-diagnostic cn/cn-identity cn/cn-register
  cn/cn-replication cn/cn-reservations cn/cn-sysmeta cn/cn-view cn/node-names conformance/conformance-content
  conformance/conformance-core conformance/conformance-mn-update-sysmeta conformance/conformance-read
  conformance/conformance-sid conformance/conformance-storage conformance/conformance-sysmeta-changed
  conformance/conformance-update-sysmeta conformance/mn-check conformance/range-interop
  conformance/tricky-identifiers faults/database-frozen federation/cn-mn-federation federation/cn-token-keys
  federation/node-client-certificate mn/checksum-algorithm-names mn/error-documents mn/get-replica
  mn/list-trailing-slash mn/mn-concurrency mn/mn-read mn/mn-replicate mn/mn-storage mn/nul-byte
  mn/range-reads ops/metrics packages/mn-package search/cn-search search/search-index-catch-up
  search/search-index-command search/search-packages search/search-query website/mn-view
  website/view-citation
)
if (($# == 0)); then set -- "${files[@]/#/test/e2e/}"; set -- "${@/%/.test.ts}"; fi
D1NODE_TEST_STORE=s3 exec node --import tsx --test --test-concurrency=1 "$@"
