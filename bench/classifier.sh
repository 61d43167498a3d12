#!/usr/bin/env bash
# Auto mode's classifier: the local cost of one judged call (the document, the request through
# the Anthropic adapter to the fake API on loopback, the stream, the verdict; the model's own
# time excluded) and of a cached one, and how many calls of a typical scripted session
# (16 calls) reach the classifier.
#   bench/classifier.sh [BENCHTIME]
set -euo pipefail
benchtime=${1:-3s}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== one judged call (40-turn transcript), median of 5"
go test ./classifier -run '^$' -bench 'BenchmarkClassify' -benchtime "$benchtime" -count 5 |
	awk '/^Benchmark/ {print $1, $3}' | sort -k1,1 -k2,2n |
	awk '{v[$1] = v[$1] " " $2; n[$1]++} END {for (k in n) {split(substr(v[k], 2), a, " "); printf "%-32s %8.0f µs/call\n", k, a[int((n[k] + 1) / 2)] / 1000}}'
echo "== a typical session in reins -p --permission-mode auto"
go test ./internal/cli -run '^$' -bench 'BenchmarkTypicalSessionAuto' -benchtime 1x |
	awk '/^Benchmark/ {printf "%d of %d calls reach the classifier\n", $7, $5}'
