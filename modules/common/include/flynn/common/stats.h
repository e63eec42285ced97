// Statistics: named counters with unit and description, grouped per module.
// Modules own a stats_group and update plain counters; writers (text, JSON) live in the
// platform and walk the group. Nothing is ever scraped from printed output.
//
// A module declares each statistic once, as a member that enters itself in the group with
// its name, unit and description (statistic, statistic_vector, statistic_histogram,
// stat_ratio, stat_formula, stat_alias below). The group lists entries in the order they
// were added, which is the order of the members' declarations; the group keeps their
// addresses, so these members can be neither copied nor moved. A part of a module with
// statistics of its own (a function unit, a port) holds a nested group, listed in the
// module's where it is declared, its entries' names prefixed with the part's.
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
  // A group nested in `parent` (a part of a module: a function unit, a port): its entries
  // are listed in the parent at the place the nested group was made (for a member, where it
  // is declared), each named name_prefix + its name and described description_prefix + its
  // description. Groups nest to any depth; the parent must outlive the nested group.
  stats_group(stats_group& parent, std::string name_prefix, std::string description_prefix = {}) {
    nest_in(parent, std::move(name_prefix), std::move(description_prefix));
  }
  // The same for a group made on its own (a part in an array, made before its parent knows
  // how it is named): listed in `parent` from here on, at the parent's end as it is now.
  void nest_in(stats_group& parent, std::string name_prefix, std::string description_prefix = {}) {
    owner_ = parent.owner_;
    parent_ = &parent;
    prefix_ = std::move(name_prefix);
    description_prefix_ = std::move(description_prefix);
    parent.children_.push_back({parent.entries_.size(), this});
    parent.changed();
  }
  // The group's address is in its entries' and its nested groups' hands.
  stats_group(const stats_group&) = delete;
  stats_group& operator=(const stats_group&) = delete;

  void set_owner(std::string owner) { owner_ = std::move(owner); }
  const std::string& owner() const { return owner_; }

  void add(const std::string& name, const stat_counter& c, const std::string& unit,
           const std::string& desc) {
    push({stat_entry::kind::counter, name, unit, desc, &c, {}, nullptr, nullptr});
  }
  void add_real(const std::string& name, std::function<double()> f, const std::string& unit,
                const std::string& desc) {
    push({stat_entry::kind::real, name, unit, desc, nullptr, std::move(f), nullptr, nullptr});
  }
  // A formula: num / den (0 while den is 0), e.g. a mean (sum / count) or a rate (hits /
  // lookups); read when the statistics are written.
  void add_ratio(const std::string& name, const stat_counter& num, const stat_counter& den, const std::string& unit,
                 const std::string& desc) {
    add_real(name, [&num, &den] { return den.value() ? double(num.value()) / double(den.value()) : 0.0; }, unit, desc);
  }
  void add(const std::string& name, const std::vector<stat_counter>& v, const std::string& unit,
           const std::string& desc) {
    push({stat_entry::kind::vector, name, unit, desc, nullptr, {}, &v, nullptr});
  }
  void add(const std::string& name, const stat_histogram& h, const std::string& unit,
           const std::string& desc) {
    push({stat_entry::kind::histogram, name, unit, desc, nullptr, {}, nullptr, &h});
  }
  // Every entry, the nested groups' in their places with their names and descriptions
  // prefixed, in the order they were made. (Worked out again after a change; a reference
  // stays good until the next change to the group or one nested in it.)
  const std::vector<stat_entry>& entries() const {
    if (stale_) {
      listed_.clear();
      list_into(listed_, {}, {});
      stale_ = false;
    }
    return listed_;
  }

 private:
  std::string owner_;
  stats_group* parent_ = nullptr;
  std::string prefix_, description_prefix_;
  std::vector<stat_entry> entries_;  // its own, in order
  struct nested {
    std::size_t before;  // the own entry it is listed before (entries_.size(): after all)
    const stats_group* group;
  };
  std::vector<nested> children_;
  mutable std::vector<stat_entry> listed_;
  mutable bool stale_ = true;

  void push(stat_entry e) {
    entries_.push_back(std::move(e));
    changed();
  }
  void changed() {
    for (stats_group* g = this; g; g = g->parent_) g->stale_ = true;
  }
  void list_into(std::vector<stat_entry>& out, const std::string& prefix, const std::string& description_prefix) const {
    std::size_t c = 0;
    for (std::size_t i = 0; i <= entries_.size(); ++i) {
      for (; c < children_.size() && children_[c].before == i; ++c) {
        const stats_group& g = *children_[c].group;
        g.list_into(out, prefix + g.prefix_, description_prefix + g.description_prefix_);
      }
      if (i == entries_.size()) break;
      out.push_back(entries_[i]);
      out.back().name = prefix + out.back().name;
      out.back().description = description_prefix + out.back().description;
    }
  }
};

