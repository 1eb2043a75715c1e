#!/usr/bin/env bash
# What the tests need besides npm's packages, made present or named: xmllint (schema validation), Chromium (the
# view pages), python3-extruct (the landing pages' JSON-LD), HAProxy (the scale-out deployment test), oai_pmh (Debian
# libhttp-oai-perl: the OAI-PMH harvest test), the official DataONE Python client's Debian packages
# (when its kit sits beside the checkout, in ../shared/interop), and PostgreSQL answering. As root with apt-get it installs what is missing and starts an
# installed PostgreSQL that is down; otherwise it stops at the first gap with one line: what is missing and the
# command that installs it. Used by `npm test` (scripts/test.sh) and .ci/run, so the two cannot drift.
# Settings: D1NODE_TEST_PG=skip (no PostgreSQL), D1NODE_TEST_PG_URL, D1NODE_CHROMIUM, CI=true (the client kit
# must be there). Ceph's RADOS Gateway (the S3 server of the S3 store's tests) is installed here and started by
# scripts/s3-test-server.sh when a test first needs it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "prerequisites: $*" >&2; }
stop() {
  say "$*"
  exit 1
}

# package.json `engines`: Node 20.18.1 or newer.
node -e 'const [a, b, c] = process.versions.node.split(".").map(Number);
  process.exit(a > 20 || (a === 20 && (b > 18 || (b === 18 && c >= 1))) ? 0 : 1)' ||
  stop "Node $(node --version) is too old: d1node needs Node 20.18.1 or newer"

KIT=../shared/interop
CHROMIUM=${D1NODE_CHROMIUM:-/usr/bin/chromium}
PG_URL=${D1NODE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}

# Debian packages, installed with apt-get when this runs as root.
can_apt() { [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; }
apt_install() {
  local log
  log=$(mktemp)
  say "installing $* (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } >"$log" 2>&1; then
    stop "apt-get install $* failed: $(grep -m1 -E '^(E|W):' "$log" || tail -n 1 "$log")"
  fi
  rm -f "$log"
}

missing=() packages=()
command -v xmllint >/dev/null || { missing+=(xmllint) && packages+=(libxml2-utils); }
[[ -x $CHROMIUM ]] || { missing+=("Chromium ($CHROMIUM)") && packages+=(chromium); }
# The power-cut test's filesystem (test/helpers/faults/power-cut-fs.py, FUSE through Debian's python3-fusepy).
[[ -f /usr/lib/python3/dist-packages/fusepy.py ]] || { missing+=(python3-fusepy) && packages+=(python3-fusepy); }
# The OAI-PMH harvester of the harvest test (test/e2e/discovery/oai-harvest.test.ts): oai_pmh from libhttp-oai-perl.
command -v oai_pmh >/dev/null || { missing+=(oai_pmh) && packages+=(libhttp-oai-perl); }
# Structured data as search engines read it from landing pages (test/helpers/validation/extruct.ts).
[[ -f /usr/lib/python3/dist-packages/extruct/__init__.py ]] || { missing+=(python3-extruct) && packages+=(python3-extruct); }
# The balancer of the scale-out deployment test (deploy/haproxy.cfg).
command -v haproxy >/dev/null || { missing+=(haproxy) && packages+=(haproxy); }
for tool in radosgw ceph-mon ceph-osd ceph; do
  command -v $tool >/dev/null || { missing+=("$tool") && packages+=(radosgw ceph-mon ceph-osd ceph-common) && break; }
done
if ((${#missing[@]})); then
  names=$(printf ', %s' "${missing[@]}")
  can_apt || stop "missing ${names:2}; install with: sudo apt-get install -y ${packages[*]}"
  apt_install "${packages[@]}"
  command -v xmllint >/dev/null || stop "xmllint is not on PATH after installing libxml2-utils"
  command -v radosgw >/dev/null || stop "radosgw is not on PATH after installing radosgw"
  command -v haproxy >/dev/null || stop "haproxy is not on PATH after installing haproxy"
  command -v oai_pmh >/dev/null || stop "oai_pmh is not on PATH after installing libhttp-oai-perl"
  [[ -x $CHROMIUM ]] || stop "no Chromium at $CHROMIUM after installing chromium (D1NODE_CHROMIUM names another)"
fi

# The official DataONE Python client (used by the end-to-end tests that drive a node with it).
if [[ -f $KIT/install.sh ]]; then
  if ! out=$(bash "$KIT/install.sh" 2>&1); then
    stop "the DataONE Python client kit is not ready: $(tail -n 1 <<<"$out"); run: sudo bash $KIT/install.sh"
  fi
elif [[ ${CI:-} == true ]]; then
  stop "the official DataONE Python client kit is absent (no $KIT/install.sh beside the checkout); CI needs it"
fi

# PostgreSQL, tested for real: start an installed server that is down.
pg_answers() { pg_isready -q -d "$PG_URL" 2>/dev/null; }
if [[ ${D1NODE_TEST_PG:-} != skip ]]; then
  command -v pg_isready >/dev/null ||
    stop "PostgreSQL is not installed: apt-get install -y postgresql (or D1NODE_TEST_PG=skip to test SQLite alone)"
  if ! pg_answers; then
    if can_apt && command -v pg_ctlcluster >/dev/null && [[ -d /etc/postgresql ]]; then
      for version in /etc/postgresql/*/; do
        for cluster in "$version"*/; do
          [[ -d $cluster ]] || continue
          pg_ctlcluster --skip-systemctl-redirect "$(basename "$version")" "$(basename "$cluster")" start \
            >/dev/null 2>&1 || true
        done
      done
      for _ in $(seq 1 30); do
        pg_answers && break
        sleep 1
      done
    fi
    pg_answers ||
      stop "PostgreSQL does not answer at ${PG_URL}: start it (pg_ctlcluster <version> main start)," \
        "or set D1NODE_TEST_PG_URL, or D1NODE_TEST_PG=skip"
  fi
fi
