// Memory images of workloads: the "init" and "expect" entries of a scenario's workload,
// as lists of elements of 4 or 8 bytes at a byte address.
//
//   {"symbol": "A" | "address": 4096,
//    "values": [..] | "floats": [..] | "doubles": [..] | "iota": N, "start": S, "step": D |
//    "fill": N, "value": V | "random": N, "seed": S, "min": A, "max": B |
//    "random_floats": N, "seed": S | "random_doubles": N, "seed": S |
//    "random_bf16" | "random_f16" | "random_e4m3" | "random_e5m2": N, "seed": S}
//
// "values", "iota", "fill" and "random" are integers, truncated to the element. "floats" are
// binary32 in 4-byte elements and binary64 in 8-byte ones; "doubles" are binary64 and need
// 8-byte elements. "random_floats" are uniform in [0, 1), binary32 or binary64 as "floats";
// "random_doubles" likewise, binary64 in 8-byte elements only. The 16-bit and 8-bit random
// formats are uniform in [-1, 1), packed two or four per 4-byte element (the first lowest).
// Only "init" takes the random forms. An "expect" entry given as "floats" or "doubles"
// reports a mismatch as numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/platform/scenario.h"

#include "flynn/platform/run_result.h"

namespace flynn {

class backdoor_memory;

struct memory_image {
  enum class kind { integer, binary32, binary64 };  // how the elements read in messages
  std::uint64_t address = 0;
  std::vector<std::uint64_t> elements;  // each truncated to elem_bytes
  kind type = kind::integer;
};

// Parses one entry for a memory of `memory_bytes`. `resolve` turns a symbol into an address
// (or returns false); `init` allows the random forms. Throws input_error naming the JSON
// path, for an image that would not fit in the memory before any element is generated.
memory_image parse_image(const nlohmann::json& entry, const std::string& path, const scenario_doc& sd,
                         unsigned elem_bytes, std::uint64_t memory_bytes, bool init,
                         const std::function<bool(const std::string&, std::uint64_t&)>& resolve,
                         const std::vector<std::string>& symbols);

// A workload's memory images: its "init" entries (an array at workload.init) written into
// the memory, its "expect" entries (workload.expect) parsed and checked to fit, and the
// memory's whole contents after the init, the golden interpreter's input. `resolve` and
// `symbols` as for parse_image.
struct workload_images {
  std::vector<unsigned char> start;
  std::vector<std::pair<std::string, memory_image>> expect;
};
workload_images load_workload_images(const nlohmann::json& workload, backdoor_memory& mem, unsigned elem_bytes,
                                     const scenario_doc& sd,
                                     const std::function<bool(const std::string&, std::uint64_t&)>& resolve,
                                     const std::vector<std::string>& symbols);

// Writes an image into a memory (through its functional view). Throws input_error if it
// does not fit.
void write_image(backdoor_memory& mem, const memory_image& img, unsigned elem_bytes, const std::string& path,
                 const scenario_doc& sd);

// Throws input_error unless the image lies inside the memory.
void check_image_fits(const backdoor_memory& mem, const memory_image& img, unsigned elem_bytes,
                      const std::string& path, const scenario_doc& sd);

// Compares a memory's whole contents with a golden image, element by element; returns ""
// or the first element that differs.
std::string compare_memory(const backdoor_memory& mem, const std::vector<unsigned char>& golden, unsigned elem_bytes);

// The end of a golden check: the memory's contents against the golden interpreter's, then
// the scenario's expected images. Records passes in r.checks, the first failure as a
// mismatch.
void check_memory_results(const backdoor_memory& mem, const std::vector<unsigned char>& golden, unsigned elem_bytes,
                          const std::vector<std::pair<std::string, memory_image>>& expect, run_result& r);

// Compares an image with a memory's contents; returns "" or what differs, each value as
// its image's kind reads it with its bits in hex ("is 23.5 (0x41bc0000), expected ...").
std::string compare_image(const backdoor_memory& mem, const memory_image& img, unsigned elem_bytes);

}  // namespace flynn
