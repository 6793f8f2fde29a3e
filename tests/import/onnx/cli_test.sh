#!/usr/bin/env bash
# ember-onnx: usage, a summary of a PyTorch fixture, an unsupported model, a missing file.
set -uo pipefail
bin=$1
case_name=$2
fixtures=$(dirname "$0")/fixtures
node=/usr/include/onnx/backend/test/data/node
out=$(mktemp)
trap 'rm -f "$out"' EXIT
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
  missing) expect 1 "cannot open model '/nonexistent.onnx'" "$bin" /nonexistent.onnx ;;
esac
echo "ok: $case_name"
