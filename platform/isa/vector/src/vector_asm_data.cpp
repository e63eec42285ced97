// The vector assembler's directives: .text and .data sections, and the data words of .word,
// .double and .space.
#include <charconv>
#include <system_error>

#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/platform/errors.h"
#include "vector_assembler.h"

namespace flynn::vec::assembly {

void assembler::directive(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                          unsigned eol_col) {
  const std::string name = lower(head.s);
  if (name == ".text") {
    if (!ops.empty()) fail(ops[0].col, "end of line (.text takes no operand)", ops[0].found());
    in_data_ = false;
    define_labels(labels);
    return;
  }
  if (name == ".data") {
    if (ops.size() > 1) fail(ops[1].col, "end of line (.data [ORIGIN])", ops[1].found());
    if (ops.size() == 1) {
      const std::string exp = "a data origin (a byte address that is a multiple of 8)";
      const std::int64_t origin = integer(ops[0], exp);
      if (origin < 0 || origin % 8 != 0) fail(ops[0].col, exp, ops[0].found());
      cursor_ = static_cast<std::uint64_t>(origin);
    }
    in_data_ = true;
    define_labels(labels);
    return;
  }
  if (name != ".word" && name != ".double" && name != ".space") {
    fail_hint(head.col, "a directive (.text, .data, .word, .double, .space)",
              did_you_mean(name, {".text", ".data", ".word", ".double", ".space"}), quoted(head.s));
  }
  if (!in_data_)
    fail(head.col, "an instruction (data directives belong in a .data section)", quoted(head.s));
  define_labels(labels);

  std::vector<std::uint64_t> words;
  if (name == ".space") {
    const std::string exp = "a word count 0..16777216";
    if (ops.size() != 1)
      fail(ops.empty() ? eol_col : ops[1].col, exp, ops.empty() ? "end of line" : ops[1].found());
    const std::int64_t n = integer(ops[0], exp);
    if (n < 0 || n > (1 << 24)) fail(ops[0].col, exp, ops[0].found());
    words.assign(static_cast<std::size_t>(n), 0);
  } else if (name == ".word") {
    const std::string exp = "a 64-bit integer (decimal or 0x hex)";
    if (ops.empty()) fail(eol_col, exp, "end of line");
    for (const auto& o : ops) words.push_back(static_cast<std::uint64_t>(integer(o, exp)));
  } else {
    const std::string exp = "a floating-point number";
    if (ops.empty()) fail(eol_col, exp, "end of line");
    for (const auto& o : ops) {
      double d = 0;
      const char* first = o.text.data();
      const char* last = first + o.text.size();
      const auto r = std::from_chars(first, last, d);
      if (o.text.empty() || r.ec != std::errc() || r.ptr != last) fail(o.col, exp, o.found());
      words.push_back(double_to_bits(d));
    }
  }
  emit(words, head);
}

void assembler::emit(const std::vector<std::uint64_t>& words, const token& head) {
  if (words.empty()) return;
  // A program's data is bounded as a whole (each .space is, and so is their sum).
  if (words.size() > max_data_words - data_words_)
    fail(head.col, "at most 2^24 data words in a program (128 MiB)",
         std::to_string(data_words_ + words.size()) + " words");
  data_words_ += words.size();
  const std::uint64_t bytes = 8 * static_cast<std::uint64_t>(words.size());
  if (bytes - 1 > ~std::uint64_t{0} - cursor_)
    fail(head.col, "data inside the 64-bit address space", quoted(head.s) + " at " + hex(cursor_));
  const std::uint64_t lo = cursor_, hi = cursor_ + bytes;  // [lo, hi)
  data_block* extend = nullptr;
  for (auto& b : prog_.data) {
    const std::uint64_t b_lo = b.address, b_hi = b.address + 8 * b.words.size();
    if (lo < b_hi && b_lo < hi)
      fail(head.col,
           "data that does not overlap the data at " + hex(b_lo) + ".." + hex(b_hi - 1),
           quoted(head.s) + " at " + hex(lo) + ".." + hex(hi - 1));
    if (b_hi == lo && !extend) extend = &b;
  }
  if (extend) {
    extend->words.insert(extend->words.end(), words.begin(), words.end());
  } else {
    data_block b;
    b.address = lo;
    b.words = words;
    prog_.data.push_back(std::move(b));
  }
  cursor_ = hi;
}

}  // namespace flynn::vec::assembly
