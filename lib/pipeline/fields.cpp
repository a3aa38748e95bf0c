#include "lib/pipeline/fields.hpp"

#include <chrono>

#include "lib/base/error.hpp"
#include "rockperm/config.hpp"
#if ROCKPERM_HAVE_VTK
#include "io/field_writer.hpp"
#endif

namespace rockperm::pipeline {

#if ROCKPERM_HAVE_VTK
struct FieldsPlan {
  io::OutputGrid grid;
};
bool fields_supported() { return true; }
#else
struct FieldsPlan {};
bool fields_supported() { return false; }
#endif

FieldsOutput::~FieldsOutput() = default;
FieldsOutput::FieldsOutput(FieldsOutput&&) noexcept = default;

FieldsOutput::FieldsOutput(const FieldSpec& spec, const std::filesystem::path& dir, const Sample& sample,
                           const FlowSpec& flow) {
  if (!spec.enabled) return;
#if ROCKPERM_HAVE_VTK
  io::FieldOutput out;
  out.dir = dir;
  out.offset = spec.crop.offset;
  out.size = spec.crop.size;
  out.stride = spec.stride;
  out.voxel_size_m = sample.voxel_size_um * 1e-6;
  out.viscosity_pa_s = spec.viscosity_pa_s;
  out.pressure_gradient_pa_m = spec.pressure_gradient_pa_per_m;
  out.nu_lattice = physics::viscosity(flow.tau);
  out.g_lattice = flow.force;
  out.origin_voxels[flow.flow_axis] = -sample.sample_begin;  // the sample keeps the frame of the scan
  plan_ = std::make_unique<FieldsPlan>();
  try {
    plan_->grid = io::output_grid(out, sample.dims);
  } catch (const InputError& e) {  // every rank has the same sample, so every rank fails alike
    throw on_all_ranks(InputError(e.field(), e.detail()));
  }
#else
  (void)dir;
  (void)sample;
  (void)flow;
  throw on_all_ranks(InputError("output.fields.enabled",
                                "this rockperm was built without VTK, so it cannot write flow fields; turn them off"));
#endif
}

double FieldsOutput::bytes_bound() const {
#if ROCKPERM_HAVE_VTK
  if (plan_) {
    const auto& c = plan_->grid.cells;
    return static_cast<double>(c[0]) * static_cast<double>(c[1]) * static_cast<double>(c[2]) * (8 * 4 + 1);
  }
#endif
  return 0.0;
}

FieldsWritten FieldsOutput::write(const Comm& comm, const Simulation& simulation) const {
  FieldsWritten written;
  if (!plan_) return written;
#if ROCKPERM_HAVE_VTK
  const auto start = std::chrono::steady_clock::now();
  const RankLattice& r = simulation.rank_lattice();
  const Macroscopic owned = simulation.owned_macroscopic();
  const io::FieldPiece piece{&r.lattice, &owned, r.first_local_z, r.z_begin, r.z_end};
  collectively(comm, [&] { io::write_field_piece(plan_->grid, piece, comm.rank()); });
  if (comm.root()) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (const Slab& s : r.slabs) ranges.emplace_back(s.z_begin, s.z_end);
    io::write_field_index(plan_->grid, ranges);
  }
  written.index = plan_->grid.out.dir / (plan_->grid.out.name + ".pvti");
  written.cells = plan_->grid.cells;
  written.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#else
  (void)comm;
  (void)simulation;
#endif
  return written;
}

}  // namespace rockperm::pipeline
