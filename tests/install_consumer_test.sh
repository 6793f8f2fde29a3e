#!/usr/bin/env bash
# Installs the built tree into a scratch prefix, builds tests/consumer against it with
# find_package(ember), runs it and checks its output.
set -euo pipefail
build=$1
consumer=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/build/consumer")
echo "consumer printed: $out"
[ "$out" = "20" ]
