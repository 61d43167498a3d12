#!/usr/bin/env bash
# Measures the per-call overhead of hooks: one tool-call cycle of the agent loop (in process)
# with no hook and with one trivial PreToolUse hook (`true`). Prints the median ns/op of N runs
# (default 5) of each, and their difference: the cost of running one hook per call.
#
#   bench/hooks.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
out=$(go test -run '^$' -bench 'BenchmarkPreToolUseHook' -benchtime 200x -count "$runs" ./agent/)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
none=$(awk '/BenchmarkPreToolUseHook\/none/ {print $3}' <<<"$out" | median)
hook=$(awk '/BenchmarkPreToolUseHook\/true/ {print $3}' <<<"$out" | median)
echo "runs: $runs (200 iterations each)"
echo "no hook:           median $none ns/call"
echo "one 'true' hook:   median $hook ns/call"
echo "hook overhead:     $((hook - none)) ns/call"
