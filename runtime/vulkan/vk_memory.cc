#include "runtime/vulkan/vk_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/error.h"

namespace ember::runtime::vk {
namespace {

// Large enough that a training step's tensors come from a few blocks; small enough to waste
// little on lavapipe, whose buffers are host memory.
constexpr VkDeviceSize kBlockSize = 64ull << 20;

int find_memory_type(const VkPhysicalDeviceMemoryProperties& m, VkMemoryPropertyFlags want) {
  for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
    if ((m.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
  }
  return -1;
}

constexpr VkMemoryPropertyFlags kHostFlags =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

}  // namespace

bool prefers_host_visible(const Context& ctx) {
  if (ctx.info().type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) return false;
  return find_memory_type(ctx.memory_properties(),
                          kHostFlags | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) >= 0;
}

VulkanBuffer::~VulkanBuffer() { allocator_->release(block_, offset_, size_, bytes_); }

Allocator::Allocator(const Context& ctx, bool host_visible)
    : ctx_(ctx),
      host_visible_(host_visible),
      alignment_(std::max<VkDeviceSize>(256, ctx.limits().min_storage_offset_alignment)) {
  const auto& m = ctx.memory_properties();
  int t = host_visible ? find_memory_type(m, kHostFlags | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
                       : find_memory_type(m, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (t < 0 && host_visible) t = find_memory_type(m, kHostFlags);
  if (t < 0) throw Error("vulkan: no suitable memory type on " + ctx.info().name);
  memory_type_ = static_cast<uint32_t>(t);
}

Allocator::~Allocator() { close(); }

void Allocator::close() {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  closed_ = true;
  const Api& a = ctx_.api();
  for (auto& b : blocks_) {
    a.vkDestroyBuffer(ctx_.device(), b->buffer, nullptr);
    a.vkFreeMemory(ctx_.device(), b->memory, nullptr);
    b->buffer = VK_NULL_HANDLE;
    b->memory = VK_NULL_HANDLE;
    b->mapped = nullptr;
  }
}

Block* Allocator::new_block(VkDeviceSize size) {
  const Api& a = ctx_.api();
  auto b = std::make_unique<Block>();
  b->size = size;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = size;
  bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(a.vkCreateBuffer(ctx_.device(), &bi, nullptr, &b->buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  a.vkGetBufferMemoryRequirements(ctx_.device(), b->buffer, &req);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = memory_type_;
  VkResult r = a.vkAllocateMemory(ctx_.device(), &ai, nullptr, &b->memory);
  if (r != VK_SUCCESS) {
    a.vkDestroyBuffer(ctx_.device(), b->buffer, nullptr);
    throw Error(absl::StrCat("vulkan: out of device memory allocating a block of ", size,
                             " bytes (VkResult ", r, ")"));
  }
  check(a.vkBindBufferMemory(ctx_.device(), b->buffer, b->memory, 0), "vkBindBufferMemory");
  if (host_visible_) {
    void* p = nullptr;
    check(a.vkMapMemory(ctx_.device(), b->memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
    b->mapped = static_cast<std::byte*>(p);
  }
  b->free[0] = size;
  blocks_.push_back(std::move(b));
  return blocks_.back().get();
}

std::shared_ptr<VulkanBuffer> Allocator::allocate(size_t bytes) {
  VkDeviceSize size =
      std::max<VkDeviceSize>(alignment_, (bytes + alignment_ - 1) / alignment_ * alignment_);
  std::lock_guard lock(mutex_);
  if (closed_) throw Error("vulkan: " + ctx_.info().name + " was used after it shut down at exit");
  Block* chosen = nullptr;
  VkDeviceSize offset = 0;
  for (auto& b : blocks_) {
    for (auto [off, sz] : b->free) {
      if (sz >= size) {
        chosen = b.get();
        offset = off;
        break;
      }
    }
    if (chosen) break;
  }
  if (!chosen) {
    chosen = new_block(std::max(kBlockSize, size));
    offset = 0;
  }
  VkDeviceSize avail = chosen->free[offset];
  chosen->free.erase(offset);
  if (avail > size) chosen->free[offset + size] = avail - size;
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes_in_use);
  ++stats_.allocations;
  return std::make_shared<VulkanBuffer>(this, chosen, offset, size, bytes);
}

void Allocator::release(Block* b, VkDeviceSize offset, VkDeviceSize size, size_t bytes) {
  std::lock_guard lock(mutex_);
  if (closed_) return;  // a tensor outliving the device: its block is gone already
  stats_.bytes_in_use -= static_cast<int64_t>(bytes);
  auto it = b->free.emplace(offset, size).first;
  // Merge with the following and the preceding free range.
  if (auto next = std::next(it); next != b->free.end() && it->first + it->second == next->first) {
    it->second += next->second;
    b->free.erase(next);
  }
  if (it != b->free.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second == it->first) {
      prev->second += it->second;
      b->free.erase(it);
    }
  }
}

MemoryStats Allocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void Allocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_bytes = stats_.bytes_in_use;
}

}  // namespace ember::runtime::vk
