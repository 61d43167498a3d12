#!/usr/bin/env bash
# How permission decisions grow with the number of rules. Runs the scaling benchmarks of
# permission and bashrules (10, 100, 1,000 and 10,000 rules spread over every settings source)
# and the 1,000-rule benchmarks, COUNT times each, and prints the median of each and the growth
# from 10 to 10,000 rules, all from one run.
#   bench/permscale.sh [COUNT] [BENCHTIME]     (defaults: 6, 0.5s)
# Targets (issue 18): with 10,000 rules a Read decision costs at most 2x what it costs with 10,
# a five-part compound at most 1.5x; on a quiet machine, with 1,000 rules, a Read decision
# (DecideRead) <= 20 µs, a five-part compound (CheckCompound) <= 25 µs and a context build
# (NewContext) <= 300 µs.
set -euo pipefail
count=${1:-6}
benchtime=${2:-0.5s}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
go test -c -o "$work/permission.test" ./permission
go test -c -o "$work/bashrules.test" ./bashrules
# COUNT rounds of every benchmark rather than COUNT runs of one after the other: on a shared
# machine a burst of load then spreads over all of them instead of spoiling one.
for _ in $(seq "$count"); do
  (cd permission && "$work/permission.test" -test.run '^$' -test.benchtime "$benchtime" \
    -test.bench '^Benchmark(ScaleRead|ScaleNewContext|DecideRead|NewContext)$') >>"$out"
  (cd bashrules && "$work/bashrules.test" -test.run '^$' -test.benchtime "$benchtime" \
    -test.bench '^Benchmark(ScaleCompound|CheckCompound)$') >>"$out"
done

# Lines look like "BenchmarkScaleRead/rules=10-2  98765  12345 ns/op  3370 B/op  41 allocs/op".
awk '
  /^Benchmark/ {
    name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
    for (i = 2; i < NF; i++) {
      if ($(i+1) == "ns/op") ns[name] = ns[name] " " $i
      if ($(i+1) == "allocs/op") allocs[name] = $i
    }
    if (!(name in seen)) { seen[name] = 1; order[++n] = name }
  }
  function median(s,   a, k, q, j, t) {
    k = split(s, a, " ")
    for (q = 1; q <= k; q++) for (j = q + 1; j <= k; j++) if (a[j] + 0 < a[q] + 0) { t = a[q]; a[q] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    printf "%-32s %12s %8s %6s\n", "benchmark", "median µs", "allocs", "runs"
    for (i = 1; i <= n; i++) {
      m[order[i]] = median(ns[order[i]])
      printf "%-32s %12.1f %8s %6d\n", order[i], m[order[i]] / 1000, allocs[order[i]], split(ns[order[i]], x, " ")
    }
    print ""
    ng = split("ScaleRead:2 ScaleCompound:1.5", groups, " ")
    for (g = 1; g <= ng; g++) {
      split(groups[g], p, ":")
      lo = m[p[1] "/rules=10"]; hi = m[p[1] "/rules=10000"]
      if (lo == "" || hi == "") continue
      target = (p[2] == "-") ? "" : sprintf(" (target <= %sx: %s)", p[2], (hi / lo <= p[2]) ? "met" : "NOT met")
      printf "growth 10 -> 10,000 rules, %-16s %6.2fx%s\n", p[1] ":", hi / lo, target
    }
    # Building a context is linear in the rules by nature: its cost per rule is what matters.
    if (m["ScaleNewContext/rules=10000"] != "")
      printf "context build with 10,000 rules: %.2f µs per rule\n", m["ScaleNewContext/rules=10000"] / 10000 / 1000
  }' "$out"
