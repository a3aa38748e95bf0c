// Fields written for ParaView, read back with VTK's own readers: extents, spacing, array
// names and values (a slit flow against the SI Poiseuille profile), solid voxels masked.
#include <gtest/gtest.h>
#include <unistd.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>

#include <cmath>

#include "io/field_writer.hpp"
#include "lib/base/error.hpp"
#include "tests/test_support.hpp"

namespace rockperm::io {

namespace {
constexpr int H = 8;           // slit width, voxels
constexpr double tau = 0.9, g = 1e-5;

struct SlitRun {
  lattice::SparseLattice lattice;
  backend::Macroscopic owned;
  physics::CollisionParams params;
};

// A slit between walls at y = 0 and y = H, periodic along x (flow) and z; with `obstacle`,
// one solid voxel at (1, 3, 2) so the mask has something to show.
SlitRun slit(bool obstacle) {
  const geometry::Dims d{3, H, 6};
  SlitRun r;
  r.lattice = lattice::SparseLattice::build(
      testing::mask_from(d, [&](auto x, auto y, auto z) { return !(obstacle && x == 1 && y == 3 && z == 2); }),
      {true, false, true});
  r.params = physics::make_collision_params(physics::CollisionModel::trt, tau, 3.0 / 16.0, 0, g);
  r.owned = testing::steady_flow(r.lattice, physics::CollisionModel::trt, tau, g, 0, 1e-7).owned;
  return r;
}

FieldOutput output(const std::string& name) {
  FieldOutput o;
  // one folder per process: ctest runs the cases of this file side by side
  o.dir = std::filesystem::temp_directory_path() / ("rockperm_fields_" + std::to_string(::getpid()));
  o.name = name;
  o.voxel_size_m = 2e-6;
  o.viscosity_pa_s = 1e-3;
  o.pressure_gradient_pa_m = 1e5;
  o.nu_lattice = physics::viscosity(tau);
  o.g_lattice = g;
  return o;
}
}  // namespace

TEST(FieldWriter, TwoPiecesReadBackAsOneDatasetInSiUnits) {
  const SlitRun run = slit(false);
  std::filesystem::remove_all(output("").dir);
  const OutputGrid grid = output_grid(output("slit"), run.lattice.dims());
  // two "ranks": planes 0..2 and 3..5 of the same lattice
  const std::vector<std::pair<std::int64_t, std::int64_t>> slabs = {{0, 3}, {3, 6}};
  for (int r = 0; r < 2; ++r) {
    const FieldPiece piece{&run.lattice, &run.owned, 0, slabs[r].first, slabs[r].second};
    EXPECT_EQ(write_field_piece(grid, piece, r), "slit_" + std::to_string(r) + ".vti");
  }
  write_field_index(grid, slabs);

  vtkNew<vtkXMLPImageDataReader> reader;
  reader->SetFileName((output("").dir / "slit.pvti").string().c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  int extent[6];
  image->GetExtent(extent);
  EXPECT_EQ(extent[1], 3);
  EXPECT_EQ(extent[3], H);
  EXPECT_EQ(extent[5], 6);
  double spacing[3];
  image->GetSpacing(spacing);
  for (double s : spacing) EXPECT_DOUBLE_EQ(s, 2e-6);
  vtkCellData* cells = image->GetCellData();
  for (const char* name : {"velocity", "pressure", "pore", "velocity_lattice", "density_lattice"}) {
    ASSERT_NE(cells->GetArray(name), nullptr) << name;
  }
  vtkDataArray* velocity = cells->GetArray("velocity");
  vtkDataArray* pore = cells->GetArray("pore");
  ASSERT_EQ(velocity->GetNumberOfComponents(), 3);
  const double G = 1e5, mu = 1e-3, dx = 2e-6;
  double worst = 0;
  for (int z = 0; z < 6; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < 3; ++x) {
        const int ijk[3] = {x, y, z};
        const vtkIdType id = image->ComputeCellId(const_cast<int*>(ijk));
        EXPECT_EQ(pore->GetTuple1(id), 1.0);
        const double yc = (y + 0.5) * dx;  // wall at y = 0
        const double exact = G / (2 * mu) * yc * (H * dx - yc);
        worst = std::max(worst, std::abs(velocity->GetComponent(id, 0) / exact - 1.0));
      }
  // the lattice solution is the exact parabola (TRT, Lambda = 3/16); float storage and the
  // float array leave ~1e-5
  EXPECT_LT(worst, 1e-4);
  EXPECT_GT(velocity->GetRange(0)[1], 0.0);
}

TEST(FieldWriter, SolidVoxelsAreMaskedWithZeroVelocity) {
  const SlitRun run = slit(true);
  const OutputGrid grid = output_grid(output("obstacle"), run.lattice.dims());
  const FieldPiece piece{&run.lattice, &run.owned, 0, 0, 6};
  const std::string name = write_field_piece(grid, piece, 0);
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName((output("").dir / name).string().c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  vtkDataArray* velocity = image->GetCellData()->GetArray("velocity");
  vtkDataArray* lattice_velocity = image->GetCellData()->GetArray("velocity_lattice");
  vtkDataArray* pore = image->GetCellData()->GetArray("pore");
  const double scale = physics::viscosity(tau) / g * 1e5 / 1e-3 * 2e-6 * 2e-6;
  for (vtkIdType id = 0; id < image->GetNumberOfCells(); ++id) {
    EXPECT_NEAR(velocity->GetComponent(id, 0), lattice_velocity->GetComponent(id, 0) * scale,
                1e-6 * std::abs(velocity->GetComponent(id, 0)) + 1e-30);
  }
  int ijk[3] = {1, 3, 2};
  const vtkIdType solid = image->ComputeCellId(ijk);
  EXPECT_EQ(pore->GetTuple1(solid), 0.0);
  for (int a = 0; a < 3; ++a) EXPECT_EQ(velocity->GetComponent(solid, a), 0.0);
  ijk[1] = 5;
  EXPECT_EQ(pore->GetTuple1(image->ComputeCellId(ijk)), 1.0);
  EXPECT_GT(velocity->GetComponent(image->ComputeCellId(ijk), 0), 0.0);
}

// With the formation factor the potential of every pore cell is written beside the flow, NaN in
// the grains, and the index declares it; without it there is no such array.
TEST(FieldWriter, ThePotentialIsWrittenWhereAskedAndNaNInTheGrains) {
  const SlitRun run = slit(true);
  std::vector<float> potential(run.lattice.owned_end() - run.lattice.owned_begin());
  for (std::size_t k = 0; k < potential.size(); ++k) potential[k] = -static_cast<float>(run.lattice.coords()[k].x) * 2e-6f;
  FieldOutput o = output("potential");
  o.potential = true;
  const OutputGrid grid = output_grid(o, run.lattice.dims());
  const FieldPiece piece{&run.lattice, &run.owned, 0, 0, 6, &potential};
  const std::string name = write_field_piece(grid, piece, 0);
  write_field_index(grid, {{0, 6}});
  vtkNew<vtkXMLPImageDataReader> reader;
  reader->SetFileName((output("").dir / "potential.pvti").string().c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  vtkDataArray* v = image->GetCellData()->GetArray("potential");
  ASSERT_NE(v, nullptr);
  int ijk[3] = {1, 3, 2};
  EXPECT_TRUE(std::isnan(v->GetTuple1(image->ComputeCellId(ijk))));  // the solid voxel
  ijk[0] = 2;
  EXPECT_FLOAT_EQ(static_cast<float>(v->GetTuple1(image->ComputeCellId(ijk))), -4e-6f);
  // without it: no array
  const OutputGrid plain = output_grid(output("plain"), run.lattice.dims());
  const std::string plain_name = write_field_piece(plain, FieldPiece{&run.lattice, &run.owned, 0, 0, 6}, 0);
  vtkNew<vtkXMLImageDataReader> one;
  one->SetFileName((output("").dir / plain_name).string().c_str());
  one->Update();
  EXPECT_EQ(one->GetOutput()->GetCellData()->GetArray("potential"), nullptr);
}

TEST(FieldWriter, CropAndStride) {
  const SlitRun run = slit(false);
  FieldOutput o = output("crop");
  o.offset = {0, 2, 1};
  o.size = {3, 5, 0};
  o.stride = 2;
  o.origin_voxels = {0, 0, -3};  // as if 3 buffer layers preceded the sample along z
  const OutputGrid grid = output_grid(o, run.lattice.dims());
  EXPECT_EQ(grid.cells, (std::array<std::int64_t, 3>{2, 3, 3}));
  const FieldPiece piece{&run.lattice, &run.owned, 0, 0, 6};
  const std::string name = write_field_piece(grid, piece, 0);
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName((o.dir / name).string().c_str());
  reader->Update();
  double spacing[3], origin[3];
  reader->GetOutput()->GetSpacing(spacing);
  reader->GetOutput()->GetOrigin(origin);
  EXPECT_DOUBLE_EQ(spacing[0], 4e-6);
  EXPECT_DOUBLE_EQ(origin[1], 4e-6);
  EXPECT_DOUBLE_EQ(origin[2], (1 - 3) * 2e-6);
  EXPECT_EQ(reader->GetOutput()->GetNumberOfCells(), 2 * 3 * 3);
  o.offset = {0, 9, 0};
  EXPECT_THROW(output_grid(o, run.lattice.dims()), InputError);
}

}  // namespace rockperm::io
