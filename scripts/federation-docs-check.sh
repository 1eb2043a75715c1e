#!/usr/bin/env bash
# Runs docs/federation.md's "Setting up" commands as written on three hosts: network namespaces named
# cn.example.org, mn1.example.org and mn2.example.org (veth pairs on one bridge; each host's /etc/hosts names the
# others), each node its own process and folder, `d1node` on the PATH as `npm link` puts it. Fails (exit 1) when a
# command fails, a node warns about its settings, or the federation the docs promise is not there.
# Usage (as root): scripts/federation-docs-check.sh [sqlite|postgres]
#   postgres: one database per node on D1NODE_TEST_PG_URL's server (default postgres://postgres@127.0.0.1:5432),
#   reached from the namespaces through a forwarder on the bridge address.
# FEDERATION_DOCS_KEEP=1 keeps the folders; FEDERATION_DOCS_WAIT (seconds, default 90) bounds each wait.
set -euo pipefail
db="${1:-sqlite}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
docs="$repo/docs/federation.md"
wait_s="${FEDERATION_DOCS_WAIT:-90}"
[[ "$db" == sqlite || "$db" == postgres ]] || { echo "usage: $0 [sqlite|postgres]" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "needs root (network namespaces)" >&2; exit 2; }
command -v ip >/dev/null || { echo "needs iproute2's ip" >&2; exit 2; }

tag="d1f$$"
net="10.$((200 + $$ % 50)).$(($$ % 250)).0"
prefix="${net%.0}"
work="$(mktemp -d "${TMPDIR:-/tmp}/d1node-federation-docs.XXXXXX")"
hosts=(cn mn1 mn2)
declare -A address=([cn]="$prefix.10" [mn1]="$prefix.11" [mn2]="$prefix.12")
pids=()
databases=()
pg_admin="${D1NODE_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

