#include "flynn/simt/reconvergence.h"

#include <algorithm>

namespace flynn::simt {

std::vector<std::uint32_t> immediate_post_dominators(const kernel& k) {
  const std::size_t n = k.code.size(), exit_node = n;
  std::vector<std::vector<std::size_t>> succ(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& in = k.code[i];
    const bool guarded = in.guard != no_pred;
    if (in.code == op::bra) {
      succ[i].push_back(in.target);
      if (guarded) succ[i].push_back(i + 1);
    } else if (in.code == op::exit) {
      succ[i].push_back(exit_node);
      if (guarded) succ[i].push_back(i + 1);
    } else {
      succ[i].push_back(i + 1);
    }
  }
  // Post-dominator sets, iterated to the fixed point (pdom[i][k]: k post-dominates i).
  std::vector<std::vector<bool>> pdom(n + 1, std::vector<bool>(n + 1, true));
  pdom[exit_node].assign(n + 1, false);
  pdom[exit_node][exit_node] = true;
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = n; i-- > 0;) {
      std::vector<bool> x(n + 1, true);
      for (std::size_t s : succ[i])
        for (std::size_t j = 0; j <= n; ++j) x[j] = x[j] && pdom[std::min(s, exit_node)][j];
      x[i] = true;
      if (x != pdom[i]) {
        pdom[i] = x;
        changed = true;
      }
    }
  }
  // The immediate one: the strict post-dominator whose own set is all the others.
  std::vector<std::uint32_t> ipdom(n, static_cast<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t count = 0;
    for (std::size_t j = 0; j <= n; ++j) count += pdom[i][j] && j != i;
    for (std::size_t d = 0; d <= n; ++d) {
      if (d == i || !pdom[i][d]) continue;
      std::size_t cd = 0;
      for (std::size_t j = 0; j <= n; ++j) cd += pdom[d][j];
      if (cd == count) {
        ipdom[i] = static_cast<std::uint32_t>(d);
        break;
      }
    }
  }
  return ipdom;
}

}  // namespace flynn::simt
