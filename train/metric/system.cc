#include "train/metric/system.h"

#include <dlfcn.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include "ir/error.h"

namespace ember::train {

std::pair<uint64_t, uint64_t> read_cpu_jiffies(const std::string& path) {
  std::ifstream in(path);
  std::string label;
  if (!(in >> label) || label != "cpu") throw Error("CPU Usage: cannot read " + path);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  uint64_t value = 0, total = 0, idle = 0;
  for (int field = 0; field < 8 && in >> value; ++field) {
    total += value;
    if (field == 3 || field == 4) idle += value;
  }
  return {total - idle, total};
}

double read_used_memory_gib(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  double total_kib = -1, available_kib = -1;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    fields >> key >> kib;
    if (key == "MemTotal:") total_kib = kib;
    if (key == "MemAvailable:") available_kib = kib;
  }
  if (total_kib < 0 || available_kib < 0) {
    throw Error("CPU Memory: no MemTotal and MemAvailable in " + path);
  }
  return (total_kib - available_kib) / (1024.0 * 1024.0);
}

CpuUsageMetric::CpuUsageMetric() { std::tie(busy_, total_) = read_cpu_jiffies(); }

std::optional<double> CpuUsageMetric::sample() {
  auto [busy, total] = read_cpu_jiffies();
  const uint64_t d_busy = busy - busy_, d_total = total - total_;
  busy_ = busy, total_ = total;
  if (d_total == 0) return std::nullopt;  // under a jiffy since the last read
  return 100.0 * static_cast<double>(d_busy) / static_cast<double>(d_total);
}

std::optional<double> CpuMemoryMetric::sample() { return read_used_memory_gib(); }

// The few NVML entry points used, with the types of nvml.h (a stable C ABI).
class Nvml {
 public:
  struct Memory {
    unsigned long long total, free, used;
  };
  struct Utilization {
    unsigned int gpu, memory;
  };
  using DeviceHandle = void*;

  static std::shared_ptr<Nvml> open() {
    static std::mutex mutex;
    static std::weak_ptr<Nvml> shared;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto nvml = shared.lock()) return nvml;
    auto nvml = std::shared_ptr<Nvml>(new Nvml());
    if (!nvml->ok()) return nullptr;
    shared = nvml;
    return nvml;
  }
  ~Nvml() {
    if (shutdown_) shutdown_();
    if (lib_) dlclose(lib_);
  }

  DeviceHandle device(int index, const std::string& metric) const {
    DeviceHandle handle = nullptr;
    if (get_handle_(static_cast<unsigned>(index), &handle) != 0) {
      throw Error(metric + ": NVML has no GPU " + std::to_string(index));
    }
    return handle;
  }
  std::optional<Memory> memory(DeviceHandle d) const {
    Memory m{};
    if (get_memory_(d, &m) != 0) return std::nullopt;
    return m;
  }
  std::optional<Utilization> utilization(DeviceHandle d) const {
    Utilization u{};
    if (get_utilization_(d, &u) != 0) return std::nullopt;
    return u;
  }

 private:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    init_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlShutdown"));
    get_handle_ = reinterpret_cast<int (*)(unsigned, DeviceHandle*)>(
        dlsym(lib_, "nvmlDeviceGetHandleByIndex_v2"));
    get_memory_ =
        reinterpret_cast<int (*)(DeviceHandle, Memory*)>(dlsym(lib_, "nvmlDeviceGetMemoryInfo"));
    get_utilization_ = reinterpret_cast<int (*)(DeviceHandle, Utilization*)>(
        dlsym(lib_, "nvmlDeviceGetUtilizationRates"));
    initialized_ =
        init_ && shutdown_ && get_handle_ && get_memory_ && get_utilization_ && init_() == 0;
    if (!initialized_) shutdown_ = nullptr;
  }
  bool ok() const { return initialized_; }

  void* lib_ = nullptr;
  bool initialized_ = false;
  int (*init_)() = nullptr;
  int (*shutdown_)() = nullptr;
  int (*get_handle_)(unsigned, DeviceHandle*) = nullptr;
  int (*get_memory_)(DeviceHandle, Memory*) = nullptr;
  int (*get_utilization_)(DeviceHandle, Utilization*) = nullptr;
};

bool gpu_metrics_available() { return Nvml::open() != nullptr; }

namespace {
std::shared_ptr<Nvml> open_nvml(const std::string& metric) {
  auto nvml = Nvml::open();
  if (!nvml) throw Error(metric + ": NVML (libnvidia-ml.so.1) is not available on this machine");
  return nvml;
}
}  // namespace

GpuMemoryMetric::GpuMemoryMetric(int index) : nvml_(open_nvml("GPU Memory")), index_(index) {
  nvml_->device(index, name());
}

std::optional<double> GpuMemoryMetric::sample() {
  auto m = nvml_->memory(nvml_->device(index_, name()));
  if (!m) return std::nullopt;
  return static_cast<double>(m->used) / (1024.0 * 1024.0 * 1024.0);
}

GpuUtilizationMetric::GpuUtilizationMetric(int index)
    : nvml_(open_nvml("GPU Utilization")), index_(index) {
  nvml_->device(index, name());
}

std::optional<double> GpuUtilizationMetric::sample() {
  auto u = nvml_->utilization(nvml_->device(index_, name()));
  if (!u) return std::nullopt;
  return static_cast<double>(u->gpu);
}

}  // namespace ember::train
