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

double Backend::timed_steps(Propagation propagation, std::int64_t first, std::int64_t steps) {
  synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t s = 0; s < steps; ++s) advance(*this, propagation, first + s);
  synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double Backend::measure_copy_bandwidth_gbs() const {
  const std::size_t n = std::size_t{1} << 26;  // 256 MiB of floats, far beyond the caches
  std::vector<float> a(n, 1.0f), b(n, 0.0f);
  std::vector<double> times;
  for (int rep = 0; rep < 7; ++rep) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t chunk = 0; chunk < 64; ++chunk) {
      const std::size_t len = n / 64;
      std::memcpy(b.data() + chunk * len, a.data() + chunk * len, len * sizeof(float));
    }
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return 2.0 * n * sizeof(float) / times[times.size() / 2] * 1e-9;
}

}  // namespace rockperm
