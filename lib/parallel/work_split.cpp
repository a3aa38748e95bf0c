#include "lib/parallel/work_split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/base/system.hpp"

namespace rockperm::parallel {

namespace {

constexpr double usable = 0.95;  // of a rank's memory: the rest for its runtime (as plan_memory's checks)

double capacity_cells(const RankResources& r) {
  return r.memory_bytes > 0 && r.bytes_per_cell > 0 ? usable * r.memory_bytes / r.bytes_per_cell : HUGE_VAL;
}


}  // namespace

std::string HostShare::str() const {
  if (mode == Mode::off) return "off";
  if (mode == Mode::automatic) return "auto";
  std::ostringstream o;
  o << fraction;
  return o.str();
}

HostShare parse_host_share(const std::string& text) {
  HostShare s;
  if (text == "off") s.mode = HostShare::Mode::off;
  else if (text == "auto") s.mode = HostShare::Mode::automatic;
  else {
    char* end = nullptr;
    const double f = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(f > 0 && f < 1)) {
      throw InputError("execution.host_share", "'" + text + "' is not off, auto or a fraction of the cells in (0, 1)");
    }
    s.mode = HostShare::Mode::fixed;
    s.fraction = f;
  }
  return s;
}

WorkSplit split_work(const std::vector<RankResources>& ranks, double cells, const HostShare& share) {
  WorkSplit split;
  const std::size_t n = ranks.size();
  const auto hosts = static_cast<std::size_t>(std::count_if(ranks.begin(), ranks.end(), [](const auto& r) { return r.host; }));
  if (n == 0) return split;
  if (hosts == 0 || hosts == n || share.mode == HostShare::Mode::off) {
    split.shares.assign(n, 1.0 / static_cast<double>(n));
    split.note = "equal slabs";
    return split;
  }
  std::vector<double> weight(n);
  if (share.mode == HostShare::Mode::fixed) {
    for (std::size_t r = 0; r < n; ++r) {
      weight[r] = ranks[r].host ? share.fraction / static_cast<double>(hosts)
                                : (1.0 - share.fraction) / static_cast<double>(n - hosts);
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (weight[r] * cells > capacity_cells(ranks[r])) {
        throw InputError("execution.host_share",
                         "run.host_share = " + share.str() + " gives rank " + std::to_string(r) + " (" +
                             (ranks[r].host ? "the host's cores" : "a GPU") + ") " +
                             size_text(weight[r] * cells * ranks[r].bytes_per_cell) + ", more than its " +
                             size_text(usable * ranks[r].memory_bytes) + "; use auto, or a " +
                             (ranks[r].host ? "smaller" : "larger") + " fraction");
      }
    }
    split.shares = weight;
    split.note = "the host's cores take " + share.str() + " of the cells (run.host_share)";
    return split;
  }
  // auto: in proportion to speed; a rank whose memory cannot hold its part is filled and the
  // rest goes to the others in proportion to their speeds, until every part fits
  std::vector<bool> full(n, false);
  double left = 1.0;
  for (;;) {
    double speed = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (!full[r]) speed += ranks[r].speed;
    }
    if (speed <= 0) {
      double holds = 0;
      for (const RankResources& r : ranks) holds += std::min(capacity_cells(r), cells);
      const RankResources* host = nullptr;
      for (const RankResources& r : ranks) {
        if (r.host) host = &r;
      }
      throw CapacityError("the sample's " + std::to_string(static_cast<long long>(cells)) +
                          " fluid cells need more memory than its GPUs and the host's share hold together (" +
                          std::to_string(static_cast<long long>(holds)) + " cells; the host's " +
                          size_text(host ? usable * host->memory_bytes : 0) +
                          " free); run on more GPUs, with fp16 storage, or crop it");
    }
    bool clamped = false;
    for (std::size_t r = 0; r < n; ++r) {
      if (full[r]) continue;
      weight[r] = left * ranks[r].speed / speed;
      if (weight[r] * cells > capacity_cells(ranks[r])) {
        weight[r] = capacity_cells(ranks[r]) / cells;
        full[r] = true;
        clamped = true;
      }
    }
    if (!clamped) break;
    left = 1.0;
    for (std::size_t r = 0; r < n; ++r) {
      if (full[r]) left -= weight[r];
    }
    split.by_memory = true;
    if (left <= 0) break;
  }
  split.shares = weight;
  double host_share = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (ranks[r].host) host_share += weight[r];
  }
  std::ostringstream o;
  o.precision(3);
  o << "the host's cores take " << 100.0 * host_share << " % of the cells ("
    << (split.by_memory ? "what the GPUs' memory does not hold" : "in proportion to the measured speeds") << ")";
  if (!split.by_memory) {
    // measured (docs/PERFORMANCE.md): at best a step as fast as the GPUs' alone (fp32), at worst
    // 2x slower (fp16 on a 1400^3 pack: the host's slab does not keep pace with its measured
    // share), and about 2 s more to start
    o << "; the GPUs alone hold this sample: the host's cores add nothing here and may slow each step (up to 2x "
         "in fp16): run one rank per GPU";
  }
  split.note = o.str();
  return split;
}

}  // namespace rockperm::parallel
