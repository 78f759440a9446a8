#!/usr/bin/env bash
# scale-test.sh: measure memlab's work queue at scale (internal/cmd/scaletest). It builds memlab and
# the driver, which writes a synthetic CloneMem-schema corpus (not benchmark data), starts a
# throwaway PostgreSQL cluster (scripts/postgres-start.sh) and a fake OpenAI-compatible endpoint
# with a fixed latency on a bridge, runs a grid of memory systems in one process (the reference),
# then through the run store's work queue with 1, 2 and 4 worker processes, each in a network
# namespace of its own as a separate host, and once more with one worker killed (SIGKILL) in the
# middle; it prints a markdown table (throughput, model calls and those sent again, calls served
# by the cache, questions lost, records equal to the reference's) and exits 1 when a question is
# lost or a record differs.
#
#   sudo scripts/scale-test.sh                          # full size: 100 personas x 2,000 traces x 50 questions
#   sudo scripts/scale-test.sh -personas 10             # the size CI runs (internal/cmd/scaletest's test)
#   sudo scripts/scale-test.sh -o docs/scale.md -keep   # the report in a file too; keep the corpus and logs
#
# Flags are the driver's (go run ./internal/cmd/scaletest -h): sizes, -workers 1,2,4, -latency,
# -per-worker (calls in flight per process), -endpoint (calls answered at once), -lease, -kill-at.
# Needs root (ip netns), iproute2 (apt-get install iproute2) and PostgreSQL's server binaries
# (apt-get install postgresql). It takes about 15 minutes at full size on 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "scale-test: needs root: each worker runs in a network namespace of its own (ip netns)" >&2
  exit 1
fi
command -v ip >/dev/null || { echo "scale-test: no ip command: apt-get install iproute2" >&2; exit 1; }
bin=$(mktemp -d "${TMPDIR:-/tmp}/memlab-scale-bin.XXXXXX")
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/memlab" ./cmd/memlab
go build -o "$bin/scaletest" ./internal/cmd/scaletest
"$bin/scaletest" -memlab "$bin/memlab" -repo . "$@"
