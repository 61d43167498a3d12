#!/usr/bin/env bash
# grep.sh compares Reins' Grep tool — with the rg engine and with the built-in Go engine —
# against rg and grep -rn on one large tree (by default the Go source tree), for literal,
# regex and case-insensitive patterns. Each number is the median of $RUNS runs (default 5)
# after one warm-up run, in milliseconds of wall time; ratios are against plain rg.
#
#   bench/grep.sh [TREE]
#
# The Grep tool is timed in-process (bench/grepbench: decode, validate, call — sorting and
# formatting included), rg and grep as processes. rg gets --hidden because Grep always
# searches hidden files; grep -rn also reads binary files and has no ignore rules.
set -euo pipefail -f
cd "$(dirname "$0")/.."
. bench/searchlib.sh
TREE=${1:-$(go env GOROOT)/src}
RUNS=${RUNS:-5}
command -v rg >/dev/null || { echo "grep.sh: rg is not installed (apt-get install ripgrep)" >&2; exit 1; }
GB=$(build_grepbench)
trap 'rm -rf "$(dirname "$GB")"' EXIT

grepbench() { # engine input
  "$GB" -engine "$1" -runs "$RUNS" -warmup -input "$2" "$TREE" | median
}

echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files, $(du -sh "$TREE" | cut -f1)); runs: $RUNS; $(rg --version | head -1); $(grep --version | head -1)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
printf '%-34s %9s %9s %9s %9s %8s %8s %8s\n' case rg grep-rn Grep/rg Grep/go go/rg Grep/rg grep/rg

# case  pattern  rg-flags  grep-flags  Grep-input
bench() {
  local name=$1 pat=$2 rgf=$3 grepf=$4 input=$5
  local t_rg t_grep t_trg t_tgo
  # shellcheck disable=SC2086
  t_rg=$(time_ms rg --hidden $rgf -e "$pat" "$TREE")
  # shellcheck disable=SC2086
  t_grep=$(time_ms grep -r $grepf -e "$pat" "$TREE")
  t_trg=$(grepbench rg "$input")
  t_tgo=$(grepbench go "$input")
  printf '%-34s %9s %9s %9s %9s %8s %8s %8s\n' "$name" "$t_rg" "$t_grep" "$t_trg" "$t_tgo" \
    "$(ratio "$t_tgo" "$t_rg")" "$(ratio "$t_trg" "$t_rg")" "$(ratio "$t_grep" "$t_rg")"
}

bench "literal 'func main' content"  'func main' "-n" "-n" '{"pattern":"func main","output_mode":"content","head_limit":0}'
bench "literal rare, files"          'ZZZ_never_QQQ' "-l" "-l" '{"pattern":"ZZZ_never_QQQ"}'
bench "literal 'errors.New' count"   'errors\.New' "-c" "-c" '{"pattern":"errors\\.New","output_mode":"count","head_limit":0}'
bench "regex 'func \\w+\\(ctx ...' content" 'func \w+\(ctx context\.Context' "-n" "-nE" '{"pattern":"func \\w+\\(ctx context\\.Context","output_mode":"content","head_limit":0}'
bench "regex '[A-Z][a-z]+Error\\b' files" '[A-Z][a-z]+Error\b' "-l" "-lE" '{"pattern":"[A-Z][a-z]+Error\\b"}'
bench "-i literal 'syntax error' content" 'syntax error' "-n -i" "-n -i" '{"pattern":"syntax error","-i":true,"output_mode":"content","head_limit":0}'
