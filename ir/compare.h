#pragma once
// Node equality for replaying a flush: a stream compares each node it records with the node at
// the same position in its previous flush; a graph equal node for node (and with the same
// outputs) needs no hashing or planning again.
#include "ir/graph.h"

namespace ember::ir {

// Everything but the runtime scalars: op, inputs, dtype, every size, every attribute. Equal
// nodes lower to the same kernels with the same parameters but for the scalar words.
bool same_structure(const Node& a, const Node& b);

// The runtime scalars (fill and pad values, random parameters, seeds and offsets), bit for bit,
// of two nodes with the same structure.
bool same_scalars(const Node& a, const Node& b);

}  // namespace ember::ir
