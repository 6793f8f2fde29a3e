#include "autotune/mode.h"

#include <cstdlib>
#include <string_view>

namespace ember::autotune {

Mode mode(bool tunable_device) {
  const char* env = std::getenv("EMBER_AUTOTUNE");
  std::string_view v = env ? env : "";
  if (v == "off" || v == "0") return Mode::off;
  if (v == "cached") return Mode::cached;
  if (v == "on" || v == "1") return Mode::on;
  return tunable_device ? Mode::on : Mode::cached;
}

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::off:
      return "off";
    case Mode::cached:
      return "cached";
    case Mode::on:
      return "on";
  }
  return "?";
}

}  // namespace ember::autotune
