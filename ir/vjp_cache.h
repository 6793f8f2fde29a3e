#pragma once
// What the rules of one node share between its inputs' gradients: attention's probabilities and
// score gradient, computed once for dq, dk and dv (ir/attention_compose.h). The reverse pass
// keeps one per node while it takes that node's inputs.
#include <vector>

#include "ir/builder.h"

namespace ember::ir {

struct VjpCache {
  std::vector<ValueId> values;  // rule-specific; empty until a rule fills it
};

// vjp (ir/autodiff.h) with a cache shared by the calls for one node's inputs.
ValueId vjp(Builder& b, ValueId id, int input, ValueId grad, const std::vector<ValueId>* values,
            VjpCache* cache);

}  // namespace ember::ir
