#include "pipeline/simulation.hpp"
#include "pipeline/slab_sample.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "lib/base/error.hpp"
#include "lib/base/parallel_bytes.hpp"
#include "lib/solve/time_scales.hpp"

namespace rockperm::pipeline {

namespace {

std::vector<Warning> warnings_for(const SampleResult& r) {
  std::vector<Warning> w;
  const auto text = [](auto&&... parts) {
    std::ostringstream o;
    (o << ... << parts);
    return o.str();
  };
  if (!r.converged()) {
    const std::string distance =
        std::isfinite(r.error_estimate) ? text("k may still change by ", r.error_estimate, " (relative")
                                        : text("k is still changing at a rate that does not fall (", r.relative_change,
                                               " per 100 steps");
    w.push_back({"not_converged",
                 text("not converged after ", r.steps, " steps: ", distance, ", tolerance ", r.tolerance,
                      "), and the flux through the planes across the flow differs by ", r.flux_nonuniformity,
                      " (tolerance ", r.flux_tolerance, "); raise the step limit"),
                 r.error_estimate, "execution.max_steps"});
  }
  if (r.k.reynolds > reynolds_limit) {
    w.push_back({"reynolds",
                 text("Reynolds number ", r.k.reynolds, " > ", reynolds_limit,
                      ": inertia biases k, which is no Darcy permeability; lower the body force"),
                 r.k.reynolds, "flow.force"});
  }
  if (r.k.mach > mach_limit) {
    w.push_back({"mach",
                 text("Mach number ", r.k.mach, " > ", mach_limit,
                      ": compressibility biases k; lower the body force"),
                 r.k.mach, "flow.force"});
  }
  // k of the interior against the whole sample's: far apart where the sample is not homogeneous
  // along the flow at its own scale (its ends conduct unlike its middle, or it is a few pores
  // long). k is the whole sample's; the verdict names any difference beyond the stated error, a
  // warning one beyond 10 % (interior_difference)
  const double apart = interior_difference(r);
  if (std::abs(apart) > 0.1) {
    std::ostringstream o;
    o << "k of the sample's interior (the middle ~70 % along the flow) is " << std::showpos << 100.0 * apart
      << std::noshowpos
      << " % off the whole sample's: the sample is not homogeneous along the flow at its own length, so a part of "
         "it does not stand for the whole; a longer sample is more representative";
    w.push_back({"interior_differs", o.str(), apart, "flow.inlet_outlet"});
  }
  return w;
}

}  // namespace

physics::CollisionParams Simulation::collision_params() const {
  physics::CollisionParams p =
      physics::make_collision_params(flow_.collision, flow_.tau, flow_.magic, flow_.flow_axis, flow_.force,
                                     flow_.grey_permeability);
  // the global index of local cell 0: the fp16 rounding of a cell is then the same on any
  // number of ranks (lib/physics/collision.hpp)
  const std::uint64_t first_global = parallel::fluid_before(lattice_.slabs, comm_.rank());
  p.cell_offset = static_cast<std::uint32_t>(first_global - lattice_.lattice.owned_begin());
  return p;
}

Simulation::Simulation(const parallel::Comm& comm, const Sample& sample, RankLattice lattice, const FlowSpec& flow,
                       const ExecutionSpec& execution, const ExecutionPlan& plan)
    : comm_(comm), lattice_(std::move(lattice)), flow_(flow), execution_(execution), plan_(plan) {
  if (flow.needs_resolving()) throw Error("internal: a Simulation takes the flow as resolve_flow gives it");
  const auto start = std::chrono::steady_clock::now();
  // 16-bit populations round stochastically: at steady state the flux through the planes
  // fluctuates by up to 1.2e-4 and k by 7e-6 on the 64^3 sample (lib/physics/storage.hpp), and
  // on tight rock k by 5e-5 from check to check (docs/ACCURACY.md): the flux is read over 64
  // steps and k as the mean of the run's last eighth, with its standard error in the error
  if (plan.storage == physics::Storage::float16) {
    execution_.monitor.flux_floor = 2e-4;
    execution_.monitor.k_noise = 3e-5;
    execution_.monitor.measure_lag = 64;
    execution_.monitor.average_noise = true;
  }
  auto_first_interval_ = execution_.extrapolation.first_interval <= 0;
  sample_.input = sample.input;
  sample_.dims = sample.dims;
  sample_.sample_dims = sample.sample_dims;
  sample_.sample_begin = sample.sample_begin;
  sample_.sample_end = sample.sample_end;
  sample_.voxel_size_um = sample.voxel_size_um;
  sample_.plane_fluid = sample.plane_fluid;
  sample_.fluid = sample.fluid;
  sample_.percolation = sample.percolation;
  sample_.grey_voxels_before = sample.grey_voxels_before;
  sample_.grey_voxels = sample.grey_voxels;
  sample_.pores = sample.pores;
  sample_.widths = sample.widths;  // shared: computed once, beside the solve on a GPU
  sample_.read_seconds = sample.read_seconds;
  sample_.percolation_seconds = sample.percolation_seconds;
  sample_.pore_seconds = sample.pore_seconds;
  sample_.hash_seconds = sample.hash_seconds;

  params_ = collision_params();
  problem_.flow_axis = flow_.flow_axis;
  problem_.tau = flow_.tau;
  problem_.acceleration = flow_.force;
  problem_.region_voxels = sample.dims.voxels();
  problem_.region_fluid = sample.fluid;
  problem_.voxel_size_um = sample.voxel_size_um;
  drive_.acceleration = flow_.force;
  drive_.period = flow_.inlet_outlet == geometry::InletOutlet::buffer ? 0 : 1;

  const auto backend_start = std::chrono::steady_clock::now();
  const ScopedThreads threads(sample.slabs ? sample.slabs->threads : 0);  // the host's cores shared, as decompose()
  parallel::collectively(comm_, [&] {
    backend_ = make_backend(plan_, lattice_.lattice, params_);
    if (lattice_.domain) {
      stepper_.emplace(*backend_, plan_.propagation, comm_, *lattice_.domain, lattice_.lattice, plan_.device_halo);
    } else {
      stepper_.emplace(*backend_, plan_.propagation);
    }
  });
  if (lattice_.domain && !connect_halos(plan_, execution_.halo_transport, comm_, *stepper_, flow_.periodicity()[2])) {
    stepper_.emplace(*backend_, plan_.propagation, comm_, *lattice_.domain, lattice_.lattice, false);  // staged
  }
  backend_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - backend_start).count();
  const int axis = flow_.flow_axis;
  const double planes = static_cast<double>(sample.dims[axis]);
  planes_.emplace(*backend_, lattice_.lattice, comm_, axis, sample.dims[axis], lattice_.first_local_z,
                  static_cast<double>(sample.dims.voxels()) / planes);

