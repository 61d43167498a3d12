#!/usr/bin/env bash
# The cost of MCP servers at exit: `reins -p` making one Read call against the local fake model
# (bench/fakellm), without MCP servers and with the reference server-everything, which keeps
# running at end of input (the MCP specification's shutdown: close its input, SIGTERM, SIGKILL).
# Wall time from start to exit and its difference, medians of N runs (default 5). Needs node and
# `npm ci` in test/mcp.
#
#   bench/mcpexit.sh [N]
#   REINS=/path/to/other/reins bench/mcpexit.sh [N]   # measure another build (an older one)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
everything=$PWD/test/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -f "$everything" ] || { echo "run npm ci in test/mcp first" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

if [ -n "${REINS:-}" ]; then cp "$REINS" "$work/reins"; else go build -o "$work/reins" ./cmd/reins; fi
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
mkdir -p "$work/project" "$work/home"
printf 'hello\n' > "$work/project/file.txt"
printf '{"mcpServers": {"everything": {"command": "node", "args": ["%s"]}}}\n' "$everything" > "$work/mcp.json"
"$work/fakellm" -read "$work/project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

declare -A walls
run() {
	local name=$1 i=$2
	shift 2
	(cd "$work/project" && env -i PATH="$PATH" HOME="$work/home" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" \
		"$work/proctime" -o "$work/time.$name.$i" -- "$work/reins" -p "read file.txt" "$@" > "$work/out.$name.$i" 2>&1) ||
		{ echo "$name run $i failed:"; cat "$work/out.$name.$i"; exit 1; }
	read -r wall _ < "$work/time.$name.$i"
	walls[$name]+="$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}') "
}
for i in $(seq "$runs"); do
	run plain "$i"
	run everything "$i" --mcp-config "$work/mcp.json"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs"
for name in plain everything; do
	# shellcheck disable=SC2086
	echo "$name wall ms: ${walls[$name]} (median $(median ${walls[$name]}))"
done
# shellcheck disable=SC2086
awk -v p="$(median ${walls[plain]})" -v e="$(median ${walls[everything]})" 'BEGIN {printf "with server-everything: +%.1f ms (its start, tools and exit)\n", e - p}'
