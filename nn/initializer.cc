#include "nn/initializer.h"

#include <cmath>
#include <vector>

#include "frontend/ops.h"

namespace ember::nn {

namespace {

const char* kind_name(Initializer::Kind k) {
  using K = Initializer::Kind;
  switch (k) {
    case K::Constant:
      return "Constant";
    case K::Ones:
      return "Ones";
    case K::Zeros:
      return "Zeros";
    case K::Uniform:
      return "Uniform";
    case K::Normal:
      return "Normal";
    case K::KaimingUniform:
      return "KaimingUniform";
    case K::KaimingNormal:
      return "KaimingNormal";
    case K::XavierUniform:
      return "XavierUniform";
    case K::XavierNormal:
      return "XavierNormal";
    case K::Orthogonal:
      return "Orthogonal";
  }
  return "?";
}

int64_t need_fan(std::optional<int64_t> fan, const char* which, Initializer::Kind k) {
  if (!fan) throw Error(std::string(kind_name(k)) + " initializer: " + which + " is required");
  if (*fan <= 0) {
    throw Error(std::string(kind_name(k)) + " initializer: " + which + " must be positive, got " +
                std::to_string(*fan));
  }
  return *fan;
}

// Columns of the m x n matrix `a` (row-major, m >= n) made orthonormal by modified Gram-Schmidt:
// the Q of a QR factorisation whose R has a positive diagonal (PyTorch's sign correction).
std::vector<double> orthonormal_columns(std::vector<double> a, int64_t m, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < j; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += a[i * n + j] * a[i * n + k];
      for (int64_t i = 0; i < m; ++i) a[i * n + j] -= dot * a[i * n + k];
    }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += a[i * n + j] * a[i * n + j];
    norm = std::sqrt(norm);
    if (norm == 0) throw Error("Orthogonal initializer: drew a rank-deficient matrix");
    for (int64_t i = 0; i < m; ++i) a[i * n + j] /= norm;
  }
  return a;
}

// Orthogonal rows or columns of [shape[0], numel / shape[0]], times gain (as PyTorch's
// orthogonal_, which Burn follows): drawn from a normal matrix on the host.
RawTensor draw_orthogonal(const Shape& shape, double gain, const Device& device) {
  if (shape.rank() < 2) {
    throw Error("Orthogonal initializer: needs a tensor of rank 2 or more, got " +
                shape.to_string());
  }
  int64_t rows = shape[0], cols = shape.numel() / rows;
  bool wide = rows < cols;  // orthonormal rows: factor the transpose
  int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  RawTensor draw = ops::random(Shape{m, n}, Distribution::normal(0, 1), DType::F64, Device::cpu());
  std::vector<double> q = orthonormal_columns(draw.to_data().to_vec<double>(), m, n);
  std::vector<float> out(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float v = static_cast<float>(gain * q[i * n + j]);
      if (wide) {
        out[j * cols + i] = v;
      } else {
        out[i * cols + j] = v;
      }
    }
  }
  return ops::reshape(Tensor<2>::from_data(TensorData(out, Shape{rows, cols}), device).raw(),
                      shape.vector());
}

}  // namespace

void Initializer::check(const Shape& shape, std::optional<int64_t> fan_in,
                        std::optional<int64_t> fan_out) const {
  switch (kind_) {
    case Kind::KaimingUniform:
    case Kind::KaimingNormal:
      need_fan(fan_out_only_ ? fan_out : fan_in, fan_out_only_ ? "fan_out" : "fan_in", kind_);
      break;
    case Kind::XavierUniform:
    case Kind::XavierNormal:
      need_fan(fan_in, "fan_in", kind_);
      need_fan(fan_out, "fan_out", kind_);
      break;
    case Kind::Orthogonal:
      if (shape.rank() < 2) {
        throw Error("Orthogonal initializer: needs a tensor of rank 2 or more, got " +
                    shape.to_string());
      }
      break;
    case Kind::Uniform:
      if (!(a_ < b_)) throw Error("Uniform initializer: min must be below max");
      break;
    case Kind::Normal:
      if (!(b_ >= 0)) throw Error("Normal initializer: std must not be negative");
      break;
    default:
      break;
  }
}

