#!/usr/bin/env bash
# Session start with MCP servers: `reins -p` with 3 stdio servers offering 100 tools in all
# (34 + 33 + 33, go-sdk servers: the mcp/client test binary in server mode), started in
# parallel. Reports the wall time from starting reins to its first model request, and the size
# of that request (whole body and its tools array) with deferral off and on
# (ENABLE_TOOL_SEARCH=false / true); medians of N runs (default 5). A run without MCP servers
# is the baseline.
#
#   bench/mcpstart.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/reins" ./cmd/reins
go build -o "$work/firstreq" ./bench/firstreq
go test -c -o "$work/mcpserver" ./mcp/client
mkdir -p "$work/project" "$work/home"
cat > "$work/mcp.json" <<JSON
{"mcpServers": {
  "one":   {"command": "$work/mcpserver", "env": {"REINS_TEST_MCP_SERVER": "many:34"}},
  "two":   {"command": "$work/mcpserver", "env": {"REINS_TEST_MCP_SERVER": "many:33"}},
  "three": {"command": "$work/mcpserver", "env": {"REINS_TEST_MCP_SERVER": "many:33"}}
}}
JSON

"$work/firstreq" > "$work/log" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/log" ] && break; sleep 0.1; done
url=$(head -n1 "$work/log")

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {
	local label=$1 search=$2; shift 2
	local ms=() body=() tools=()
	for _ in $(seq "$runs"); do
		local before after start line
		before=$(wc -l < "$work/log")
		start=$(date +%s%N)
		(cd "$work/project" && env -i PATH="$PATH" HOME="$work/home" ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL="$url" \
			ENABLE_TOOL_SEARCH="$search" "$work/reins" -p "$@" "hi" > "$work/out" 2> "$work/err") || { cat "$work/err"; exit 1; }
		after=$(wc -l < "$work/log")
		[ "$after" -gt "$before" ] || { echo "no model request"; cat "$work/err"; exit 1; }
		line=$(sed -n "$((before + 1))p" "$work/log")
		ms+=("$(( ($(cut -d' ' -f1 <<<"$line") - start) / 1000000 ))")
		body+=("$(cut -d' ' -f2 <<<"$line")")
		tools+=("$(cut -d' ' -f3 <<<"$line")")
	done
	printf '%-34s first request after %5s ms (median; runs: %s)  request %7s bytes, tools %7s bytes\n' \
		"$label" "$(median "${ms[@]}")" "${ms[*]}" "$(median "${body[@]}")" "$(median "${tools[@]}")"
}
echo "runs: $runs"
measure "no MCP servers" false
measure "3 servers, 100 tools, no deferral" false --mcp-config "$work/mcp.json"
measure "3 servers, 100 tools, deferred" true --mcp-config "$work/mcp.json"
measure "3 servers, 100 tools, auto (10%)" auto --mcp-config "$work/mcp.json"
