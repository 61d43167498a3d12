# Shared helpers of bench/grep.sh and bench/glob.sh (sourced, not run).

# median reads numbers, one per line, and prints their median.
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# time_ms runs a command once to warm the caches, then $RUNS times, and prints the median wall
# time in milliseconds. The output goes to a file, not /dev/null: ripgrep notices /dev/null
# and stops at the first match. The exit status is ignored (grep and rg exit 1 when nothing
# matches).
time_ms() {
  local out
  out=$(mktemp)
  "$@" >"$out" 2>/dev/null || true
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s%N)
    "$@" >"$out" 2>/dev/null || true
    e=$(date +%s%N)
    echo $(((e - s) / 1000))
  done | median | awk '{printf "%.1f\n", $1/1000}'
  rm -f "$out"
}

# ratio prints a/b with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

# build_grepbench builds the driver into a temporary directory and prints its path.
build_grepbench() {
  local dir
  dir=$(mktemp -d)
  go build -o "$dir/grepbench" ./bench/grepbench
  echo "$dir/grepbench"
}
