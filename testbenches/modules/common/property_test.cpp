// Parameters declared as properties: the struct's visit hands them over in declaration order
// (the clock after the struct's own, `ideal` after the clock) with their bounds and tables,
// and a copied struct visits its own values.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "flynn/common/params.h"

namespace {

enum class colour { red, green };
constexpr flynn::named_choice<colour> colours[] = {{colour::red, "red", "warm"}, {colour::green, "green", "cool"}};

struct item : flynn::param_struct {
  flynn::property<std::uint64_t> size{this, {"size", "B", "bytes"}, 8, 1, 64};
};

struct sample_params : flynn::clocked_params {
  flynn::property<unsigned> latency{this, {"latency", "cycles", "each way"}, 10, 0, 100};
  flynn::property<double> ratio{this, {"ratio", "", "a share"}, 0.5, 0.0, 1.0};
  flynn::property<colour> hue{this, {"hue", "", "the colour"}, colour::green, colours};
  flynn::property<std::string> label{this, {"label", "", "a name"}, "x"};
  flynn::property<std::vector<item>> items{this, {"items", "", "nested"}, {item{}}};
  flynn::ideal_switch ideal{this, "no limits"};
  flynn::property<bool> on{this, {"on", "", "a flag"}, true};
};

// Records what it is shown and, for unsigned numbers, sets each to its maximum.
struct recorder : flynn::param_visitor {
  std::vector<std::string> names;
  std::vector<std::string> descriptions;
  std::vector<std::uint64_t> bounds;
  std::vector<std::string> choices;
  bool set = false;

  void seen(const flynn::param_meta& m) {
    names.push_back(m.name);
    descriptions.push_back(m.description);
  }
  void u64(const flynn::param_meta& m, std::uint64_t& v, std::uint64_t min, std::uint64_t max) override {
    seen(m);
    bounds.push_back(min);
    bounds.push_back(max);
    if (set) v = max;
  }
  void i64(const flynn::param_meta& m, std::int64_t&) override { seen(m); }
  void f64(const flynn::param_meta& m, double& v, double, double max) override {
    seen(m);
    if (set) v = max;
  }
  void flag(const flynn::param_meta& m, bool& v) override {
    seen(m);
    if (set) v = !v;
  }
  void text(const flynn::param_meta& m, std::string& v) override {
    seen(m);
    if (set) v = "y";
  }
  void choice(const flynn::param_meta& m, std::string& v, const std::vector<std::string>& c) override {
    seen(m);
    choices = c;
    choices.push_back(v);
    if (set) v = "red";
  }
  void u64_list(const flynn::param_meta& m, std::vector<std::uint64_t>&) override { seen(m); }
  void list(const flynn::param_meta& m, flynn::param_list& l) override {
    seen(m);
    if (set) l.resize(2);
    for (std::size_t i = 0; i < l.size(); ++i) l.visit_element(i, *this);
  }
};

}  // namespace

TEST_CASE("properties: a property is its value and nothing more") {
  STATIC_REQUIRE(sizeof(flynn::property<unsigned>) == sizeof(unsigned));
  STATIC_REQUIRE(sizeof(flynn::property<double>) == sizeof(double));
  sample_params p;
  const unsigned& l = p.latency;
  CHECK(l == 10);
  p.latency = 20;
  p.latency += 3;
  CHECK(p.latency * 2 == 46);
  CHECK(p.hue == colour::green);
  CHECK(p.label.get() == "x");
  CHECK(p.items.size() == 1);
  CHECK(!p.ideal);
}

TEST_CASE("properties: listed in declaration order, the clock and ideal last, with their bounds") {
  sample_params p;
  recorder r;
  p.visit(r);
  CHECK(r.names == std::vector<std::string>{"latency", "ratio", "hue", "label", "items", "size", "on", "clock_ns",
                                            "ideal"});
  CHECK(r.descriptions[2] == "the colour: red (warm) or green (cool)");
  CHECK(r.descriptions[8] == "no limits");
  CHECK(r.bounds == std::vector<std::uint64_t>{0, 100, 1, 64});
  CHECK(r.choices == std::vector<std::string>{"red", "green", "green"});
}

TEST_CASE("properties: a copy visits and changes its own values") {
  sample_params original;
  sample_params copy = original;
  sample_params assigned;
  assigned = original;
  for (sample_params* p : {&copy, &assigned}) {
    recorder r;
    r.set = true;
    p->visit(r);
    CHECK(p->latency == 100);
    CHECK(p->ratio == 1.0);
    CHECK(p->hue == colour::red);
    CHECK(p->label.get() == "y");
    CHECK(p->on == false);
    CHECK(p->ideal == true);
    CHECK(p->clock_ns == 1e6);
    REQUIRE(p->items.size() == 2);
    CHECK(p->items[0].size == 64);
    CHECK(p->items[1].size == 64);
  }
  CHECK(original.latency == 10);
  CHECK(original.ratio == 0.5);
  CHECK(original.hue == colour::green);
  CHECK(original.label.get() == "x");
  CHECK(original.items.size() == 1);
  CHECK(original.items[0].size == 8);
  CHECK(original.clock_ns == 1.0);
}
