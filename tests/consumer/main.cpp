// Uses the installed package: prints the sum of a small product, which the test checks.
#include <ember/ember.h>

int main() {
  using namespace ember;
  auto a = Tensor<2>::from_data({{1.0, 2.0}, {3.0, 4.0}}, Device::cpu());
  auto b = Tensor<2>::eye(2, Device::cpu()) * 2.0;
  std::cout << a.matmul(b).sum().into_scalar<float>() << "\n";  // 2 * (1 + 2 + 3 + 4) = 20
  return 0;
}
