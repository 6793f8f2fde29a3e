#!/usr/bin/env bash
# ember-onnx --emit-cpp end to end, as a user does it: generates C++ for both PyTorch fixtures,
# installs the built tree into a scratch prefix, builds the generated projects against it with
# find_package(ember) (codegen_consumer/), and checks each model on the fixtures' inputs of two
# dynamic sizes against PyTorch's outputs within 1e-4.
# usage: codegen_test.sh EMBER_ONNX BUILD_DIR
set -euo pipefail
ember_onnx=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for m in transformer resnet18_quarter; do
  "$ember_onnx" "$fixtures/$m.onnx" --emit-cpp "$work/gen/$m"
  for f in "$m.h" "$m.cc" "$m.ember" CMakeLists.txt; do
    [ -s "$work/gen/$m/$f" ] || { echo "--emit-cpp did not write $m/$f"; exit 1; }
  done
done

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$here/codegen_consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DEMBER_GENERATED_DIR="$work/gen" "${launcher[@]}" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 > "$work/build.log" || { cat "$work/build.log"; exit 1; }

for m in transformer resnet18_quarter; do
  for pair in 0 1; do
    echo "$m, inputs $pair:"
    "$work/build/check_$m" "$work/gen/$m/$m.ember" "$fixtures/${m}_input_$pair.pb" -- \
      "$fixtures/${m}_output_$pair.pb"
  done
done