  start_loop();
  start_pending_ = execution_.start == ExecutionSpec::Start::darcy || execution_.correction;
  if (start_pending_) start_.method = "darcy";
  if (execution_.correction) {
    // the drive's density drop along the lattice's period, 3 g L: the corrections' yardstick
    // corrections go on until one is quiet: it moves k by less than a quarter of the tolerance (its
    // floor, twice that, under half); the next ones would cost their solves and buy the stop nothing
    // (an H100: tight512's four after the first quiet one took 38 s)
    solve::DensityCorrectionSettings settings;
    settings.until = 0.5 * execution_.monitor.tolerance;
    settings.quiet = 0.5 * execution_.monitor.tolerance;
    correction_.emplace(comm_, settings, physics::viscosity(flow_.tau),
                        3.0 * flow_.force * static_cast<double>(sample.dims[flow_.flow_axis]));
  }
  // the hash runs beside the percolation and the pore statistics: what it adds is what outlasts them
  setup_seconds_ = sample.read_seconds + std::max(sample.percolation_seconds + sample.pore_seconds, sample.hash_seconds) +
                   lattice_.seconds +
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Simulation::~Simulation() = default;

void Simulation::start_loop() {
  // the first interval of the pressure extrapolation: a third of the estimated pressure time, so
  // that the slow mode shrinks by about a half over it (the ratio then reads well)
  if (auto_first_interval_) {
    const double length = static_cast<double>(sample_.dims[flow_.flow_axis]);
    const solve::TimeScales t = solve::time_scales(sample_.pores, length, physics::viscosity(flow_.tau));
    execution_.extrapolation.first_interval = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(t.pressure / 3.0), solve::ExtrapolationSettings::min_interval, 20000);
  }
  solve::RunControls controls;
  controls.max_steps = execution_.max_steps;
  controls.check_interval = loop_interval_ > 0 ? loop_interval_ : execution_.check_interval;
  controls.propagation = plan_.propagation;
  controls.monitor = execution_.monitor;
  controls.extrapolation = execution_.extrapolation;
  loop_.emplace(*stepper_, sample_.fluid, [this](const physics::FlowSums& s) { return measure(s); }, controls,
                [this] { before_ = planes_->read(); });
}

