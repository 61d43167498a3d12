#!/usr/bin/env bash
# What the OS sandbox adds to a Bash command: `reins tool run Bash` of `true` as a whole process
# (a fresh session each time: settings, the sandbox's set-up, the command, the check after it)
# with the sandbox off, under bubblewrap and under Landlock, on a five-file project and on a
# generated tree of 6,000 folders. The variants alternate round by round, so that a change of
# load on a shared machine hits all of them; it prints the median wall time of each (measured
# by bench/proctime from start to wait) and what each backend adds to off. A backend this
# machine cannot run is left out. Then the in-process benchmarks of the hot paths (the spec,
# the check after a command, Landlock's plan) with -benchtime 200x.
#
# REINS=/path/to/reins measures another build (an older commit's, for a before and after).
#
#   bench/sandbox.sh [RUNS]        (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Copied after the build: a binary written through the linker's memory mapping is mapped with
# more resident pages than an installed one (see bench/agent.sh).
if [ -n "${REINS:-}" ]; then
	cp "$REINS" "$work/reins"
else
	go build -o "$work/reins.built" ./cmd/reins
	cp "$work/reins.built" "$work/reins"
fi
go build -o "$work/proctime" ./bench/proctime

mkdir -p "$work/home/.reins" "$work/small/src" "$work/big"
for f in README.md go.mod main.go src/a.go src/b.go; do printf 'x\n' > "$work/small/$f"; done
# 20 × 15 × 20 = 6,000 folders of one file each, as bench/permscale.sh's trees are laid out.
for a in $(seq 20); do for b in $(seq 15); do for c in $(seq 20); do
	mkdir -p "$work/big/p$a/q$b/r$c"
	printf 'package x\n' > "$work/big/p$a/q$b/r$c/f.go"
done; done; done
git -C "$work/small" init -q
git -C "$work/big" init -q

variants=(off)
command -v bwrap > /dev/null && variants+=(bubblewrap)
[ "$(uname -s)" = Linux ] && variants+=(landlock)

# run VARIANT TREE ROUND: one `reins tool run`; appends its wall ms to times[VARIANT/TREE].
declare -A times
run() {
	local variant=$1 tree=$2 i=$3 settings='{}' wall code
	[ "$variant" != off ] && settings='{"sandbox":{"enabled":true}}'
	printf '%s\n' "$settings" > "$work/home/.reins/settings.json"
	(cd "$work/$tree" && env -i PATH="$PATH" HOME="$work/home" REINS_SANDBOX_BACKEND="${variant/off/}" \
		"$work/proctime" -o "$work/time" -- "$work/reins" tool run Bash --input '{"command":"true"}' > "$work/out" 2>&1) || true
	read -r wall _ code < "$work/time"
	if [ "$code" != 0 ]; then
		echo "$variant on $tree failed (exit $code):"
		cat "$work/out"
		exit 1
	fi
	times[$variant/$tree]+="$(awk -v ns="$wall" 'BEGIN {printf "%.2f", ns / 1e6}') "
}

# A first run of each warms the page cache and the backends' probe cache.
for v in "${variants[@]}"; do for tree in small big; do run "$v" "$tree" 0; times[$v/$tree]=; done; done
for i in $(seq "$runs"); do
	for v in "${variants[@]}"; do for tree in small big; do run "$v" "$tree" "$i"; done; done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "reins tool run Bash {\"command\":\"true\"}, median of $runs runs (ms); added = variant - off"
printf '%-12s %12s %12s %14s %12s\n' variant "small" "added" "6,000 folders" "added"
declare -A med
for v in "${variants[@]}"; do
	for tree in small big; do med[$v/$tree]=$(median <<< "${times[$v/$tree]}"); done
	printf '%-12s %12s %12s %14s %12s\n' "$v" "${med[$v/small]}" \
		"$(awk -v a="${med[$v/small]}" -v b="${med[off/small]}" 'BEGIN {printf "%+.1f", a - b}')" "${med[$v/big]}" \
		"$(awk -v a="${med[$v/big]}" -v b="${med[off/big]}" 'BEGIN {printf "%+.1f", a - b}')"
done

echo
echo "in process (go test -bench, ns/op):"
go test -run '^$' -bench 'BenchmarkSpec|BenchmarkCheck|BenchmarkPlan' -benchtime 200x ./sandbox/ ./sandbox/landlock/ | grep -E '^Benchmark'
