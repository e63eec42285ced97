// Statistics: named counters with unit and description, grouped per module.
// Modules own a stats_group and update plain counters; writers (text, JSON) live in the
// platform and walk the group. Nothing is ever scraped from printed output.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flynn {

class stat_counter {
 public:
  stat_counter& operator+=(std::uint64_t n) {
    value_ += n;
    return *this;
  }
  stat_counter& operator++() {
    ++value_;
    return *this;
  }
  std::uint64_t value() const { return value_; }
  void reset() { value_ = 0; }

 private:
  std::uint64_t value_ = 0;
};

// A histogram over integer samples with fixed-width buckets and an overflow bucket.
class stat_histogram {
 public:
  stat_histogram(std::uint64_t bucket_width, std::size_t buckets)
      : width_(bucket_width ? bucket_width : 1), counts_(buckets + 1, 0) {}
  void sample(std::uint64_t x) {
    std::size_t b = static_cast<std::size_t>(x / width_);
    if (b >= counts_.size() - 1) b = counts_.size() - 1;
    ++counts_[b];
    ++samples_;
    sum_ += x;
    if (samples_ == 1 || x < min_) min_ = x;
    if (x > max_) max_ = x;
  }
  std::uint64_t bucket_width() const { return width_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }  // last = overflow
  std::uint64_t samples() const { return samples_; }
  std::uint64_t min() const { return min_; }
  std::uint64_t max() const { return max_; }
  double mean() const { return samples_ ? double(sum_) / double(samples_) : 0.0; }

 private:
  std::uint64_t width_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t samples_ = 0, sum_ = 0, min_ = 0, max_ = 0;
};

struct stat_entry {
  enum class kind { counter, real, vector, histogram };
  kind k;
  std::string name, unit, description;
  const stat_counter* counter = nullptr;
  std::function<double()> real;                               // derived value
  const std::vector<stat_counter>* vector = nullptr;          // e.g. per bank
  const stat_histogram* histogram = nullptr;
};

class stats_group {
 public:
  explicit stats_group(std::string owner = {}) : owner_(std::move(owner)) {}
  void set_owner(std::string owner) { owner_ = std::move(owner); }
  const std::string& owner() const { return owner_; }

  void add(const std::string& name, const stat_counter& c, const std::string& unit,
           const std::string& desc) {
    entries_.push_back({stat_entry::kind::counter, name, unit, desc, &c, {}, nullptr,
                        nullptr});
  }
  void add_real(const std::string& name, std::function<double()> f, const std::string& unit,
                const std::string& desc) {
    entries_.push_back(
        {stat_entry::kind::real, name, unit, desc, nullptr, std::move(f), nullptr, nullptr});
  }
  // A formula: num / den (0 while den is 0), e.g. a mean (sum / count) or a rate (hits /
  // lookups); read when the statistics are written.
  void add_ratio(const std::string& name, const stat_counter& num, const stat_counter& den, const std::string& unit,
                 const std::string& desc) {
    add_real(name, [&num, &den] { return den.value() ? double(num.value()) / double(den.value()) : 0.0; }, unit, desc);
  }
  void add(const std::string& name, const std::vector<stat_counter>& v, const std::string& unit,
           const std::string& desc) {
    entries_.push_back({stat_entry::kind::vector, name, unit, desc, nullptr, {}, &v, nullptr});
  }
  void add(const std::string& name, const stat_histogram& h, const std::string& unit,
           const std::string& desc) {
    entries_.push_back(
        {stat_entry::kind::histogram, name, unit, desc, nullptr, {}, nullptr, &h});
  }
  const std::vector<stat_entry>& entries() const { return entries_; }

 private:
  std::string owner_;
  std::vector<stat_entry> entries_;
};

}  // namespace flynn
