#!/bin/sh
# Holds the C++ files of the tree to .clang-format.
#   tests/format_check.sh SRC_DIR         lists each file that differs, exits 1 if any does
#   tests/format_check.sh --fix SRC_DIR   rewrites them in place
# Exits 77 (CTest's skip) when clang-format is not installed (make deps installs it).
set -eu
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
src=${1:?source directory}
cd "$src"
tool=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$tool" ]; then
  echo "format_check: skipped, clang-format is not installed (make deps installs it)"
  exit 77
fi
files=$(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h' 2>/dev/null ||
        find src tests fuzz bench -name '*.cc' -o -name '*.h')
files=$(printf '%s\n' $files | grep -v '^third_party/' || true)
if [ "$fix" = 1 ]; then
  printf '%s\n' $files | xargs "$tool" -i
  exit 0
fi
bad=0
for f in $files; do
  if ! "$tool" --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "not formatted: $f (make format rewrites it)"
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "format_check: $(printf '%s\n' $files | wc -l) files formatted as .clang-format says"
exit "$bad"