void Simulation::set_drive(double tau, double force, double force_factor, double velocity_factor) {
  flow_.tau = tau;
  flow_.force = force;
  problem_.tau = tau;
  problem_.acceleration = force;
  params_ = collision_params();
  drive_.acceleration *= force_factor;
  drive_.velocity *= velocity_factor;
  drive_.interior_acceleration *= force_factor;
  drive_.interior_velocity *= velocity_factor;
  backend_->rescale(static_cast<float>(velocity_factor), params_);
}

void Simulation::redrive(double tau, double force, double velocity_factor, double density_factor,
                         std::int64_t max_steps, double tolerance, std::int64_t check_interval) {
  macroscopic_.reset();
  loop_interval_ = check_interval;
  flow_.auto_force = false;  // a sweep's step is set for its Reynolds number, not lowered to creeping flow
  set_drive(tau, force, force / flow_.force, velocity_factor);
  // the density deviation to density_factor of what it was: as a jump of the pressure extrapolation
  // from held densities of zero (rho += (density_factor / velocity_factor - 1) rho), on either
  // backend; where the memory for the held densities cannot be had it keeps the velocity's factor
  if (velocity_factor != 0 && density_factor != velocity_factor) {
    const std::size_t owned = static_cast<std::size_t>(lattice_.lattice.owned_end() - lattice_.lattice.owned_begin());
    bool held = false;
    try {
      backend_->restore_held_densities(std::vector<float>(2 * owned, 0.0f));
      held = true;
    } catch (const std::bad_alloc&) {
    } catch (const RuntimeFailure&) {  // a GPU without the memory
    }
    if (comm_.max(held ? 0.0 : 1.0) == 0) backend_->extrapolate_density(static_cast<float>(density_factor / velocity_factor - 1.0));
  }
  backend_->restore_held_densities({});
  execution_.max_steps = max_steps;
  execution_.monitor.tolerance = tolerance;
  start_loop();
}

solve::Measurement Simulation::measure(const physics::FlowSums& sums) {
  const solve::PressureProfile profile = planes_->read();
  solve::Measurement m;
  m.flux_nonuniformity = solve::flux_spread(before_, profile, loop_->lag());
  if (flow_.inlet_outlet == geometry::InletOutlet::periodic) {
    m.k = permeability(sums, problem_);
    return m;
  }
  // the buffers resist less than the sample, so a pressure gradient builds up inside the sample
  // and adds to the body force: k = nu q / (g - (p_out - p_in) / (rho L)), from the potential lost
  // between the faces and the flux of the sample's planes; mirrored, the whole period with g
  try {
    drive_ = solve::sample_drive(profile, flow_.force, sample_.sample_begin, sample_.sample_end);
  } catch (const InputError& e) {  // the reduced profile is the same on every rank
    throw on_all_ranks(InputError(e.field(), e.detail()));
  }
  physics::FlowProblem corrected = problem_;
  corrected.acceleration = drive_.acceleration;
  m.k = drive_.period ? permeability(sums, corrected) : permeability(sums, corrected, drive_.velocity);
  return m;
}

