#!/usr/bin/env bash
# A local Citus cluster for developing and testing the scale-out (docs/scaling-out.md): one
# coordinator and two workers as three PostgreSQL 15 clusters on this machine. Run as root
# (it installs packages and uses Debian's pg_createcluster/pg_ctlcluster). Every command is
# idempotent: run it again and it does only what is missing.
#
#   scripts/citus.sh build   build and install the citus extension from the vendored source
#   scripts/citus.sh start   create and start the clusters, register the nodes, print the URL
#   scripts/citus.sh stop    stop the clusters (their data stays)
#   scripts/citus.sh url [db]       print the coordinator's URL (of database db, default loyalty)
#   scripts/citus.sh createdb <db>  a database with the extension on every node, the nodes registered
#   scripts/citus.sh dropdb <db>    drop that database on every node, the spare included
#   scripts/citus.sh test [args]    start, a clean database test, then npm test on it (args go to vitest)
#
# A fourth node, the spare (port 5444), runs beside them with the extension but in no
# database's metadata: the node a test adds to a database to grow its cluster while it serves.
#
# The machine's own PostgreSQL (cluster 15/main, port 5432) is never touched.
set -euo pipefail

PG_VERSION=15
# Debian's own pg_config for 15 (/usr/bin/pg_config is a wrapper that picks a version)
PG_CONFIG=/usr/lib/postgresql/$PG_VERSION/bin/pg_config
CITUS_VERSION=13.2.2
# the repo is cloned next to shared/; CITUS_VENDOR_DIR overrides
VENDOR_DIR=${CITUS_VENDOR_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/vendor/citus}
DB=loyalty
COORDINATOR_PORT=5441
WORKER_PORTS=(5442 5443)
# cluster name → port; names as in the vendor README
SPARE_PORT=5444
declare -A PORTS=([citus1]=5441 [citus2]=5442 [citus3]=5443 [citus4]=$SPARE_PORT)
# background workers a node may run (start, below)
WORKER_PROCESSES=64
url_of() { echo "postgresql://postgres@127.0.0.1:$COORDINATOR_PORT/$1"; }

log() { echo "citus.sh: $*" >&2; }