// A counter that enters itself in a group where it is declared:
//   statistic hits_{stats_, "hits", "requests", "lookups that hit"};
class statistic : public stat_counter {
 public:
  statistic(stats_group& g, const std::string& name, const std::string& unit, const std::string& desc) {
    g.add(name, *this, unit, desc);
  }
  statistic(const statistic&) = delete;
  statistic& operator=(const statistic&) = delete;
};

// One counter per part of a module (a bank, a port, an output), entered in a group where it
// is declared; sized by the module's constructor once the number of parts is known.
class statistic_vector {
 public:
  statistic_vector(stats_group& g, const std::string& name, const std::string& unit,
                   const std::string& desc) {
    g.add(name, counters_, unit, desc);
  }
  statistic_vector(const statistic_vector&) = delete;
  statistic_vector& operator=(const statistic_vector&) = delete;

  void resize(std::size_t n) { counters_.resize(n); }
  std::size_t size() const { return counters_.size(); }
  stat_counter& operator[](std::size_t i) { return counters_[i]; }
  const stat_counter& operator[](std::size_t i) const { return counters_[i]; }

 private:
  std::vector<stat_counter> counters_;
};

// A histogram that enters itself in a group where it is declared.
class statistic_histogram : public stat_histogram {
 public:
  statistic_histogram(stats_group& g, const std::string& name, std::uint64_t bucket_width,
                      std::size_t buckets, const std::string& unit, const std::string& desc)
      : stat_histogram(bucket_width, buckets) {
    g.add(name, *this, unit, desc);
  }
  statistic_histogram(const statistic_histogram&) = delete;
  statistic_histogram& operator=(const statistic_histogram&) = delete;
};

// A formula num / den (0 while den is 0) entered in a group where it is declared, after its
// operands: a mean (sum / count) or a rate (hits / lookups), read when the statistics are
// written.
class stat_ratio {
 public:
  stat_ratio(stats_group& g, const std::string& name, const stat_counter& num, const stat_counter& den,
             const std::string& unit, const std::string& desc) {
    g.add_ratio(name, num, den, unit, desc);
  }
  stat_ratio(const stat_ratio&) = delete;
  stat_ratio& operator=(const stat_ratio&) = delete;
};

// A real-valued formula (a callable returning double) entered in a group where it is
// declared, after whatever it reads; called when the statistics are written.
class stat_formula {
 public:
  stat_formula(stats_group& g, const std::string& name, std::function<double()> f,
               const std::string& unit, const std::string& desc) {
    g.add_real(name, std::move(f), unit, desc);
  }
  stat_formula(const stat_formula&) = delete;
  stat_formula& operator=(const stat_formula&) = delete;
};

// An entry for a counter that another object owns (a helper the module holds), entered in
// a group where it is declared, after that object.
class stat_alias {
 public:
  stat_alias(stats_group& g, const std::string& name, const stat_counter& c, const std::string& unit,
             const std::string& desc) {
    g.add(name, c, unit, desc);
  }
  stat_alias(const stat_alias&) = delete;
  stat_alias& operator=(const stat_alias&) = delete;
};

}  // namespace flynn
