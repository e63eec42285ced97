// Golden functional models a finished run is checked against, asked of the modules through
// these interfaces: a module implements the ones that apply to it, and the platform's
// checks find them on each instance without naming any module type.
#pragma once

#include <string>
#include <vector>

namespace flynn {

// A module that checks its own result against a reference model (a datapath's D against
// the reference GEMM).
class golden_self_check {
 public:
  virtual ~golden_self_check() = default;
  // Empty when the result matches; otherwise what differs. `passed` says what was checked.
  virtual std::string check_golden(std::string& passed) const = 0;
};

// A memory whose contents a golden model replays: what it held before the run, and now.
class golden_memory {
 public:
  virtual ~golden_memory() = default;
  virtual void golden_initial_image(std::vector<unsigned char>& image) const = 0;
  virtual void golden_final_image(std::vector<unsigned char>& image) const = 0;
};

// An initiator whose requests a golden model replays on the memory behind one of its
// sockets: the replay applies its writes to `image` in issue order, and says whether the
// data the initiator read during the run is the data the replay reads.
class golden_traffic {
 public:
  virtual ~golden_traffic() = default;
  virtual const char* golden_socket() const = 0;  // the socket bound to that memory
  virtual bool golden_replay(std::vector<unsigned char>& image) const = 0;
};

}  // namespace flynn
