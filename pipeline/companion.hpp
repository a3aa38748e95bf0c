#pragma once
// A second run beside a sample's own, made from a variant of its mask (the resolution study's
// coarsened sample; the sample with its grey phases made solid): in memory, no run directory and
// no checkpoints (redone on a resume), the same boundaries, execution and stop requests as the
// request, tau and force its own where they are automatic.
#include <cstdint>
#include <functional>
#include <string>

#include "lib/geometry/pore_mask.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"

namespace rockperm::pipeline {

struct CompanionRun {
  enum class Ending { converged, stopped, not_converged, invalid_physics, input_error };
  Ending ending = Ending::converged;
  bool done() const { return ending == Ending::converged; }  // `result` holds its k
  bool no_path = false;  // invalid_physics: the variant's pore space does not join the faces (k = 0)
  // why it was not done: "stopped (...)", "did not converge in N steps", or the error's message
  std::string note;
  SampleResult result;
  double seconds = 0;   // from the mask to the result
};

// Collective: `make` on rank 0 with the request's volume (request_volume: in memory, else read
// again). Throws InputError on every rank where the volume cannot be read.
void with_volume(const parallel::Comm& comm, const RunRequest& request,
                 const std::function<void(const ReadVolume&)>& make);

// Collective. `mask` on rank 0 (ignored elsewhere); `flow` as the request's, with the variant's
// grey permeabilities (voxel^2); `name` names the sample in messages; `max_steps` > 0 limits the
// run below the request's own limit. Never throws for what the variant does: a physics or input
// error is a note (no_path where that is its reason).
CompanionRun run_companion(const parallel::Comm& comm, const RunRequest& request, geometry::PoreMask mask,
                           double voxel_size_um, const FlowSpec& flow, const std::string& name,
                           std::int64_t max_steps = 0);

// Collective. For a result with grey voxels in its pore space (run() asks only then): the sample once more with its grey
// voxels solid (the request's volume, read again where it is not in memory), into
// result.grey's without_* fields; never throws for what that run does.
void run_without_grey(const parallel::Comm& comm, const RunRequest& request, SampleResult& result);

}  // namespace rockperm::pipeline
