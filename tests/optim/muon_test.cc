// Muon: 5-step trajectories against the reference's rule (momentum, Newton-Schulz
// orthogonalisation of the matrix, plain momentum for the bias) on host doubles.
#include <gtest/gtest.h>

#include "tests/optim/reference.h"

namespace ember::optim {
namespace {

using namespace testing;

using Mat = std::vector<std::vector<double>>;

Mat matmul(const Mat& p, const Mat& q) {
  Mat r(p.size(), std::vector<double>(q[0].size(), 0.0));
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = 0; j < q[0].size(); ++j)
      for (size_t k = 0; k < q.size(); ++k) r[i][j] += p[i][k] * q[k][j];
  return r;
}

Mat transpose(const Mat& p) {
  Mat r(p[0].size(), std::vector<double>(p.size()));
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = 0; j < p[0].size(); ++j) r[j][i] = p[i][j];
  return r;
}

// The reference's zeropower_via_newtonschulz5, for the 3x2 weight (tall: iterated transposed).
Mat newton_schulz5(const Mat& g) {
  Mat x = transpose(g);
  double norm = 0;
  for (const auto& row : x)
    for (double v : row) norm += v * v;
  norm = std::sqrt(norm) + 1e-7;
  for (auto& row : x)
    for (double& v : row) v /= norm;
  for (int it = 0; it < 5; ++it) {
    Mat a = matmul(x, transpose(x)), aa = matmul(a, a);
    Mat b = a;
    for (size_t i = 0; i < b.size(); ++i)
      for (size_t j = 0; j < b[0].size(); ++j) b[i][j] = -4.7750 * a[i][j] + 2.0315 * aa[i][j];
    Mat bx = matmul(b, x);
    for (size_t i = 0; i < x.size(); ++i)
      for (size_t j = 0; j < x[0].size(); ++j) x[i][j] = 3.4445 * x[i][j] + bx[i][j];
  }
  return transpose(x);
}

struct MuonHost {
  double beta = 0.95, wd = 0;
  bool nesterov = true;
  std::vector<double> m = std::vector<double>(8, 0.0);

  void step(HostLinear& h, int k, double lr) {
    std::vector<double> g = h.grads(), u(8);
    for (int i = 0; i < 8; ++i) {
      m[i] = k == 0 ? g[i] : beta * m[i] + g[i];
      u[i] = nesterov ? g[i] + beta * m[i] : m[i];
    }
    Mat uw(3, std::vector<double>(2));
    for (int i = 0; i < 6; ++i) uw[i / 2][i % 2] = u[i];
    Mat o = newton_schulz5(uw);
    const double scale = std::sqrt(3.0 / 2.0);
    for (int i = 0; i < 8; ++i) {
      double step = i < 6 ? scale * o[i / 2][i % 2] : u[i];
      h.p[i] = h.p[i] * (1 - lr * wd) - lr * step;
    }
  }
};

void expect_muon_trajectory(const MuonConfig& config, MuonHost ref) {
  Muon muon = config.init();
  nn::Linear model = fixed_linear();
  HostLinear h;
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("step " + std::to_string(k));
    double lr = lr_at(k, 0.02);
    model = muon.step(lr, model, fixed_grads(model));
    ref.step(h, k, lr);
    expect_near_all(params_of(model), h.p, 1e-5);
  }
}

TEST(Muon, NesterovTrajectory) { expect_muon_trajectory(MuonConfig(), MuonHost{}); }

TEST(Muon, PlainMomentumWithWeightDecay) {
  expect_muon_trajectory(
      MuonConfig().with_nesterov(false).with_momentum(0.9).with_weight_decay(0.1),
      MuonHost{0.9, 0.1, false});
}

TEST(Muon, OrthogonalisesTheUpdate) {
  // Newton-Schulz5 maps every singular value into about [0.7, 1.2] (not exactly 1: the
  // reference's coefficients trade accuracy for speed). Those of the 3x2 result are the square
  // roots of the eigenvalues of the 2x2 O^T O.
  auto u = from_host<2>({1, 2, 3, -1, 0.5, 4}, Shape{3, 2});
  Tensor<2> o = detail::newton_schulz5(u);
  auto oto = host(o.transpose().matmul(o));
  const double tr = oto[0] + oto[3], det = oto[0] * oto[3] - oto[1] * oto[2];
  const double disc = std::sqrt(tr * tr / 4 - det);
  for (double eig : {tr / 2 - disc, tr / 2 + disc}) {
    EXPECT_GT(std::sqrt(eig), 0.65);
    EXPECT_LT(std::sqrt(eig), 1.25);
  }
}

}  // namespace
}  // namespace ember::optim
