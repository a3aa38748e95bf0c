#include "lib/backend/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "lib/base/error.hpp"

namespace rockperm::backend {

const char* to_string(Propagation p) { return p == Propagation::two_pass ? "two-pass" : "fused"; }

Propagation parse_propagation(const std::string& text) {
  if (text == "two-pass" || text == "swap") return Propagation::two_pass;
  if (text == "fused" || text == "aa") return Propagation::fused;
  throw InputError("propagation '" + text + "' is unknown; use two-pass or fused");
}

void Backend::download(std::vector<float>& f) {
  std::vector<std::byte> raw;
  download_raw(raw);
  physics::with_storage(storage(), [&](auto slot) {
    using S = decltype(slot);
    f.resize(raw.size() / sizeof(S));
    for (std::size_t k = 0; k < f.size(); ++k) {
      S s;
      std::memcpy(&s, raw.data() + k * sizeof(S), sizeof(S));
      f[k] = physics::StorageTraits<S>::load(s);
    }
  });
}

void Backend::upload(const std::vector<float>& f) {
  std::vector<std::byte> raw;
  physics::with_storage(storage(), [&](auto slot) {
    using S = decltype(slot);
    raw.resize(f.size() * sizeof(S));
    for (std::size_t k = 0; k < f.size(); ++k) {
      const S s = physics::StorageTraits<S>::store(f[k]);
      std::memcpy(raw.data() + k * sizeof(S), &s, sizeof(S));
    }
  });
  upload_raw(raw);
}

bool advance(Backend& backend, Propagation propagation, std::int64_t step) {
  backend.begin_step(step);
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

}  // namespace rockperm::backend
