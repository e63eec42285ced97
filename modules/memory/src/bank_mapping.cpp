#include "flynn/memory/bank_mapping.h"

#include <stdexcept>
#include <type_traits>

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

namespace {
// A factory for the table: the mapping's class, given the block size if it takes one.
template <class M>
std::unique_ptr<bank_mapping> make(unsigned banks, unsigned block_words) {
  if constexpr (std::is_constructible_v<M, unsigned, unsigned>) {
    return std::make_unique<M>(banks, block_words);
  } else {
    (void)block_words;
    return std::make_unique<M>(banks);
  }
}

const bank_mapping_choice bank_mapping_table[] = {
    {bank_mapping_kind::word_interleaved, "word", "word-interleaved",
     make<word_interleaved_mapping>},
    {bank_mapping_kind::block_interleaved, "block", "block_words words per bank",
     make<block_interleaved_mapping>},
    {bank_mapping_kind::xor_hashed, "xor", "hashed: XOR of the bank-index fields of the word index",
     make<xor_hashed_mapping>},
};
}  // namespace

const choice_table<bank_mapping_choice> bank_mappings(bank_mapping_table);

std::unique_ptr<bank_mapping> make_bank_mapping(bank_mapping_kind kind, unsigned banks,
                                                unsigned block_words) {
  const bank_mapping_choice* c = choice_for(bank_mappings, kind);
  if (!c)
    throw std::invalid_argument("bank_mapping_kind " + std::to_string(static_cast<int>(kind)) +
                                " has no entry in bank_mappings");
  return c->make(banks, block_words);
}

}  // namespace flynn