void Simulation::advance() {
  if (start_pending_) darcy_start();
  // the host is free while a GPU computes: the width classes of the trust report are worked out
  // then (on the CPU backend the threads are the solver's: at the end, in add_trust)
  if (plan_.cuda && (comm_.root() || sample_.widths.local())) sample_.widths.start();
  // while the density corrections go on the run does not stop: the state is still being moved
  loop_->hold_stop(correction_ && model_ && correction_->holds());
  correction_event_ = {};
  loop_->next_check();
  if (correction_ && model_ && !loop_->finished()) correct_density();
  adjust_drive();
  macroscopic_.reset();
}

void Simulation::run(const solve::ProgressFn& progress) {
  while (!loop_->finished()) {
    advance();
    if (progress) progress(this->progress());
  }
}

void Simulation::adjust_drive() {
  constexpr int max_adjustments = 3;
  if (!flow_.auto_force || drive_adjustments_ >= max_adjustments || loop_->finished()) return;
  const physics::Permeability& k = loop_->result().k;
  const double over = std::max(k.mach / FlowSpec::target_mach, k.reynolds / FlowSpec::target_reynolds);
  if (!(over > 2.0)) return;
  // the same on every rank: Re and Ma come from the reduced sums
  const double factor = 1.0 / over;
  set_drive(flow_.tau, flow_.force * factor, factor, factor);
  ++drive_adjustments_;
}

namespace {

// The owned cells' slots between the backend's rows (slot i of cell c at rows[(i stride + c) b])
// and a state's cells (at cells[((c - first) 19 + i) b]), on the threads, a block of cells at a
// time (its rows' runs read or written whole, its cells' bytes within the caches). One thread
// copying slot by slot took 18 s for an 800^3 pack's 5.8 GB on the CI kind of machine.
template <std::size_t B, bool ToCells>
void copy_slots(const std::byte* from, std::byte* to, std::uint64_t stride, std::uint32_t first, std::uint32_t end) {
  constexpr std::int64_t block = 1024;
  const std::int64_t n = end - first, blocks = (n + block - 1) / block;
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < blocks; ++k) {
    const std::int64_t c0 = k * block, c1 = std::min(n, c0 + block);
    for (int i = 0; i < d3q19::q; ++i) {
      const std::uint64_t row = (static_cast<std::uint64_t>(i) * stride + first) * B;
      for (std::int64_t c = c0; c < c1; ++c) {
        const std::uint64_t in_row = row + static_cast<std::uint64_t>(c) * B,
                            in_cells = (static_cast<std::uint64_t>(c) * d3q19::q + i) * B;
        if constexpr (ToCells) std::memcpy(to + in_cells, from + in_row, B);
        else std::memcpy(to + in_row, from + in_cells, B);
      }
    }
  }
}

template <bool ToCells>
void copy_owned_slots(std::size_t b, const std::byte* from, std::byte* to, std::uint64_t stride, std::uint32_t first,
                std::uint32_t end) {
  if (b == 2) copy_slots<2, ToCells>(from, to, stride, first, end);
  else if (b == 4) copy_slots<4, ToCells>(from, to, stride, first, end);
  else throw Error("internal: populations of " + std::to_string(b) + " bytes");
}

}  // namespace