pg() { (cd "$repo" && node --input-type=module -e "
  import pg from 'pg';
  const client = new pg.Client('$pg_admin'); await client.connect();
  try { await client.query(process.argv[1]); } finally { await client.end(); }" "$1"); }

cleanup() {
  local code=$?
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
  for h in "${hosts[@]}"; do
    ip netns del "$tag-$h" 2>/dev/null || true
    rm -rf "/etc/netns/$tag-$h"
  done
  ip link del "${tag}br" 2>/dev/null || true
  for name in "${databases[@]}"; do pg "drop database if exists $name with (force)" || true; done
  if [[ "${FEDERATION_DOCS_KEEP:-}" == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
  exit "$code"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# Polls `$@` until it succeeds, for at most $wait_s seconds.
until_true() {
  local deadline=$((SECONDS + wait_s))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# The hosts: a bridge in this namespace, a veth pair per host.
ip link add "${tag}br" type bridge
ip addr add "$prefix.1/24" dev "${tag}br"
ip link set "${tag}br" up
for h in "${hosts[@]}"; do
  ns="$tag-$h"
  ip netns add "$ns"
  ip link add "$tag$h" type veth peer name "${tag}${h}x"
  ip link set "$tag$h" master "${tag}br" up
  ip link set "${tag}${h}x" netns "$ns"
  ip -n "$ns" link set lo up
  ip -n "$ns" addr add "${address[$h]}/24" dev "${tag}${h}x"
  ip -n "$ns" link set "${tag}${h}x" up
  mkdir -p "/etc/netns/$ns" "$work/$h"
  { echo "127.0.0.1 localhost"; for o in "${hosts[@]}"; do echo "${address[$o]} $o.example.org"; done; } \
    >"/etc/netns/$ns/hosts"
done
mkdir -p "$work/ca" "$work/bin"
ln -s "$repo/bin/d1node.js" "$work/bin/d1node" # what `npm link` does

declare -A dburl=()
if [[ "$db" == postgres ]]; then
  # The server listens on 127.0.0.1 here: a forwarder on the bridge address lets the namespaces reach it.
  pg_host="$(node -e "const u=new URL(process.argv[1]);console.log(u.hostname+' '+(u.port||5432))" "$pg_admin")"
  setsid node -e "
    const net = require('node:net'); const [host, port] = process.argv[1].split(' ');
    net.createServer((c) => { const s = net.connect(Number(port), host); c.pipe(s).pipe(c);
      c.on('error', () => s.destroy()); s.on('error', () => c.destroy()); }).listen(5432, '$prefix.1');
  " "$pg_host" &
  pids+=($!)
  for h in "${hosts[@]}"; do
    name="${tag}_$h"
    pg "create database $name"
    databases+=("$name")
    dburl[$h]="$(node -e "const u=new URL(process.argv[1]);u.hostname='$prefix.1';u.port='5432';u.pathname='/$name';console.log(u.href)" "$pg_admin")"
  done
fi

# The docs' blocks, in order: <!-- federation-docs-check: HOST [serve] --> then a ```sh block.
blocks="$work/blocks"
mkdir -p "$blocks"
awk -v dir="$blocks" '
  /<!-- federation-docs-check: / { n++; split($0, w, /federation-docs-check: | -->/); head = w[2]; want = 1; next }
  want && /^ *```sh/ { inside = 1; want = 0; file = sprintf("%s/%02d %s", dir, n, head); next }
  inside && /^ *```/ { inside = 0; next }
  inside { sub(/^   /, ""); print > file }
' "$docs"
[[ -n "$(ls "$blocks")" ]] || fail "no federation-docs-check blocks in docs/federation.md"

# Runs a block on its host, in its folder, with d1node on the PATH (and the node's database, for PostgreSQL).
on_host() {
  local h="$1"; shift
  local env=(PATH="$work/bin:$PATH" HOME="$work/$h")
  [[ -n "${dburl[$h]:-}" ]] && env+=(D1NODE_DATABASE_URL="${dburl[$h]}")
  if [[ "$h" == ca ]]; then (cd "$work/ca" && env "${env[@]}" "$@"); else
    ip netns exec "$tag-$h" env "${env[@]}" bash -c 'cd "$0" && exec "$@"' "$work/$h" "$@"; fi
}

for file in "$blocks"/*; do
  read -r _ h mode <<<"$(basename "$file")"
  echo "--- $((SECONDS))s on $h${mode:+ ($mode)}: $(head -c 100 "$file" | head -1)"
  if [[ "$mode" == serve ]]; then
    log="$work/$h/serve.log"
    : >"$log"
    setsid bash -c "$(declare -f on_host); $(declare -p work tag dburl); on_host $h bash $(printf %q "$file")" >"$log" 2>&1 &
    pids+=($!)
    until_true grep -q "serving https://$h.example.org/" "$log" || { cat "$log"; fail "$h did not start as the docs say"; }
  else
    out="$work/$h/$(basename "$file").out"
    on_host "$h" bash -e "$file" >"$out" 2>&1 || { cat "$out"; fail "a command on $h failed (block $(basename "$file"))"; }
    cut -c1-200 "$out"
  fi
  if [[ "$h" == ca ]]; then # copied to each host, as step 1 says
    cp "$work/ca/ca.pem" "$work/cn/"; cp "$work/ca/ca.pem" "$work/mn1/"; cp "$work/ca/ca.pem" "$work/mn2/"
    cp "$work/ca/"{cn,jane}.{pem,key} "$work/cn/"
    cp "$work/ca/"mn1.{pem,key} "$work/mn1/"; cp "$work/ca/"mn2.{pem,key} "$work/mn2/"
  fi
done

# What the docs promise: no node warned about its settings; both MNs approved and up in the CN's listNodes.
for h in "${hosts[@]}"; do
  if grep -q "^warning:" "$work/$h/serve.log"; then grep "^warning:" "$work/$h/serve.log"; fail "$h warned"; fi
done
listed_up() {
  local list
  list="$(on_host mn2 curl -sS --cacert ca.pem https://cn.example.org/cn/v2/node)" || return 1
  for id in MN1 MN2; do
    grep -q "<identifier>urn:node:$id</identifier>" <<<"$list" || return 1
  done
  [[ "$(grep -o 'state="up"' <<<"$list" | wc -l)" -ge 3 ]]
}
until_true listed_up || fail "the CN's listNodes does not show MN1 and MN2 up"
echo "PASS: docs/federation.md's commands run as written on three hosts ($db)"
