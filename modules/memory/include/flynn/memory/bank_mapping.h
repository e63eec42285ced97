// Bank mapping policies: which bank serves a given word. One small class per policy,
// chosen by name through the bank_mappings table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "flynn/common/bits.h"
#include "flynn/common/params.h"

namespace flynn {

enum class bank_mapping_kind { word_interleaved, block_interleaved, xor_hashed };

class bank_mapping {
 public:
  virtual ~bank_mapping() = default;
  // Bank of the word with index `word` (address / word size).
  virtual unsigned bank_of(std::uint64_t word) const = 0;
  // Banks of the n words from `first` on, into out[0, n).
  virtual void banks_of(std::uint64_t first, std::size_t n, unsigned* out) const {
    for (std::size_t i = 0; i < n; ++i) out[i] = bank_of(first + i);
  }
  // With at most 64 banks: when the mapping knows it at once, the banks of the n <= banks
  // words from `first` on as a mask, and that they are distinct (true); else false.
  virtual bool run_mask(std::uint64_t first, std::size_t n, std::uint64_t& mask) const {
    (void)first, (void)n, (void)mask;
    return false;
  }
};

// Consecutive words in consecutive banks: bank = word mod banks.
class word_interleaved_mapping final : public bank_mapping {
 public:
  explicit word_interleaved_mapping(unsigned banks) : banks_(banks) {}
  unsigned bank_of(std::uint64_t word) const override { return static_cast<unsigned>(banks_.remainder(word)); }
  void banks_of(std::uint64_t first, std::size_t n, unsigned* out) const override {
    const auto banks = static_cast<unsigned>(banks_.divisor());
    unsigned b0 = bank_of(first);
    for (; n > banks; n -= banks, out += banks) {  // whole turns
      for (unsigned i = 0; i < banks; ++i) out[i] = b0 + i >= banks ? b0 + i - banks : b0 + i;
    }
    for (unsigned i = 0; i < n; ++i) out[i] = b0 + i >= banks ? b0 + i - banks : b0 + i;
  }
  // n <= banks consecutive words: banks b0, b0 + 1, ... wrapping round, all distinct.
  bool run_mask(std::uint64_t first, std::size_t n, std::uint64_t& mask) const override {
    const auto banks = static_cast<unsigned>(banks_.divisor());
    if (banks > 64 || n > banks || n == 0) return false;
    const unsigned b0 = bank_of(first);
    const std::uint64_t all = banks == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << banks) - 1;
    const std::uint64_t bits = n == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1;
    mask = bits << b0;
    if (b0 != 0 && b0 + n > banks) mask |= bits >> (banks - b0);  // the words past the last bank
    mask &= all;
    return true;
  }

 private:
  fixed_divisor banks_;
};

// Blocks of `block_words` consecutive words per bank: bank = (word / block) mod banks.
class block_interleaved_mapping final : public bank_mapping {
 public:
  block_interleaved_mapping(unsigned banks, unsigned block_words)
      : banks_(banks), block_(block_words) {}
  unsigned bank_of(std::uint64_t word) const override {
    return static_cast<unsigned>(banks_.remainder(block_.quotient(word)));
  }

 private:
  fixed_divisor banks_, block_;
};

// "Randomised" mapping: the bank index is the XOR of all bank-index-sized fields of the
// word index, so power-of-two strides spread over the banks. Needs a power-of-two count.
class xor_hashed_mapping final : public bank_mapping {
 public:
  explicit xor_hashed_mapping(unsigned banks);
  unsigned bank_of(std::uint64_t word) const override;

 private:
  unsigned bits_;
  std::uint64_t mask_;
};

// The bank_mapping_kind values with their names (banked_memory's `mapping` parameter),
// descriptions and factories, in bank_mapping.cpp. A new mapping is a class above, its
// bank_mapping_kind value and one line in the table.
using bank_mapping_choice =
    named_choice<bank_mapping_kind,
                 std::unique_ptr<bank_mapping> (*)(unsigned banks, unsigned block_words)>;
extern const choice_table<bank_mapping_choice> bank_mappings;

// The mapping of `kind`, built by its table entry.
std::unique_ptr<bank_mapping> make_bank_mapping(bank_mapping_kind kind, unsigned banks,
                                                unsigned block_words);

}  // namespace flynn
