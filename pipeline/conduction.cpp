#include "pipeline/conduction.hpp"

#include <cmath>
#include <sstream>

#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/conduction_engine.hpp"
#endif

namespace rockperm::pipeline {

std::vector<double> grey_phase_cementation(const RunSpec& spec) {
  std::vector<double> m;
  for (const geometry::GreyPhase& g : spec.sample.grey()) m.push_back(g.cementation > 0 ? g.cementation : spec.grey_cementation);
  return m;
}

std::vector<double> phase_conductivities(const RunSpec& spec) {
  std::vector<double> c{1.0};
  const std::vector<double> m = grey_phase_cementation(spec);
  for (std::size_t i = 0; i < m.size(); ++i) c.push_back(std::pow(spec.sample.grey()[i].porosity, m[i]));
  return c;
}

void add_conduction(const parallel::Comm& comm, const Simulation& simulation, const RunSpec& spec,
                    SampleResult& result, solve::ConductionProblem::Preconditioner preconditioner,
                    std::vector<float>* potential) {
  ConductionReport& r = result.conduction;
  r.asked = true;
  r.grey_cementation = spec.grey_cementation;
  r.grey_phase_cementation = grey_phase_cementation(spec);
  const Sample& sample = simulation.sample();
  const RankLattice& lattice = simulation.rank_lattice();
  const FlowSpec& flow = simulation.flow();
  solve::ConductionProblem problem;
  problem.axis = flow.flow_axis;
  problem.conductivity = phase_conductivities(spec);
  problem.region_voxels = sample.dims.voxels();
  problem.sample_begin = sample.sample_begin;
  problem.sample_end = sample.sample_end;
  problem.sample_voxels = sample.sample_dims.voxels();
  problem.interior = flow.inlet_outlet != geometry::InletOutlet::periodic;
  problem.tolerance = spec.execution.monitor.tolerance;
  problem.max_iterations = solve::ConductionProblem::automatic_iterations(sample.dims);
  problem.preconditioner = preconditioner;
  solve::ConductionSlab slab;
  slab.first_local_z = lattice.first_local_z;
  slab.planes_z = sample.dims.nz;
  slab.domain = lattice.domain ? &*lattice.domain : nullptr;
  // on the rank's GPU where the flow ran on one (and it has the memory), else on the host's cores
  solve::ConductionEngineFactory engine;
  std::string engine_note;
#if ROCKPERM_HAVE_CUDA
  if (simulation.plan().cuda && !simulation.plan().host_rank) engine = cuda::conduction_engine_on(simulation.plan().device, &engine_note);
#endif
  solve::ConductionResult solved =
      solve::solve_conduction(comm, lattice.lattice, slab, problem, potential != nullptr, {}, engine);
  r.device = solved.device;
  r.device_note = engine_note;
  if (potential) {  // voxels of potential for a unit drive per voxel -> volts for 1 V/m across the sample
    const double volts = sample.voxel_size_um * 1e-6 / (solved.field > 0 ? solved.field : 1.0);
    for (float& v : solved.potential) v = static_cast<float>(v * volts);
    *potential = std::move(solved.potential);
  }
  r.iterations = solved.iterations;
  r.seconds = solved.seconds;
  r.setup_seconds = solved.setup_seconds;
  r.converged = solved.converged;
  r.error = solved.error;
  if (!(solved.conductivity > 0)) {
    r.note = "no current crosses the sample along the flow axis through voxel faces (its pores join only along "
             "edges, where the flow's diagonal links pass but a face-to-face current does not)";
    return;
  }
  r.done = true;
  r.formation_factor = solved.formation_factor();
  if (solved.interior_conductivity > 0) r.formation_factor_interior = 1.0 / solved.interior_conductivity;
  // the porosity of F phi and m: the connected resolved pores and the grey phases' own pores
  const double porosity = result.connected_total_porosity();
  r.porosity = porosity;
  r.tortuosity_factor = r.formation_factor * porosity;
  r.cementation_exponent = porosity > 0 && porosity < 1 ? -std::log(r.formation_factor) / std::log(porosity) : 0.0;
  if (!solved.converged) {
    std::ostringstream o;
    o << "the conduction solve stopped at its limit of " << solved.iterations << " iterations with F still changing by "
      << solved.error << " (relative; tolerance " << problem.tolerance << ")";
    r.note = o.str();
    result.warnings.push_back({"formation_factor_not_converged", r.note, solved.error, "execution.monitor.tolerance"});
  }
}

}  // namespace rockperm::pipeline
