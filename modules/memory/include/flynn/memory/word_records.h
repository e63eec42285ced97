// Records attached to memory words (writes waiting for their cycle, AT reads not answered
// yet, LT reads answered before their cycle), found by word in constant time: a two-level table of per-word list heads,
// whose pages are allocated when a word of theirs first gets a record, over a slab of
// records linked per word, newest first. Slots of removed records are reused,
// so a steady state allocates nothing. Beside them, cycle_buckets keeps entries by the cycle
// they fall due, for taking them out in (cycle, order added) order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace flynn {

template <class T>
class word_records {
 public:
  static constexpr std::uint32_t none = UINT32_MAX;

  explicit word_records(std::uint64_t words = 0) : words_(words) {}

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  // The newest record of word w (none if it has none); next(slot) walks to older ones.
  std::uint32_t first(std::uint64_t w) const {
    if (pages_.empty()) return none;
    const auto& page = pages_[w >> page_bits];
    return page ? page[w & page_mask] : none;
  }
  std::uint32_t next(std::uint32_t slot) const { return nodes_[slot].next; }
  T& operator[](std::uint32_t slot) { return nodes_[slot].value; }
  const T& operator[](std::uint32_t slot) const { return nodes_[slot].value; }

  // Adds a record to word w, as its newest; returns its slot.
  std::uint32_t add(std::uint64_t w, T value) {
    const std::uint32_t slot = add(w);
    nodes_[slot].value = std::move(value);
    return slot;
  }
  // The same with the record left to be filled in place through operator[] (a reused slot
  // keeps the value it had: its buffers are reused too).
  std::uint32_t add(std::uint64_t w) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({T{}, none});
    }
    std::uint32_t& head = head_of(w);
    nodes_[slot].next = head;
    head = slot;
    ++live_;
    return slot;
  }

  // Removes the record in `slot`, which belongs to word w.
  void remove(std::uint64_t w, std::uint32_t slot) {
    std::uint32_t* link = &head_of(w);
    while (*link != slot) link = &nodes_[*link].next;
    *link = nodes_[slot].next;
    free_.push_back(slot);
    --live_;
  }
  // Removes the records of word w for which gone(record) holds.
  template <class Pred>
  void remove_if(std::uint64_t w, Pred&& gone) {
    if (pages_.empty() || !pages_[w >> page_bits]) return;
    unlink_if(pages_[w >> page_bits][w & page_mask], gone);
  }
  // The same over every word.
  template <class Pred>
  void remove_all_if(Pred&& gone) {
    for (auto& page : pages_)
      if (page)
        for (std::size_t i = 0; i <= page_mask; ++i)
          if (page[i] != none) unlink_if(page[i], gone);
  }

 private:
  static constexpr unsigned page_bits = 12;
  static constexpr std::uint64_t page_mask = (std::uint64_t(1) << page_bits) - 1;
  struct node {
    T value;
    std::uint32_t next;
  };
  std::uint32_t& head_of(std::uint64_t w) {
    if (pages_.empty()) pages_.resize((words_ >> page_bits) + 1);
    auto& page = pages_[w >> page_bits];
    if (!page) {
      page = std::make_unique<std::uint32_t[]>(std::size_t(1) << page_bits);
      std::fill_n(page.get(), std::size_t(1) << page_bits, none);
    }
    return page[w & page_mask];
  }
  template <class Pred>
  void unlink_if(std::uint32_t& head, Pred& gone) {
    for (std::uint32_t* link = &head; *link != none;) {
      const std::uint32_t s = *link;
      if (gone(static_cast<const T&>(nodes_[s].value))) {
        *link = nodes_[s].next;
        free_.push_back(s);
        --live_;
      } else {
        link = &nodes_[s].next;
      }
    }
  }

  std::uint64_t words_;
  std::vector<std::unique_ptr<std::uint32_t[]>> pages_;  // per word: its newest record
  std::vector<node> nodes_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

// Entries by the cycle they fall due: a bucket per cycle, in the order they were added (the
// cycles of one request's words mostly repeat, so the last bucket used is tried first).
template <class T>
class cycle_buckets {
 public:
  bool empty() const { return buckets_.empty(); }
  void add(std::uint64_t cycle, const T& v) {
    if (last_ == buckets_.end() || last_->first != cycle) {
      last_ = buckets_.try_emplace(cycle).first;
      if (last_->second.capacity() == 0 && !spare_.empty()) {
        last_->second.swap(spare_.back());
        spare_.pop_back();
      }
    }
    last_->second.push_back(v);
  }
  // Takes out the entries of cycles up to `cycle`, calling f(entry) for each in (cycle, order
  // added) order. f must not add entries.
  template <class F>
  void take_through(std::uint64_t cycle, F&& f) {
    while (!buckets_.empty() && buckets_.begin()->first <= cycle) {
      const auto it = buckets_.begin();
      for (const T& v : it->second) f(v);
      if (last_ == it) last_ = buckets_.end();
      it->second.clear();
      spare_.push_back(std::move(it->second));
      buckets_.erase(it);
    }
  }

 private:
  std::map<std::uint64_t, std::vector<T>> buckets_;
  typename std::map<std::uint64_t, std::vector<T>>::iterator last_ = buckets_.end();
  std::vector<std::vector<T>> spare_;  // emptied buckets, keeping their capacity
};

}  // namespace flynn
