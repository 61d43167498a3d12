#!/usr/bin/env bash
# What checkpoints cost a Bash command (issue 31): in a repository of FILES files (default
# 20,000, about 2 KB each, in 100 folders) a mix of everyday commands is run through sh
# ROUNDS times each, alone and with the capture the call pipeline makes before and after it,
# alternating; it prints the median of each command, of the whole mix, and the cost of the
# first capture of the whole tree (which hashes every file once; later scans trust the stat
# cache).
#   bench/checkpoint.sh [FILES] [ROUNDS]     (defaults: 20000, 15)
set -euo pipefail
files=${1:-20000}
rounds=${2:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go run ./bench/cpbench -files "$files" -rounds "$rounds"