RawTensor Initializer::init_raw(const Shape& shape, const Device& device,
                                std::optional<int64_t> fan_in,
                                std::optional<int64_t> fan_out) const {
  check(shape, fan_in, fan_out);
  auto uniform = [&](double bound) {
    return ops::random(shape, Distribution::uniform(-bound, bound), DType::F32, device);
  };
  auto normal = [&](double std) {
    return ops::random(shape, Distribution::normal(0, std), DType::F32, device);
  };
  switch (kind_) {
    case Kind::Constant:
      return ops::full(shape, a_, DType::F32, device);
    case Kind::Ones:
      return ops::ones(shape, DType::F32, device);
    case Kind::Zeros:
      return ops::zeros(shape, DType::F32, device);
    case Kind::Uniform:
      return ops::random(shape, Distribution::uniform(a_, b_), DType::F32, device);
    case Kind::Normal:
      return ops::random(shape, Distribution::normal(a_, b_), DType::F32, device);
    case Kind::KaimingUniform:
    case Kind::KaimingNormal: {
      double fan = static_cast<double>(*(fan_out_only_ ? fan_out : fan_in));
      double std = a_ / std::sqrt(fan);
      return kind_ == Kind::KaimingUniform ? uniform(std::sqrt(3.0) * std) : normal(std);
    }
    case Kind::XavierUniform:
    case Kind::XavierNormal: {
      double std = a_ * std::sqrt(2.0 / static_cast<double>(*fan_in + *fan_out));
      return kind_ == Kind::XavierUniform ? uniform(std::sqrt(3.0) * std) : normal(std);
    }
    case Kind::Orthogonal:
      return draw_orthogonal(shape, a_, device);
  }
  throw Error("Initializer: unknown kind");
}

std::string Initializer::to_string() const {
  auto num = [](double v) { return nlohmann::json(v).dump(); };
  std::string name = kind_name(kind_);
  switch (kind_) {
    case Kind::Constant:
      return name + " {value: " + num(a_) + "}";
    case Kind::Uniform:
      return name + " {min: " + num(a_) + ", max: " + num(b_) + "}";
    case Kind::Normal:
      return name + " {mean: " + num(a_) + ", std: " + num(b_) + "}";
    case Kind::KaimingUniform:
    case Kind::KaimingNormal:
      return name + " {gain: " + num(a_) + ", fan_out_only: " + (fan_out_only_ ? "true" : "false") +
             "}";
    case Kind::XavierUniform:
    case Kind::XavierNormal:
    case Kind::Orthogonal:
      return name + " {gain: " + num(a_) + "}";
    default:
      return name;
  }
}

nlohmann::json Initializer::to_json() const {
  using json = nlohmann::json;
  std::string name = kind_name(kind_);
  switch (kind_) {
    case Kind::Ones:
    case Kind::Zeros:
      return name;
    case Kind::Constant:
      return json{{name, {{"value", a_}}}};
    case Kind::Uniform:
      return json{{name, {{"min", a_}, {"max", b_}}}};
    case Kind::Normal:
      return json{{name, {{"mean", a_}, {"std", b_}}}};
    case Kind::KaimingUniform:
    case Kind::KaimingNormal:
      return json{{name, {{"gain", a_}, {"fan_out_only", fan_out_only_}}}};
    default:
      return json{{name, {{"gain", a_}}}};
  }
}

Initializer Initializer::from_json(const nlohmann::json& j) {
  try {
    if (j.is_string()) {
      std::string name = j.get<std::string>();
      if (name == "Ones") return ones();
      if (name == "Zeros") return zeros();
      throw Error("Initializer: unknown initializer \"" + name + "\"");
    }
    if (!j.is_object() || j.size() != 1) {
      throw Error("Initializer: expected {\"Kind\": {...}}, got " + j.dump());
    }
    const std::string name = j.begin().key();
    const nlohmann::json& v = j.begin().value();
    if (name == "Constant") return constant(v.at("value").get<double>());
    if (name == "Uniform") return uniform(v.at("min").get<double>(), v.at("max").get<double>());
    if (name == "Normal") return normal(v.at("mean").get<double>(), v.at("std").get<double>());
    if (name == "KaimingUniform" || name == "KaimingNormal") {
      double gain = v.at("gain").get<double>();
      bool out = v.at("fan_out_only").get<bool>();
      return name == "KaimingUniform" ? kaiming_uniform(gain, out) : kaiming_normal(gain, out);
    }
    if (name == "XavierUniform") return xavier_uniform(v.at("gain").get<double>());
    if (name == "XavierNormal") return xavier_normal(v.at("gain").get<double>());
    if (name == "Orthogonal") return orthogonal(v.at("gain").get<double>());
    throw Error("Initializer: unknown initializer \"" + name + "\"");
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("Initializer: bad JSON: ") + e.what());
  }
}

}  // namespace ember::nn
