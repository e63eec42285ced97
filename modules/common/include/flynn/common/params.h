// Parameter declaration: every module parameter struct declares each parameter once, as a
// property member that carries its name, unit, description, default and bounds
// (property.h); the struct's visit(param_visitor&) walks them. The same walk drives JSON
// binding, validation, `flynn list`, config.resolved.json and the module docs. Modules never
// read JSON themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace flynn {

struct param_meta {
  const char* name;
  const char* unit;         // "" when dimensionless
  const char* description;  // one line
};

// A list of nested parameter structs (e.g. the traffic generator's streams).
class param_list {
 public:
  virtual ~param_list() = default;
  virtual std::size_t size() const = 0;
  virtual void resize(std::size_t n) = 0;
  virtual void visit_element(std::size_t i, class param_visitor& v) = 0;
};

// What a module allocates by its parameters, declared by its parameter struct
// (footprint()) beside visit() and check(), so that a platform can weigh it against the
// memory budget before anything is built: the module's own state (tables, calendars,
// registers) and the simulated memory contents it holds, which golden checks copy.
struct param_footprint {
  std::uint64_t state_bytes = 0;     // allocated by the module itself
  std::uint64_t contents_bytes = 0;  // simulated memory contents (a memory's data)
};

class param_visitor {
 public:
  virtual ~param_visitor() = default;
  virtual void u64(const param_meta& m, std::uint64_t& v, std::uint64_t min,
                   std::uint64_t max) = 0;
  virtual void i64(const param_meta& m, std::int64_t& v) = 0;
  virtual void f64(const param_meta& m, double& v, double min, double max) = 0;
  virtual void flag(const param_meta& m, bool& v) = 0;
  virtual void text(const param_meta& m, std::string& v) = 0;
  virtual void choice(const param_meta& m, std::string& v,
                      const std::vector<std::string>& choices) = 0;
  virtual void u64_list(const param_meta& m, std::vector<std::uint64_t>& v) = 0;
  virtual void list(const param_meta& m, param_list& v) = 0;
};

namespace detail {
template <class T>
class vector_param_list final : public param_list {
 public:
  explicit vector_param_list(std::vector<T>& v) : v_(v) {}
  std::size_t size() const override { return v_.size(); }
  void resize(std::size_t n) override { v_.resize(n); }
  void visit_element(std::size_t i, param_visitor& v) override { v_[i].visit(v); }

 private:
  std::vector<T>& v_;
};
}  // namespace detail

// Convenience helpers used inside visit() bodies.
inline void param(param_visitor& v, const param_meta& m, std::uint64_t& x,
                  std::uint64_t min = 0,
                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  v.u64(m, x, min, max);
}
inline void param(param_visitor& v, const param_meta& m, unsigned& x, unsigned min = 0,
                  unsigned max = std::numeric_limits<unsigned>::max()) {
  std::uint64_t t = x;
  v.u64(m, t, min, max);
  x = static_cast<unsigned>(t);
}
inline void param(param_visitor& v, const param_meta& m, std::int64_t& x) { v.i64(m, x); }
inline void param(param_visitor& v, const param_meta& m, double& x, double min,
                  double max) {
  v.f64(m, x, min, max);
}
inline void param(param_visitor& v, const param_meta& m, bool& x) { v.flag(m, x); }
inline void param(param_visitor& v, const param_meta& m, std::string& x) { v.text(m, x); }
inline void param(param_visitor& v, const param_meta& m, std::vector<std::uint64_t>& x) {
  v.u64_list(m, x);
}
template <class T>
void param(param_visitor& v, const param_meta& m, std::vector<T>& x) {
  detail::vector_param_list<T> l(x);
  v.list(m, l);
}

// An enum parameter spelled as one of a fixed set of names: a table of (value, name) pairs.
template <class E, class Names>
auto param_enum(param_visitor& v, const param_meta& m, E& x, const Names& names)
    -> decltype(void(std::begin(names)->second), void(x = std::begin(names)->first)) {
  std::string s;
  std::vector<std::string> choices;
  for (const auto& [e, n] : names) {
    choices.push_back(n);
    if (e == x) s = n;
  }
  v.choice(m, s, choices);
  for (const auto& [e, n] : names)
    if (n == s) x = e;
}

// One entry of a policy table: the enum value, the name scenarios spell it with, one line
// on what it does, and for policies that are classes, the factory that builds one. Each
// policy family keeps one such table next to its implementations; the parameter's accepted
// names, `flynn list`, docs/reference.md and any other parser of the names read it.
template <class E, class Factory = std::nullptr_t>
struct named_choice {
  E value;
  const char* name;
  const char* description;  // one line, shown after the name in parentheses
  Factory make = nullptr;
};

// A policy table defined in one source file and read elsewhere through its header.
template <class Entry>
class choice_table {
 public:
  template <std::size_t N>
  constexpr choice_table(const Entry (&entries)[N]) : begin_(entries), end_(entries + N) {}
  constexpr const Entry* begin() const { return begin_; }
  constexpr const Entry* end() const { return end_; }

 private:
  const Entry* begin_;
  const Entry* end_;
};

// "a, b or c".
inline std::string join_choices(const std::vector<std::string>& items) {
  std::string r;
  for (std::size_t i = 0; i < items.size(); ++i)
    r += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return r;
}

// The names of a table, "a, b or c" (with quote "\"": "\"a\", \"b\" or \"c\"").
template <class Table>
std::string choice_names(const Table& table, const std::string& quote = "") {
  std::vector<std::string> items;
  for (const auto& c : table) items.push_back(quote + c.name + quote);
  return join_choices(items);
}

// The names of a table with their descriptions: "a (what a does), b (..) or c (..)".
template <class Table>
std::string describe_choices(const Table& table) {
  std::vector<std::string> items;
  for (const auto& c : table) {
    std::string item = c.name;
    if (*c.description) item += std::string(" (") + c.description + ")";
    items.push_back(item);
  }
  return join_choices(items);
}

// The entry spelled `name`, or nullptr.
template <class Table>
auto choice_named(const Table& table, const std::string& name) -> decltype(&*std::begin(table)) {
  for (const auto& c : table)
    if (name == c.name) return &c;
  return nullptr;
}

// The entry of `value`, or nullptr.
template <class Table, class E>
auto choice_for(const Table& table, E value) -> decltype(&*std::begin(table)) {
  for (const auto& c : table)
    if (c.value == value) return &c;
  return nullptr;
}

// An enum parameter whose choices are a policy table. m.description names what is chosen
// ("warp scheduler"); the parameter's description is that followed by the table's names and
// descriptions ("warp scheduler: lrr (loose round-robin), gto (..) or two_level (..)").
template <class E, class Table>
auto param_enum(param_visitor& v, const param_meta& m, E& x, const Table& table)
    -> decltype(void(std::begin(table)->name), void(x = std::begin(table)->value)) {
  std::string s;
  std::vector<std::string> names;
  for (const auto& c : table) {
    names.push_back(c.name);
    if (c.value == x) s = c.name;
  }
  const std::string description = std::string(m.description) + ": " + describe_choices(table);
  v.choice({m.name, m.unit, description.c_str()}, s, names);
  if (const auto* c = choice_named(table, s)) x = c->value;
}

}  // namespace flynn

#include "flynn/common/property.h"