psql_at() { # port db sql...: as postgres over TCP (trust on 127.0.0.1), unaligned, no NOTICEs
  local port=$1 db=$2
  shift 2
  PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -At -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

build() {
  if [[ -f "$($PG_CONFIG --pkglibdir)/citus.so" ]]; then
    log "citus is already installed for PostgreSQL $PG_VERSION"
    return
  fi
  [[ -f "$VENDOR_DIR/citus-$CITUS_VERSION-src.tar.gz" ]] || { log "no Citus source in $VENDOR_DIR (set CITUS_VENDOR_DIR)"; exit 1; }
  log "installing build dependencies"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    postgresql-server-dev-$PG_VERSION liblz4-dev libzstd-dev libkrb5-dev libssl-dev >/dev/null
  local src
  src=$(mktemp -d)
  trap "rm -rf '$src'" EXIT
  tar xzf "$VENDOR_DIR/citus-$CITUS_VERSION-src.tar.gz" -C "$src"
  cd "$src/citus-$CITUS_VERSION"
  # Debian's 15.20 headers declare have_createdb_privilege(), which 13.2.2 redefines (README)
  patch -p1 -s <"$VENDOR_DIR/pg15-minor-compat.patch"
  log "building Citus $CITUS_VERSION (about 100 s on 2 cores)"
  # libcurl only serves Citus's anonymous statistics collection, which we do not want
  # the build's output goes to a log, shown only when a step fails
  { ./configure --without-libcurl PG_CONFIG="$PG_CONFIG" && make -j2 && make install; } >"$src/build.log" 2>&1 ||
    { tail -n 40 "$src/build.log" >&2; log "build failed"; exit 1; }
  log "installed $($PG_CONFIG --pkglibdir)/citus.so"
}

status_of() { # cluster → online|down|absent
  pg_lsclusters -h 2>/dev/null | awk -v v="$PG_VERSION" -v c="$1" '$1 == v && $2 == c { print $4; found = 1 } END { if (!found) print "absent" }'
}

start() {
  [[ -f "$($PG_CONFIG --pkglibdir)/citus.so" ]] || { log "citus is not installed: run '$0 build' first"; exit 1; }
  local name port
  for name in citus1 citus2 citus3 citus4; do
    port=${PORTS[$name]}
    if [[ $(status_of "$name") == absent ]]; then
      log "creating cluster $PG_VERSION/$name on port $port"
      # manual: `service postgresql start` (the machine's own 5432) leaves it alone; trust on
      # the loopback only (initdb's options after --): a development and CI cluster
      pg_createcluster -q "$PG_VERSION" "$name" -p "$port" --start-conf=manual -- \
        --auth-local=trust --auth-host=trust >&2
    fi
    # logical decoding through Citus's own output plugin (which this PostgreSQL build allows
    # only when listed): shards move while their tables take writes (rebalancing, isolating a
    # tenant). Background workers: every database with the extension keeps a maintenance daemon
    # on each node, and a move takes more (the rebalancer's executors, logical replication's
    # apply workers); with PostgreSQL's 8, six databases on the cluster left a rebalance waiting
    # for a worker forever
    printf '%s\n' "listen_addresses = '127.0.0.1'" "shared_preload_libraries = 'citus'" "wal_level = logical" \
      "output_plugin_libraries = 'pgoutput, test_decoding, citus'" "max_worker_processes = $WORKER_PROCESSES" \
      >"/etc/postgresql/$PG_VERSION/$name/conf.d/citus.conf"
    if [[ $(status_of "$name") != online ]]; then
      pg_ctlcluster "$PG_VERSION" "$name" start >&2
    elif [[ $(psql_at "$port" postgres -c "SHOW wal_level") != logical ||
      $(psql_at "$port" postgres -c "SHOW max_worker_processes") != "$WORKER_PROCESSES" ]]; then
      log "restarting $PG_VERSION/$name for wal_level = logical and max_worker_processes = $WORKER_PROCESSES"
      pg_ctlcluster "$PG_VERSION" "$name" restart >&2
    else
      pg_ctlcluster "$PG_VERSION" "$name" reload >&2
    fi
  done
  create_database "$DB"
}

# A database of that name with the extension on every node (workers are reached by the same
# name), and the nodes in its metadata: Citus keeps pg_dist_node per database.
create_database() {
  local db=$1 port
  [[ $db =~ ^[a-z_][a-z0-9_]*$ ]] || { log "createdb: bad database name '$db'"; exit 2; }
  for port in "$COORDINATOR_PORT" "${WORKER_PORTS[@]}"; do
    [[ $(psql_at "$port" postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'") == 1 ]] ||
      psql_at "$port" postgres -c "CREATE DATABASE $db"
    psql_at "$port" "$db" -c "CREATE EXTENSION IF NOT EXISTS citus"
  done
  # the coordinator in the metadata (group 0), so reference tables also get a copy there
  [[ $(psql_at $COORDINATOR_PORT "$db" -c "SELECT count(*) FROM pg_dist_node WHERE groupid = 0") == 1 ]] ||
    psql_at $COORDINATOR_PORT "$db" -c "SELECT citus_set_coordinator_host('127.0.0.1', $COORDINATOR_PORT)" >/dev/null
  for port in "${WORKER_PORTS[@]}"; do
    [[ $(psql_at $COORDINATOR_PORT "$db" -c "SELECT count(*) FROM pg_dist_node WHERE nodename = '127.0.0.1' AND nodeport = $port") == 1 ]] ||
      psql_at $COORDINATOR_PORT "$db" -c "SELECT citus_add_node('127.0.0.1', $port)" >/dev/null
  done
  psql_at $COORDINATOR_PORT "$db" -F ' ' -c "SELECT 'node', nodename || ':' || nodeport, CASE WHEN groupid = 0 THEN 'coordinator' ELSE 'worker' END FROM pg_dist_node ORDER BY nodeport" >&2
  url_of "$db"
}

drop_database() {
  local db=$1 port ports=("$COORDINATOR_PORT" "${WORKER_PORTS[@]}" "$SPARE_PORT")
  [[ $db =~ ^[a-z_][a-z0-9_]*$ && $db != "$DB" ]] || { log "dropdb: refusing '$db'"; exit 2; }
  # a shard move cut short leaves its subscription on the target and its slot on the source,
  # and either one keeps the database from being dropped: the subscriptions go first, then the
  # slots (a slot's sender, still streaming to an apply worker on its way out, is ended first)
  for port in "${ports[@]}"; do
    [[ $(psql_at "$port" postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'") == 1 ]] || continue
    local sub
    for sub in $(psql_at "$port" "$db" -c "SELECT subname FROM pg_subscription WHERE subdbid = (SELECT oid FROM pg_database WHERE datname = '$db')"); do
      psql_at "$port" "$db" -c "ALTER SUBSCRIPTION $sub DISABLE" -c "ALTER SUBSCRIPTION $sub SET (slot_name = NONE)" \
        -c "DROP SUBSCRIPTION $sub" >/dev/null
    done
  done
  for port in "${ports[@]}"; do
    psql_at "$port" postgres \
      -c "SELECT count(pg_terminate_backend(active_pid, 5000)) FROM pg_replication_slots WHERE database = '$db' AND active_pid IS NOT NULL" \
      -c "SELECT count(pg_drop_replication_slot(slot_name)) FROM pg_replication_slots WHERE database = '$db' AND NOT active" >/dev/null
    psql_at "$port" postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
  done
}

# The test suite on the cluster: the database `test` created if missing and emptied of the
# service's objects (the suite's global setup migrates and distributes it), then `npm test`.
run_tests() {
  start >/dev/null
  local url
  url=$(create_database test 2>/dev/null)
  node "$(dirname "$0")/reset-postgres.mjs" "$url" >&2
  log "npm test on $url"
  cd "$(dirname "$0")/.."
  # the files whose processes run on an embedded database of their own show nothing of Citus
  LOYALTY_TEST_SKIP_OWN_EMBEDDED=1 TEST_DATABASE_URL=$url CITUS_SPARE_PORT=$SPARE_PORT npm test -- "$@"
}

stop() {
  local name
  for name in citus1 citus2 citus3 citus4; do
    [[ $(status_of "$name") != online ]] || pg_ctlcluster "$PG_VERSION" "$name" stop
  done
  log "stopped"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  url) url_of "${2:-$DB}" ;;
  createdb)
    [[ -n ${2:-} ]] || { echo "usage: $0 createdb <name>" >&2; exit 2; }
    create_database "$2"
    ;;
  dropdb)
    [[ -n ${2:-} ]] || { echo "usage: $0 dropdb <name>" >&2; exit 2; }
    drop_database "$2"
    ;;
  test)
    shift
    run_tests "$@"
    ;;
  *)
    echo "usage: $0 build|start|stop|url [db]|createdb <db>|dropdb <db>|test [vitest args]" >&2
    exit 2
    ;;
esac
