#pragma once
// The output stage of the flow fields (velocity, pressure, pore mask) for ParaView. The grid is
// planned, and its crop checked against the simulated volume, before the time loop, so that a
// bad crop fails before any step; the fields are written after it, one piece per rank.
#include <filesystem>
#include <optional>
#include <string>

#include "lib/parallel/comm.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/simulation.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

struct FieldsPlan;  // the output grid (io/field_writer.hpp), opaque here

struct FieldsWritten {
  std::filesystem::path index;       // fields.pvti
  std::array<std::int64_t, 3> cells{0, 0, 0};
  double seconds = 0;
};

// True when this build can write fields (VTK found at build time).
bool fields_supported();

class FieldsOutput {
 public:
  // Throws InputError (field "output.fields.crop" or ".stride") on every rank alike when the
  // crop leaves the simulated volume. Disabled (and nothing checked) when spec.enabled is false.
  FieldsOutput(const FieldSpec& spec, const std::filesystem::path& dir, const Sample& sample, const FlowSpec& flow);
  ~FieldsOutput();
  FieldsOutput(FieldsOutput&&) noexcept;
  bool enabled() const { return plan_ != nullptr; }
  // An upper bound of the bytes written (uncompressed: 8 float components and a byte per cell).
  double bytes_bound() const;
  // Collective: every rank writes its piece, rank 0 the index.
  FieldsWritten write(const Comm& comm, const Simulation& simulation) const;

 private:
  std::unique_ptr<FieldsPlan> plan_;
};

// Collective: pictures of the middle plane of the simulated volume that holds the flow axis (the
// xy plane at mid z; for flow along z the xz plane at mid y) for report.html: the pore space that
// carries the flow, and |u| on a colour scale. At most 1024 pixels a side (every n-th voxel
// beyond). Root gets them; the other ranks, and a build without VTK, get none.
std::vector<SliceImage> mid_slices(const Comm& comm, const Simulation& simulation, int flow_axis);

}  // namespace rockperm::pipeline
