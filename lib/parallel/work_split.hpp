#pragma once
// How the fluid cells of a run are shared among ranks of unequal devices (issue 38, seed 004:
// Riesinger et al. 2017): the GPUs of a host and one rank on the host's cores. Each rank's share
// follows its speed, so that every rank finishes a step together, unless memory decides: then the
// GPUs hold what they can and the host the rest.
#include <string>
#include <vector>

namespace rockperm::parallel {

// What one rank brings to the run.
struct RankResources {
  bool host = false;          // a rank on the host's cores (else a GPU)
  double speed = 0;           // fluid-cell updates per second it sustains (> 0)
  double memory_bytes = 0;    // what it may fill (0: not checked)
  double bytes_per_cell = 0;  // of its backend and layout
};

// run.host_share: off (GPUs only), auto (the host rank's share from the speeds, or from memory
// where the GPUs cannot hold the sample), or a fixed fraction of the cells for the host ranks.
struct HostShare {
  enum class Mode { off, automatic, fixed };
  Mode mode = Mode::automatic;
  double fraction = 0;  // fixed: in (0, 1)
  std::string str() const;
};
// "off", "auto" or a number in (0, 1); throws InputError (field execution.host_share).
HostShare parse_host_share(const std::string& text);

struct WorkSplit {
  std::vector<double> shares;  // every rank's fraction of the cells, in rank order, summing to 1
  bool by_memory = false;      // a rank holds less than its speed's share because its memory is full
  std::string note;            // how the split was made, for the console and the report
};

// The split of `cells` fluid cells among `ranks`. Without a host rank, or with HostShare off,
// equal shares (the GPUs of a host are alike). Throws CapacityError, saying what to do, where
// the ranks together cannot hold the cells, and InputError where a fixed share leaves a rank
// more than its memory.
WorkSplit split_work(const std::vector<RankResources>& ranks, double cells, const HostShare& share);

}  // namespace rockperm::parallel
