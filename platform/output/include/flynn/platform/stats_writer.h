// Stats writers: JSON (the machine-readable contract) and aligned text.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/common/stats.h"

namespace flynn {

nlohmann::json stats_to_json(const stats_group& g);
void write_stats_text(std::ostream& os, const std::vector<const stats_group*>& groups);

}  // namespace flynn
