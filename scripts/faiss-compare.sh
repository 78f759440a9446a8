#!/bin/sh
# faiss-compare.sh: compares memlab's VecStore (pure Go, gonum BLAS) with
# FAISS IndexFlatIP on identical data: 100,000 random 768-d float32 vectors,
# 200 queries, top 10; single queries and batches of 200; 1 then 2 threads.
# Run as root from the repository root: sh scripts/faiss-compare.sh
set -eu
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import faiss, numpy' 2>/dev/null; then
	apt-get install -y python3-faiss python3-numpy libopenblas0-pthread libopenblas-dev
fi
data=${TMPDIR:-/tmp}/memlab-vecbench.bin
rm -f "$data"
for p in 1 2; do
	echo "== Go VecStore, GOMAXPROCS=$p"
	MEMLAB_VECBENCH_DUMP="$data" GOMAXPROCS=$p go test -run '^$' -bench 'VecStore' -benchtime 2x -count 1 ./retrieval/ | grep -E '^Benchmark'
done
if [ -e /usr/lib/x86_64-linux-gnu/libopenblas.so ] || ldconfig -p | grep -q libopenblas.so; then
	for p in 1 2; do
		echo "== Go VecStore on OpenBLAS (-tags openblas), GOMAXPROCS=$p"
		CGO_LDFLAGS=-lopenblas OPENBLAS_NUM_THREADS=$p GOMAXPROCS=$p go test -tags openblas -run '^$' -bench 'VecStore' -benchtime 2x -count 1 ./retrieval/ | grep -E '^Benchmark'
	done
else
	echo "== (no libopenblas-dev: the -tags openblas rows are skipped)"
fi
for p in 1 2; do
	echo "== FAISS IndexFlatIP, threads=$p"
	OMP_NUM_THREADS=$p OPENBLAS_NUM_THREADS=$p /usr/bin/python3 scripts/faiss_compare.py "$data" "$p"
done
