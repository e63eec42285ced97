#include "flynn/memory/bank_mapping.h"

namespace flynn {

xor_hashed_mapping::xor_hashed_mapping(unsigned banks) : bits_(0), mask_(banks - 1) {
  while ((1u << bits_) < banks) ++bits_;
}

unsigned xor_hashed_mapping::bank_of(std::uint64_t word) const {
  if (bits_ == 0) return 0;
  std::uint64_t h = 0;
  for (std::uint64_t w = word; w != 0; w >>= bits_) h ^= w & mask_;
  return static_cast<unsigned>(h);
}

std::unique_ptr<bank_mapping> make_bank_mapping(bank_mapping_kind kind, unsigned banks,
                                                unsigned block_words) {
  switch (kind) {
    case bank_mapping_kind::block_interleaved:
      return std::make_unique<block_interleaved_mapping>(banks, block_words);
    case bank_mapping_kind::xor_hashed:
      return std::make_unique<xor_hashed_mapping>(banks);
    case bank_mapping_kind::word_interleaved:
    default:
      return std::make_unique<word_interleaved_mapping>(banks);
  }
}

}  // namespace flynn
