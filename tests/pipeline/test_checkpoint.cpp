// Checkpoints: a run resumed from one ends with the k of a run never stopped, bit for bit; a
// checkpoint with a changed byte (populations or header) is refused with a clear message.
// Audit finding 2: 3 flipped bytes in the populations were resumed without a word.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/base/error.hpp"
#include "pipeline/checkpoint.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm::pipeline {

namespace {

geometry::PoreMask channel() {
  return testing::mask_from(geometry::Dims{16, 10, 10}, [](auto x, auto y, auto z) {
    return y >= 2 && y < 8 && z >= 1 && z < 9 && !(x % 5 == 2 && y >= 4 && y < 6 && z >= 3 && z < 7);
  });
}

std::unique_ptr<Simulation> start(const FlowSpec& flow, const ExecutionSpec& execution) {
  const parallel::Comm comm;
  Sample sample = sample_from_mask(comm, channel(), 2.0, flow, false, "channel");
  const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
  RankLattice part = decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts);
  return std::make_unique<Simulation>(comm, sample, std::move(part), flow, execution, plan);
}

const std::string identity(64, 'a');  // as run_identity gives: 64 hex digits

void flip(const std::filesystem::path& file, std::uint64_t at, int bytes) {
  std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
  for (int k = 0; k < bytes; ++k) {
    f.seekg(static_cast<std::streamoff>(at + k));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x24);
    f.seekp(static_cast<std::streamoff>(at + k));
    f.write(&c, 1);
  }
}

