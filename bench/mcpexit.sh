#!/usr/bin/env bash
# What an MCP server costs at exit: `reins -p` making one Read call against the local fake model
# (bench/fakellm) with each kind of server — none, a stdio server that exits at end of input, a
# stdio server that keeps running at end of input (as the reference server-everything does), an
# HTTP server — all bench/mcpserver, and server-everything itself when npm has installed it
# (test/mcp). For each, the median of N runs (default 9) of the time from the answer's last byte
# on standard output to the exit of the process (proctime -tail: the shutdown alone, free of
# the servers' start-up noise), and of the whole run.
#
# When Claude Code is installed — `claude` on PATH, or its path in $CLAUDE — the same runs are
# made with `claude -p`, alternating; otherwise the script says it is not installed.
#
#   bench/mcpexit.sh [N]
#   REINS=/path/to/other/reins bench/mcpexit.sh [N]   # measure another build (an older one)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" "${http_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

claude=${CLAUDE:-$(command -v claude || true)}
[ "$claude" = none ] && claude=
if [ -n "$claude" ] && ! "$claude" --version > /dev/null 2>&1; then
	claude=
fi
[ -n "$claude" ] || echo "Claude Code: not installed (claude is not on PATH; CLAUDE=/path sets it)"

if [ -n "${REINS:-}" ]; then cp "$REINS" "$work/reins"; else go build -o "$work/reins.built" ./cmd/reins && cp "$work/reins.built" "$work/reins"; fi
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
go build -o "$work/mcpserver" ./bench/mcpserver
mkdir -p "$work/project" "$work/home" "$work/claude-home"
printf 'hello\n' > "$work/project/file.txt"
"$work/fakellm" -read "$work/project/file.txt" > "$work/url" &
server_pid=$!
"$work/mcpserver" -mode http > "$work/http-url" &
http_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && [ -s "$work/http-url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

kinds=(none stdio stdio-stay http)
config() { printf '{"mcpServers": {"bench": %s}}\n' "$1" > "$work/$2.json"; }
printf '{"mcpServers": {}}\n' > "$work/none.json"
config "$(printf '{"command": "%s", "args": ["-mode", "stdio"]}' "$work/mcpserver")" stdio
config "$(printf '{"command": "%s", "args": ["-mode", "stdio-stay"]}' "$work/mcpserver")" stdio-stay
config "$(printf '{"type": "http", "url": "%s"}' "$(head -n1 "$work/http-url")")" http
everything=$PWD/test/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ -f "$everything" ]; then
	config "$(printf '{"command": "node", "args": ["%s"]}' "$everything")" everything
	kinds+=(everything)
else
	echo "server-everything: not installed (npm ci in test/mcp); its row is left out"
fi

declare -A exits walls
run() {
	local prog=$1 kind=$2 i=$3 home=$4 bin=$5 name="$1.$2"
	(cd "$work/project" && env -i PATH="$PATH" HOME="$home" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		"$work/proctime" -tail -o "$work/time.$name.$i" -- "$bin" -p "read file.txt" --mcp-config "$work/$kind.json" > "$work/out.$name.$i" 2>&1) ||
		{ echo "$name run $i failed:"; cat "$work/out.$name.$i"; exit 1; }
	grep -q "The file has been read." "$work/out.$name.$i" || { echo "$name run $i did not answer:"; cat "$work/out.$name.$i"; exit 1; }
	local wall exit
	read -r wall _ _ exit < "$work/time.$name.$i"
	walls[$name]+="$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}') "
	exits[$name]+="$(awk -v ns="$exit" 'BEGIN {printf "%.1f", ns / 1e6}') "
}
for i in $(seq "$runs"); do
	for kind in "${kinds[@]}"; do
		run reins "$kind" "$i" "$work/home" "$work/reins"
		[ -z "$claude" ] || run claude "$kind" "$i" "$work/claude-home" "$claude"
	done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs; ms, medians: from the answer to the exit | whole run"
printf '%-12s %22s %22s\n' "server" "reins" "${claude:+claude}"
for kind in "${kinds[@]}"; do
	# shellcheck disable=SC2086
	line=$(printf '%-12s %10s | %9s' "$kind" "$(median ${exits[reins.$kind]})" "$(median ${walls[reins.$kind]})")
	if [ -n "$claude" ]; then
		# shellcheck disable=SC2086
		line+=$(printf ' %10s | %9s' "$(median ${exits[claude.$kind]})" "$(median ${walls[claude.$kind]})")
	fi
	echo "$line"
done
[ -z "$claude" ] || echo "claude version: $("$claude" --version)"
