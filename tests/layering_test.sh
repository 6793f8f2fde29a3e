#!/usr/bin/env bash
# Fails when a source file includes a header from a layer above its own (DESIGN.md section 1).
set -euo pipefail
root=${1:-.}
cd "$root"
declare -A allowed=(
  [ir]="ir"
  [runtime]="ir runtime"
  [kernels]="ir kernels"
  [autotune]="ir runtime autotune"
  [jit]="ir runtime kernels autotune jit"
  [frontend]="ir runtime kernels autotune jit frontend"
  [data]="ir frontend data"
  [tools]="ir runtime kernels autotune jit frontend data tools"
)
layers="ir runtime kernels autotune jit frontend data tools"
status=0
checked=0
for layer in "${!allowed[@]}"; do
  [ -d "$layer" ] || continue
  while IFS= read -r -d '' file; do
    checked=$((checked + 1))
    while IFS= read -r inc; do
      top=${inc%%/*}
      case " $layers " in *" $top "*) ;; *) continue ;; esac
      case " ${allowed[$layer]} " in
        *" $top "*) ;;
        *) echo "layering: $file includes $inc ($layer may not depend on $top)"; status=1 ;;
      esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
  done < <(find "$layer" -name '*.h' -print0 -o -name '*.cc' -print0)
done
echo "layering: checked $checked files"
exit $status
