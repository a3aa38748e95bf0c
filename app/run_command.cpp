// rockperm run: one sample from its volume file to a permeability in mD, on one process or on
// Z-slabs over MPI ranks (one per GPU). A front end over the library pipeline
// (lib/pipeline): it parses the options, calls the stages and prints between them.
#include <functional>
#include <iostream>

#include "app/commands.hpp"
#include "app/console.hpp"
#include "app/options.hpp"
#include "io/atomic_file.hpp"
#include "lib/parallel/comm.hpp"
#include "lib/pipeline/decomposition.hpp"
#include "lib/pipeline/execution.hpp"
#include "lib/pipeline/fields.hpp"
#include "lib/pipeline/report.hpp"
#include "lib/pipeline/sample.hpp"
#include "lib/pipeline/simulation.hpp"

namespace rockperm::app {

int run_command(const std::vector<std::string>& args) {
  const Comm comm = Comm::world();
  bool help = false;
  RunOptions options;
  collectively(comm, [&] {
    options = parse_run_options(args, help);
    if (!help) options.spec.output.validate();  // the run directory exists and is writable before any work
  });
  if (help) {
    if (comm.root()) std::cout << run_options_help();
    return 0;
  }
  const pipeline::RunSpec& spec = options.spec;

  pipeline::Sample sample = pipeline::read_sample(comm, spec.sample, spec.flow);
  const pipeline::ExecutionPlan plan = pipeline::plan_execution(comm, spec.execution, sample.plane_fluid);
  const pipeline::FieldsOutput fields(spec.output.fields, spec.output.dir, sample, spec.flow);  // checked before the work
  if (comm.root()) print_sample(options, sample, plan, comm.size());

  pipeline::RankLattice lattice =
      pipeline::decompose(comm, sample, spec.flow.periodicity(), plan.propagation, spec.flow.edge_contacts);
  pipeline::Simulation simulation(comm, sample, std::move(lattice), spec.flow, spec.execution, plan);
  if (comm.root()) print_backend(simulation, plan, comm.size());

  ProgressPrinter printer;
  simulation.run(comm.root() ? ProgressFn(std::ref(printer)) : ProgressFn());
  const pipeline::SampleResult result = simulation.result();

  const pipeline::FieldsWritten written = fields.write(comm, simulation);
  if (comm.root()) {
    if (fields.enabled()) print_fields(written, spec.output.fields);
    io::write_file_atomically(spec.output.dir / "config.ini", to_ini(options));
    pipeline::write_reports(spec.output.dir, result);
    print_result(result, spec.output.dir / "report.json");
  }
  return result.converged() ? 0 : 5;
}

}  // namespace rockperm::app
