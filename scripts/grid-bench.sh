#!/bin/sh
# grid-bench.sh: issue 17's grid figures for docs/performance.md. The grid of
# 3 systems x 3 embedders x 2 readers x 3 k (54 points) on KnowMe-Bench dataset 1
# (../shared/datasets/knowmebench/dataset1): offline as a grid, the same points one
# after another, a rerun of the finished grid on its store; and with two model
# readers against the fake server at 100 ms a call, 32 in flight.
set -e
cd "$(dirname "$0")/../grid"
go test -run '^$' -bench 'BenchmarkKnowMeGrid$' -benchtime=1x -benchmem -timeout 60m .
go test -run '^$' -bench 'BenchmarkKnowMeGridFakeServer$' -benchtime=1x -timeout 60m .
