#!/usr/bin/env bash
# Resume time against the length of a session's history: a saved session with 1 MB, 10 MB,
# 100 MB and 1 GB of conversation before its last compaction (and the same 20 short turns,
# about 25 KB, after it, far from the context window: the measured turn never compacts;
# bench/gensession), resumed with `reins -p --resume ID` for one turn with a
# Read call against the local fake model (bench/fakellm). Wall time and peak RSS of the whole
# run, medians of N runs (default 5); the history before the compaction should cost nothing,
# so the rows should be flat. A second set of rows resumes the same sessions written as reins
# wrote them before boundaries recorded the state before them: those are read whole (the
# fallback), so they grow with the history.
#
# When Claude Code is installed — `claude` on PATH, or its path in $CLAUDE — the same sessions
# are written in its transcript format and resumed with `claude -p --resume ID`; otherwise the
# script says it is not installed. SIZES="1 10" limits the sizes (in MB). The session files
# (up to about 3 GB with Claude Code) are written under a temporary folder and deleted at the
# end.
#
#   bench/resume.sh [N]
#   REINS=/path/to/other/reins bench/resume.sh [N]   # measure another build (an older one)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
sizes=${SIZES:-1 10 100 1000}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

claude=${CLAUDE:-$(command -v claude || true)}
[ "$claude" = none ] && claude=
if [ -n "$claude" ] && ! "$claude" --version > /dev/null 2>&1; then
	claude=
fi
[ -n "$claude" ] || echo "Claude Code: not installed (claude is not on PATH; CLAUDE=/path sets it)"

if [ -n "${REINS:-}" ]; then cp "$REINS" "$work/reins"; else go build -o "$work/reins.built" ./cmd/reins && cp "$work/reins.built" "$work/reins"; fi
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
go build -o "$work/gensession" ./bench/gensession
mkdir -p "$work/project" "$work/home" "$work/claude-home"
project=$(cd "$work/project" && pwd -P)
printf 'hello\n' > "$project/file.txt"
"$work/fakellm" -read "$project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

# measure NAME HOME BIN ID: N resumes of session ID; prints "wall_ms rss_kib" medians, or why
# the resume failed.
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {
	local name=$1 home=$2 bin=$3 id=$4 walls=() rss=() wall maxrss code
	for i in $(seq "$runs"); do
		(cd "$project" && env -i PATH="$PATH" HOME="$home" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" \
			DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
			"$work/proctime" -o "$work/time" -- "$bin" -p --resume "$id" "read file.txt" > "$work/out.$name" 2>&1) || true
		read -r wall maxrss code < "$work/time"
		if [ "$code" != 0 ] || ! grep -q "The file has been read." "$work/out.$name"; then
			echo "failed: $(head -c 300 "$work/out.$name" | tr '\n' ' ')"
			return
		fi
		walls+=("$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}')")
		rss+=("$maxrss")
	done
	printf '%8s ms %8s KiB\n' "$(median "${walls[@]}")" "$(median "${rss[@]}")"
}

echo "runs: $runs; medians of the whole run (wall, peak RSS)"
for mb in $sizes; do
	bytes=$((mb * 1000000))
	id=$("$work/gensession" -config "$work/home/.reins" -cwd "$project" -history "$bytes")
	printf 'reins, %5d MB of history:                 %s\n' "$mb" "$(measure reins "$work/home" "$work/reins" "$id")"
	rm -f "$work/home/.reins/projects/"*/"$id.jsonl"
	id=$("$work/gensession" -legacy -config "$work/home/.reins" -cwd "$project" -history "$bytes")
	printf 'reins, %5d MB, a file from before records: %s\n' "$mb" "$(measure reins-legacy "$work/home" "$work/reins" "$id")"
	rm -f "$work/home/.reins/projects/"*/"$id.jsonl"
	if [ -n "$claude" ]; then
		id=$("$work/gensession" -format claude -config "$work/claude-home/.claude" -cwd "$project" -history "$bytes")
		printf 'claude, %5d MB of history:                %s\n' "$mb" "$(measure claude "$work/claude-home" "$claude" "$id")"
		rm -f "$work/claude-home/.claude/projects/"*/"$id.jsonl"
	fi
done
[ -z "$claude" ] || echo "claude version: $("$claude" --version)"
