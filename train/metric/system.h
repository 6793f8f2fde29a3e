#pragma once
// What the machine is doing, sampled when read: CPU use and memory from /proc (Burn's
// CpuUse and CpuMemory metrics), GPU memory and utilization from NVML (Burn's CudaMetric),
// which is opened with dlopen so that a machine without NVIDIA's driver builds and runs the
// same binary: there gpu_metrics_available() is false and the GPU metrics' constructors throw.
#include <cstdint>
#include <memory>
#include <string>

#include "train/metric/host_metric.h"

namespace ember::train {

// Busy share of all CPUs since the last read, in percent (from /proc/stat's jiffies).
class CpuUsageMetric : public HostMetric {
 public:
  CpuUsageMetric();
  std::string name() const override { return "CPU Usage"; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 1; }

 protected:
  std::optional<double> sample() override;

 private:
  uint64_t busy_ = 0, total_ = 0;
};

// Memory in use on the machine (MemTotal - MemAvailable of /proc/meminfo), in GiB.
class CpuMemoryMetric : public HostMetric {
 public:
  std::string name() const override { return "CPU Memory"; }
  std::string unit() const override { return "GiB"; }
  int precision() const override { return 2; }

 protected:
  std::optional<double> sample() override;
};

// The jiffies of /proc/stat's "cpu" line: busy (all but idle and iowait) and total; throws
// ember::Error when the file cannot be read.
std::pair<uint64_t, uint64_t> read_cpu_jiffies(const std::string& path = "/proc/stat");
// MemTotal - MemAvailable of a /proc/meminfo in GiB; throws ember::Error when it cannot be read.
double read_used_memory_gib(const std::string& path = "/proc/meminfo");

class Nvml;
bool gpu_metrics_available();

// GPU memory in use (GiB) of device `index`.
class GpuMemoryMetric : public HostMetric {
 public:
  explicit GpuMemoryMetric(int index = 0);
  std::string name() const override { return "GPU Memory[" + std::to_string(index_) + "]"; }
  std::string unit() const override { return "GiB"; }
  int precision() const override { return 2; }

 protected:
  std::optional<double> sample() override;

 private:
  std::shared_ptr<Nvml> nvml_;
  int index_;
};

// GPU utilization (percent of time a kernel ran, NVML's sample) of device `index`.
class GpuUtilizationMetric : public HostMetric {
 public:
  explicit GpuUtilizationMetric(int index = 0);
  std::string name() const override { return "GPU Utilization[" + std::to_string(index_) + "]"; }
  std::string unit() const override { return "%"; }
  int precision() const override { return 1; }

 protected:
  std::optional<double> sample() override;

 private:
  std::shared_ptr<Nvml> nvml_;
  int index_;
};

}  // namespace ember::train
