#!/usr/bin/env bash
# Start-up time and peak memory of the three ways reins starts, medians of N runs (default 9):
#
#   - `reins --version`: the whole process (bench/proctime: wall time, wait4's peak RSS);
#   - `reins -p` making one Read call against the local fake model (bench/fakellm): the whole
#     process, as bench/agent.sh measures it;
#   - the chat: `reins` in a tmux pane, from launch until the pane shows the prompt, and the
#     process's peak RSS at that moment (VmHWM); needs tmux.
#
# The binary is copied after the build and run as an installed copy (see bench/agent.sh for
# why that changes the RSS). When Claude Code is installed — `claude` on PATH, or its path in
# $CLAUDE — each is run with it too, alternating; otherwise the script says it is not
# installed. Its chat counts as ready when the pane shows $CLAUDE_READY (default "? for
# shortcuts"), which was not checked against a Claude Code on the machine this was written on.
#
#   bench/startup.sh [N]
#   REINS=/path/to/other/reins bench/startup.sh [N]   # measure another build (an older one)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
work=$(mktemp -d)
sock="reins-startup-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

claude=${CLAUDE:-$(command -v claude || true)}
[ "$claude" = none ] && claude=
if [ -n "$claude" ] && ! "$claude" --version > /dev/null 2>&1; then
	claude=
fi
[ -n "$claude" ] || echo "Claude Code: not installed (claude is not on PATH; CLAUDE=/path sets it)"
ready_claude=${CLAUDE_READY:-"? for shortcuts"}

if [ -n "${REINS:-}" ]; then cp "$REINS" "$work/reins"; else go build -o "$work/reins.built" ./cmd/reins && cp "$work/reins.built" "$work/reins"; fi
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
mkdir -p "$work/project" "$work/home" "$work/claude-home"
project=$(cd "$work/project" && pwd -P)
printf 'hello\n' > "$project/file.txt"
"$work/fakellm" -read "$project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")
envs=(PATH="$PATH" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" TERM=xterm-256color
	DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1)

declare -A walls rss
# proc NAME HOME BIN ARGS...: one whole process.
proc() {
	local name=$1 home=$2 wall maxrss code
	shift 2
	(cd "$project" && env -i HOME="$home" "${envs[@]}" "$work/proctime" -o "$work/time" -- "$@" > "$work/out" 2>&1) || true
	read -r wall maxrss code < "$work/time"
	[ "$code" = 0 ] || { echo "$name failed:"; cat "$work/out"; exit 1; }
	walls[$name]+="$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}') "
	rss[$name]+="$maxrss "
}
# chat NAME HOME READY BIN: the interactive mode in tmux, until the pane shows READY.
chat() {
	local name=$1 home=$2 ready=$3 bin=$4 start end pid hwm envline
	envline=$(printf "%q " HOME="$home" "${envs[@]}")
	start=$(date +%s%N)
	tmux -L "$sock" -f /dev/null new-session -d -s b -x 120 -y 40 "cd '$project' && exec env -i $envline '$bin'"
	local deadline=$((start + 30000000000))
	until tmux -L "$sock" capture-pane -p -t b 2>/dev/null | grep -qF "$ready"; do
		[ "$(date +%s%N)" -lt "$deadline" ] || { echo "$name: the prompt never appeared:"; tmux -L "$sock" capture-pane -p -t b; exit 1; }
		sleep 0.005
	done
	end=$(date +%s%N)
	pid=$(tmux -L "$sock" list-panes -t b -F '#{pane_pid}')
	hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
	tmux -L "$sock" kill-server 2>/dev/null || true
	walls[$name]+="$(((end - start) / 1000000)) "
	rss[$name]+="$hwm "
}

for i in $(seq "$runs"); do
	proc reins.version "$work/home" "$work/reins" --version
	proc reins.print "$work/home" "$work/reins" -p "read file.txt"
	if command -v tmux > /dev/null; then chat reins.chat "$work/home" "Type a message" "$work/reins"; fi
	if [ -n "$claude" ]; then
		proc claude.version "$work/claude-home" "$claude" --version
		proc claude.print "$work/claude-home" "$claude" -p "read file.txt"
		if command -v tmux > /dev/null; then chat claude.chat "$work/claude-home" "$ready_claude" "$claude"; fi
	fi
done
command -v tmux > /dev/null || echo "tmux is not installed: the chat rows are left out"
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs; medians"
for prog in reins ${claude:+claude}; do
	for what in version print chat; do
		n=$prog.$what
		[ -n "${walls[$n]:-}" ] || continue
		# shellcheck disable=SC2086
		printf '%-7s %-8s %8s ms %8s KiB peak RSS\n' "$prog" "$what" "$(median ${walls[$n]})" "$(median ${rss[$n]})"
	done
done
[ -z "$claude" ] || echo "claude version: $("$claude" --version)"