std::string refusal(const std::filesystem::path& file, const FlowSpec& flow, const ExecutionSpec& execution) {
  auto simulation = start(flow, execution);
  try {
    read_checkpoint(parallel::Comm(), *simulation, file, identity);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// the channel between 3 buffer layers each side, to steady state at tolerance 1e-7
FlowSpec buffered_flow() {
  FlowSpec flow = testing::periodic_flow(0.8, 1e-5, {false, false, false});
  flow.inlet_outlet = geometry::InletOutlet::buffer;
  flow.buffer_layers = 3;
  flow.validate();
  return flow;
}

ExecutionSpec tight_execution() {
  testing::PipelineSettings settings;
  settings.tolerance = 1e-7;
  return testing::test_execution(settings);
}

// an empty directory of this process for the test's files
std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST(Checkpoint, ResumesBitForBitAndRefusesAChangedByte) {
  const FlowSpec flow = buffered_flow();
  const ExecutionSpec execution = tight_execution();
  const std::filesystem::path dir = scratch_dir("rockperm_checkpoint");
  const std::filesystem::path file = dir / checkpoint_name;

  auto whole = start(flow, execution);
  whole->run();
  ASSERT_TRUE(whole->converged());
  const double k = whole->result().k.k_lattice;

  auto first = start(flow, execution);
  for (int c = 0; c < 3; ++c) first->advance();
  write_checkpoint(parallel::Comm(), *first, file, identity);
  const std::uint64_t size = std::filesystem::file_size(file);
  std::filesystem::copy_file(file, dir / "intact.rpk");

  auto resumed = start(flow, execution);
  read_checkpoint(parallel::Comm(), *resumed, file, identity);
  resumed->run();
  EXPECT_EQ(resumed->result().k.k_lattice, k);  // bit for bit

  flip(file, 4096 + (size - 4096) / 2, 3);  // three bytes in the middle of the populations
  EXPECT_NE(refusal(file, flow, execution).find("damaged"), std::string::npos) << refusal(file, flow, execution);
  std::filesystem::copy_file(dir / "intact.rpk", file, std::filesystem::copy_options::overwrite_existing);
  flip(file, size - 1, 1);  // the last population's last byte
  EXPECT_NE(refusal(file, flow, execution).find("damaged"), std::string::npos);
  std::filesystem::copy_file(dir / "intact.rpk", file, std::filesystem::copy_options::overwrite_existing);
  flip(file, 200, 1);  // inside the header: the loop's state
  EXPECT_NE(refusal(file, flow, execution).find("damaged"), std::string::npos);
  std::filesystem::copy_file(dir / "intact.rpk", file, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(refusal(file, flow, execution), "");
  std::filesystem::remove_all(dir);
}

// A run started from the Darcy-scale pressure field (run.start = darcy, issue 67) resumes from its
// checkpoint without making the start again (the state is the checkpoint's): the same k and steps
// as the uninterrupted run, bit for bit.
TEST(Checkpoint, ARunStartedFromTheDarcyFieldResumesToTheSameBits) {
  const FlowSpec flow = buffered_flow();
  ExecutionSpec execution = tight_execution();
  execution.start = ExecutionSpec::Start::darcy;
  const std::filesystem::path dir = scratch_dir("rockperm_checkpoint_darcy_start");
  const std::filesystem::path file = dir / checkpoint_name;
  auto whole = start(flow, execution);
  whole->run();
  ASSERT_TRUE(whole->converged());
  ASSERT_TRUE(whole->result().start.done) << whole->result().start.note;
  auto first = start(flow, execution);
  for (int c = 0; c < 4; ++c) first->advance();
  write_checkpoint(parallel::Comm(), *first, file, identity);
  auto resumed = start(flow, execution);
  read_checkpoint(parallel::Comm(), *resumed, file, identity);
  resumed->run();
  EXPECT_EQ(resumed->result().k.k_lattice, whole->result().k.k_lattice);  // bit for bit
  EXPECT_EQ(resumed->result().steps, whole->result().steps);
  EXPECT_FALSE(resumed->result().start.done);  // not made again
  EXPECT_NE(resumed->result().start.note.find("checkpoint"), std::string::npos) << resumed->result().start.note;
  std::filesystem::remove_all(dir);
}

// A checkpoint written while the pressure extrapolation holds densities (lib/solve/extrapolation.hpp)
// carries them: the resumed run measures, jumps and ends as the uninterrupted one, bit for bit, and
// a changed byte among them is refused like one among the populations.
TEST(Checkpoint, CarriesTheHeldDensitiesOfThePressureExtrapolation) {
  const FlowSpec flow = buffered_flow();
  ExecutionSpec execution = tight_execution();
  execution.extrapolation.first_interval = 200;  // holds from step 100 on, so early in this short run
  execution.extrapolation.settle = 100;
  const std::filesystem::path dir = scratch_dir("rockperm_checkpoint_held");
  const std::filesystem::path file = dir / checkpoint_name;

  auto whole = start(flow, execution);
  whole->run();
  ASSERT_TRUE(whole->converged());

  auto first = start(flow, execution);
  for (int c = 0; c < 5; ++c) first->advance();  // step 250: held once, at step 100... 200
  const Simulation::State state = first->save();
  ASSERT_FALSE(state.held.empty()) << "no densities held at the checkpoint: no test of carrying them";
  write_checkpoint(parallel::Comm(), *first, file, identity);

  auto resumed = start(flow, execution);
  read_checkpoint(parallel::Comm(), *resumed, file, identity);
  EXPECT_EQ(resumed->save().held, state.held);
  resumed->run();
  EXPECT_EQ(resumed->result().k.k_lattice, whole->result().k.k_lattice);  // bit for bit
  EXPECT_EQ(resumed->result().steps, whole->result().steps);
  EXPECT_EQ(resumed->result().extrapolations, whole->result().extrapolations);

  const std::uint64_t size = std::filesystem::file_size(file);
  std::filesystem::copy_file(file, dir / "intact.rpk");
  flip(file, size - 3, 1);  // a byte of the last cell's held change
  EXPECT_NE(refusal(file, flow, execution).find("damaged"), std::string::npos) << refusal(file, flow, execution);

  // a checkpoint of a layout before (format 04: no verification of the last jump; 05: the interior
  // reading's drive) is refused, naming it
  std::filesystem::copy_file(dir / "intact.rpk", file, std::filesystem::copy_options::overwrite_existing);
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(7);
    f.put('4');
  }
  EXPECT_NE(refusal(file, flow, execution).find("earlier rockperm build (format 04"), std::string::npos)
      << refusal(file, flow, execution);
  {  // issue 49: a later format was called "written by an earlier rockperm build"
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(7);
    f.put('7');
  }
  EXPECT_NE(refusal(file, flow, execution).find("a later rockperm build (format 07"), std::string::npos)
      << refusal(file, flow, execution);
  std::filesystem::remove_all(dir);
}

}  // namespace rockperm::pipeline
