#!/usr/bin/env bash
# weaviate-start.sh: install (if missing) and start a single-node Weaviate server on loopback
# for memlab's retrieval/weaviate integration tests, wait until it is ready, and print
# shell `export` lines for the caller to eval:
#
#   wv_env=$(scripts/weaviate-start.sh) || exit 1   # non-zero and nothing on stdout on failure
#   eval "$wv_env"
#   trap 'kill "$WEAVIATE_PID" 2>/dev/null; for i in $(seq 50); do kill -0 "$WEAVIATE_PID" 2>/dev/null || break; sleep 0.1; done; rm -rf "$WEAVIATE_DIR"' EXIT
#
# (A plain eval "$(scripts/weaviate-start.sh)" would not stop on failure: eval of nothing
# succeeds. The server is not a child of the caller's shell, so `wait` cannot reap it; the
# trap polls until it is gone, about 2 s after SIGTERM.)
#
# Only the export lines go to stdout; progress and errors go to stderr.
# Environment knobs (all optional):
#   WEAVIATE_BIN        server binary (default: $(go env GOPATH)/bin/weaviate-server; installed if missing)
#   WEAVIATE_VERSION    module version to install (default v1.35.2)
#   WEAVIATE_PORT       REST/GraphQL port (default 8089)
#   WEAVIATE_GRPC_PORT  gRPC port (default 50051)
#   WEAVIATE_READY_SECS readiness deadline in seconds (default 60)
# The gossip/data/raft ports are fixed at 7946/7947/8300/8301 unless overridden with the
# server's own variables (CLUSTER_GOSSIP_BIND_PORT, CLUSTER_DATA_BIND_PORT, RAFT_PORT,
# RAFT_INTERNAL_RPC_PORT). Note: the server binds gRPC and the data port on all interfaces.
set -euo pipefail

log() { printf 'weaviate-start: %s\n' "$*" >&2; }

VERSION=${WEAVIATE_VERSION:-v1.35.2}
PORT=${WEAVIATE_PORT:-8089}
GRPC=${WEAVIATE_GRPC_PORT:-50051}
READY_SECS=${WEAVIATE_READY_SECS:-60}
BIN=${WEAVIATE_BIN:-$(go env GOPATH)/bin/weaviate-server}
URL="http://127.0.0.1:$PORT"

if [ ! -x "$BIN" ]; then
  log "installing weaviate-server $VERSION into $(dirname "$BIN") (about 3 minutes)"
  t0=$SECONDS
  GOBIN=$(dirname "$BIN") go install "github.com/weaviate/weaviate/cmd/weaviate-server@$VERSION" >&2 \
    || { log "go install github.com/weaviate/weaviate/cmd/weaviate-server@$VERSION failed"; exit 1; }
  [ -x "$BIN" ] || { log "go install finished but $BIN is missing"; exit 1; }
  log "installed in $((SECONDS - t0)) s"
fi

if curl -s -o /dev/null --max-time 2 "$URL/v1/.well-known/ready"; then
  log "something already answers at $URL: stop it or set WEAVIATE_PORT"
  exit 1
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/memlab-weaviate.XXXXXX")
mkdir -p "$DIR/data"
LOGF="$DIR/server.log"

t0=$SECONDS
# The server is started as a statement of its own so that $! is the server's pid (env execs it).
# stdin/stdout/stderr are detached so that $(...) in the caller does not wait for the server.
env PERSISTENCE_DATA_PATH="$DIR/data" \
  AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
  DEFAULT_VECTORIZER_MODULE=none \
  AUTOSCHEMA_ENABLED=false \
  DISABLE_TELEMETRY=true \
  USE_INVERTED_SEARCHABLE=false \
  CLUSTER_HOSTNAME=node1 \
  CLUSTER_ADVERTISE_ADDR=127.0.0.1 \
  CLUSTER_BIND_ADDR=127.0.0.1 \
  CLUSTER_GOSSIP_BIND_PORT="${CLUSTER_GOSSIP_BIND_PORT:-7946}" \
  CLUSTER_DATA_BIND_PORT="${CLUSTER_DATA_BIND_PORT:-7947}" \
  RAFT_PORT="${RAFT_PORT:-8300}" \
  RAFT_INTERNAL_RPC_PORT="${RAFT_INTERNAL_RPC_PORT:-8301}" \
  RAFT_BOOTSTRAP_EXPECT=1 \
  RAFT_TIMEOUTS_MULTIPLIER=1 \
  GRPC_PORT="$GRPC" \
  GO_PROFILING_DISABLE=true \
  LOG_LEVEL=warning \
  "$BIN" --host 127.0.0.1 --port "$PORT" --scheme http </dev/null >"$LOGF" 2>&1 &
PID=$!

deadline=$((SECONDS + READY_SECS))
until [ "$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "$URL/v1/.well-known/ready")" = 200 ]; do
  if ! kill -0 "$PID" 2>/dev/null; then
    log "server (pid $PID) died before it was ready; last lines of $LOGF:"
    tail -n 20 "$LOGF" >&2
    rm -rf "$DIR"
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "server (pid $PID) not ready at $URL within ${READY_SECS} s; last lines of $LOGF:"
    tail -n 20 "$LOGF" >&2
    kill "$PID" 2>/dev/null || true
    sleep 1
    kill -9 "$PID" 2>/dev/null || true
    rm -rf "$DIR"
    exit 1
  fi
  sleep 0.2
done
log "ready at $URL (gRPC 127.0.0.1:$GRPC) in $((SECONDS - t0)) s; pid $PID; log $LOGF"

printf 'export MEMLAB_WEAVIATE_URL=%s MEMLAB_WEAVIATE_GRPC=127.0.0.1:%s WEAVIATE_PID=%s WEAVIATE_DIR=%s\n' \
  "$URL" "$GRPC" "$PID" "$DIR"
