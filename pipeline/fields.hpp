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
  bool flow = true;  // the flow's arrays beside the pore mask (not for F alone)
};

// True when this build can write fields (VTK found at build time).
bool fields_supported();

// The phases of a two-phase point (solid 0, wetting 1, non-wetting 2; x fastest) as `path` (.vti)
// for ParaView, voxels of `voxel_size_um`. Nothing in a build without VTK.
void write_phase_field(const std::filesystem::path& path, const geometry::Dims& dims,
                       const std::vector<std::uint8_t>& phases, double voxel_size_um);

class FieldsOutput {
 public:
  // Throws InputError (field "output.fields.crop" or ".stride") on every rank alike when the
  // crop leaves the simulated volume. Disabled (and nothing checked) when spec.enabled is false.
  FieldsOutput(const FieldSpec& spec, const std::filesystem::path& dir, const Sample& sample, const FlowSpec& flow);
  ~FieldsOutput();
  FieldsOutput(FieldsOutput&&) noexcept;
  bool enabled() const { return plan_ != nullptr; }
  // An upper bound of the bytes written (uncompressed: 9 float components, the potential too, and a byte per cell).
  double bytes_bound() const;
  // Collective: every rank writes its piece, rank 0 the index. `potential`: the electric
  // potential of the rank's owned cells (run.formation_factor, pipeline/conduction.hpp; every
  // rank gives one or none).
  // `flow` false (F alone, run.formation_factor = only): the pore mask and the potential only.
  FieldsWritten write(const parallel::Comm& comm, const Simulation& simulation,
                      const std::vector<float>* potential = nullptr, bool flow = true) const;

 private:
  std::unique_ptr<FieldsPlan> plan_;
};

// The flow fields on the sample's own voxels, in memory (a front end's arrays: numpy): the
// simulated volume without its buffers or mirror image, indexed [z][y][x] (x fastest) like the
// scan, scaled like the files (velocity in m/s and pressure in Pa for `spec`'s pressure gradient
// and viscosity, field_scale). Voxels without flow (solid, pores cut off) hold velocity 0 and
// pressure NaN.
struct FlowFields {
  geometry::Dims dims;           // the sample's (result.sample_dims)
  std::vector<float> velocity;   // 3 per voxel: ux, uy, uz
  std::vector<float> pressure;   // the deviation from the mean gradient's (Pa)
  double pressure_gradient_pa_per_m = 0, viscosity_pa_s = 0;
};

// Collective: rank 0 gets the fields (every rank's cells gathered); the others an empty one.
FlowFields gather_fields(const parallel::Comm& comm, const Simulation& simulation, const FieldSpec& spec);

// Collective: pictures of the middle plane of the simulated volume that holds the flow axis (the
// xy plane at mid z; for flow along z the xz plane at mid y) for report.html: the pore space that
// carries the flow, and |u| on a colour scale. At most 1024 pixels a side (every n-th voxel
// beyond). Root gets them; the other ranks, and a build without VTK, get none.
std::vector<SliceImage> mid_slices(const parallel::Comm& comm, const Simulation& simulation, int flow_axis);

}  // namespace rockperm::pipeline
