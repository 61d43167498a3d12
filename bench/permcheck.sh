#!/usr/bin/env bash
# Times `reins permissions check` as a whole process (start-up, loading five settings files
# with 1,000 rules in all, one decision) and prints the median of N runs.
#   bench/permcheck.sh [N]
set -euo pipefail
n=${1:-21}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/reins" "$root/cmd/reins"

proj=$work/proj home=$work/home
mkdir -p "$proj/.reins" "$proj/.claude" "$home/.reins" "$proj/src"
echo 'package main' > "$proj/src/main.go"
# 200 rules in each of five files, every behaviour, Bash and path rules mixed.
gen() { python3 - "$1" <<'PY'
import json, sys
off = int(sys.argv[1])
rules = {"allow": [], "ask": [], "deny": []}
for i in range(off, off + 200):
    kind = ["Bash(tool%d sub:*)", "Read(src/pkg%d/**)", "Edit(/gen/out%d/*.go)", "Read(~/s%d/**)"][i % 4] % i
    rules[["allow", "ask", "deny"][i % 3]].append(kind)
print(json.dumps({"permissions": rules}, indent=2))
PY
}
gen 0 > "$home/.reins/settings.json"
gen 200 > "$proj/.reins/settings.json"
gen 400 > "$proj/.reins/settings.local.json"
gen 600 > "$proj/.claude/settings.json"
gen 800 > "$work/flag.json"

run() {
  (cd "$proj" && HOME=$home REINS_MANAGED_DIR=$work/none "$work/reins" permissions check \
    --settings "$work/flag.json" --tool "$1" --input "$2" >/dev/null) || true
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for spec in 'Read|{"file_path":"src/main.go"}' 'Edit|{"file_path":"src/main.go","old_string":"package","new_string":"package x"}' 'Bash|{"command":"git status && ls src | wc -l"}'; do
  tool=${spec%%|*} input=${spec#*|}
  times=()
  for _ in $(seq "$n"); do
    s=$(date +%s%N); run "$tool" "$input"; e=$(date +%s%N)
    times+=($(( (e - s) / 1000 )))
  done
  printf '%-5s permissions check, 1,000 rules: median %6d µs over %d runs\n' "$tool" "$(printf '%s\n' "${times[@]}" | median)" "$n"
done
