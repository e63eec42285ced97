// A parameter declared once: a property member of a parameter struct carries the value and
// records, in its struct, its name, unit, description, bounds and (for an enum) its table of
// names. The struct's visit(param_visitor&) walks the records, so there is no second list to
// keep in step with the fields:
//
//   struct crossbar_params : clocked_params {
//     property<unsigned> latency{this, {"latency", "cycles", "each way"}, 10, 0, 100000};
//   };
//
// A record holds the property's byte offset from its struct, not a pointer, so a copied struct
// (a module keeps its own copy) walks its own values with no fix-up. A property holds nothing
// but its value and reads as a `const T&`, so reading one costs what reading the field did.
#pragma once

#include "flynn/common/params.h"

namespace flynn {

// Where a property is listed: among the struct's own parameters in declaration order, as the
// clock every module's struct inherits (after its own parameters), or after that clock.
enum class param_place : unsigned char { own, clock, after_clock };

class param_struct;

namespace detail {
struct param_entry {
  std::ptrdiff_t offset = 0;  // of the property from its param_struct
  void (*visit)(void* property, const param_entry& e, param_visitor& v) = nullptr;
  param_meta meta{};
  std::uint64_t min_u = 0, max_u = 0;  // whole numbers
  double min_f = 0, max_f = 0;         // real numbers
  const void* choices = nullptr;       // an enum's table of names
  param_place place = param_place::own;
};

template <class T>
inline constexpr bool is_bounded_whole = std::is_unsigned_v<T> && !std::is_same_v<T, bool>;
}  // namespace detail

// The base of every parameter struct: the records of its properties, in declaration order.
class param_struct {
 public:
  // Hands each property to v: the struct's own in declaration order, then the clock, then
  // those placed after the clock.
  void visit(param_visitor& v) {
    for (param_place place : {param_place::own, param_place::clock, param_place::after_clock})
      for (const auto& e : entries_)
        if (e.place == place) e.visit(reinterpret_cast<char*>(this) + e.offset, e, v);
  }

  param_struct() = default;
  // The records describe offsets within the struct, the same in a copy: copied as they are.
  param_struct(const param_struct&) = default;
  param_struct& operator=(const param_struct&) = default;

 private:
  template <class>
  friend class property;
  std::vector<detail::param_entry> entries_;
};

template <class T>
class property {
 public:
  using value_type = T;

  // A whole number in [min, max].
  template <class U = T, std::enable_if_t<detail::is_bounded_whole<U>, int> = 0>
  property(param_struct* owner, const param_meta& m, T initial, T min = 0,
           T max = std::numeric_limits<T>::max())
      : value_(initial) {
    detail::param_entry e;
    e.min_u = min;
    e.max_u = max;
    record(owner, m, e, &visit_value);
  }
  // A real number in [min, max].
  template <class U = T, std::enable_if_t<std::is_floating_point_v<U>, int> = 0>
  property(param_struct* owner, const param_meta& m, T initial, T min, T max,
           param_place place = param_place::own)
      : value_(initial) {
    detail::param_entry e;
    e.min_f = min;
    e.max_f = max;
    e.place = place;
    record(owner, m, e, &visit_value);
  }
  // An enum spelled as one of the names of `table`: a policy table of named_choice entries
  // (the description names what is chosen and the table adds each choice's description) or
  // an array of (value, name) pairs. The table must outlive the struct (a namespace-scope
  // constant).
  template <class Table, class U = T, std::enable_if_t<std::is_enum_v<U>, int> = 0>
  property(param_struct* owner, const param_meta& m, T initial, const Table& table)
      : value_(initial) {
    detail::param_entry e;
    e.choices = &table;
    record(owner, m, e, &visit_choice<Table>);
  }
  // A flag, a signed number, a text, a list of numbers or a list of nested parameter structs.
  template <class U = T, std::enable_if_t<!detail::is_bounded_whole<U> &&
                                              !std::is_floating_point_v<U> && !std::is_enum_v<U>,
                                          int> = 0>
  property(param_struct* owner, const param_meta& m, T initial = T(),
           param_place place = param_place::own)
      : value_(std::move(initial)) {
    detail::param_entry e;
    e.place = place;
    record(owner, m, e, &visit_value);
  }

