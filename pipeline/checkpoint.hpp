#pragma once
// Checkpoints of a simulation: every owned population in global raster order (so a run can go
// on with any number of ranks and either backend), the step, the convergence monitor's state and
// the identity of the sample and physics it belongs to. One file, written by every rank at its
// own offset into a temporary file, flushed to disk, then renamed by rank 0: a checkpoint is
// either whole or absent.
#include <filesystem>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/simulation.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

inline constexpr const char* checkpoint_name = "checkpoint.rpk";

// What a checkpoint must match to be resumed: the input's SHA-256 and everything that shapes
// the sample and its physics (labels, crop, filter, flow spec), hashed.
std::string run_identity(const std::string& input_sha256, const SampleSpec& sample, const FlowSpec& flow);

// Collective. Throws an output error (RuntimeFailure) naming the file when it cannot be written.
void write_checkpoint(const parallel::Comm& comm, const Simulation& simulation, const std::filesystem::path& file,
                      const std::string& identity);

// Collective. Throws InputError (field "checkpoint") when the file is missing, damaged, or of
// another sample, physics or build.
void read_checkpoint(const parallel::Comm& comm, Simulation& simulation, const std::filesystem::path& file,
                     const std::string& identity);

}  // namespace rockperm::pipeline
