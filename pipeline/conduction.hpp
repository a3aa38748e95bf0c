#pragma once
// The formation factor beside k (run.formation_factor): the conduction solve
// (lib/solve/conduction.hpp) on the lattice the flow ran on, every rank its slab, and what the
// report gives of it (F, F phi, Archie's m, the stated error).
#include "lib/parallel/comm.hpp"
#include "lib/solve/conduction.hpp"
#include "pipeline/result.hpp"
#include "pipeline/simulation.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

// Collective. Fills result.conduction (asked, done or its note); a solve that reaches its
// iteration limit is reported with its error and converged = false, and a warning.
// `preconditioner`: the solve's (lib/solve/conduction.hpp; multigrid unless a test asks).
// `potential`: where given, the potential of this rank's owned cells in volts for a mean field
// of 1 V/m across the sample (the fields' "potential", pipeline/fields.hpp).
void add_conduction(const parallel::Comm& comm, const Simulation& simulation, const RunSpec& spec,
                    SampleResult& result,
                    solve::ConductionProblem::Preconditioner preconditioner = solve::ConductionProblem::Preconditioner::multigrid,
                    std::vector<float>* potential = nullptr);

// The conductivity / sigma_w of each phase of the lattice: 1 for open pore, phi_c^m for grey
// phase c (phi_c its declared porosity, m its own cementation exponent where input.grey_labels
// declares one, else spec.grey_cementation).
std::vector<double> phase_conductivities(const RunSpec& spec);
// The cementation exponent each grey phase conducts with: its own, else spec.grey_cementation.
std::vector<double> grey_phase_cementation(const RunSpec& spec);

}  // namespace rockperm::pipeline
