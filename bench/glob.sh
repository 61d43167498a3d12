#!/usr/bin/env bash
# glob.sh compares Reins' Glob tool with fdfind (Debian's fd-find) on one large tree (by
# default the Go source tree). Each number is the median of $RUNS runs (default 5) after one
# warm-up run, in milliseconds of wall time.
#
#   bench/glob.sh [TREE]
#
# fdfind runs with -H -I (hidden files, no ignore files), as Glob lists them, and lists every
# match; Glob also stats, sorts newest first and keeps 100.
set -euo pipefail -f
cd "$(dirname "$0")/.."
. bench/searchlib.sh
TREE=${1:-$(go env GOROOT)/src}
RUNS=${RUNS:-5}
command -v fdfind >/dev/null || { echo "glob.sh: fdfind is not installed (apt-get install fd-find)" >&2; exit 1; }
GB=$(build_grepbench)
trap 'rm -rf "$(dirname "$GB")"' EXIT

echo "tree: $TREE ($(find "$TREE" -type f | wc -l) files); runs: $RUNS; $(fdfind --version)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
printf '%-26s %9s %9s %9s %8s %8s\n' pattern fdfind find Glob Glob/fd find/fd

bench() { # name fd-args find-args glob-input
  local t_fd t_find t_glob
  # shellcheck disable=SC2086
  t_fd=$(time_ms fdfind -H -I $2 . "$TREE")
  # shellcheck disable=SC2086
  t_find=$(time_ms find "$TREE" $3)
  t_glob=$("$GB" -tool Glob -runs "$RUNS" -warmup -input "$4" "$TREE" | median)
  printf '%-26s %9s %9s %9s %8s %8s\n' "$1" "$t_fd" "$t_find" "$t_glob" "$(ratio "$t_glob" "$t_fd")" "$(ratio "$t_find" "$t_fd")"
}

bench '**/*_test.go'   "--glob *_test.go"      "-name *_test.go -type f"   '{"pattern":"**/*_test.go"}'
bench '*.go'           "-e go"                 "-name *.go -type f"        '{"pattern":"*.go"}'
bench 'net/**/*.go'    "-e go --full-path --glob **/net/**" "-path */net/* -name *.go -type f" '{"pattern":"net/**/*.go"}'
bench '**/testdata/**' "--full-path --glob **/testdata/**" "-path */testdata/* -type f" '{"pattern":"**/testdata/**"}'
