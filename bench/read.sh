#!/usr/bin/env bash
# Read of 2,000 lines near the end of a 1 GB file: time and peak memory.
#
# Makes a 1 GiB file of numbered lines in a temporary directory, builds the files package's
# test binary, and runs BenchmarkReadNearEnd against the file under /usr/bin/time -v, which
# reports the peak resident set size of the whole process (test harness included).
# Needs GNU time: apt-get install time.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/time ]; then
	echo "read.sh: /usr/bin/time is missing; install it with: apt-get install -y time" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file=$work/big.txt

echo "creating a 1 GiB file of numbered lines in $work ..."
# 21,474,836 lines of 50 bytes: 1 GiB; 2,000 of them are 100,000 bytes, just within the 25,000-token limit.
awk 'BEGIN { for (i = 0; i < 21474836; i++) printf "%09d lorem ipsum dolor sit amet, consectetur\n", i }' >"$file"
ls -l "$file"

go test -c -o "$work/files.test" ./tools/files
echo "running BenchmarkReadNearEnd ..."
REINS_READ_BENCH_FILE=$file /usr/bin/time -v "$work/files.test" \
	-test.run='^$' -test.bench='^BenchmarkReadNearEnd$' -test.benchtime="${BENCHTIME:-10x}" -test.benchmem \
	2>"$work/time.txt"
grep -E 'Elapsed \(wall clock\)|Maximum resident set size' "$work/time.txt"

# For comparison: sed scanning to the same lines.
start=$((21474836 - 2100 + 1))
end=$((start + 1999))
echo "sed -n ${start},${end}p for comparison:"
/usr/bin/time -f '	sed: %e s wall, %M KB max RSS' sed -n "${start},${end}p;${end}q" "$file" | wc -l
