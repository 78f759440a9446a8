#!/usr/bin/env bash
# postgres-start.sh: start a throwaway PostgreSQL cluster on loopback for memlab's run store and
# model-call cache tests (the PostgreSQL back end), wait until it accepts connections, create a
# role and a database for the tests, and print shell `export` lines for the caller to eval:
#
#   pg_env=$(scripts/postgres-start.sh) || exit 1   # non-zero and nothing on stdout on failure
#   eval "$pg_env"
#   trap 'kill -INT "$PG_PID" 2>/dev/null; for i in $(seq 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done; rm -rf "$PG_DIR"' EXIT
#
# (SIGINT is PostgreSQL's fast shutdown: open sessions are ended, the cluster is stopped cleanly.)
# It needs the server binaries of Debian's postgresql package (apt-get install postgresql); the
# cluster is made with initdb in a new temporary directory, not with the package's cluster, and
# runs as the postgres user when this script runs as root (PostgreSQL refuses to run as root).
#
# The exported variables:
#   MEMLAB_TEST_POSTGRES  postgres://memlab:PASSWORD@127.0.0.1:PORT/memlab?sslmode=disable, the
#                         URL the tests take (each test makes a schema of its own in it)
#   PG_PID                the server's process id
#   PG_DIR                the temporary directory (data, socket, log), removed by the trap
#
# Only the export lines go to stdout; progress and errors go to stderr.
# Environment knobs (all optional):
#   PG_BIN        directory of initdb, pg_ctl and psql (default: the newest /usr/lib/postgresql/*/bin,
#                 else the directory of initdb on PATH)
#   PG_PORT       port (default: the first free one from 55432)
#   PG_READY_SECS readiness deadline in seconds (default 60)
#   PG_LISTEN     addresses the server listens on, comma-separated (default 127.0.0.1; the printed URL
#                 names 127.0.0.1 whatever they are), e.g. 127.0.0.1,10.231.7.1 for clients in network
#                 namespaces behind a bridge (scripts/scale-test.sh)
#   PG_HBA        a CIDR whose clients may connect over TCP with the password too, e.g. 10.231.7.0/24
set -euo pipefail

log() { printf 'postgres-start: %s\n' "$*" >&2; }

READY_SECS=${PG_READY_SECS:-60}
LISTEN=${PG_LISTEN:-127.0.0.1}

BIN=${PG_BIN:-}
if [ -z "$BIN" ]; then
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ]; then BIN=$d; break; fi
  done
fi
if [ -z "$BIN" ] && command -v initdb >/dev/null; then BIN=$(dirname "$(readlink -f "$(command -v initdb)")"); fi
for tool in initdb pg_ctl psql pg_isready; do
  if [ -z "$BIN" ] || [ ! -x "$BIN/$tool" ]; then
    log "no PostgreSQL server binaries (${BIN:-none found}/$tool): install Debian's postgresql package (apt-get install postgresql) or set PG_BIN"
    exit 1
  fi
done

# Free TCP port on loopback: nothing answers a connection to it.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=${PG_PORT:-}
if [ -z "$PORT" ]; then
  for p in $(seq 55432 55531); do
    if port_free "$p"; then PORT=$p; break; fi
  done
  [ -n "$PORT" ] || { log "no free port in 55432-55531: set PG_PORT"; exit 1; }
elif ! port_free "$PORT"; then
  log "something already listens on 127.0.0.1:$PORT: stop it or set PG_PORT"
  exit 1
fi

# As root, the cluster belongs to the postgres user (Debian's package creates it).
AS=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || { log "running as root and there is no postgres user to run the server as (apt-get install postgresql creates it)"; exit 1; }
  AS=(runuser -u postgres --)
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/memlab-postgres.XXXXXX")
chmod 700 "$DIR"
[ "${#AS[@]}" -eq 0 ] || chown postgres: "$DIR"
fail() {
  log "$*"
  [ -f "$DIR/server.log" ] && { log "last lines of $DIR/server.log:"; tail -n 20 "$DIR/server.log" >&2; }
  [ -f "$DIR/data/postmaster.pid" ] && "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$DIR"
  exit 1
}

PASSWORD=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)
t0=$SECONDS
# UTF8 and the C locale whatever the machine's locale: the run store keeps text, compared byte
# by byte. The superuser connects through the socket in $DIR only (trust); TCP takes passwords.
"${AS[@]}" "$BIN/initdb" -D "$DIR/data" -U postgres -E UTF8 --locale=C --auth-local=trust --auth-host=scram-sha-256 \
  >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; fail "initdb failed"; }
if [ -n "${PG_HBA:-}" ]; then
  printf 'host all all %s scram-sha-256\n' "$PG_HBA" >>"$DIR/data/pg_hba.conf"
fi
# Many test packages run at once, each with connection pools: room for them. A free port can be
# taken between the check above and the server's bind (an outgoing connection's ephemeral port on a
# busy machine): the server then starts without that TCP socket, so each address is checked, and
# another port tried (unless PG_PORT fixed it).
for attempt in 1 2 3 4 5; do
  "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t "$READY_SECS" \
    -o "-c listen_addresses='$LISTEN' -p $PORT -c unix_socket_directories='$DIR' -c max_connections=300" \
    start </dev/null >"$DIR/pg_ctl.log" 2>&1 || fail "the server did not start within ${READY_SECS} s"
  unbound=""
  for addr in ${LISTEN//,/ }; do
    "$BIN/pg_isready" -q -h "$addr" -p "$PORT" -t 5 || unbound="$addr"
  done
  [ -z "$unbound" ] && break
  "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null 2>&1
  [ -z "${PG_PORT:-}" ] && [ "$attempt" -lt 5 ] || fail "the server does not accept connections on $unbound:$PORT"
  log "port $PORT of $unbound was taken meanwhile: trying another"
  next=""
  for p in $(seq $((PORT + 1)) 55531); do
    if port_free "$p"; then next=$p; break; fi
  done
  [ -n "$next" ] || fail "no free port after $PORT"
  PORT=$next
done
PID=$(head -n 1 "$DIR/data/postmaster.pid")

"${AS[@]}" "$BIN/psql" -q -X -h "$DIR" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE memlab LOGIN PASSWORD '$PASSWORD'" -c "CREATE DATABASE memlab OWNER memlab" \
  </dev/null >&2 || fail "creating the role and database memlab failed"
log "ready at $LISTEN port $PORT in $((SECONDS - t0)) s ($("$BIN/postgres" --version)); pid $PID; log $DIR/server.log"

printf "export MEMLAB_TEST_POSTGRES='postgres://memlab:%s@127.0.0.1:%s/memlab?sslmode=disable' PG_PID=%s PG_DIR=%s\n" \
  "$PASSWORD" "$PORT" "$PID" "$DIR"
