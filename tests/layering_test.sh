#!/usr/bin/env bash
# Fails when a source file includes a header from a layer above its own (DESIGN.md section 1).
set -euo pipefail
root=${1:-.}
cd "$root"
# kernels/ sits between jit/codegen (the target it lowers into, with jit/dump.h) and the rest of
# jit/ (the stages that plan, freeze, lower, compile and launch its kernels): see the exceptions
# below the table.
declare -A allowed=(
  [ir]="ir"
  [runtime]="ir runtime"
  [autotune]="ir runtime autotune"
  [kernels]="ir runtime autotune kernels"
  [jit]="ir runtime autotune kernels jit"
  [frontend]="ir runtime autotune kernels jit frontend"
  [record]="ir frontend record"
  [nn]="ir frontend record nn"
  [optim]="ir frontend record nn optim"
  [data]="ir frontend data"
  [train]="ir frontend record nn optim data train"
  [import]="ir frontend record nn import"
  [tools]="ir runtime autotune kernels jit frontend record nn optim data train import tools"
)
layers="ir runtime autotune kernels jit frontend record nn optim data train import tools"
status=0
checked=0
for layer in "${!allowed[@]}"; do
  [ -d "$layer" ] || continue
  while IFS= read -r -d '' file; do
    checked=$((checked + 1))
    while IFS= read -r inc; do
      top=${inc%%/*}
      case " $layers " in *" $top "*) ;; *) continue ;; esac
      # The families lower into the codegen target below them.
      if [ "$layer" = kernels ]; then
        case "$inc" in jit/codegen/* | jit/dump.h) continue ;; esac
      fi
      # The codegen target sees no kernel family, only the device code they embed.
      case "$file" in
        jit/codegen/*)
          case "$inc" in
            kernels/*/device_code.h) continue ;;
            kernels/*)
              echo "layering: $file includes $inc (jit/codegen is below kernels/)"
              status=1
              continue
              ;;
          esac
          ;;
      esac
      case " ${allowed[$layer]} " in
        *" $top "*) ;;
        *) echo "layering: $file includes $inc ($layer may not depend on $top)"; status=1 ;;
      esac
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
  done < <(find "$layer" -name '*.h' -print0 -o -name '*.cc' -print0)
done
# Inside jit/, the stages (DESIGN.md section 4), in their order: codegen (render core and
# dialects) stands alone; plan sees the families (kernels/) and no other stage; tune (the freeze
# stage) lowers and compiles its candidates; lower sees codegen; compile sees codegen; exec sees
# every stage. dump.h and stats.h at jit/'s top serve every stage.
declare -A stage_allowed=(
  [codegen]="codegen"
  [plan]="plan"
  [compile]="compile codegen"
  [lower]="lower codegen"
  [tune]="tune lower compile plan codegen"
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
