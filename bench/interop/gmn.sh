#!/bin/sh
# GMN 3.5 interop checks (docs/federation.md, "GMN and Metacat as peers").
# Usage: D1_PYTHON_DIR=/path/to/d1_python PYXB_DIR=/path/to/PyXB-X bench/interop/gmn.sh
# Needs PostgreSQL (D1NODE_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres) and Debian's Python.
set -eu
if [ -z "${D1_PYTHON_DIR:-}" ] || [ -z "${PYXB_DIR:-}" ]; then
  echo "set D1_PYTHON_DIR (a DataONEorg/d1_python checkout) and PYXB_DIR (a PyXB-X checkout)" >&2
  exit 2
fi
# GMN runs on Debian's packages (/usr/bin/python3); nothing comes from PyPI.
packages="python3-django python3-psycopg2 python3-requests python3-requests-toolbelt python3-lxml python3-rdflib
  python3-jwt python3-cryptography python3-contextlib2 python3-pyasn1 python3-isodate python3-dateutil python3-tz
  python3-psutil python3-openssl python3-zipstream python3-iso8601 python3-aiohttp"
missing=""
for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
cd "$(dirname "$0")/../.."
exec node --import tsx bench/interop/gmn.ts
