// Module types by name. Each module family registers its types into a registry object
// owned by whoever builds platforms (no global state).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flynn/common/module.h"
#include "flynn/common/params.h"

namespace flynn {

// What a parameter struct says its module allocates (param_footprint); a struct of a
// user's own module that declares no footprint() counts as allocating nothing.
template <class P, class = void>
struct has_footprint : std::false_type {};
template <class P>
struct has_footprint<P, std::void_t<decltype(std::declval<const P&>().footprint())>> : std::true_type {};
template <class P>
param_footprint footprint_of(const P& p) {
  if constexpr (has_footprint<P>::value) return p.footprint();
  else return {};
}

struct module_type {
  std::string name, description;
  // Visits a default parameter struct (listing, docs, defaults).
  std::function<void(param_visitor&)> describe;
  // Visits a default parameter struct with `binder` (which fills it), returns its issues
  // and what a module with those parameters allocates.
  struct report {
    std::vector<param_issue> issues;
    param_footprint footprint;
  };
  std::function<report(param_visitor& binder)> check;
  // Builds the module with parameters filled by `binder`.
  std::function<module*(const char* instance, param_visitor& binder)> create;
};

// A non-TLM link between modules (an sc_port bound to an sc_export of one interface),
// bound by name like sockets.
struct link_type {
  std::string interface_name;
  std::function<bool(sc_core::sc_object*)> is_port, is_export;
  std::function<void(sc_core::sc_object* port, sc_core::sc_object* exp)> bind;
};

class module_registry {
 public:
  template <class IF>
  void add_link(const std::string& interface_name) {
    link_type l;
    l.interface_name = interface_name;
    l.is_port = [](sc_core::sc_object* o) { return dynamic_cast<sc_core::sc_port_b<IF>*>(o) != nullptr; };
    l.is_export = [](sc_core::sc_object* o) { return dynamic_cast<sc_core::sc_export<IF>*>(o) != nullptr; };
    l.bind = [](sc_core::sc_object* p, sc_core::sc_object* e) {
      dynamic_cast<sc_core::sc_port_b<IF>*>(p)->bind(*dynamic_cast<sc_core::sc_export<IF>*>(e));
    };
    links_.push_back(std::move(l));
  }
  const std::vector<link_type>& links() const { return links_; }

  // A family's debug flag (debug_flag.h), listed by --debug help in the order added.
  void add_debug_flag(const debug_flag& f) {
    for (const debug_flag* d : debug_flags_)
      if (d == &f) return;
    debug_flags_.push_back(&f);
  }
  const std::vector<const debug_flag*>& debug_flags() const { return debug_flags_; }

  template <class M>
  void add(const std::string& name, const std::string& description) {
    using P = typename M::params;
    module_type t;
    t.name = name;
    t.description = description;
    t.describe = [](param_visitor& v) {
      P p;
      p.visit(v);
    };
    t.check = [](param_visitor& v) {
      P p;
      p.visit(v);
      module_type::report r{p.check(), {}};
      if (r.issues.empty()) r.footprint = footprint_of(p);  // (only meaningful for valid parameters)
      return r;
    };
    t.create = [](const char* inst, param_visitor& v) -> module* {
      P p;
      p.visit(v);
      return new M(inst, p);
    };
    types_[name] = std::move(t);
  }
  const module_type* find(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& [k, v] : types_) n.push_back(k);
    return n;
  }

 private:
  std::map<std::string, module_type> types_;
  std::vector<link_type> links_;
  std::vector<const debug_flag*> debug_flags_;
};

// Registers every module type shipped with Flynn.
void register_builtin_modules(module_registry& r);

}  // namespace flynn
