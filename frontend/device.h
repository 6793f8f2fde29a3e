#pragma once
#include <string>

namespace ember {

enum class DeviceType { Cpu, Vulkan, Cuda };

// Where tensors live and run. Cheap to copy and compare.
class Device {
 public:
  Device() = default;
  // The CPU: fused kernels compiled by the system C++ compiler, on all cores.
  static Device cpu() { return Device(DeviceType::Cpu, 0); }
  // The CPU reference executor ("cpu-ref"): a primitive at a time, the oracle tests compare
  // every device with.
  static Device cpu_reference() { return Device(DeviceType::Cpu, 1); }
  static Device vulkan(int index = 0) { return Device(DeviceType::Vulkan, index); }
  static Device cuda(int index = 0) { return Device(DeviceType::Cuda, index); }
  // cuda > vulkan GPU > cpu among the backends this build has;
  // EMBER_DEVICE=cpu|cpu-ref|vulkan[:N]|cuda[:N] overrides the choice.
  static Device default_device();
  // "cpu", "cpu-ref", "vulkan", "vulkan:1", "cuda:0"; throws ember::Error on anything else.
  static Device parse(const std::string& text);

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  std::string to_string() const;
  // Whether this build and machine can run tensors on this device.
  bool is_available() const;
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }

 private:
  Device(DeviceType t, int i) : type_(t), index_(i) {}
  DeviceType type_ = DeviceType::Cpu;
  int index_ = 0;
};

// Runs everything recorded for `device` and waits for it.
void sync(const Device& device = Device::default_device());
// Starts everything recorded for `device`: a CUDA device runs it while the host records what
// comes next (the CPU and Vulkan finish it before returning); values are ready when read or
// after sync().
void flush(const Device& device = Device::default_device());

}  // namespace ember
