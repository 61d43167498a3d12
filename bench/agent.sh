#!/usr/bin/env bash
# Measures one whole headless run — `reins -p` that makes one tool call (Read) and answers —
# against a local fake of the Anthropic API: wall time and peak RSS from /usr/bin/time -v,
# median of N runs (default 5).
#
#   bench/agent.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/reins" ./cmd/reins
go build -o "$work/fakellm" ./bench/fakellm
mkdir -p "$work/project" "$work/home"
printf 'hello\n' > "$work/project/file.txt"

"$work/fakellm" -read "$work/project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

walls=() rss=()
for i in $(seq "$runs"); do
	(cd "$work/project" && env -i PATH="$PATH" HOME="$work/home" ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL="$url" \
		/usr/bin/time -v -o "$work/time.$i" "$work/reins" -p "read file.txt" > "$work/out.$i")
	grep -q "The file has been read." "$work/out.$i" || { echo "run $i failed:"; cat "$work/out.$i"; exit 1; }
	walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s*1000}' "$work/time.$i")")
	rss+=("$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.$i")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs"
echo "wall ms:      ${walls[*]}  (median $(median "${walls[@]}"))"
echo "peak RSS KiB: ${rss[*]}  (median $(median "${rss[@]}"))"
