#!/usr/bin/env bash
# grep.sh compares Reins' Grep tool — with the rg engine and with the built-in Go engine —
# against rg (and grep -rn, for scale) on one large tree (by default the Go source tree), for
# literal, regex and case-insensitive patterns, in every output mode.
#
#   bench/grep.sh [TREE]          RUNS=5 (default) MEMRUNS=3 (default) GREP=0 skips grep -rn
#
# Times are medians of $RUNS paired runs after one warm-up round, in milliseconds of wall
# time. A paired run is rg, then Grep with the rg engine, then Grep with the Go engine, one
# after the other (bench/grepbench), so a change of load affects all three alike; the ratios
# are the medians of each run's ratio to rg. The same ratios of CPU time (user and system, of
# the Grep process and its rg child) change little with the machine's load, when wall times
# on a busy machine swing from run to run. The Grep tool is timed in-process (decode,
# validate, call — sorting, stats and formatting included), rg and grep as processes. rg gets
# --hidden because Grep always searches hidden files; grep -rn also reads binary files and
# has no ignore rules.
#
# Peak memory (MB, maximum resident set size from /usr/bin/time, the median of $MEMRUNS runs,
# 3 by default: one run's figure moves by a megabyte with the garbage collector's timing) is
# rg's and the Grep process's, started fresh for one call; with the rg engine it is the larger
# of the Grep process and its rg child.
set -euo pipefail -f
cd "$(dirname "$0")/.."
. bench/searchlib.sh
TREE=${1:-$(go env GOROOT)/src}
RUNS=${RUNS:-5}
MEMRUNS=${MEMRUNS:-3}
GREP=${GREP:-1}
command -v rg >/dev/null || { echo "grep.sh: rg is not installed (apt-get install ripgrep)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "grep.sh: /usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
GB=$(build_grepbench)
trap 'rm -rf "$(dirname "$GB")"' EXIT

# peak_mb command...: the median of the command's maximum resident set size over $MEMRUNS
# runs, in MB.
peak_mb() {
  for _ in $(seq "$MEMRUNS"); do
    /usr/bin/time -f %M -o "$GB.rss" "$@" >/dev/null 2>&1 || true
    tail -1 "$GB.rss"
  done | median | awk '{printf "%.1f", $1/1024}'
}

echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files, $(du -sh "$TREE" | cut -f1)); runs: $RUNS; $(rg --version | sed -n 1p); $(grep --version | sed -n 1p); $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %7s %7s %7s %7s | %6s %6s | %6s %6s | %6s | %6s %6s %6s %6s %6s\n' \
  case rg Grep/rg Grep/go grep-rn go/rg rge/rg go/rg rge/rg grep/rg rgMB rgeMB goMB rge/rg go/rg
printf '%-34s %7s %7s %7s %7s | %13s | %13s | %6s | %34s\n' "" "ms" "ms" "ms" "ms" "wall time" "CPU time" "wall" "peak memory"

# case  pattern  rg-flags  grep-flags  Grep-input
bench() {
  local name=$1 pat=$2 rgf=$3 grepf=$4 input=$5
  local cols t_grep="-" r_grep="-" m_rg m_rge m_go
  # shellcheck disable=SC2086
  cols=$("$GB" -engine rg,go -runs "$RUNS" -warmup -input "$input" "$TREE" -- rg --hidden $rgf -e "$pat" "$TREE" |
    awk -F'\t' '
      function med(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
        return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
      }
      { n++; rg[n] = $1; rge[n] = $2; go[n] = $3; qrge[n] = $2 / $1; qgo[n] = $3 / $1; crge[n] = $5 / $4; cgo[n] = $6 / $4 }
      END { printf "%.1f %.1f %.1f %.2f %.2f %.2f %.2f", med(rg, n), med(rge, n), med(go, n), med(qgo, n), med(qrge, n), med(cgo, n), med(crge, n) }')
  if [ "$GREP" = 1 ]; then
    # shellcheck disable=SC2086
    t_grep=$(time_ms grep -r $grepf -e "$pat" "$TREE")
    r_grep=$(ratio "$t_grep" "$(echo "$cols" | cut -d' ' -f1)")
  fi
  # shellcheck disable=SC2086
  m_rg=$(peak_mb rg --hidden $rgf -e "$pat" "$TREE")
  m_rge=$(peak_mb "$GB" -engine rg -runs 1 -input "$input" "$TREE")
  m_go=$(peak_mb "$GB" -engine go -runs 1 -input "$input" "$TREE")
  # shellcheck disable=SC2086
  set -- $cols
  printf '%-34s %7s %7s %7s %7s | %6s %6s | %6s %6s | %6s | %6s %6s %6s %6s %6s\n' "$name" "$1" "$2" "$3" "$t_grep" "$4" "$5" "$6" "$7" "$r_grep" \
    "$m_rg" "$m_rge" "$m_go" "$(ratio "$m_rge" "$m_rg")" "$(ratio "$m_go" "$m_rg")"
}

bench "literal 'func main' content"  'func main' "-n" "-n" '{"pattern":"func main","output_mode":"content","head_limit":0}'
bench "literal rare, files"          'ZZZ_never_QQQ' "-l" "-l" '{"pattern":"ZZZ_never_QQQ"}'
bench "literal 'errors.New' count"   'errors\.New' "-c" "-c" '{"pattern":"errors\\.New","output_mode":"count","head_limit":0}'
bench "literal 'errors.New' content" 'errors\.New' "-n" "-n" '{"pattern":"errors\\.New","output_mode":"content","head_limit":0}'
bench "regex 'func \\w+\\(ctx ...' content" 'func \w+\(ctx context\.Context' "-n" "-nE" '{"pattern":"func \\w+\\(ctx context\\.Context","output_mode":"content","head_limit":0}'
bench "regex '[A-Z][a-z]+Error\\b' files" '[A-Z][a-z]+Error\b' "-l" "-lE" '{"pattern":"[A-Z][a-z]+Error\\b"}'
bench "regex '[A-Z][a-z]+Error\\b' count" '[A-Z][a-z]+Error\b' "-c" "-cE" '{"pattern":"[A-Z][a-z]+Error\\b","output_mode":"count","head_limit":0}'
bench "-i literal 'syntax error' content" 'syntax error' "-n -i" "-n -i" '{"pattern":"syntax error","-i":true,"output_mode":"content","head_limit":0}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
