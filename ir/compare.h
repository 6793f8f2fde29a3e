#pragma once
// Node equality for replaying a flush: a stream compares each node it records with the node at
// the same position in its previous flush; a graph equal node for node (and with the same
// outputs) needs no hashing or planning again.
#include "ir/graph.h"

namespace ember::ir {

// Scalars bit for bit (-0 and 0 differ, a NaN equals the same NaN): what kernels read as
// parameter words.
bool identical(const Scalar& a, const Scalar& b);

enum class NodeMatch {
  Different,     // op, inputs, dtype, a size or an attribute differs
  OtherScalars,  // equal but for runtime scalars (fill and pad values, random parameters)
  Same,
};

// Equal structure lowers to the same kernels with the same parameters but for the scalar
// words; scalars are compared bit for bit.
NodeMatch match_nodes(const Node& a, const Node& b);

}  // namespace ember::ir
