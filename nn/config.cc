#include "nn/config.h"

#include <cstdio>

namespace ember::nn::detail {

// Written to a temporary file and renamed, so a failed write never leaves half a config.
void write_text_file(const std::string& path, const std::string& text, const char* what) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.good()) throw Error(std::string(what) + ": cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(std::string(what) + ": cannot rename " + tmp + " to " + path);
  }
}

std::string read_text_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(std::string(what) + ": cannot open " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json parse_json(const std::string& text, const char* what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string(what) + ": not JSON: " + e.what());
  }
}

}  // namespace ember::nn::detail
