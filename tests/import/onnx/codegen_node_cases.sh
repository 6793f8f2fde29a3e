#!/usr/bin/env bash
# ember-onnx --emit-cpp on every ONNX backend node case (Debian's libonnx-testdata): the cases it
# generates are built against the installed package (codegen_node_cases/) and must all match
# their expected outputs; the others are those with a node without a C++ form.
# usage: codegen_node_cases.sh EMBER_ONNX BUILD_DIR
set -euo pipefail
ember_onnx=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
node=/usr/include/onnx/backend/test/data/node
[ -d "$node" ] || exit 77
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts"
parts=2  # translation units, built in parallel
n=0 refused=0
for dir in "$node"/test_*; do
  name=$(basename "$dir")
  [ -d "$dir/test_data_set_0" ] || continue
  if ! "$ember_onnx" "$dir/model.onnx" --emit-cpp "$work/gen/$name" --name "$name" \
    > /dev/null 2>&1; then
    refused=$((refused + 1))
    continue
  fi
  part=$work/parts/part_$((n % parts))
  echo "#include \"$work/gen/$name/$name.cc\"" >> "$part.includes"
  echo "  cases.push_back({\"$name\", [](const std::string& r, const std::vector<ember::TensorData>& in) { $name m(ember::Device::cpu()); m.load_record(r); return m.run(in); }});" >> "$part.body"
  n=$((n + 1))
done
echo "$n node cases generated, $refused refused"
for p in $(seq 0 $((parts - 1))); do
  f=$work/parts/part_$p
  {
    cat "$f.includes"
    echo '#include "cases.h"'
    echo "void add_cases_$p(std::vector<Case>& cases) {"
    cat "$f.body"
    echo "}"
    if [ "$p" = 0 ]; then
      for q in $(seq 1 $((parts - 1))); do echo "void add_cases_$q(std::vector<Case>& cases);"; done
      echo "void add_cases(std::vector<Case>& cases) {"
      for q in $(seq 0 $((parts - 1))); do echo "  add_cases_$q(cases);"; done
      echo "}"
    fi
  } > "$f.cc"
done

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$here/codegen_node_cases" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DEMBER_PARTS_DIR="$work/parts" "${launcher[@]}" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 > "$work/build.log" || { tail -50 "$work/build.log"; exit 1; }
"$work/build/node_cases" "$node" "$work/gen"
