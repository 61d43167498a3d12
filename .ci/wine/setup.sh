#!/usr/bin/env bash
# Prepares Wine to run the Windows test binaries: a fresh prefix, the bcryptprimitives.dll
# Go needs (built from bcryptprimitives.def with mingw's binutils), and a build overlay for
# the Go toolchain's internal/syscall/windows that lets os.RemoveAll fall back to the old
# delete when Wine answers STATUS_NOT_IMPLEMENTED to POSIX-semantics deletion (Windows 10+
# supports it; Wine 8 does not). The overlay changes only the test binaries run under Wine.
# Prints the overlay file's path for `go test -overlay`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
need=()
command -v wine >/dev/null || need+=(wine wine64)
command -v x86_64-w64-mingw32-ld >/dev/null || need+=(binutils-mingw-w64-x86-64)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
: "${WINEPREFIX:?set WINEPREFIX to a fresh folder}"
export WINEDEBUG=-all
work="$WINEPREFIX.build"
mkdir -p "$work"
wineboot -i >/dev/null 2>&1 || true
printf '.text\n.globl DllMain\nDllMain:\n  mov $1, %%eax\n  ret\n' > "$work/entry.s"
x86_64-w64-mingw32-as -o "$work/entry.o" "$work/entry.s"
x86_64-w64-mingw32-ld -shared --entry DllMain -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  "$work/entry.o" "$here/bcryptprimitives.def"
src="$(go env GOROOT)/src/internal/syscall/windows/at_windows.go"
patched="$work/at_windows.go"
python3 - "$src" "$patched" <<'PY'
import sys
s = open(sys.argv[1]).read()
old = "\t\tSTATUS_NOT_SUPPORTED:     // the file system doesn't support FILE_DISPOSITION_INFORMATION_EX or one of the flags\n\t\treturn deleteatFallback(h)"
if old not in s:
    sys.exit("at_windows.go changed: review the Wine overlay in .ci/wine/setup.sh")
new = "\t\tSTATUS_NOT_SUPPORTED,\n\t\tNTStatus(0xC0000002): // STATUS_NOT_IMPLEMENTED: Wine 8\n\t\treturn deleteatFallback(h)"
open(sys.argv[2], "w").write(s.replace(old, new))
PY
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$patched" > "$work/overlay.json"
echo "$work/overlay.json"
