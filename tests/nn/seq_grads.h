#pragma once
// Gradient checks of the sequence modules on any device. On the CPU: against central
// differences in f64 (testing::expect_grads). Elsewhere: the device's gradients against the
// CPU's for the same module and input, in f32; the CPU run checks those against central
// differences. (Central differences of a recurrent graph are hundreds of flushes: minutes on
// lavapipe.)
#include <map>
#include <string>

#include "tests/nn/test_util.h"

namespace ember::nn::testing {

template <Module M, int D>
void expect_grads_on_device(const M& module, const Tensor<D>& x,
                            const std::function<Tensor<1>(const M&, const Tensor<D>&)>& loss,
                            double tol = 1e-5) {
  if (dev().type() == DeviceType::Cpu) return expect_grads<M, D>(module, x, loss, tol);
  auto grads_of = [&](const M& m, const Tensor<D>& in) {
    Tensor<D> xg = in.detach().require_grad();
    Gradients g = loss(m, xg).backward();
    std::map<std::string, std::vector<double>> out{{"input", host(xg.grad(g).value())}};
    visit_params(m, [&](const std::string& path, const auto& p) {
      auto pg = p.grad(g);
      EXPECT_TRUE(pg.has_value()) << "no gradient for " << path;
      if (pg) out[path] = host(*pg);
    });
    return out;
  };
  auto on_device = grads_of(module, x);
  auto on_cpu =
      grads_of(module.to_device(Device::cpu_reference()), x.to_device(Device::cpu_reference()));
  ASSERT_EQ(on_device.size(), on_cpu.size());
  for (const auto& [path, g] : on_cpu) {
    SCOPED_TRACE(path);
    expect_near_all(on_device[path], g, 100 * tol);
  }
}

}  // namespace ember::nn::testing
