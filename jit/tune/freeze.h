#pragma once
// The freeze stage: every kernel of a plan gets its family's variant (forced, stored or the
// heuristic's, always one its operands admit), and a kernel whose key is to be tuned now
// (EMBER_AUTOTUNE=on, no stored winner) is tuned here, on scratch buffers, before anything of
// the flush is lowered for launching. What follows (lowering, compiling, launching) runs the
// frozen plan as EMBER_DUMP=plan prints it.
#include <vector>

#include "jit/codegen/emitter.h"
#include "kernels/kernel_plan.h"
#include "runtime/backend.h"

namespace ember::jit {

// Sets every kernel's variant. `layout` gives each stored value's layout at launch (flush inputs
// as given, with their buffers; computed values contiguous). Returns whether some kernel still
// has a key to tune (never after tuning is allowed: `tune` false leaves such kernels on the
// heuristic's variant, which a caller must not remember as final).
bool freeze_variants(const ir::Graph& g, Plan& plan, const Emitter::LayoutFn& layout,
                     runtime::Backend& backend, bool tune);

// What the families' choices depend on besides the graph and its layouts: the remembered
// winners (kernels/tuning.h) and the EMBER_ environment (forced variants, switches that tests
// and A/B runs set while the process runs). Equal epochs: freezing a plan again changes none
// of its variants, so a replayed flush skips it (choosing ~800 kernels' variants took 8.7 ms
// of every gpt_small_train_step on an H200).
uint64_t variant_epoch();

}  // namespace ember::jit
