// A pooling memory manager for generic payloads (TLM-2.0 base protocol, AT initiators).
// Payloads are recycled through a free list; each keeps a data buffer of fixed capacity.
// A payload handed out is in the base protocol's initial state (reset_payload) whether it is
// new or recycled: nothing a target set on its last trip (the DMI hint, a response status)
// survives into the next request.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <tlm>

#include "flynn/tlm/payload.h"

namespace flynn {

class payload_pool : public tlm::tlm_mm_interface {
 public:
  explicit payload_pool(std::size_t data_capacity = 256) : capacity_(data_capacity) {}
  // Sets the data capacity of the payloads made from now on (before the first allocate).
  void set_capacity(std::size_t data_capacity) {
    if (storage_.empty()) capacity_ = data_capacity;
  }
  ~payload_pool() override = default;
  payload_pool(const payload_pool&) = delete;
  payload_pool& operator=(const payload_pool&) = delete;

  // A payload with reference count 1 and a data buffer of at least data_capacity bytes.
  tlm::tlm_generic_payload* allocate() {
    tlm::tlm_generic_payload* p;
    if (free_.empty()) {
      storage_.push_back(std::make_unique<slot>(this, capacity_));
      p = storage_.back().get();
    } else {
      p = free_.back();
      free_.pop_back();
    }
    p->acquire();
    return p;
  }
  unsigned char* buffer(tlm::tlm_generic_payload* p) const {
    return static_cast<slot*>(p)->data.data();
  }
  std::size_t capacity() const { return capacity_; }
  std::size_t in_use() const { return storage_.size() - free_.size(); }

  void free(tlm::tlm_generic_payload* p) override {
    p->reset();  // drops auto extensions
    reset_payload(*p);
    free_.push_back(p);
  }

 private:
  struct slot : tlm::tlm_generic_payload {
    slot(tlm::tlm_mm_interface* mm, std::size_t cap) : tlm::tlm_generic_payload(mm), data(cap) {}
    std::vector<unsigned char> data;
  };
  std::size_t capacity_;
  std::vector<std::unique_ptr<slot>> storage_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace flynn
