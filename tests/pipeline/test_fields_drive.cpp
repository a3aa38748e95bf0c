// The flow fields written for ParaView hold the flow of the stated pressure gradient across the
// sample: k recomputed from them (mu <u> / gradient over the planes k is read on) equals the k
// reported, in every inlet/outlet mode. Audit finding 1: with buffers the fields were 1.70x too
// fast (scaled by the body force, not by the drive inside the sample that k divides by).
#include <gtest/gtest.h>
#include <unistd.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkStringArray.h>
#include <vtkXMLPImageDataReader.h>

#include <cmath>
#include <filesystem>

#include "pipeline/fields.hpp"
#include "tests/pipeline_support.hpp"

namespace rockperm::pipeline {

namespace {

// A duct along x with a post in it: a sample whose buffers resist less than it does, so that the
// drive inside it differs from the body force by a good margin.
geometry::PoreMask ducted(std::int64_t length) {
  return testing::mask_from(geometry::Dims{length, 10, 10}, [](auto x, auto y, auto z) {
    const bool duct = y >= 2 && y < 8 && z >= 2 && z < 8;
    const bool post = x % 8 == 3 && y >= 4 && y < 6;
    return duct && !post;
  });
}

struct Fields {
  double k_m2 = 0;      // from the written velocity
  std::string drive;    // the file's note on the gradient
  std::string units;
};

}  // namespace

class FieldsDrive : public ::testing::TestWithParam<geometry::InletOutlet> {};

TEST_P(FieldsDrive, KFromTheWrittenFieldsIsTheReportedK) {
  FlowSpec flow = testing::periodic_flow(0.8, 1e-5, {false, false, false});
  flow.inlet_outlet = GetParam();
  flow.buffer_layers = 4;
  flow.validate();
  testing::PipelineSettings settings;
  settings.tolerance = 1e-8;
  const ExecutionSpec execution = testing::test_execution(settings);
  const parallel::Comm comm;
  const double voxel_um = 3.0;
  Sample sample = sample_from_mask(comm, ducted(32), voxel_um, flow, false, "duct");
  const ExecutionPlan plan = plan_execution(comm, execution, sample.plane_fluid);
  FieldSpec spec;
  spec.viscosity_pa_s = 2e-3;
  spec.pressure_gradient_pa_per_m = 3e4;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rockperm_fields_drive_" + std::to_string(::getpid()) + "_" +
                                                to_string(GetParam()));
  std::filesystem::remove_all(dir);
  const FieldsOutput out(spec, dir, sample, flow);
  RankLattice part = decompose(comm, sample, flow.periodicity(), plan.propagation, flow.edge_contacts);
  Simulation simulation(comm, sample, std::move(part), flow, execution, plan);
  simulation.run();
  ASSERT_TRUE(simulation.converged());
  const SampleResult r = simulation.result();
  if (GetParam() == geometry::InletOutlet::buffer) {
    EXPECT_GT(r.drive.acceleration / flow.force, 1.05);  // the case the audit found: the drive is not g
  }
  const FieldsWritten written = out.write(comm, simulation);

  vtkNew<vtkXMLPImageDataReader> reader;
  reader->SetFileName(written.index.string().c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  vtkDataArray* velocity = image->GetCellData()->GetArray("velocity");
  ASSERT_NE(velocity, nullptr);
  int extent[6];
  image->GetExtent(extent);
  const std::int64_t nx = extent[1] - extent[0], ny = extent[3] - extent[2], nz = extent[5] - extent[4];
  ASSERT_EQ(nx, r.dims.nx);
  // the planes k is read on: the sample's between buffers, else the whole period
  std::int64_t from = 0, to = nx;
  if (GetParam() == geometry::InletOutlet::buffer) {
    from = sample.sample_begin;
    to = sample.sample_end;
  }
  double sum = 0;
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      for (std::int64_t x = from; x < to; ++x) sum += velocity->GetComponent((z * ny + y) * nx + x, 0);
    }
  }
  const double darcy = sum / static_cast<double>((to - from) * ny * nz);  // m/s
  const double k_fields = spec.viscosity_pa_s * darcy / spec.pressure_gradient_pa_per_m;
  EXPECT_NEAR(k_fields / r.k.k_m2, 1.0, 1e-6) << "k from the fields " << k_fields << " m2, reported " << r.k.k_m2;
  // the file says what it holds
  auto* drive = vtkStringArray::SafeDownCast(image->GetFieldData()->GetAbstractArray("drive"));
  auto* units = vtkStringArray::SafeDownCast(image->GetFieldData()->GetAbstractArray("units"));
  ASSERT_NE(drive, nullptr);
  ASSERT_NE(units, nullptr);
  EXPECT_NE(drive->GetValue(0).find("30000 Pa/m"), std::string::npos) << drive->GetValue(0);
  EXPECT_NE(units->GetValue(0).find("velocity: m/s"), std::string::npos);
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryMode, FieldsDrive,
                         ::testing::Values(geometry::InletOutlet::periodic, geometry::InletOutlet::buffer,
                                           geometry::InletOutlet::mirror),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace rockperm::pipeline
