#!/usr/bin/env bash
# Measures one whole headless run — `reins -p` that makes one tool call (Read) and answers —
# against a local fake of the Anthropic API (bench/fakellm): wall time and peak RSS of the
# process, measured by its parent (bench/proctime: a nanosecond clock from start to wait, and
# wait4's peak RSS, the figure /usr/bin/time -v prints), median of N runs (default 5).
#
# When Claude Code is installed — `claude` on PATH, or its path in $CLAUDE — the same turn is run
# with `claude -p` against the same fake, alternating (reins, claude, reins, claude, …) so that
# both see the same machine load, and the ratios of the medians are printed. Both run with a
# home folder of their own that persists across their runs, as a user's does, with telemetry
# and non-essential traffic off. CLAUDE=none skips Claude Code even when it is on PATH.
#
# REINS_ENV adds VAR=value words to reins' environment only, to measure a setting's cost (for
# telemetry on, a collector's address: docs/telemetry.md, "Cost").
#
#   bench/agent.sh [N]
#   CLAUDE=/path/to/claude bench/agent.sh 10
#   REINS_ENV="CLAUDE_CODE_ENABLE_TELEMETRY=1 OTEL_LOGS_EXPORTER=otlp ..." CLAUDE=none bench/agent.sh 15
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

claude=${CLAUDE:-$(command -v claude || true)}
[ "$claude" = none ] && claude=
if [ -n "$claude" ] && ! "$claude" --version > /dev/null 2>&1; then
	echo "$claude --version failed; running reins only" >&2
	claude=
fi

# The binary is copied after the build, so that it is measured as an installed binary (written
# by cp, tar or a package manager, as Claude Code's is). The Go linker writes its output through
# a memory mapping, and a file whose page cache was filled that way is mapped with many more
# resident pages: on the 6.18 kernel where this was measured, `reins --version` peaked at about
# 49 MB straight from `go build` and 33 MB from a copy of the same file.
go build -o "$work/reins.built" ./cmd/reins
cp "$work/reins.built" "$work/reins"
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
mkdir -p "$work/project" "$work/home" "$work/claude-home"
printf 'hello\n' > "$work/project/file.txt"

: > "$work/requests.log"
"$work/fakellm" -read "$work/project/file.txt" -log "$work/requests.log" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

# run NAME HOME BINARY ARGS...: one run; appends its wall ms and peak RSS KiB to NAME's lists.
declare -A walls rss
run() {
	local name=$1 home=$2 i=$3 extra=()
	shift 3
	# shellcheck disable=SC2206
	[ "$name" = reins ] && extra=(${REINS_ENV:-})
	local before after wall maxrss
	before=$(grep -c 'tool_result=true' "$work/requests.log" || true)
	(cd "$work/project" && env -i PATH="$PATH" HOME="$home" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 "${extra[@]}" \
		"$work/proctime" -o "$work/time.$name.$i" -- "$@" > "$work/out.$name.$i" 2>&1)
	read -r wall maxrss _ < "$work/time.$name.$i"
	if ! grep -q "The file has been read." "$work/out.$name.$i"; then
		echo "$name run $i failed:"
		cat "$work/out.$name.$i"
		exit 1
	fi
	# The fake answers with the Read call until a request carries a tool result; a run that
	# did not read would send none.
	after=$(grep -c 'tool_result=true' "$work/requests.log" || true)
	if [ "$after" -le "$before" ]; then
		echo "$name run $i did not read the file; requests:"
		cat "$work/requests.log"
		exit 1
	fi
	walls[$name]+="$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}') "
	rss[$name]+="$maxrss "
}

for i in $(seq "$runs"); do
	run reins "$work/home" "$i" "$work/reins" -p "read file.txt"
	if [ -n "$claude" ]; then
		run claude "$work/claude-home" "$i" "$claude" -p "read file.txt"
	fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs"
for name in reins ${claude:+claude}; do
	# shellcheck disable=SC2086
	echo "$name wall ms:      ${walls[$name]} (median $(median ${walls[$name]}))"
	# shellcheck disable=SC2086
	echo "$name peak RSS KiB: ${rss[$name]} (median $(median ${rss[$name]}))"
done
if [ -n "$claude" ]; then
	# shellcheck disable=SC2086
	rw=$(median ${walls[reins]}) cw=$(median ${walls[claude]}) rr=$(median ${rss[reins]}) cr=$(median ${rss[claude]})
	echo "claude version: $("$claude" --version)"
	awk -v rw="$rw" -v cw="$cw" -v rr="$rr" -v cr="$cr" 'BEGIN {
		printf "wall: claude / reins = %.1f (target >= 50)\n", cw / rw
		printf "peak RSS: claude / reins = %.1f (target >= 15)\n", cr / rr
	}'
fi
if grep -q '^unknown' "$work/requests.log"; then
	echo "requests the fake does not serve (answered 404):"
	grep '^unknown' "$work/requests.log" | sort | uniq -c
fi
