// A walk through Ember's tensors, following the Burn Book's tensor chapter: creating tensors,
// sharing them, the main op families, printing, and checking closeness. Nothing runs until data
// is read: each print below is a sync point that plans and executes what was recorded.
#include <ember/ember.h>

#include <iomanip>

using namespace ember;

int main() {
  Device device = Device::default_device();
  std::cout << "device: " << device.to_string() << "\n\n";

  // Initialization: from nested lists, from TensorData, from ints, from a custom struct.
  auto tensor_1 = Tensor<1>::from_data({1.0, 2.0, 3.0}, device);
  auto tensor_2 = Tensor<1>::from_data(TensorData(std::vector<float>{1.0f, 2.0f, 3.0f}), device);
  auto tensor_3 = Tensor<1>::from_floats({1.0, 2.0, 3.0}, device);
  std::vector<int32_t> arr{1, 2, 3, 4, 5, 6};
  auto tensor_4 = Tensor<1, Int>::from_data(
      TensorData(std::vector<int32_t>(arr.begin(), arr.begin() + 3)), device);
  struct BodyMetrics {
    int8_t age;
    int16_t height;
    float weight;
  } bmi{25, 180, 80.0f};
  auto tensor_5 = Tensor<1>::from_data(
      TensorData(std::vector<float>{static_cast<float>(bmi.age), static_cast<float>(bmi.height),
                                    bmi.weight}),
      device);
  std::cout << "tensor_1 + tensor_2 + tensor_3 = " << (tensor_1 + tensor_2 + tensor_3).to_string()
            << "\ntensor_4 = " << tensor_4.to_string() << "\ntensor_5 = " << tensor_5.to_string()
            << "\n\n";

  // Sharing: a Tensor is a cheap handle, so reusing one needs no clone and copies no data.
  auto input = Tensor<1>::from_floats({1.0, 2.0, 3.0, 4.0}, device);
  auto min = input.min();
  auto max = input.max();
  auto normalized = (input - min).div(max - min);
  std::cout << "min-max normalized: " << normalized.to_data().to_string() << "\n\n";

  // Numeric, float, int and bool operations.
  auto x = Tensor<2>::from_data({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}, device);
  std::cout << "x.abs().sum_dim(1) = " << x.abs().sum_dim(1).to_data().to_string() << "\n";
  std::cout << "x.matmul(x.transpose()) = " << x.matmul(x.transpose()).to_data().to_string()
            << "\n";
  std::cout << "x.argmax(1) = " << x.argmax(1).to_data().to_string() << "\n";
  auto [sorted, indices] = x.sort_descending_with_indices(1);
  std::cout << "sorted rows = " << sorted.to_data().to_string()
            << ", their indices = " << indices.to_data().to_string() << "\n";
  std::cout << "positives = " << x.greater_elem(0.0).argwhere().to_data().to_string() << "\n";
  std::cout << "arange(0, 10, 3) = "
            << Tensor<1, Int>::arange_step(0, 10, 3, device).to_data().to_string() << "\n";
  std::cout << "softmax(x, 1) = " << activation::softmax(x, 1).to_data().to_string() << "\n";
  std::cout << "gelu(x) = " << activation::gelu(x).to_data().to_string() << "\n";
  std::cout << "l2 norm of rows = "
            << linalg::vector_norm(x, linalg::Norm::l2(), 1).to_data().to_string() << "\n\n";

  // Random tensors follow the global seed.
  seed(42);
  auto noise = Tensor<2>::random({2, 3}, Distribution::normal(0.0, 1.0), device);

  // Display: the full block, then with two decimals.
  auto full = Tensor<2>::full({2, 3}, 0.123456789, device);
  std::cout << full << "\n";
  std::cout << std::fixed << std::setprecision(2) << full << std::defaultfloat << "\n";
  std::cout << "noise = " << noise.to_string(3) << "\n\n";

  // Closeness.
  auto t1 =
      Tensor<1>::from_floats({1.0, 2.0, 3.0, 4.0, 5.0, 6.001, 7.002, 8.003, 9.004, 10.1}, device);
  auto t2 =
      Tensor<1>::from_floats({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.001, 8.002, 9.003, 10.004}, device);
  check_closeness(t1, t2);
  std::cout << "all_close(atol 0.2): " << std::boolalpha << t1.all_close(t2, 0.0, 0.2) << "\n";

  // Errors are reported at the call that recorded the misuse, and nothing else is disturbed.
  try {
    auto bad = x.matmul(x);
  } catch (const Error& e) {
    std::cout << "caught: " << e.what() << "\n";
  }
  std::cout << "\nstats: " << stats(device).to_string() << "\n";
  return 0;
}
