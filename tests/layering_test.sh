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
# Inside jit/, the stages (DESIGN.md section 4): codegen (render core and dialects) and plan stand
# alone, compile sees codegen, exec sees every stage. lower and tune still see each other: the
# tuners lower their candidates and the lowering reads the tuned configurations (the kernel
# families will own both). dump.h and stats.h at jit/'s top serve every stage.
declare -A stage_allowed=(
  [codegen]="codegen"
  [plan]="plan"
  [compile]="compile codegen"
  [lower]="lower tune plan codegen"
  [tune]="tune lower plan codegen"
  [exec]="exec compile lower tune plan codegen"
)
for stage in "${!stage_allowed[@]}"; do
  [ -d "jit/$stage" ] || continue
  for file in jit/"$stage"/*; do
    while IFS= read -r inc; do
      sub=${inc#jit/}
      sub=${sub%%/*}
      [ -n "${stage_allowed[$sub]+x}" ] || continue  # jit/dump.h, jit/stats.h
      case " ${stage_allowed[$stage]} " in
        *" $sub "*) ;;
        *) echo "layering: $file includes $inc (jit/$stage may not depend on jit/$sub)"; status=1 ;;
      esac
    done < <(sed -n 's/^#include "\(jit\/[^"]*\)".*/\1/p' "$file")
  done
done
# Above the frontend (the framework layers, the examples), only the public API: never the
# frontend's internals (frontend/detail/), the JIT or the runtimes.
for dir in data nn optim record train import examples; do
  [ -d "$dir" ] || continue
  while IFS= read -r -d '' file; do
    while IFS= read -r inc; do
      case "$inc" in
        frontend/detail/* | jit/* | runtime/*)
          echo "layering: $file includes $inc (only the public frontend headers above it)"
          status=1
          ;;
      esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
  done < <(find "$dir" \( -name '*.h' -o -name '*.cc' -o -name '*.cpp' \) -print0)
done
echo "layering: checked $checked files"
exit $status
