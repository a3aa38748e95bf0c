// rockperm-make-pack: writes a deterministic periodic pack of overlapping spheres as raw uint8
// (0 pore, 1 solid). The bundled sample samples/sphere_pack_64.raw was made with
//   rockperm-make-pack --dims "64 64 64" --porosity 0.35 --radius 6 --seed 2026 --out samples/sphere_pack_64.raw
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>
#include <iostream>

#include "app/options.hpp"
#include "lib/base/error.hpp"
#include "lib/geometry/sphere_pack.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  try {
    po::options_description opts("usage: rockperm-make-pack --out FILE.raw [options]");
    opts.add_options()("help,h", "this text")
        ("dims", po::value<std::string>()->default_value("64 64 64"), "dimensions in voxels")
        ("porosity", po::value<double>()->default_value(0.35), "target pore fraction")
        ("radius", po::value<double>()->default_value(6.0), "mean sphere radius, voxels")
        ("spread", po::value<double>()->default_value(0.25), "relative spread of the radii")
        ("seed", po::value<std::uint64_t>()->default_value(2026), "random seed")
        ("scale", po::value<double>()->default_value(1.0),
         "voxelize the same spheres on a grid this many times finer (dims x scale voxels), for resolution studies")
        ("grey", po::value<double>()->default_value(0.0),
         "share of the solid relabelled 2 (a second pack's spheres where they overlap the solid): "
         "grains of sub-resolution porosity for input.grey_labels = 2:...")
        ("vugs", po::value<double>()->default_value(0.0),
         "share of the volume made open vugs: a second pack's spheres of --vug-radius, pore wherever they lie, "
         "joined only through the first pack's finer pores (a multi-scale medium with a slow mode: the vugs "
         "fill through the fine matrix)")
        ("vug-radius", po::value<double>()->default_value(0.0), "mean radius of the vugs, voxels (with --vugs)")
        ("vug-shell", po::value<int>()->default_value(0),
         "with --vugs: a shell this many voxels thick around each vug made of a tighter pack (--shell-porosity, "
         "grains half the size): vugs as storage behind narrow pores, filling slower than the flow path relaxes")
        ("shell-porosity", po::value<double>()->default_value(0.08), "porosity of the vugs' shells (with --vug-shell)")
        ("out", po::value<std::string>(), "output raw file");
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, opts), vm);
    if (vm.count("help") || !vm.count("out")) {
      std::cout << opts;
      return vm.count("help") ? 0 : 2;
    }
    rockperm::geometry::SpherePackSpec spec;
    spec.dims = rockperm::app::parse_dims(vm["dims"].as<std::string>(), "--dims");
    spec.porosity = vm["porosity"].as<double>();
    spec.radius = vm["radius"].as<double>();
    spec.radius_spread = vm["spread"].as<double>();
    spec.seed = vm["seed"].as<std::uint64_t>();
    spec.scale = vm["scale"].as<double>();
    rockperm::geometry::Volume v = rockperm::geometry::make_sphere_pack(spec);
    const double grey = vm["grey"].as<double>();
    if (!(grey >= 0 && grey < 1)) throw rockperm::InputError("--grey must be in [0, 1): the share of the solid made grey");
    if (grey > 0) {  // a second pack of the same spheres' sizes; its solid, where it meets the first's, is grey
      rockperm::geometry::SpherePackSpec second = spec;
      second.seed = spec.seed + 7919;
      second.porosity = 1.0 - grey;
      const rockperm::geometry::Volume b = rockperm::geometry::make_sphere_pack(second);
      for (std::size_t i = 0; i < v.labels.size(); ++i) {
        if (v.labels[i] == rockperm::geometry::pack_solid_label && b.labels[i] == rockperm::geometry::pack_solid_label)
          v.labels[i] = 2;
      }
    }
    const double vugs = vm["vugs"].as<double>(), vug_radius = vm["vug-radius"].as<double>();
    if (!(vugs >= 0 && vugs < 0.5)) throw rockperm::InputError("--vugs must be in [0, 0.5): the share of the volume made vugs");
    if (vugs > 0) {
      if (!(vug_radius > spec.radius)) {
        throw rockperm::InputError("--vug-radius must be larger than --radius: vugs are the coarse scale");
      }
      rockperm::geometry::SpherePackSpec coarse = spec;
      coarse.seed = spec.seed + 104729;
      coarse.radius = vug_radius;
      coarse.porosity = 1.0 - vugs;  // its spheres fill `vugs` of the volume
      const rockperm::geometry::Volume c = rockperm::geometry::make_sphere_pack(coarse);
      const int shell = vm["vug-shell"].as<int>();
      const double shell_porosity = vm["shell-porosity"].as<double>();
      if (shell < 0 || shell > 64) throw rockperm::InputError("--vug-shell must be 0 to 64 voxels");
      if (!(shell_porosity > 0 && shell_porosity < 1)) throw rockperm::InputError("--shell-porosity must be in (0, 1)");
      std::vector<std::uint8_t> near(c.labels.size());  // the vugs dilated by `shell` (a box, periodic)
      for (std::size_t i = 0; i < near.size(); ++i) near[i] = c.labels[i] == rockperm::geometry::pack_solid_label;
      const rockperm::geometry::Dims d = v.dims;
      const std::int64_t extent[3] = {d.nx, d.ny, d.nz}, stride[3] = {1, d.nx, d.nx * d.ny};
      for (int axis = 0; axis < 3 && shell > 0; ++axis) {
        std::vector<std::uint8_t> out(near.size());
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(near.size()); ++i) {
          const std::int64_t at = (i / stride[axis]) % extent[axis];
          std::uint8_t any = 0;
          for (int o = -shell; o <= shell && !any; ++o) {
            const std::int64_t to = ((at + o) % extent[axis] + extent[axis]) % extent[axis];
            any = near[i + (to - at) * stride[axis]];
          }
          out[i] = any;
        }
        near.swap(out);
      }
      rockperm::geometry::SpherePackSpec tight = spec;
      tight.seed = spec.seed + 15485863;
      tight.radius = std::max(1.5, 0.5 * spec.radius);
      tight.porosity = shell_porosity;
      const rockperm::geometry::Volume t = shell > 0 ? rockperm::geometry::make_sphere_pack(tight) : rockperm::geometry::Volume{};
      for (std::size_t i = 0; i < v.labels.size(); ++i) {
        if (c.labels[i] == rockperm::geometry::pack_solid_label) v.labels[i] = rockperm::geometry::pack_pore_label;
        else if (shell > 0 && near[i]) v.labels[i] = t.labels[i];
      }
    }
    const std::string out = vm["out"].as<std::string>();
    std::FILE* f = std::fopen(out.c_str(), "wb");
    if (!f || std::fwrite(v.labels.data(), 1, v.labels.size(), f) != v.labels.size() || std::fclose(f) != 0) {
      std::cerr << "rockperm-make-pack: error: cannot write " << out << "\n";
      return 1;
    }
    std::uint64_t pore = 0, grey_voxels = 0;
    for (auto l : v.labels) {
      pore += l == rockperm::geometry::pack_pore_label;
      grey_voxels += l == 2;
    }
    std::printf("%s: %s voxels, porosity %.4f", out.c_str(), v.dims.str().c_str(),
                static_cast<double>(pore) / v.labels.size());
    if (grey > 0) std::printf(", grey (label 2) %.4f", static_cast<double>(grey_voxels) / v.labels.size());
    std::printf("\n");
    return 0;
  } catch (const po::error& e) {
    std::cerr << "rockperm-make-pack: error: " << e.what() << "\n";
    return 2;
  } catch (const rockperm::Error& e) {
    std::cerr << "rockperm-make-pack: error: " << e.what() << "\n";
    return e.exit_code();
  }
}
