#!/usr/bin/env bash
# Measures reins behind the Claude Agent SDK (test/sdk/bench.mjs): the time from process start to
# the initialize response, and the per-turn overhead (a turn's wall time minus the model API time
# the result reports), against bench/fakellm. The first turn of each run makes one Read call;
# the others only answer. Medians over RUNS runs of TURNS turns. With `claude` on PATH the same
# script runs against Claude Code too.
#
# Then the MCP round trip: a second fake API whose model calls mcp__local__x in every turn, served
# once by an in-process server of the SDK (createSdkMcpServer: each message an mcp_message
# control request over reins' own pipes) and once by the same tool over stdio
# (test/sdk/echo-server.mjs, the same MCP TypeScript SDK). A turn's overhead is then one tool
# call's round trip plus reins' own work on two model answers; the no-call turns above are the
# baseline.
#
#   bench/sdk.sh [RUNS] [TURNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5} turns=${2:-5}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" "${call_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
[ -d test/sdk/node_modules ] || (cd test/sdk && npm ci --omit=optional --no-audit --no-fund >/dev/null)

go build -o "$work/reins" ./cmd/reins
go build -o "$work/fakellm" ./bench/fakellm
mkdir -p "$work/project" "$work/home"
printf 'hello\n' > "$work/project/file.txt"
"$work/fakellm" -read "$work/project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")
"$work/fakellm" -call mcp__local__x > "$work/callurl" &
call_pid=$!
for _ in $(seq 50); do [ -s "$work/callurl" ] && break; sleep 0.1; done
callurl=$(head -n1 "$work/callurl")

measure() { # name binary [api-url BENCH_MCP]
	(cd "$work/project" && env -i PATH="$PATH" HOME="$work/home" ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL="${3:-$url}" \
		BENCH_MCP="${4:-}" REINS_BIN="$2" node "$OLDPWD/test/sdk/bench.mjs" "$runs" "$turns") > "$work/$1.jsonl"
	node -e '
		const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
		const med = (a) => { a = [...a].sort((x, y) => x - y); return a[Math.floor((a.length - 1) / 2)]; };
		const f = (x) => x.toFixed(1);
		const init = lines.map((l) => l.initMs);
		const first = lines.map((l) => l.turns[0].overhead);
		const later = lines.flatMap((l) => l.turns.slice(1).map((t) => t.overhead));
		const wall = lines.flatMap((l) => l.turns.slice(1).map((t) => t.wall));
		console.log(`${process.argv[2]}: runs ${lines.length}, turns ${lines[0].turns.length}`);
		console.log(`  start -> initialize response ms: median ${f(med(init))}  (${init.map(f).join(" ")})`);
		const calls = lines.reduce((n, l) => n + l.calls, 0);
		console.log(`  turn 1 overhead ms: median ${f(med(first))}  (tool calls that succeeded in all runs: ${calls})`);
		console.log(`  later turns overhead ms: median ${f(med(later))}, wall median ${f(med(wall))}`);
	' "$work/$1.jsonl" "$1"
}
measure reins "$work/reins"
measure "reins, mcp__local__x in-process (sdk) each turn" "$work/reins" "$callurl" sdk
measure "reins, mcp__local__x over stdio each turn" "$work/reins" "$callurl" stdio
if command -v claude >/dev/null; then
	measure claude-code "$(command -v claude)"
else
	echo "claude-code: not installed, no comparison"
fi
