#!/usr/bin/env bash
# Per-command cost of the OS sandbox: runs `true` and a `go build` of a small module (warm
# build cache) unconfined and under each backend that works on this machine, N rounds of
# RUNS commands each, and prints the median time per command and the overhead against none.
#   bench/sandbox.sh [N] [RUNS]
set -euo pipefail
n=${1:-5}
runs=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(go test -run '^$' -bench '^BenchmarkCommand$' -benchtime "${runs}x" -count "$n" ./sandbox/)
echo "$out" | awk '
  /^BenchmarkCommand\// {
    name = $1; sub(/^BenchmarkCommand\//, "", name); sub(/-[0-9]+$/, "", name)
    v[name] = v[name] " " $3
  }
  END {
    for (k in v) {
      m = split(substr(v[k], 2), a, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      med[k] = a[int((m + 1) / 2)]
    }
    for (k in med) {
      split(k, p, "/")
      base = med["none/" p[2]]
      printf "%-22s median %8.2f ms/command   overhead vs none %+8.2f ms\n", k, med[k] / 1e6, (med[k] - base) / 1e6
    }
  }' | sort
