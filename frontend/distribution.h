#pragma once
// Distributions for random tensors (Burn's Default, Uniform, Normal, Bernoulli).
namespace ember {

struct Distribution {
  enum class Kind { Default, Uniform, Normal, Bernoulli };
  Kind kind = Kind::Default;
  double a = 0, b = 1;

  // Uniform in [0, 1).
  static Distribution default_() { return {Kind::Default, 0, 1}; }
  // Uniform in [low, high).
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  // 1 with probability p, else 0.
  static Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0}; }
};

}  // namespace ember
