#include "lib/backend/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "lib/base/error.hpp"

namespace rockperm {

const char* to_string(Propagation p) { return p == Propagation::two_pass ? "two-pass" : "fused"; }

Propagation parse_propagation(const std::string& text) {
  if (text == "two-pass" || text == "swap") return Propagation::two_pass;
  if (text == "fused" || text == "aa") return Propagation::fused;
  throw InputError("propagation '" + text + "' is unknown; use two-pass or fused");
}

bool advance(Backend& backend, Propagation propagation, std::int64_t step) {
  if (propagation == Propagation::two_pass) {
    backend.collide();
    backend.swap();
    return true;
  }
  if (step % 2 == 0) {
    backend.collide();
    return false;
  }
  backend.fused_odd();
  return true;
}

}  // namespace rockperm
