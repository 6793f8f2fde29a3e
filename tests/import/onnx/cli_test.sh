#!/usr/bin/env bash
# ember-onnx: usage, a summary of a PyTorch fixture, an unsupported model, a missing file, and
# --emit-cpp's usage errors, written files and refusals (the generated code is built and run by
# codegen_test.sh).
set -uo pipefail
bin=$1
case_name=$2
fixtures=$(dirname "$0")/fixtures
node=/usr/include/onnx/backend/test/data/node
out=$(mktemp)
dir=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$dir"' EXIT
expect() {  # expect STATUS PATTERN COMMAND...
  local want=$1 pattern=$2
  shift 2
  "$@" >"$out" 2>&1
  local got=$?
  if [ "$got" != "$want" ] || ! grep -q -- "$pattern" "$out"; then
    echo "FAIL: '$*' exited $got (wanted $want) or lacks '$pattern':"
    cat "$out"
    exit 1
  fi
}
case $case_name in
  help) expect 0 "usage: ember-onnx" "$bin" --help ;;
  bad-args) expect 2 "no model given" "$bin" ;;
  ops) expect 0 "^LSTM$" "$bin" --ops ;;
  summary)
    expect 0 "tokens: INT64\[batch, sequence\]" "$bin" "$fixtures/transformer.onnx"
    grep -q "LayerNormalization 5 / 5" "$out" || { cat "$out"; exit 1; }
    ;;
  unsupported)
    # Strings: an element type Ember lacks, and an op it does not import.
    model=$node/test_strnormalizer_export_monday_casesensintive_lower/model.onnx
    [ -f "$model" ] || exit 77
    expect 1 "(StringNormalizer, opset 17): op type not supported" "$bin" "$model"
    grep -q "has element type STRING, which Ember lacks" "$out" || { cat "$out"; exit 1; }
    ;;
  emit-cpp-usage)
    expect 2 "emit-cpp needs a folder" "$bin" "$fixtures/transformer.onnx" --emit-cpp
    expect 2 "name goes with --emit-cpp" "$bin" "$fixtures/transformer.onnx" --name Net
    expect 2 "'9lives' is not a C++ class name" "$bin" "$fixtures/transformer.onnx" \
      --emit-cpp "$dir/gen" --name 9lives
    touch "$dir/file"
    expect 1 "exists and is not an empty folder" "$bin" "$fixtures/transformer.onnx" \
      --emit-cpp "$dir"
    [ ! -e "$dir/gen" ] || { echo "a refused --emit-cpp wrote $dir/gen"; exit 1; }
    ;;
  emit-cpp-writes)
    expect 0 "wrote $dir/gen: Net.h, Net.cc, Net.ember" "$bin" "$fixtures/transformer.onnx" \
      --emit-cpp "$dir/gen" --name Net
    grep -q "Outputs forward(const ember::Tensor<2, ember::Int>& tokens) const;" "$dir/gen/Net.h" ||
      { cat "$dir/gen/Net.h"; exit 1; }
    grep -q 'f("embed.weight", self.embed_weight);' "$dir/gen/Net.h" || exit 1
    grep -q "find_package(ember" "$dir/gen/CMakeLists.txt" || exit 1
    [ "$(ls "$dir")" = "gen" ] || { echo "temporary files left beside the output:"; ls "$dir"; exit 1; }
    expect 0 "^Conv$" "$bin" --cpp-ops
    ;;
  emit-cpp-unsupported)
    # Every node without a C++ form is listed at once, by name and op type; nothing is written.
    expect 1 "2 constructs without a C++ form" "$bin" "$fixtures/no_cpp_form.onnx" \
      --emit-cpp "$dir/gen"
    grep -q "node 'nonzero' (NonZero, opset 17): no C++ form" "$out" || { cat "$out"; exit 1; }
    grep -q "node 'unique' (Unique, opset 17): no C++ form" "$out" || { cat "$out"; exit 1; }
    [ -z "$(ls "$dir")" ] || { echo "a failed --emit-cpp wrote:"; ls "$dir"; exit 1; }
    ;;
  missing) expect 1 "cannot open model '/nonexistent.onnx'" "$bin" /nonexistent.onnx ;;
esac
echo "ok: $case_name"
