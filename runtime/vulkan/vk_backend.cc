// The Vulkan backend: memory, transfers, pipelines, and one command buffer per flush with
// barriers only between dependent dispatches.
#include "runtime/vulkan/vk_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "runtime/vulkan/vk_context.h"
#include "runtime/vulkan/vk_memory.h"

namespace ember::runtime {
namespace vk {
namespace {

// Parameters for the launches of one command buffer live in one host-visible arena.
constexpr size_t kParamArenaBytes = 1 << 20;

class VulkanKernel;

// The kernels of one backend that are alive. The kernel caches keep kernels for the whole
// process, so the backend's shutdown at exit destroys their pipelines through this set.
class KernelSet {
 public:
  void add(VulkanKernel* k) {
    std::lock_guard lock(mutex_);
    kernels_.insert(k);
  }
  void remove(VulkanKernel* k) {
    std::lock_guard lock(mutex_);
    kernels_.erase(k);
  }
  void release_all();

 private:
  std::mutex mutex_;
  std::set<VulkanKernel*> kernels_;
};

class VulkanKernel final : public Kernel {
 public:
  VulkanKernel(const Context& ctx, const KernelBinary& bin, KernelSet& set);
  ~VulkanKernel() override;
  // Destroys the pipeline and its layouts (once; the device shutting down, or the destructor).
  void release();
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  int num_buffers;
  int push_words;

