#!/usr/bin/env bash
# The Anthropic client side by side: the hand-written one (the default build) and the same turn
# through anthropic-sdk-go (the build tag anthropicsdk, llm/anthropic/sdkpath.go), alternating
# (hand, sdk, hand, sdk, …) so that both see the same machine load. Each run is a headless
# one-Read turn against bench/fakellm, as bench/agent.sh runs it, and a `reins --version`;
# printed are the medians of wall time, peak RSS and CPU time (user+system: on a loaded machine
# the number to read) of N runs (default 21), and both binaries' sizes. docs/architecture.md,
# "The Anthropic client", has the figures this was decided on.
#
#   bench/sdkclient.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

# Copied after the build, as bench/agent.sh explains.
go build -o "$work/hand.built" ./cmd/reins && cp "$work/hand.built" "$work/hand"
go build -tags anthropicsdk -o "$work/sdk.built" ./cmd/reins && cp "$work/sdk.built" "$work/sdk"
go build -o "$work/fakellm" ./bench/fakellm
go build -o "$work/proctime" ./bench/proctime
mkdir -p "$work/project" "$work/home"
printf 'hello\n' > "$work/project/file.txt"
"$work/fakellm" -read "$work/project/file.txt" > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(head -n1 "$work/url")

declare -A walls rss cpu
for i in $(seq "$runs"); do
	for b in hand sdk; do
		for mode in turn version; do
			args=(-p "read file.txt")
			[ "$mode" = version ] && args=(--version)
			(cd "$work/project" && env -i PATH="$PATH" HOME="$work/home" ANTHROPIC_API_KEY=sk-ant-bench ANTHROPIC_BASE_URL="$url" \
				DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
				"$work/proctime" -cpu -o "$work/time" -- "$work/$b" "${args[@]}" > "$work/out" 2>&1)
			if [ "$mode" = turn ] && ! grep -q "The file has been read." "$work/out"; then
				echo "$b run $i failed:"
				cat "$work/out"
				exit 1
			fi
			read -r wall maxrss _ cpuns < "$work/time"
			walls[$b.$mode]+="$(awk -v ns="$wall" 'BEGIN {printf "%.1f", ns / 1e6}') "
			rss[$b.$mode]+="$maxrss "
			cpu[$b.$mode]+="$(awk -v ns="$cpuns" 'BEGIN {printf "%.1f", ns / 1e6}') "
		done
	done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "runs: $runs (load average $(cut -d' ' -f1-3 /proc/loadavg))"
for k in hand.turn sdk.turn hand.version sdk.version; do
	# shellcheck disable=SC2086
	printf '%-12s wall ms %6s   peak RSS KiB %6s   CPU ms %6s\n' "$k" "$(median ${walls[$k]})" "$(median ${rss[$k]})" "$(median ${cpu[$k]})"
done
echo "binary bytes: hand $(stat -c %s "$work/hand")  sdk $(stat -c %s "$work/sdk")"