Simulation::State Simulation::save() const {
  State s;
  std::vector<std::byte> f;  // a copy of the slots, where they are not in host memory already
  const std::byte* slots = backend_->host_slots();
  if (!slots) {
    backend_->download_raw(f);
    slots = f.data();
  }
  const lattice::SparseLattice& lat = lattice_.lattice;
  const std::size_t b = physics::storage_bytes(backend_->storage());
  s.owned.resize(static_cast<std::size_t>(lat.owned_end() - lat.owned_begin()) * d3q19::q * b);
  copy_owned_slots<true>(b, slots, s.owned.data(), lat.stride(), lat.owned_begin(), lat.owned_end());
  s.loop = loop_->state();
  if (loop_->holds_densities()) backend_->held_densities(s.held);
  s.drive = drive_;
  s.force = flow_.force;
  s.drive_adjustments = drive_adjustments_;
  return s;
}

void Simulation::restore(const State& s) {
  macroscopic_.reset();
  const lattice::SparseLattice& lat = lattice_.lattice;
  const std::uint64_t stride = lat.stride();
  const std::size_t b = physics::storage_bytes(backend_->storage());
  if (s.owned.size() != static_cast<std::size_t>(lat.owned_end() - lat.owned_begin()) * d3q19::q * b) {
    throw Error("internal: a restored state of the wrong size");
  }
  // ghost cells and padding start at zero (in both storages, zero bits are 0.0): at a check the
  // populations are in natural order, and the next step's exchange fills every ghost slot that
  // is read before it is written
  const std::uint64_t bytes = d3q19::q * stride * b;
  if (std::byte* slots = backend_->host_slots()) {
    zero_on_threads(slots, bytes);
    copy_owned_slots<false>(b, s.owned.data(), slots, stride, lat.owned_begin(), lat.owned_end());
  } else {
    std::vector<std::byte> f(bytes, std::byte{0});
    copy_owned_slots<false>(b, s.owned.data(), f.data(), stride, lat.owned_begin(), lat.owned_end());
    backend_->upload_raw(f);
  }
  backend_->restore_held_densities(s.held);
  if (start_pending_) {  // the state is the checkpoint's
    start_pending_ = false;
    start_.note = "resumed from a checkpoint: the run before it made the start";
  }
  // the corrections' cycle is not in a checkpoint: a resumed run makes none (its monitor goes on)
  correction_.reset();
  model_.reset();
  loop_->restore(s.loop);
  drive_ = s.drive;
  drive_adjustments_ = s.drive_adjustments;
  if (s.force > 0 && s.force != flow_.force) {  // an adjusted drive: the populations are already its
    set_drive(flow_.tau, s.force, 1.0, 1.0);
  }
}

std::string Simulation::backend_description() const { return backend_->description(); }

physics::Storage Simulation::storage() const { return backend_->storage(); }

double Simulation::halo_bytes_per_step() const { return static_cast<double>(stepper_->halo_bytes_per_step()); }

const backend::Macroscopic& Simulation::owned_macroscopic() const {
  if (!macroscopic_) {
    backend::Macroscopic m;
    backend_->macroscopic(backend_->owned(), m);
    macroscopic_ = std::move(m);
  }
  return *macroscopic_;
}

