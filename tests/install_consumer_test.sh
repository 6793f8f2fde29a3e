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
# Only <ember/...> names are installed: a layer folder is not a top-level include name.
inc="$work/prefix/include"
echo '#include <ember/ir/graph.h>' | c++ -std=c++20 -fsyntax-only -I"$inc" -x c++ - ||
  { echo "<ember/ir/graph.h> does not compile on its own"; exit 1; }
# The ONNX importer's headers too (with libonnx's definitions, as its CMake target gives them).
echo '#include <ember/import/onnx/model.h>' |
  c++ -std=c++20 -fsyntax-only -DONNX_ML=1 -DONNX_NAMESPACE=onnx -I"$inc" -x c++ - ||
  { echo "<ember/import/onnx/model.h> does not compile on its own"; exit 1; }
if echo '#include <ir/graph.h>' | c++ -std=c++20 -fsyntax-only -I"$inc" -x c++ - 2> /dev/null; then
  echo "<ir/graph.h> resolves: layer folders leak into the include path"
  exit 1
fi
if [ -e "$inc/ir" ] || [ -e "$inc/runtime" ] || [ -e "$inc/data" ]; then
  echo "layer folders installed at the top of $inc"
  exit 1
fi
