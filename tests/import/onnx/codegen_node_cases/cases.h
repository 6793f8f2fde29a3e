#pragma once
// A generated node-case model, rank-erased: its record and its run() on host tensors.
#include <ember/frontend/tensor_data.h>

#include <functional>
#include <string>
#include <vector>

struct Case {
  std::string name;
  std::function<std::vector<ember::TensorData>(const std::string& record,
                                               const std::vector<ember::TensorData>& inputs)>
      run;
};

// Defined by the generated parts (codegen_node_cases.sh).
void add_cases(std::vector<Case>& cases);
