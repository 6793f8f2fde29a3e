#pragma once
// The one exception type of Ember. Every misuse is reported as an ember::Error whose message
// names the operation and the shapes involved.
#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ember
