#!/usr/bin/env bash
# A real S3 server for the tests: Ceph's RADOS Gateway on a one-machine Ceph cluster (one monitor, one OSD on
# memstore, no authentication between the daemons), from Debian's packages (radosgw, ceph-mon, ceph-osd).
#   start   start it unless it already answers (idempotent; several test files may call it at once)
#   stop    stop the daemons it started and remove its folder
# Settings: D1NODE_TEST_S3_PORT (default 17480), D1NODE_TEST_S3_DIR (default $TMPDIR/d1node-ceph),
# D1NODE_TEST_S3_MEMSTORE_BYTES (the OSD's memory, default 6 GiB, taken only as objects are stored).
# The gateway's user has the access key d1nodetest and the secret d1nodetestsecret.
set -euo pipefail

PORT=${D1NODE_TEST_S3_PORT:-17480}
MON_PORT=$((PORT - 690))
DIR=${D1NODE_TEST_S3_DIR:-${TMPDIR:-/tmp}/d1node-ceph}
BYTES=${D1NODE_TEST_S3_MEMSTORE_BYTES:-6442450944}
ENDPOINT=http://127.0.0.1:$PORT

say() { echo "s3-test-server: $*" >&2; }
answers() { curl -s -o /dev/null -m 2 "$ENDPOINT/"; }

stop_daemons() {
  for pidfile in "$DIR"/run/*.pid; do
    [[ -f $pidfile ]] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  for _ in $(seq 1 50); do
    local alive=0
    for pidfile in "$DIR"/run/*.pid; do
      [[ -f $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null && alive=1
    done
    ((alive)) || break
    sleep 0.2
  done
}

start() {
  answers && return 0
  for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph curl; do
    command -v "$tool" >/dev/null || {
      say "$tool is missing: apt-get install -y radosgw ceph-mon ceph-osd ceph-common"
      exit 1
    }
  done
  stop_daemons
  rm -rf "$DIR"
  mkdir -p "$DIR"/{run,log,mon,osd}
  local fsid conf=$DIR/ceph.conf
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$MON_PORT
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
# The OSD is placed in the CRUSH map below; left to do it itself at start it may ask the monitor before it has the
# cluster's id, be refused ("wrong fsid") and exit.
osd crush update on start = false
osd class update on start = false
osd objectstore = memstore
# The gateway's first start creates its pools, one osdmap epoch each; the monitor's default pace of one proposal a
# second made that about ten seconds.
paxos propose interval = 0.05
paxos min wait = 0.01
memstore device bytes = $BYTES
run dir = $DIR/run
log file = $DIR/log/\$name.log
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
keyring = /dev/null
ms bind ipv6 = false
[mon.a]
mon data = $DIR/mon
[osd.0]
osd data = $DIR/osd
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$PORT
rgw data = $DIR/rgw
CONF
  local c=(-c "$conf") log=$DIR/log/setup.log
  {
    monmaptool --create --add a "v1:127.0.0.1:$MON_PORT" --fsid "$fsid" "$DIR/monmap"
    ceph-mon "${c[@]}" --mkfs -i a --monmap "$DIR/monmap"
    ceph-mon "${c[@]}" -i a
    timeout 30 ceph "${c[@]}" osd create
    ceph-osd "${c[@]}" -i 0 --mkfs
    timeout 30 ceph "${c[@]}" osd crush add osd.0 1 root=default
    ceph-osd "${c[@]}" -i 0
    radosgw "${c[@]}" -n client.rgw.a
  } >"$log" 2>&1 9>&- || {
    say "Ceph did not start: $(tail -n 1 "$log") (see $log)"
    exit 1
  }
  # Up in a second or two on a quiet machine; a busy one is given a minute and a
  # half, unless the gateway exits or cannot listen.
  local gateway_pid deadline=$((SECONDS + 90))
  while ((SECONDS < deadline)); do
    answers && break
    gateway_pid=$(cat "$DIR/run/client.rgw.a.pid" 2>/dev/null || true)
    [[ -n $gateway_pid ]] && ! kill -0 "$gateway_pid" 2>/dev/null && break
    grep -q "failed initializing frontend" "$DIR/log/client.rgw.a.log" 2>/dev/null && break
    sleep 0.2
  done
  answers || {
    say "the RADOS Gateway does not answer at $ENDPOINT: $(tail -n 1 "$DIR/log/client.rgw.a.log" 2>/dev/null | cut -c1-200) (see $DIR/log)"
    exit 1
  }
  timeout 60 radosgw-admin "${c[@]}" user create --uid=d1node --display-name=d1node \
    --access-key=d1nodetest --secret-key=d1nodetestsecret >>"$log" 2>&1 || {
    say "could not create the gateway's user (see $log)"
    exit 1
  }
}

case ${1:-start} in
start)
  mkdir -p "$(dirname "$DIR")"
  exec 9>"$DIR.lock"
  flock 9
  start
  ;;
stop) stop_daemons && rm -rf "$DIR" ;;
*)
  say "usage: s3-test-server.sh start|stop"
  exit 2
  ;;
esac
