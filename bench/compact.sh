#!/usr/bin/env bash
# Compaction: the local cost of one automatic compaction of a 150,000-token conversation
# against the fake Anthropic API on loopback (the summary request built and sent through the
# adapter, the stream, what is carried over, the file state; the model's own time excluded),
# the tokens before and after, and the live heap of a 500-turn session before and after it
# is compacted.
#   bench/compact.sh [COUNT]
set -euo pipefail
count=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== one automatic compaction of a 150,000-token conversation, median of $count"
go test ./agent -run '^$' -bench 'BenchmarkAutoCompact150k' -benchtime 10x -count "$count" |
	awk '/^Benchmark/ {print $3/1e6, $5, $7, $9}' | sort -n |
	awk '{r[NR] = $0} END {split(r[int((NR + 1) / 2)], a, " "); printf "%.1f ms local · %d tokens before → %d after · summary request %.0f KB\n", a[1], a[3], a[2], a[4] / 1024}'
echo "== a 500-turn session (each result about 2,000 tokens), live heap"
go test ./agent -run '^$' -bench 'BenchmarkSession500Turns' -benchtime 1x -count 1 |
	awk '/^Benchmark/ {for (i = 5; i < NF; i += 2) v[$(i + 1)] = $i} END {printf "before the session %.1f MB · with 500 turns %.1f MB · after compaction %.1f MB\n", v["heap_base_MB"], v["heap_before_MB"], v["heap_after_MB"]}'
