// Recycled storage for containers whose elements come and go all the time (a memory's
// per-word records, a unit's requests in flight): blocks given back are kept on a free list
// per size and handed out again, so that a steady state allocates nothing. One pool per
// owner, declared before the containers that use it (it must outlive them); not shared
// between threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <new>
#include <vector>

namespace flynn {

class recycling_pool {
 public:
  recycling_pool() = default;
  recycling_pool(const recycling_pool&) = delete;
  recycling_pool& operator=(const recycling_pool&) = delete;
  ~recycling_pool() {
    for (const auto& l : lists_)
      for (void* p = l.head; p;) {
        void* next = *static_cast<void**>(p);
        ::operator delete(p);
        p = next;
      }
  }

  void* allocate(std::size_t bytes) {
    bytes = std::max(bytes, sizeof(void*));
    for (auto& l : lists_)
      if (l.bytes == bytes) {
        if (!l.head) break;
        void* p = l.head;
        l.head = *static_cast<void**>(p);
        return p;
      }
    return ::operator new(bytes);
  }
  void deallocate(void* p, std::size_t bytes) {
    bytes = std::max(bytes, sizeof(void*));
    list* to = nullptr;
    for (auto& l : lists_)
      if (l.bytes == bytes) to = &l;
    if (!to) to = &lists_.emplace_back(list{bytes, nullptr});
    *static_cast<void**>(p) = to->head;
    to->head = p;
  }

 private:
  struct list {
    std::size_t bytes;
    void* head;  // free blocks, linked through their first word
  };
  std::vector<list> lists_;  // one per block size in use (a handful)
};

// A standard allocator drawing on a recycling_pool.
template <class T>
struct recycling_allocator {
  using value_type = T;
  recycling_pool* pool;
  explicit recycling_allocator(recycling_pool* p) : pool(p) {}
  template <class U>
  recycling_allocator(const recycling_allocator<U>& o) : pool(o.pool) {}
  T* allocate(std::size_t n) { return static_cast<T*>(pool->allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { pool->deallocate(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const recycling_allocator<U>& o) const { return pool == o.pool; }
  template <class U>
  bool operator!=(const recycling_allocator<U>& o) const { return pool != o.pool; }
};

}  // namespace flynn
