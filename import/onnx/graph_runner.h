#pragma once
// Running a graph's nodes over an environment of named values: the model's graph, and the
// subgraphs of control-flow nodes (If, Loop), which also read their enclosing graph's values.
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/device.h"
#include "import/onnx/value.h"

namespace ember::onnx_import {

using Env = std::map<std::string, Value>;

// Whether every input of the node is known on the host and its op may be evaluated ahead (then
// it runs on the host: folded constants, shape arithmetic).
bool all_known(const ::onnx::NodeProto& node, const Env& env);

// Runs one node on `device`, storing its outputs in `env` (as host values when `host`).
void run_node(const ::onnx::NodeProto& node, int opset, Env& env, const Device& device, bool host);

// Runs nodes in order: on the host when all_known, on `device` otherwise.
void run_nodes(const std::vector<const ::onnx::NodeProto*>& nodes, int opset, Env& env,
               const Device& device);

// Runs a subgraph with its inputs bound in order, over a copy of the enclosing `outer` values;
// its outputs in order.
std::vector<Value> run_subgraph(const ::onnx::GraphProto& g, int opset, const Env& outer,
                                const std::vector<Value>& inputs, const Device& device);

// Adds every name the node reads, its subgraphs' reads of enclosing values included.
void add_reads(const ::onnx::NodeProto& node, std::set<std::string>& names);

}  // namespace ember::onnx_import
