#pragma once
// The coarse interface between the time loop and a compute backend (CPU reference or CUDA).
// Populations are deviations f_i - w_i in SoA layout f[i * stride + cell].
#include <cstdint>
#include <string>
#include <vector>

#include "lib/collision.hpp"
#include "lib/flow_sums.hpp"

namespace rockperm {

enum class Propagation {
  two_pass,  // collide (store reversed) + pairwise swap: the core paper's algorithm, the reference
  fused,     // A-A form of the same swap: one pass over memory per step
};

const char* to_string(Propagation p);
Propagation parse_propagation(const std::string& text);

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual std::string description() const = 0;
  // Device bytes per fluid cell actually held (populations + neighbour tables).
  virtual double bytes_per_cell() const = 0;

  virtual void collide() = 0;    // every cell, stored reversed (also the fused even step)
  virtual void swap() = 0;       // pairwise exchanges over the neighbour table
  virtual void fused_odd() = 0;  // fused A-A odd step; needs the negative neighbour table
  virtual FlowSums sums() = 0;   // valid in natural order only
  virtual void synchronize() {}
  // Seconds for `steps` steps starting at step `first` (host clock around a synchronized
  // loop; the CUDA backend times with events).
  virtual double timed_steps(Propagation propagation, std::int64_t first, std::int64_t steps);

  // The memory system's copy bandwidth (bytes read plus written per second / 1e9) where this
  // backend runs: the roofline the benchmark compares with.
  virtual double measure_copy_bandwidth_gbs() const;

  virtual void download(std::vector<float>& f) = 0;  // stride * 19 floats
  virtual void upload(const std::vector<float>& f) = 0;
};

// One time step. Returns true when the populations are in natural order afterwards (always
// for two-pass; after every odd step, i.e. an even number of steps, for fused).
bool advance(Backend& backend, Propagation propagation, std::int64_t step);

}  // namespace rockperm
