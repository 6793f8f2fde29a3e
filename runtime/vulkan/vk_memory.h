#pragma once
// Device memory for tensors: large blocks, each one VkBuffer, carved into sub-allocations by a
// first-fit free list with coalescing, so steady-state steps allocate no Vulkan memory.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/backend.h"
#include "runtime/vulkan/vk_context.h"

namespace ember::runtime::vk {

class Allocator;

struct Block {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  std::byte* mapped = nullptr;                // when host visible
  std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size
};

// A sub-allocation; returns itself to the allocator when the last reference goes.
class VulkanBuffer final : public Buffer {
 public:
  VulkanBuffer(Allocator* a, Block* b, VkDeviceSize offset, VkDeviceSize size, size_t bytes)
      : allocator_(a), block_(b), offset_(offset), size_(size), bytes_(bytes) {}
  ~VulkanBuffer() override;
  size_t bytes() const override { return bytes_; }
  VkBuffer vk_buffer() const { return block_->buffer; }
  VkDeviceSize offset() const { return offset_; }
  VkDeviceSize range() const { return size_; }
  const Block* block() const { return block_; }
  std::byte* mapped() const { return block_->mapped ? block_->mapped + offset_ : nullptr; }

 private:
  Allocator* allocator_;
  Block* block_;
  VkDeviceSize offset_, size_;
  size_t bytes_;
};

class Allocator {
 public:
  // host_visible: allocate from memory the host can map (unified-memory devices, staging).
  Allocator(const Context& ctx, bool host_visible);
  ~Allocator();  // closes
  std::shared_ptr<VulkanBuffer> allocate(size_t bytes);
  // Destroys every block (the backend shutting down at exit): buffers still held afterwards
  // release nothing, and allocating throws.
  void close();
  bool host_visible() const { return host_visible_; }
  MemoryStats stats() const;
  void reset_peak();

 private:
  friend class VulkanBuffer;
  void release(Block* b, VkDeviceSize offset, VkDeviceSize size, size_t bytes);
  Block* new_block(VkDeviceSize size);

  const Context& ctx_;
  bool host_visible_;
  uint32_t memory_type_ = 0;
  VkDeviceSize alignment_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Block>> blocks_;
  MemoryStats stats_;
  bool closed_ = false;
};

// Whether the device's memory is unified with the host (lavapipe, integrated GPUs): tensors then
// live in host-visible memory and transfers are plain memcpy.
bool prefers_host_visible(const Context& ctx);

}  // namespace ember::runtime::vk
