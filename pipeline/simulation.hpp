#pragma once
// Stage 4: the simulation of one rank's part of a sample. It owns the backend, the stepper and
// the convergence state; k at every check is the reported k (with buffers or mirror image it
// is divided by the drive inside the sample, lib/solve/pressure_planes.hpp), so what
// converged is what is reported.
#include <memory>
#include <optional>
#include <vector>

#include "lib/base/uninitialized.hpp"
#include "lib/backend/backend.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/execution.hpp"
#include "pipeline/result.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/spec.hpp"
#include "lib/solve/pressure_planes.hpp"
#include "lib/solve/solver.hpp"
#include "lib/solve/darcy_start.hpp"
#include "lib/solve/stepper.hpp"

namespace rockperm::pipeline {

class Simulation {
 public:
  // Collective. `sample` gives the numbers (its mask is already taken by decompose()); `flow` as
  // resolve_flow gives it for the sample (tau and force are not chosen again here).
  Simulation(const parallel::Comm& comm, const Sample& sample, RankLattice lattice, const FlowSpec& flow,
             const ExecutionSpec& execution, const ExecutionPlan& plan);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Advances to the next convergence check and makes it (collective).
  void advance();
  bool converged() const { return loop_->result().converged; }
  bool finished() const { return loop_->finished(); }
  solve::Progress progress() const {
    solve::Progress p = loop_->progress();
    p.correction = correction_event_;
    return p;
  }
  // Advances until converged or at the step limit; `progress` is called after every check.
  void run(const solve::ProgressFn& progress = {});

  // A new drive for a step of a rate sweep (pipeline/forchheimer.hpp): tau and force replaced (an
  // auto force no longer adjusts them), the state's velocity scaled by `velocity_factor` and its
  // density deviation by `density_factor` (the new drive's steady state, were the flow creeping:
  // the velocity goes with g / nu, the pressure with g), and the loop started again, its steps
  // counted from 0 to `max_steps`, stopping at `tolerance`, checked every `check_interval` steps.
  void redrive(double tau, double force, double velocity_factor, double density_factor, std::int64_t max_steps,
               double tolerance, std::int64_t check_interval);
  std::int64_t check_interval() const { return execution_.check_interval; }  // the run's, not a rate's
  // The loop's last check: k_app, its stated error, Re and Ma, whatever the validity limits say.
  const solve::SolverResult& loop_result() const { return loop_->result(); }

  // The result as of the last check (collective: the slowest rank's exchange time).
  SampleResult result() const;
  std::string backend_description() const;  // this rank's backend
  physics::Storage storage() const;          // of the populations (lib/physics/storage.hpp)
  double setup_seconds() const { return setup_seconds_; }
  double lattice_seconds() const { return lattice_.seconds; }  // of the setup: decomposition and lattice
  double backend_seconds() const { return backend_seconds_; }  // of the setup: the backend's start
  double halo_bytes_per_step() const;       // this rank

  // The state between checks (pipeline/checkpoint.hpp writes it): this rank's owned
  // populations, cell by cell in cell order (19 slots each, natural order), the loop's state and
  // the drive of the last check. restore() takes the same from a run of the same sample and
  // physics on any number of ranks and either backend.
  struct State {
    Uninitialized<std::byte> owned;  // owned cells x 19 slots, as stored (storage())
    solve::SteadyStateLoop::State loop;
    solve::SampleDrive drive;
    double force = 0;                  // the body force at that step (auto force: adjusted)
    std::int32_t drive_adjustments = 0;
    // the pressure extrapolation's held densities of the owned cells, interleaved (held, change)
    // per cell; empty while it holds none
    std::vector<float> held;
  };
  State save() const;
  void restore(const State& state);

  // Density deviation and flux of every plane across the flow (collective).
  solve::PressureProfile plane_profile() const { return planes_->read(); }
  // Density deviation and velocity of this rank's owned cells, computed on the backend once per
  // state (the trust analysis, the pictures and the fields of the end state share one copy).
  const backend::Macroscopic& owned_macroscopic() const;
  const RankLattice& rank_lattice() const { return lattice_; }
  const Sample& sample() const { return sample_; }
  const FlowSpec& flow() const { return flow_; }  // as it runs (an auto force: its last value)
  // The plan as it runs (the halo transport falls back to staged where CUDA IPC is unavailable).
  const ExecutionPlan& plan() const { return plan_; }
  const physics::CollisionParams& params() const { return params_; }
  // The drive of the last check: the acceleration inside the sample that k divides by (g
  // without buffers or mirror; with them, g less the pressure gradient the ends build up).
  const solve::SampleDrive& drive() const { return drive_; }

 private:
  physics::CollisionParams collision_params() const;  // of flow_, with this rank's cell offset
  solve::Measurement measure(const physics::FlowSums& sums);
  void add_trust(SampleResult& r) const;  // collective
  void adjust_drive();                    // auto force: lower it where Re or Ma is above target
  void start_loop();                      // the time loop of execution_ and flow_, from step 0
  void darcy_start();                     // ExecutionSpec::Start::darcy, before the first step (collective)
  void correct_density();                 // ExecutionSpec::correction, at a check (collective)
  // rho += delta (a value per owned cell) as the equilibrium's density part, on either backend;
  // false (on every rank) where the memory for it cannot be had
  bool add_density(const std::vector<double>& delta);
  // tau and force replaced, the drive's accelerations scaled by force_factor and its velocities and
  // the populations by velocity_factor (Backend::rescale): the auto force's adjustment, a restored
  // adjusted drive (factors 1) and a sweep's new rate
  void set_drive(double tau, double force, double force_factor, double velocity_factor);

  parallel::Comm comm_;
  Sample sample_;  // without the mask (the width classes on rank 0)
  RankLattice lattice_;
  FlowSpec flow_;
  ExecutionSpec execution_;
  ExecutionPlan plan_;
  physics::CollisionParams params_;
  physics::FlowProblem problem_;
  std::unique_ptr<backend::Backend> backend_;
  std::optional<solve::Stepper> stepper_;
  std::optional<solve::PlaneReader> planes_;
  solve::PressureProfile before_;  // MonitorSettings::measure_lag steps before the check
  std::optional<solve::SteadyStateLoop> loop_;
  solve::SampleDrive drive_;
  int drive_adjustments_ = 0;
  std::int64_t loop_interval_ = 0;    // a sweep rate's check interval (redrive); 0: the run's
  bool auto_first_interval_ = false;  // the extrapolation's first interval from the time scales (of flow_.tau)
  bool start_pending_ = false;        // the Darcy-scale start, made at the first advance() of a run not restored
  StartReport start_;
  solve::CorrectionEvent correction_event_;  // of the last check
  std::unique_ptr<solve::DarcyModel> model_;         // kept for the corrections while they go on
  std::optional<solve::DensityCorrection> correction_;
  double setup_seconds_ = 0;
  double backend_seconds_ = 0;  // of the setup: the backend's start (device memory, upload)
  mutable std::optional<backend::Macroscopic> macroscopic_;  // of the current state; reset when it changes
};

}  // namespace rockperm::pipeline