SampleResult Simulation::result() const {
  const solve::SolverResult& s = loop_->result();
  SampleResult r;
  r.input = sample_.input;
  r.status = s.converged ? RunStatus::converged : RunStatus::not_converged;
  r.k = s.k;
  r.percolation = sample_.percolation;
  r.pores = sample_.pores;
  r.steps = s.steps;
  r.relative_change = s.relative_change;
  r.error_estimate = s.error_estimate;
  r.flux_nonuniformity = s.flux_nonuniformity;
  r.drive_adjustments = drive_adjustments_;
  r.mass_drift = s.mass_drift;
  r.drive = drive_;
  for (int a = 0; a < 3; ++a) r.mean_velocity[a] = s.sums.velocity[a] / static_cast<double>(sample_.dims.voxels());
  for (std::size_t c = 0; c < flow_.grey_permeability.size(); ++c) {  // the declared labels: pipeline::run
    GreyPhaseReport g;
    g.permeability_voxel2 = flow_.grey_permeability[c];
    g.voxels = sample_.grey_voxels_before[c];
    g.connected = sample_.grey_voxels[c];
    r.grey.phases.push_back(g);
  }
  const double along = s.sums.velocity[flow_.flow_axis];
  r.grey.flow_fraction = along != 0 ? s.sums.grey_velocity[flow_.flow_axis] / along : 0.0;
  const double md_per_lattice = s.k.k_lattice != 0 ? s.k.k_md / s.k.k_lattice : 0.0;
  if (drive_.has_interior() && drive_.interior_acceleration != 0) {
    r.k_interior_md = physics::viscosity(flow_.tau) * drive_.interior_velocity / drive_.interior_acceleration * md_per_lattice;
  }
  for (const auto& [step, k] : loop_->history().points()) {
    r.history_md.emplace_back(loop_->history_origin() + step, k * md_per_lattice);
  }
  r.extrapolations = s.jumps;
  r.start = start_;
  r.dims = sample_.dims;
  r.sample_dims = sample_.sample_dims;
  r.voxel_size_um = sample_.voxel_size_um;
  r.fluid_cells = sample_.fluid;
  r.flow = flow_;
  r.tolerance = execution_.monitor.tolerance;
  r.flux_tolerance = execution_.monitor.flux_limit();
  r.timings = Timings{sample_.read_seconds, sample_.percolation_seconds, sample_.pore_seconds, sample_.hash_seconds,
                      setup_seconds_,          lattice_.seconds,           backend_seconds_,    s.seconds};
  r.performance.backend =
      backend_->description() + (comm_.size() > 1 ? " x " + std::to_string(comm_.size()) + " ranks" : "");
  r.performance.propagation = plan_.propagation;
  r.performance.ranks = comm_.size();
  r.performance.mflups = s.mflups;
  r.performance.bytes_per_cell = backend_->bytes_per_cell();
  r.performance.mpi_seconds = comm_.max(stepper_->mpi_seconds());
  r.performance.halo_bytes_per_step = static_cast<double>(stepper_->halo_bytes_per_step());
  if (s.steps > 0) add_trust(r);
  r.timings.pore_analysis = sample_.pore_seconds + sample_.widths.seconds();  // the widths: beside the solve on a GPU
  r.warnings = warnings_for(r);
  if (r.status == RunStatus::converged && (r.k.reynolds > reynolds_limit || r.k.mach > mach_limit)) {
    r.status = RunStatus::invalid_physics;
    r.message = "k converged outside the validity limits (Re " + std::to_string(r.k.reynolds) + ", Ma " +
                std::to_string(r.k.mach) + "; both must stay below 0.1): lower the body force";
  } else if (r.status == RunStatus::not_converged) {
    r.message = r.warnings.front().message;
  }
  return r;
}

