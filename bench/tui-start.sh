#!/usr/bin/env bash
# Measures start to first frame of the interactive mode in a real terminal: `reins --continue`
# of a saved N-message session (default 2,000) run in a tmux pane, timed from launch until the
# pane shows the resumed transcript. Median of R runs (default 5). Needs tmux.
#
#   bench/tui-start.sh [MESSAGES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-2000}
runs=${2:-5}
command -v tmux >/dev/null || { echo "tmux is not installed"; exit 1; }
work=$(mktemp -d)
sock="reins-bench-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT

go build -o "$work/reins" ./cmd/reins
mkdir -p "$work/project" "$work/home"
project=$(cd "$work/project" && pwd -P)
dir="$work/home/.reins/projects/$(printf '%s' "$project" | sed 's/[^A-Za-z0-9]/-/g')"
mkdir -p "$dir"
id="00000000-0000-4000-8000-000000000000"
{
	printf '{"type":"session","timestamp":"2026-01-01T00:00:00Z","version":1,"sessionId":"%s","cwd":"%s","model":"claude-sonnet-4-5"}\n' "$id" "$project"
	for i in $(seq 0 $((n / 2 - 1))); do
		printf '{"type":"message","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"Question %d: what does f%d do?"}]}}\n' "$i" "$i"
		printf '{"type":"message","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"It **reads** a file.\\n\\n- step one\\n- step two (answer %d)"}]}}\n' "$i"
	done
} > "$dir/$id.jsonl"

ms=()
for i in $(seq "$runs"); do
	start=$(date +%s%N)
	tmux -L "$sock" -f /dev/null new-session -d -s b -x 120 -y 40 \
		"cd '$project' && exec env -i PATH='$PATH' HOME='$work/home' TERM=xterm-256color ANTHROPIC_API_KEY=bench ANTHROPIC_BASE_URL=http://127.0.0.1:1 '$work/reins' --continue"
	until tmux -L "$sock" capture-pane -p -t b 2>/dev/null | grep -q "Resumed session"; do sleep 0.005; done
	end=$(date +%s%N)
	ms+=("$(( (end - start) / 1000000 ))")
	tmux -L "$sock" kill-server 2>/dev/null || true
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "start to first frame, $n messages: ${ms[*]} ms (median $(median "${ms[@]}"))"