 private:
  void create(const KernelBinary& bin);
  const Context& ctx_;
  KernelSet& set_;
};

void KernelSet::release_all() {
  std::lock_guard lock(mutex_);
  for (VulkanKernel* k : kernels_) k->release();
}

VulkanKernel::VulkanKernel(const Context& ctx, const KernelBinary& bin, KernelSet& set)
    : num_buffers(bin.num_buffers), push_words(bin.push_constant_words), ctx_(ctx), set_(set) {
  try {
    create(bin);
  } catch (...) {
    release();
    throw;
  }
  set_.add(this);
}

void VulkanKernel::create(const KernelBinary& bin) {
  const Api& a = ctx_.api();
  VkDevice dev = ctx_.device();
  std::vector<VkDescriptorSetLayoutBinding> bindings(bin.num_buffers + 1);
  for (int i = 0; i <= bin.num_buffers; ++i) {
    bindings[i] = {static_cast<uint32_t>(i), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  sl.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  sl.bindingCount = static_cast<uint32_t>(bindings.size());
  sl.pBindings = bindings.data();
  check(a.vkCreateDescriptorSetLayout(dev, &sl, nullptr, &set_layout),
        "vkCreateDescriptorSetLayout");
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &set_layout;
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(push_words) * 4};
  if (push_words > 0) {
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
  }
  check(a.vkCreatePipelineLayout(dev, &pl, nullptr, &layout), "vkCreatePipelineLayout");
  VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  sm.codeSize = bin.spirv.size() * 4;
  sm.pCode = bin.spirv.data();
  VkShaderModule module;
  check(a.vkCreateShaderModule(dev, &sm, nullptr, &module), "vkCreateShaderModule");
  // Workgroup size is specialization constant 0 (local_size_x_id = 0 in the shader).
  VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
  VkSpecializationInfo spec{1, &entry, sizeof(uint32_t), &bin.workgroup_size};
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &spec;
  ci.layout = layout;
  VkResult r = a.vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
  a.vkDestroyShaderModule(dev, module, nullptr);
  check(r, ("vkCreateComputePipelines for " + bin.name).c_str());
}

VulkanKernel::~VulkanKernel() {
  set_.remove(this);
  release();
}

void VulkanKernel::release() {
  if (ctx_.closed()) return;  // the device took its objects with it
  const Api& a = ctx_.api();
  a.vkDestroyPipeline(ctx_.device(), pipeline, nullptr);
  a.vkDestroyPipelineLayout(ctx_.device(), layout, nullptr);
  a.vkDestroyDescriptorSetLayout(ctx_.device(), set_layout, nullptr);
  pipeline = VK_NULL_HANDLE;
  layout = VK_NULL_HANDLE;
  set_layout = VK_NULL_HANDLE;
}

// A byte range of one block, for hazard tracking.
struct Range {
  const Block* block;
  VkDeviceSize begin, end;
  bool overlaps(const Range& o) const { return block == o.block && begin < o.end && o.begin < end; }
};

class VulkanBackend final : public Backend {
 public:
  explicit VulkanBackend(int index);
  DeviceKind kind() const override { return DeviceKind::Vulkan; }
  std::string name() const override {
    return absl::StrCat("vulkan:", index_, " (", ctx_.info().name, ", ", ctx_.info().type_name(),
                        ")");
  }
  bool runs_on_cpu() const override { return ctx_.info().type == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  std::string fingerprint() const override {
    const auto& i = ctx_.info();
    return absl::StrCat("vulkan ", absl::Hex(i.vendor_id), " ", i.name, " driver ",
                        i.driver_version);
  }
  Array allocate(const TensorType& type) override;
  Array upload(const TensorType& type, const void* data) override;
  void download(const Array& a, void* dst) override;
  Array run_primitive(const ir::Node& node, std::span<const Array>) override {
    throw Error(
        absl::StrCat("vulkan: primitive ", ir::op_name(node.op), " must be compiled by the jit"));
  }
  std::shared_ptr<Kernel> load_kernel(const KernelBinary& binary) override {
    check_open();
    return std::make_shared<VulkanKernel>(ctx_, binary, kernels_);
  }
  void launch(const Kernel& kernel, const Launch& launch) override;
  void sync() override {
    std::lock_guard lock(mutex_);
    if (!ctx_.closed()) submit_and_wait();
  }
  // Finishes the device's work and destroys everything made on it, the device last; called when
  // the process exits (at_instance_exit). The backend object itself stays, inert: tensors and
  // kernels held by statics destroyed later release nothing, and any other use throws.
  void shutdown();
  MemoryStats memory_stats() const override { return device_mem_.stats(); }
  uint32_t max_workgroups() const override { return ctx_.limits().max_workgroup_count_x; }
  // One storage buffer may hold the parameters (when they exceed the push constants).
  int max_bindings() const override {
    return static_cast<int>(std::min<uint32_t>(ctx_.limits().max_storage_buffers, 1u << 20)) - 1;
  }
  double take_device_time_ns() override {
    std::lock_guard lock(mutex_);
    if (query_pool_ == VK_NULL_HANDLE) return -1;
    double t = device_ns_;
    device_ns_ = 0;
    return t;
  }
  void reset_peak_memory() override { device_mem_.reset_peak(); }

 private:
  void check_open() const;
  void submit_and_wait();
  void end_submit_wait();  // ends cmd_, submits it and waits for it
  void wait_for_fence();
  static constexpr std::chrono::microseconds kFencePoll{200};
  void begin_if_needed();
  Array allocate_unfilled(const TensorType& type);
  static bool poison_new_buffers();
  void poison(const VulkanBuffer& b);
  void barrier_if_hazard(const std::vector<Range>& reads, const std::vector<Range>& writes);
  // Runs `record` in its own command buffer and waits (staging copies).
  template <class F>
  void one_shot(F&& record);

  int index_;
  Context ctx_;
  Allocator device_mem_;
  Allocator host_mem_;
  std::mutex mutex_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  bool recording_ = false;
  std::shared_ptr<VulkanBuffer> params_;
  size_t params_used_ = 0;
  std::vector<Range> pending_reads_, pending_writes_;
  std::vector<Array> keep_alive_;            // buffers bound by recorded launches
  VkQueryPool query_pool_ = VK_NULL_HANDLE;  // begin/end timestamps of each submission
  double device_ns_ = 0;
  KernelSet kernels_;
};

VulkanBackend::VulkanBackend(int index)
    : index_(index),
      ctx_(index),
      device_mem_(ctx_, prefers_host_visible(ctx_)),
      host_mem_(ctx_, true) {
  const Api& a = ctx_.api();
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = ctx_.queue_family();
  check(a.vkCreateCommandPool(ctx_.device(), &pci, nullptr, &pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  check(a.vkAllocateCommandBuffers(ctx_.device(), &ai, &cmd_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  check(a.vkCreateFence(ctx_.device(), &fci, nullptr, &fence_), "vkCreateFence");
  params_ = host_mem_.allocate(kParamArenaBytes);
  if (ctx_.limits().timestamps) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    check(a.vkCreateQueryPool(ctx_.device(), &qi, nullptr, &query_pool_), "vkCreateQueryPool");
  }
}

void VulkanBackend::check_open() const {
  if (ctx_.closed()) {
    throw Error("vulkan: " + ctx_.info().name + " was used after it shut down at exit");
  }
}

void VulkanBackend::shutdown() {
  std::lock_guard lock(mutex_);
  if (ctx_.closed()) return;
  try {
    submit_and_wait();
  } catch (const Error&) {
    // A failed submission leaves nothing to wait for; the device is destroyed all the same.
  }
  keep_alive_.clear();
  kernels_.release_all();
  params_.reset();
  device_mem_.close();
  host_mem_.close();
  const Api& a = ctx_.api();
  if (query_pool_ != VK_NULL_HANDLE) a.vkDestroyQueryPool(ctx_.device(), query_pool_, nullptr);
  a.vkDestroyFence(ctx_.device(), fence_, nullptr);
  a.vkDestroyCommandPool(ctx_.device(), pool_, nullptr);  // frees cmd_ too
  query_pool_ = VK_NULL_HANDLE;
  fence_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
  cmd_ = VK_NULL_HANDLE;
  ctx_.close();
}

Array VulkanBackend::allocate_unfilled(const TensorType& type) {
  size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
  if (bytes > ctx_.limits().max_storage_buffer_range) {
    throw Error(absl::StrCat(
        "vulkan: tensor ", type.to_string(), " (", bytes, " bytes) exceeds maxStorageBufferRange (",
        ctx_.limits().max_storage_buffer_range, " bytes) of ", ctx_.info().name));
  }
  return Array::contiguous(device_mem_.allocate(bytes), type);
}

Array VulkanBackend::allocate(const TensorType& type) {
  Array out = allocate_unfilled(type);
  if (poison_new_buffers() && out.buffer->bytes() > 0)
    poison(*static_cast<VulkanBuffer*>(out.buffer.get()));
  return out;
}

// EMBER_DEBUG_POISON=1: every new buffer starts as all-ones bytes (NaN for floats, -1 for
// integers) instead of whatever its memory held, so a kernel that reads an element nobody wrote
// shows it on every driver (lavapipe's fresh memory is mostly zeros, a GPU's is old data).
bool VulkanBackend::poison_new_buffers() {
  static const bool on = [] {
    const char* env = std::getenv("EMBER_DEBUG_POISON");
    return env != nullptr && std::string_view(env) == "1";
  }();
  return on;
}

void VulkanBackend::poison(const VulkanBuffer& b) {
  std::lock_guard lock(mutex_);
  begin_if_needed();
  const Api& a = ctx_.api();
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
  mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  a.vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 1, &mb, 0, nullptr, 0, nullptr);
  a.vkCmdFillBuffer(cmd_, b.vk_buffer(), b.offset(), b.range() / 4 * 4, 0xffffffffu);
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  a.vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 1, &mb, 0, nullptr, 0, nullptr);
}

template <class F>
void VulkanBackend::one_shot(F&& record) {
  submit_and_wait();
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(ctx_.api().vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
  record(cmd_);
  end_submit_wait();
}

void VulkanBackend::end_submit_wait() {
  const Api& a = ctx_.api();
  check(a.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  check(a.vkQueueSubmit(ctx_.queue(), 1, &si, fence_), "vkQueueSubmit");
  wait_for_fence();
  check(a.vkResetFences(ctx_.device(), 1, &fence_), "vkResetFences");
}

// A GPU's fence is polled for a while before the blocking wait: that wait sleeps in the driver
// and wakes well after the GPU is done, which a short step (a chain of small ops) pays each
// flush; CUDA's default synchronisation spins the same way. Not on a CPU device (lavapipe),
// whose kernels run on the cores a poll would take. EMBER_VK_FENCE_POLL_US sets the poll's
// length (0: the blocking wait alone).
void VulkanBackend::wait_for_fence() {
  static const std::chrono::microseconds poll = [] {
    const char* env = std::getenv("EMBER_VK_FENCE_POLL_US");
    return env != nullptr ? std::chrono::microseconds(std::atoll(env)) : kFencePoll;
  }();
  const Api& a = ctx_.api();
  if (ctx_.info().type != VK_PHYSICAL_DEVICE_TYPE_CPU && poll.count() > 0) {
    const auto until = std::chrono::steady_clock::now() + poll;
    VkResult r = VK_NOT_READY;
    while ((r = a.vkGetFenceStatus(ctx_.device(), fence_)) == VK_NOT_READY &&
           std::chrono::steady_clock::now() < until) {
    }
    if (r != VK_NOT_READY) return check(r, "vkGetFenceStatus");
  }
  check(a.vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

Array VulkanBackend::upload(const TensorType& type, const void* data) {
  Array out = allocate_unfilled(type);
  size_t bytes = static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype);
  if (bytes == 0) return out;
  auto* buf = static_cast<VulkanBuffer*>(out.buffer.get());
  std::lock_guard lock(mutex_);
  if (buf->mapped()) {
    std::memcpy(buf->mapped(), data, bytes);
    return out;
  }
  auto staging = host_mem_.allocate(bytes);
  std::memcpy(staging->mapped(), data, bytes);
  one_shot([&](VkCommandBuffer cmd) {
    VkBufferCopy region{staging->offset(), buf->offset(), bytes};
    ctx_.api().vkCmdCopyBuffer(cmd, staging->vk_buffer(), buf->vk_buffer(), 1, &region);
  });
  return out;
}

void VulkanBackend::download(const Array& a, void* dst) {
  std::lock_guard lock(mutex_);
  check_open();
  submit_and_wait();
  int64_t n = a.type.shape.numel();
  if (n == 0) return;
  // The element span the view touches, copied to the host, then gathered in logical order.
  auto [lo, hi] = a.span();
  size_t elem = dtype_size(a.type.dtype);
  auto* buf = static_cast<VulkanBuffer*>(a.buffer.get());
  size_t span = static_cast<size_t>(hi - lo + 1) * elem;
  const std::byte* host = buf->mapped() ? buf->mapped() + lo * static_cast<int64_t>(elem) : nullptr;
  std::shared_ptr<VulkanBuffer> staging;
  if (host == nullptr) {
    staging = host_mem_.allocate(span);
    one_shot([&](VkCommandBuffer cmd) {
      VkBufferCopy region{buf->offset() + lo * elem, staging->offset(), span};
      ctx_.api().vkCmdCopyBuffer(cmd, buf->vk_buffer(), staging->vk_buffer(), 1, &region);
    });
    host = staging->mapped();
  }
  gather_span(a, host, dst);
}

void VulkanBackend::begin_if_needed() {
  if (recording_) return;
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(ctx_.api().vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
  recording_ = true;
  params_used_ = 0;
  if (query_pool_ != VK_NULL_HANDLE) {
    ctx_.api().vkCmdResetQueryPool(cmd_, query_pool_, 0, 2);
    ctx_.api().vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool_, 0);
  }
}

void VulkanBackend::barrier_if_hazard(const std::vector<Range>& reads,
                                      const std::vector<Range>& writes) {
  auto hits = [](const std::vector<Range>& a, const std::vector<Range>& b) {
    for (const Range& x : a) {
      for (const Range& y : b) {
        if (x.overlaps(y)) return true;
      }
    }
    return false;
  };
  // Read-after-write, write-after-read and write-after-write all need the previous dispatches
  // to finish first.
  bool hazard =
      hits(reads, pending_writes_) || hits(writes, pending_writes_) || hits(writes, pending_reads_);
  if (hazard) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    ctx_.api().vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
                                    nullptr);
    pending_reads_.clear();
    pending_writes_.clear();
  }
  pending_reads_.insert(pending_reads_.end(), reads.begin(), reads.end());
  pending_writes_.insert(pending_writes_.end(), writes.begin(), writes.end());
}

void VulkanBackend::launch(const Kernel& kernel, const Launch& l) {
  const auto& k = static_cast<const VulkanKernel&>(kernel);
  const Api& a = ctx_.api();
  std::lock_guard lock(mutex_);
  check_open();
  std::vector<VkDescriptorBufferInfo> infos;
  if (k.push_words > 0) {
    begin_if_needed();
  } else {
    size_t param_bytes = std::max<size_t>(4, l.params.size() * 4);
    size_t aligned = (params_used_ + 255) / 256 * 256;
    if (recording_ && aligned + param_bytes > kParamArenaBytes) submit_and_wait();
    begin_if_needed();
    aligned = (params_used_ + 255) / 256 * 256;
    std::memcpy(params_->mapped() + aligned, l.params.data(), l.params.size() * 4);
    params_used_ = aligned + param_bytes;
    infos.push_back({params_->vk_buffer(), params_->offset() + aligned, param_bytes});
  }
  std::vector<Range> reads, writes;
  for (size_t i = 0; i < l.buffers.size(); ++i) {
    auto* buf = static_cast<VulkanBuffer*>(l.buffers[i].buffer.get());
    if (buf->range() > ctx_.limits().max_storage_buffer_range) {
      throw Error(absl::StrCat("vulkan: a buffer of ", buf->range(),
                               " bytes exceeds maxStorageBufferRange of ", ctx_.info().name));
    }
    infos.push_back({buf->vk_buffer(), buf->offset(), buf->range()});
    Range r{buf->block(), buf->offset(), buf->offset() + buf->range()};
    (l.writes[i] ? writes : reads).push_back(r);
    keep_alive_.push_back(l.buffers[i]);
  }
  barrier_if_hazard(reads, writes);
  std::vector<VkWriteDescriptorSet> sets(infos.size());
  uint32_t first_binding = k.push_words > 0 ? 1 : 0;  // binding 0 holds parameters otherwise
  for (size_t i = 0; i < infos.size(); ++i) {
    sets[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    sets[i].dstBinding = static_cast<uint32_t>(i) + first_binding;
    sets[i].descriptorCount = 1;
    sets[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    sets[i].pBufferInfo = &infos[i];
  }
  a.vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  if (k.push_words > 0) {
    std::vector<uint32_t> words(static_cast<size_t>(k.push_words), 0);
    std::copy(l.params.begin(), l.params.end(), words.begin());
    a.vkCmdPushConstants(cmd_, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         static_cast<uint32_t>(words.size() * 4), words.data());
  }
  a.vkCmdPushDescriptorSetKHR(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0,
                              static_cast<uint32_t>(sets.size()), sets.data());
  a.vkCmdDispatch(cmd_, l.groups[0], l.groups[1], l.groups[2]);
}

void VulkanBackend::submit_and_wait() {
  if (!recording_) return;
  const Api& a = ctx_.api();
  recording_ = false;
  if (query_pool_ != VK_NULL_HANDLE) {
    a.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 1);
  }
  end_submit_wait();
  if (query_pool_ != VK_NULL_HANDLE) {
    uint64_t ts[2] = {0, 0};
    if (a.vkGetQueryPoolResults(ctx_.device(), query_pool_, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS &&
        ts[1] >= ts[0]) {
      device_ns_ += static_cast<double>(ts[1] - ts[0]) * ctx_.limits().timestamp_period_ns;
    }
  }
  pending_reads_.clear();
  pending_writes_.clear();
  keep_alive_.clear();
}

}  // namespace
}  // namespace vk

int vulkan_device_count(std::string* why) { return static_cast<int>(vk::list_devices(why).size()); }

bool vulkan_gpu_available() {
  auto devices = vk::list_devices();
  return !devices.empty() && devices[0].type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

Backend& vulkan_backend(int index) {
  // Backends are never deleted, since tensors and kernels may outlive main; at exit each shuts
  // down (destroying its device) and stays behind inert.
  static std::mutex mutex;
  static auto* backends = new std::map<int, vk::VulkanBackend*>;
  std::lock_guard lock(mutex);
  auto& b = (*backends)[index];
  if (b == nullptr) {
    b = new vk::VulkanBackend(index);
    vk::VulkanBackend* made = b;
    vk::at_instance_exit([made] { made->shutdown(); });
  }
  return *b;
}

}  // namespace ember::runtime