void Simulation::add_trust(SampleResult& r) const {
  // k of the two halves of the interior, from the same plane profile as k
  const solve::PressureProfile profile = planes_->read();
  const std::int64_t length = sample_.sample_end - sample_.sample_begin;
  const std::int64_t margin =
      flow_.inlet_outlet == geometry::InletOutlet::periodic ? 0 : std::max<std::int64_t>(1, length / 8);
  const std::int64_t first = sample_.sample_begin + margin, last = sample_.sample_end - margin;
  if (last - first >= 16) {
    const std::int64_t mid = (first + last) / 2, window = std::max<std::int64_t>(1, length / 16);
    const double md_per_lattice = r.k.k_lattice != 0 ? r.k.k_md / r.k.k_lattice : 0.0;
    const std::int64_t parts[2][2] = {{first, mid}, {mid, last}};
    for (int h = 0; h < 2; ++h) {
      const solve::PartDrive d = solve::part_drive(profile, flow_.force, parts[h][0], parts[h][1], window);
      r.k_halves_md[h] = physics::viscosity(flow_.tau) * d.velocity / d.acceleration * md_per_lattice;
    }
  }
  // the width of the pores where the flux goes: the velocities along the flow meet the width
  // classes of the same cells, on each rank where each rank has its slab's classes (a sample
  // read on slabs), else on rank 0, every rank's velocities gathered in cell order (ranks own
  // consecutive cells)
  const bool local = sample_.widths.local();
  const backend::Macroscopic& m = owned_macroscopic();
  const std::vector<float>& u = flow_.flow_axis == 0 ? m.ux : (flow_.flow_axis == 1 ? m.uy : m.uz);
  std::vector<float> gathered;  // on several ranks: every rank's, on rank 0
  const std::vector<float>* velocity = &u;
  if (comm_.size() > 1 && !local) {
    std::vector<std::uint8_t> bytes(u.size() * sizeof(float));
    std::memcpy(bytes.data(), u.data(), bytes.size());
    const std::vector<std::uint8_t> all = comm_.gather_bytes(bytes);
    gathered.resize(all.size() / sizeof(float));
    std::memcpy(gathered.data(), all.data(), gathered.size() * sizeof(float));
    velocity = &gathered;
  }
  // a failure of the analysis (memory, on a thread beside the solve) costs the report its pore
  // widths, not the run its k
  static const std::vector<std::uint8_t> none;
  const std::vector<std::uint8_t>* classes = &none;
  std::string failure;
  if (comm_.root() || local) {
    try {
      classes = &sample_.widths.get();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  const std::vector<std::uint8_t>& width_class = *classes;
  // counts of cells per class, all flux, narrow flux: in blocks of a fixed size, summed in order
  // (the same numbers on any number of threads), then over ranks in rank order
  std::vector<double> total(geometry::width_classes + 2, 0.0);
  const bool usable = velocity->size() == width_class.size() && failure.empty();
  if (usable && (comm_.root() || local)) {
    constexpr std::size_t block = 1 << 16;
    const std::size_t n = velocity->size(), blocks = (n + block - 1) / block;
    std::vector<std::array<double, geometry::width_classes + 2>> part(blocks);
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
      std::array<double, geometry::width_classes + 2> sums{};
      for (std::size_t c = static_cast<std::size_t>(b) * block; c < std::min(n, (static_cast<std::size_t>(b) + 1) * block); ++c) {
        const std::uint8_t w = width_class[c];
        if (w == geometry::no_width_class) continue;
        const double v = (*velocity)[c];
        sums[w] += 1;
        sums[geometry::width_classes] += v;
        if (w == 0) sums[geometry::width_classes + 1] += v;
      }
      part[static_cast<std::size_t>(b)] = sums;
    }
    for (const auto& p : part) {
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += p[i];
    }
  }
  if (local) {
    total.push_back(usable ? 0.0 : 1.0);  // ranks whose classes failed
    total = comm_.sum(total);
    if (total.back() > 0 && failure.empty()) failure = "on another rank";
    total.pop_back();
  }
  if (!failure.empty() && comm_.root()) {
    r.warnings.push_back({"pore_widths", "the pore widths could not be worked out (" + failure +
                                             "); the report gives no share of the flow by pore width", 0.0, ""});
  }
  std::vector<double> numbers(geometry::width_classes + 1, 0.0);  // cells per class, narrow flux share
  if (comm_.root() || local) {
    double cells = 0;
    for (int w = 0; w < geometry::width_classes; ++w) cells += total[w];
    for (int w = 0; w < geometry::width_classes; ++w) numbers[w] = cells > 0 ? total[w] / cells : 0.0;
    numbers[geometry::width_classes] =
        total[geometry::width_classes] != 0 ? total[geometry::width_classes + 1] / total[geometry::width_classes] : 0.0;
  }
  if (!local) numbers = comm_.sum(numbers);  // rank 0's numbers on every rank
  for (int w = 0; w < geometry::width_classes; ++w) r.width_fraction[w] = numbers[w];
  r.narrow_flow_fraction = numbers[geometry::width_classes];
}

}  // namespace rockperm::pipeline
