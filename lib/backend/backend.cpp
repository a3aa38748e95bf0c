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

const char* to_string(Storage s) { return s == Storage::float16 ? "fp16" : "fp32"; }

Storage parse_storage(const std::string& text) {
  if (text == "fp32" || text == "float32" || text == "float") return Storage::float32;
  if (text == "fp16" || text == "float16" || text == "half") return Storage::float16;
  throw InputError("storage '" + text + "' is unknown; use fp32 or fp16");
}

void Backend::download(std::vector<float>& f) {
  std::vector<std::byte> raw;
  download_raw(raw);
  with_storage(storage(), [&](auto slot) {
    using S = decltype(slot);
    f.resize(raw.size() / sizeof(S));
    for (std::size_t k = 0; k < f.size(); ++k) {
      S s;
      std::memcpy(&s, raw.data() + k * sizeof(S), sizeof(S));
      f[k] = StorageTraits<S>::load(s);
    }
  });
}

void Backend::upload(const std::vector<float>& f) {
  std::vector<std::byte> raw;
  with_storage(storage(), [&](auto slot) {
    using S = decltype(slot);
    raw.resize(f.size() * sizeof(S));
    for (std::size_t k = 0; k < f.size(); ++k) {
      const S s = StorageTraits<S>::store(f[k]);
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

}  // namespace rockperm
