#pragma once
// A per-thread cache of equal-sized heap blocks, and an allocator over it for allocate_shared.
// An eager step makes (and, at its flush, frees) one lazy value per op: hundreds of blocks of one
// size, more than malloc's per-thread cache keeps, so each went through malloc's slow path.
#include <cstddef>
#include <new>

namespace ember::detail {

template <size_t Size>
class BlockPool {
 public:
  static void* take() {
    if (closed()) return ::operator new(Size);  // (during or after the thread's teardown)
    List& l = list();
    if (l.head == nullptr) return ::operator new(Size);
    Free* b = l.head;
    l.head = b->next;
    --l.count;
    return b;
  }

  static void give(void* p) {
    // A block freed while this thread's list is being torn down (or after) goes back to the heap.
    if (closed()) {
      ::operator delete(p);
      return;
    }
    List& l = list();
    if (l.count >= kMaxKept) {
      ::operator delete(p);
      return;
    }
    l.head = new (p) Free{l.head};
    ++l.count;
  }

 private:
  static_assert(Size >= sizeof(void*));
  static constexpr int kMaxKept = 4096;  // per thread: a few eager steps' worth

  struct Free {
    Free* next;
  };
  struct List {
    Free* head = nullptr;
    int count = 0;
    ~List() {
      closed() = true;
      while (head != nullptr) {
        Free* next = head->next;
        ::operator delete(head);
        head = next;
      }
    }
  };
  static List& list() {
    thread_local List l;
    return l;
  }
  // Trivially destructible, so still readable while the thread's other thread_locals die.
  static bool& closed() {
    thread_local bool c = false;
    return c;
  }
};

// Single objects come from BlockPool<sizeof(T)>; arrays from the heap.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}

  T* allocate(size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n == 1) return static_cast<T*>(BlockPool<sizeof(T)>::take());
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) {
      BlockPool<sizeof(T)>::give(p);
    } else {
      ::operator delete(p);
    }
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace ember::detail
