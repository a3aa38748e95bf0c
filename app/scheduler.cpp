#include "app/scheduler.hpp"

#include <omp.h>

#include <algorithm>

namespace rockperm::app {

Start start_for(RunOptions& options, bool retry_failed) {
  const pipeline::RunState state = inspect_sample(options);
  if (state == pipeline::RunState::done) return Start::skip_done;
  if (state == pipeline::RunState::failed && !retry_failed) return Start::skip_failed;
  options.resume = state == pipeline::RunState::resume;
  options.overwrite = !options.resume;
  return Start::run;
}

bool can_read_ahead(const RunOptions& options, int ranks) { return ranks == 1 && !options.spec.all_axes; }

std::future<PreparedSample> start_read_ahead(const RunOptions& options, int device_slot, int threads) {
  return std::async(std::launch::async, [o = options, device_slot, threads = std::max(1, threads)] {
    omp_set_num_threads(threads);
    return prepare_sample(o, device_slot);
  });
}

}  // namespace rockperm::app