  // A copy takes the value only: the records belong to the struct, which copies its own.
  property(const property&) = default;
  property& operator=(const property&) = default;
  property& operator=(const T& x) {
    value_ = x;
    return *this;
  }
  property& operator=(T&& x) {
    value_ = std::move(x);
    return *this;
  }

  operator const T&() const noexcept { return value_; }
  const T& get() const noexcept { return value_; }
  T& get() noexcept { return value_; }
  const T* operator->() const noexcept { return &value_; }
  T* operator->() noexcept { return &value_; }

  template <class V>
  property& operator+=(const V& x) {
    value_ += x;
    return *this;
  }
  template <class V>
  property& operator-=(const V& x) {
    value_ -= x;
    return *this;
  }
  template <class V>
  property& operator*=(const V& x) {
    value_ *= x;
    return *this;
  }

  // Lists read and grow like the vector they hold.
  template <class U = T>
  auto begin() const -> decltype(std::declval<const U&>().begin()) {
    return value_.begin();
  }
  template <class U = T>
  auto end() const -> decltype(std::declval<const U&>().end()) {
    return value_.end();
  }
  template <class U = T>
  auto begin() -> decltype(std::declval<U&>().begin()) {
    return value_.begin();
  }
  template <class U = T>
  auto end() -> decltype(std::declval<U&>().end()) {
    return value_.end();
  }
  template <class U = T>
  auto operator[](std::size_t i) const -> decltype(std::declval<const U&>()[i]) {
    return value_[i];
  }
  template <class U = T>
  auto operator[](std::size_t i) -> decltype(std::declval<U&>()[i]) {
    return value_[i];
  }
  template <class U = T>
  auto size() const -> decltype(std::declval<const U&>().size()) {
    return value_.size();
  }
  template <class U = T>
  auto empty() const -> decltype(std::declval<const U&>().empty()) {
    return value_.empty();
  }
  template <class V, class U = T>
  auto push_back(V&& x) -> decltype(std::declval<U&>().push_back(std::forward<V>(x))) {
    return value_.push_back(std::forward<V>(x));
  }
  template <class U = T>
  auto clear() -> decltype(std::declval<U&>().clear()) {
    return value_.clear();
  }

 private:
  using visit_fn = void (*)(void*, const detail::param_entry&, param_visitor&);

  void record(param_struct* owner, const param_meta& m, detail::param_entry e, visit_fn f) {
    e.offset = reinterpret_cast<char*>(this) - reinterpret_cast<char*>(owner);
    e.meta = m;
    e.visit = f;
    owner->entries_.push_back(e);
  }

  static T& value_at(void* p) { return static_cast<property*>(p)->value_; }

  static void visit_value(void* p, const detail::param_entry& e, param_visitor& v) {
    T& x = value_at(p);
    if constexpr (std::is_same_v<T, bool>) {
      v.flag(e.meta, x);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
      v.u64(e.meta, x, e.min_u, e.max_u);
    } else if constexpr (detail::is_bounded_whole<T>) {
      std::uint64_t t = x;
      v.u64(e.meta, t, e.min_u, e.max_u);
      x = static_cast<T>(t);
    } else if constexpr (std::is_floating_point_v<T>) {
      double t = x;
      v.f64(e.meta, t, e.min_f, e.max_f);
      x = static_cast<T>(t);
    } else {
      param(v, e.meta, x);  // a signed number, a flag, a text or a list
    }
  }

  template <class Table>
  static void visit_choice(void* p, const detail::param_entry& e, param_visitor& v) {
    param_enum(v, e.meta, value_at(p), *static_cast<const Table*>(e.choices));
  }

  T value_;
};

// What every module's parameter struct shares, declared here once: its clock, listed after
// the struct's own parameters.
struct clocked_params : param_struct {
  clocked_params() : clocked_params("clock period") {}
  property<double> clock_ns;

 protected:
  // A struct whose clock means more than that (a DRAM's tCK) describes it in its own words.
  explicit clocked_params(const char* clock_description)
      : clock_ns{this, {"clock_ns", "ns", clock_description}, 1.0, 1e-3, 1e6, param_place::clock} {}
};

// The switch `flynn attribute` turns on to make a timing resource ideal, listed after the
// clock; `description` says what the ideal resource does.
class ideal_switch : public property<bool> {
 public:
  ideal_switch(param_struct* owner, const char* description)
      : property<bool>(owner, {"ideal", "", description}, false, param_place::after_clock) {}
  using property<bool>::operator=;
};

}  // namespace flynn
