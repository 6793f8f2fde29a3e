#!/usr/bin/env bash
# Every C++ and CUDA source of the repository is formatted by .clang-format (the guide's rule),
# the hand-written device code (.cuh) included.
set -euo pipefail
cd "${1:-.}"
command -v clang-format > /dev/null || { echo "format: clang-format not installed"; exit 1; }
files=$(git ls-files '*.cc' '*.h' '*.cpp' '*.cuh' 2> /dev/null || find . -name '*.cc' -o -name '*.h' -o -name '*.cpp' -o -name '*.cuh')
bad=0
for f in $files; do
  if ! clang-format --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "format: $f is not formatted (clang-format -i $f)"
    bad=1
  fi
done
echo "format: checked $(echo "$files" | wc -w) files"
exit $bad
