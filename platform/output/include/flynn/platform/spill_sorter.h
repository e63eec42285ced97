// Sorting more records than memory should hold: records are kept in memory up to a bound,
// then sorted and written to an anonymous temporary file as one sorted run; at the end the
// runs (and what is still in memory) are merged. The trace writers keep their events in
// one, so that a trace's memory does not grow with its length. Records are trivially
// copyable and totally ordered by `Less` (ties broken by a sequence number of their own),
// so the order does not depend on where a run boundary fell.
#pragma once

#include <algorithm>
#include <cstdio>
#include <memory>
#include <queue>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "flynn/platform/temp_file.h"

namespace flynn {

template <class T, class Less>
class spill_sorter {
  static_assert(std::is_trivially_copyable<T>::value, "records are written to files as bytes");

 public:
  explicit spill_sorter(std::size_t records_in_memory = std::size_t(1) << 18, Less less = Less())
      : limit_(std::max<std::size_t>(records_in_memory, 16)), less_(less) {}
  spill_sorter(const spill_sorter&) = delete;
  spill_sorter& operator=(const spill_sorter&) = delete;

  void push(const T& x) {
    if (mem_.size() >= limit_) spill();
    mem_.push_back(x);
    ++size_;
  }
  std::size_t size() const { return size_; }
  std::size_t runs() const { return runs_.size(); }

  // Calls f(record) for every record in order. The sorter is empty afterwards.
  template <class F>
  void drain(F f) {
    std::sort(mem_.begin(), mem_.end(), less_);
    if (runs_.empty()) {
      for (const T& x : mem_) f(x);
    } else {
      struct reader {
        FILE* file;
        std::vector<T> buf;
        std::size_t pos = 0, n = 0;
        bool next() {
          if (++pos < n) return true;
          n = std::fread(buf.data(), sizeof(T), buf.size(), file);
          pos = 0;
          return n > 0;
        }
      };
      std::vector<reader> rs;
      const std::size_t chunk = std::max<std::size_t>(64, limit_ / (runs_.size() + 1));
      for (auto& r : runs_) {
        std::rewind(r.get());
        rs.push_back({r.get(), std::vector<T>(chunk)});
        rs.back().pos = 0;
        rs.back().n = std::fread(rs.back().buf.data(), sizeof(T), chunk, r.get());
      }
      std::size_t mem_pos = 0;
      // Heap of sources: index runs_.size() is the in-memory rest.
      auto head = [&](std::size_t s) -> const T& { return s < rs.size() ? rs[s].buf[rs[s].pos] : mem_[mem_pos]; };
      auto later = [&](std::size_t a, std::size_t b) { return less_(head(b), head(a)); };
      std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
      for (std::size_t s = 0; s < rs.size(); ++s)
        if (rs[s].n) heap.push(s);
      if (!mem_.empty()) heap.push(rs.size());
      while (!heap.empty()) {
        const std::size_t s = heap.top();
        heap.pop();
        f(head(s));
        const bool more = s < rs.size() ? rs[s].next() : ++mem_pos < mem_.size();
        if (more) heap.push(s);
      }
    }
    mem_.clear();
    mem_.shrink_to_fit();
    runs_.clear();
    size_ = 0;
  }

 private:
  struct closer {
    void operator()(FILE* f) const { std::fclose(f); }
  };
  void spill() {
    std::sort(mem_.begin(), mem_.end(), less_);
    std::unique_ptr<FILE, closer> f(anonymous_temp_file());  // in $TMPDIR, already unlinked
    if (!f) throw std::runtime_error("cannot create a temporary file for trace events (in $TMPDIR or /tmp)");
    if (std::fwrite(mem_.data(), sizeof(T), mem_.size(), f.get()) != mem_.size())
      throw std::runtime_error("cannot write trace events to a temporary file (disk full?)");
    runs_.push_back(std::move(f));
    mem_.clear();
  }
  std::size_t limit_;
  Less less_;
  std::vector<T> mem_;
  std::vector<std::unique_ptr<FILE, closer>> runs_;
  std::size_t size_ = 0;
};

}  // namespace flynn
