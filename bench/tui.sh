#!/usr/bin/env bash
# Measures the interactive mode's rendering (internal/tui): start to first frame and keystroke
# to repaint in sessions of 100, 2,000 and 10,000 messages (go test -bench, median ns/op of N
# runs), and the peak RSS of a process that builds and renders a 100- and a 10,000-message
# transcript (/usr/bin/time -v, median of N runs).
#
#   bench/tui.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go test -c -o "$work/tui.test" ./internal/tui
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

"$work/tui.test" -test.run '^$' -test.bench 'FirstFrame|Keystroke' -test.count "$runs" -test.benchmem > "$work/bench.txt"
for name in FirstFrame/100 FirstFrame/2000 FirstFrame/10000 Keystroke/100 Keystroke/2000 Keystroke/10000; do
	mapfile -t ns < <(awk -v n="Benchmark$name-" 'index($1, n) == 1 {print $3}' "$work/bench.txt")
	mapfile -t bytes < <(awk -v n="Benchmark$name-" 'index($1, n) == 1 {print $5}' "$work/bench.txt")
	printf '%-18s median %8.3f ms  (%s B/op)\n' "$name" "$(awk -v x="$(median "${ns[@]}")" 'BEGIN {print x / 1000000}')" "$(median "${bytes[@]}")"
done

for n in 100 10000; do
	rss=()
	for i in $(seq "$runs"); do
		/usr/bin/time -v -o "$work/time" "$work/tui.test" -test.run '^$' -test.bench "FirstFrame/$n\$" -test.benchtime 1x > /dev/null
		rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time")")
	done
	echo "peak RSS, $n messages: ${rss[*]} KiB (median $(median "${rss[@]}"))"
done
