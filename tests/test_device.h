#pragma once
// The device a suite runs on, as ctest names it: "vulkan:0", or "vulkan:0+unfused" to run it
// with fusion off (ctest's gtest discovery keeps only one ENVIRONMENT entry per test, so the
// switch travels in the device's name). The CPU target's runs compile every flush
// (EMBER_CPU_COMPILE=always unless set): those runs test its compiled kernels.
#include <ember/ember.h>
#include <stdlib.h>

#include <string>

namespace ember::testing {

inline Device parse_test_device(std::string name) {
  const std::string unfused = "+unfused";
  if (name.size() > unfused.size() &&
      name.compare(name.size() - unfused.size(), unfused.size(), unfused) == 0) {
    name.resize(name.size() - unfused.size());
    setenv("EMBER_FUSION", "0", 1);
  }
  Device d = Device::parse(name);
  if (d == Device::cpu()) setenv("EMBER_CPU_COMPILE", "always", 0);
  return d;
}

}  // namespace ember::testing
