#pragma once
// A second run beside a sample's own, made from a variant of its mask (the resolution study's
// coarsened sample; the sample with its grey phases made solid): in memory, no run directory and
// no checkpoints (redone on a resume), the same boundaries, execution and stop requests as the
// request, tau and force its own where they are automatic.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "lib/geometry/pore_mask.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/result.hpp"
#include "pipeline/run.hpp"
#include "pipeline/slab_sample.hpp"

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

// Collective: the dimensions of the variant `view` of the request's file where every rank can
// read its own planes of it (read_on_slabs: several ranks, the volume not in memory), else
// nullopt (the variant is made on rank 0 from the request's volume: with_volume).
std::optional<geometry::Dims> companion_slabs(const parallel::Comm& comm, const RunRequest& request,
                                              const SampleView& view);

// Collective. `sample` makes the variant's sample on every rank (sample_from_mask of a mask made
// on rank 0, or read_sample_on_slabs of a view); `flow` as the request's, with the variant's
// grey permeabilities (voxel^2); `max_steps` > 0 limits the run below the request's own limit.
// Never throws for what the variant does: a physics or input error is a note (no_path where that
// is its reason).
CompanionRun run_companion(const parallel::Comm& comm, const RunRequest& request, const std::function<Sample()>& sample,
                           const FlowSpec& flow, std::int64_t max_steps = 0);

// The variant's sample: on slabs (`slabs`, companion_slabs') each rank reading its planes of the
// `view`, else from `mask` on rank 0 (ignored elsewhere) of voxels `voxel_size_um` (rank 0's).
// `name` names the sample in messages.
std::function<Sample()> companion_sample(const parallel::Comm& comm, const RunRequest& request, const FlowSpec& flow,
                                         const std::optional<geometry::Dims>& slabs, const SampleView& view,
                                         geometry::PoreMask& mask, double voxel_size_um, const std::string& name);

// Collective. For a result with grey voxels in its pore space (run() asks only then): the sample once more with its grey
// voxels solid (the request's volume, read again where it is not in memory), into
// result.grey's without_* fields; never throws for what that run does.
void run_without_grey(const parallel::Comm& comm, const RunRequest& request, SampleResult& result);

}  // namespace rockperm::pipeline
