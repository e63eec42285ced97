#include "flynn/tensor/tensor_core.h"

#include "flynn/common/wide_vectors.h"

#include <algorithm>
#include <cstring>

namespace flynn {

namespace {

using lane_floats = float __attribute__((vector_size(8 * sizeof(float))));  // element-wise IEEE fp32

// Rows i .. i + Rows - 1 of D (n wide, row-major) += A's rows (k wide, from `ar`) x B (k x n,
// row-major): each output its own chain of fp32 additions in k order, eight columns side by
// side, their partial sums held across the whole chain. Inlined into the caller's build.
template <unsigned Rows>
[[gnu::always_inline]] inline void accumulate_rows(const float* ar, const float* bf, float* __restrict d0, unsigned n,
                                                   unsigned k) {
  constexpr unsigned lanes = 8;
  unsigned j = 0;
  for (; j + lanes <= n; j += lanes) {
    lane_floats acc[Rows], bv;
    for (unsigned r = 0; r < Rows; ++r) std::memcpy(&acc[r], d0 + std::size_t(r) * n + j, sizeof bv);
    const float* bcol = &bf[j];
    for (unsigned q = 0; q < k; ++q, bcol += n) {
      std::memcpy(&bv, bcol, sizeof bv);
      for (unsigned r = 0; r < Rows; ++r) {
        const float a = ar[std::size_t(r) * k + q];
        acc[r] = acc[r] + lane_floats{a, a, a, a, a, a, a, a} * bv;
      }
    }
    for (unsigned r = 0; r < Rows; ++r) std::memcpy(d0 + std::size_t(r) * n + j, &acc[r], sizeof bv);
  }
  for (; j < n; ++j)  // the columns left over, one at a time
    for (unsigned r = 0; r < Rows; ++r) {
      float acc = d0[std::size_t(r) * n + j];
      for (unsigned q = 0; q < k; ++q) acc = acc + ar[std::size_t(r) * k + q] * bf[std::size_t(q) * n + j];
      d0[std::size_t(r) * n + j] = acc;
    }
}

// D (m x n, row-major) += A (m x k) x B (k x n, row-major). Each output is its own chain of
// fp32 additions in k order (acc = D, then + a[i][q] * b[q][j] for q ascending), with its own
// roundings; four rows at a time, so that the host has independent chains to overlap. The
// build keeps a * b + c as two roundings: -ffp-contract=off. (D and the operands do not
// overlap.)
FLYNN_WIDE_VECTORS void accumulate_products(const float* af, const float* bf, float* d, unsigned m, unsigned n,
                                            unsigned k) {
  unsigned i = 0;
  for (; i + 4 <= m; i += 4) accumulate_rows<4>(&af[std::size_t(i) * k], bf, &d[std::size_t(i) * n], n, k);
  for (; i < m; ++i) accumulate_rows<1>(&af[std::size_t(i) * k], bf, &d[std::size_t(i) * n], n, k);  // rows left over
}

}  // namespace

std::vector<param_issue> tensor_core_params::check() const {
  std::vector<param_issue> r;
  const unsigned step = step_m * step_n * step_k;
  if (fma_per_cycle % step)
    r.push_back({"fma_per_cycle", "a multiple of the step's " + std::to_string(step) + " multiply-adds",
                 std::to_string(fma_per_cycle)});
  return r;
}

tensor_core::tensor_core(const sc_core::sc_module_name& name, const params& p)
    : module(name, p.clock_ns), port("port"), p_(p) {
  throw_if_invalid("tensor_core", p_.check());
  port.register_b_transport(this, &tensor_core::b_transport);
}

// The first `cycles` free cycles in a row at or after `arrive`; reserves them.
std::uint64_t tensor_core::reserve(std::uint64_t arrive, std::uint64_t cycles) {
  std::uint64_t start = arrive;
  auto it = busy_at_.upper_bound(start);
  if (it != busy_at_.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
  while (it != busy_at_.end() && it->first < start + cycles) {
    start = std::max(start, it->second);
    ++it;
  }
  std::uint64_t end = start + cycles;
  // Merge with the run ending at start and the one starting at end.
  if (auto next = busy_at_.find(end); next != busy_at_.end()) {
    end = next->second;
    busy_at_.erase(next);
  }
  auto before = busy_at_.lower_bound(start);
  if (before != busy_at_.begin() && std::prev(before)->second == start) std::prev(before)->second = end;
  else busy_at_[start] = end;
  // Forget runs far behind this arrival.
  constexpr std::uint64_t keep = 1u << 16;
  while (busy_at_.size() > 1 && arrive > keep && busy_at_.begin()->second + keep < arrive) busy_at_.erase(busy_at_.begin());
  return start;
}

void tensor_core::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  mma_step_extension* x = nullptr;
  gp.get_extension(x);
  if (!x || !x->a || !x->b || !x->d || x->m == 0 || x->n == 0 || x->k == 0) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  // Timing: whole steps, in arrival order.
  const auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
  // (K in 16-bit units: the datapath moves 2 x step_k bytes of each operand row a step)
  const std::uint64_t k16 = ceil_div(std::uint64_t(x->k) * element_bytes(x->type), 2);
  const std::uint64_t steps = ceil_div(x->m, p_.step_m) * ceil_div(x->n, p_.step_n) * ceil_div(k16, p_.step_k);
  const std::uint64_t per_cycle = p_.fma_per_cycle / (p_.step_m * p_.step_n * p_.step_k);
  const std::uint64_t busy = p_.ideal ? 0 : ceil_div(steps, per_cycle);
  const std::uint64_t arrive = to_cycles_ceil(flynn::sim_now() + delay);
  const std::uint64_t start = p_.ideal ? arrive : reserve(arrive, busy);
  if (!p_.ideal) {
    busy_sig_.set(to_time(start), 1);
    if (!busy_at_.count(start + busy)) busy_sig_.set(to_time(start + busy), 0);  // (else the next run starts then)
  }
  x->start = start;
  x->end = start + busy;
  ++blocks_;
  steps_ += steps;
  fmas_ += std::uint64_t(x->m) * x->n * x->k;
  busy_ += busy;
  // Arithmetic: acc = D; k ascending; fp32 additions of exact products.
  af_.resize(std::size_t(x->m) * x->k);
  bf_.resize(std::size_t(x->n) * x->k);
  // B is given column by column (x->b[j * k + q]); it is kept row by row (bf_[q * n + j]) so
  // that eight columns of one product row are side by side. (The widening is chosen once per
  // block, so that each loop is a plain one.)
  const unsigned ea = element_bytes(x->type), eb = element_bytes(x->b_type);
  if (x->type == element_type::bf16 && x->b_type == element_type::bf16) {
    const auto half = [](const unsigned char* p) { return bf16_to_f32(static_cast<std::uint16_t>(p[0] | p[1] << 8)); };
    for (std::size_t e = 0; e < af_.size(); ++e) af_[e] = half(x->a + 2 * e);
    for (unsigned j = 0; j < x->n; ++j)
      for (unsigned q = 0; q < x->k; ++q) bf_[std::size_t(q) * x->n + j] = half(x->b + 2 * (std::size_t(j) * x->k + q));
  } else {
    for (std::size_t e = 0; e < af_.size(); ++e) af_[e] = element_to_f32(x->type, x->a + ea * e);
    for (unsigned j = 0; j < x->n; ++j)
      for (unsigned q = 0; q < x->k; ++q)
        bf_[std::size_t(q) * x->n + j] = element_to_f32(x->b_type, x->b + eb * (std::size_t(j) * x->k + q));
  }
  accumulate_products(af_.data(), bf_.data(), x->d, x->m, x->n, x->k);
  delay = to_time(x->end + (p_.ideal ? 0 : p_.latency)) - flynn::sim_now();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void tensor_core::attach_trace(trace_sink& sink) { busy_sig_.attach(&sink, name(), "busy", 1); }

}  // namespace flynn
