// Writing the generated files and the record: all into a temporary folder beside the target,
// renamed at the end, so a failure (an unsupported node, a full disk) leaves nothing partial.
#include <filesystem>
#include <fstream>
#include <random>

#include "import/onnx/codegen/cpp_module.h"
#include "nn/record.h"

namespace ember::onnx_import::codegen {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw Error("onnx: cannot write " + path.string());
}

fs::path temp_beside(const fs::path& target) {
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    fs::path p = target;
    p += ".tmp-" + std::to_string(rd());
    std::error_code ec;
    if (fs::create_directory(p, ec)) return p;
  }
  throw Error("onnx: cannot make a temporary folder beside " + target.string());
}

}  // namespace

void write_cpp(const Model& model, const CppOptions& options, const std::string& out_dir) {
  fs::path target = fs::path(out_dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  std::error_code ec;
  if (fs::exists(target, ec) && !(fs::is_directory(target, ec) && fs::is_empty(target, ec))) {
    throw Error("onnx: " + target.string() + " exists and is not an empty folder");
  }
  // Everything that can fail on the model (unsupported nodes) fails before anything is written.
  CppFiles files = generate_cpp(model, options);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  fs::path tmp = temp_beside(target);
  try {
    const std::string& n = options.class_name;
    write_text(tmp / (n + ".h"), files.header);
    write_text(tmp / (n + ".cc"), files.source);
    write_text(tmp / "CMakeLists.txt", files.cmake);
    nn::save(model.weights(), (tmp / (n + ".ember")).string());
    if (fs::exists(target)) fs::remove(target);  // the empty folder
    fs::rename(tmp, target);
  } catch (const std::exception& e) {
    fs::remove_all(tmp, ec);
    throw Error(std::string("onnx: writing ") + target.string() + ": " + e.what());
  }
}

}  // namespace ember::onnx_import::codegen
