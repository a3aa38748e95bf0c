#include "lib/geometry/sphere_pack.hpp"

#include <cmath>
#include <vector>

#include "lib/base/error.hpp"
#include "lib/base/split_mix.hpp"

namespace rockperm::geometry {

namespace {
struct Sphere {
  double x, y, z, r;
};

// Labels the voxels of `v` whose centre lies inside `s` (coordinates in v's voxels) solid,
// periodic along all axes; returns how many turned solid.
std::uint64_t paint(Volume& v, const Sphere& s) {
  const Dims& d = v.dims;
  std::uint64_t painted = 0;
  const auto reach = static_cast<std::int64_t>(std::ceil(s.r));
  for (std::int64_t k = -reach; k <= reach; ++k) {
    const std::int64_t z = static_cast<std::int64_t>(std::floor(s.z)) + k;
    const double dz = (static_cast<double>(z) + 0.5) - s.z;
    const std::int64_t zw = ((z % d.nz) + d.nz) % d.nz;
    for (std::int64_t j = -reach; j <= reach; ++j) {
      const std::int64_t y = static_cast<std::int64_t>(std::floor(s.y)) + j;
      const double dy = (static_cast<double>(y) + 0.5) - s.y;
      const std::int64_t yw = ((y % d.ny) + d.ny) % d.ny;
      for (std::int64_t i = -reach; i <= reach; ++i) {
        const std::int64_t x = static_cast<std::int64_t>(std::floor(s.x)) + i;
        const double dx = (static_cast<double>(x) + 0.5) - s.x;
        if (dx * dx + dy * dy + dz * dz > s.r * s.r) continue;
        const std::int64_t xw = ((x % d.nx) + d.nx) % d.nx;
        std::uint8_t& label = v.labels[d.linear(xw, yw, zw)];
        if (label == pack_pore_label) {
          label = pack_solid_label;
          ++painted;
        }
      }
    }
  }
  return painted;
}
}  // namespace

Volume make_sphere_pack(const SpherePackSpec& spec) {
  validate_dims(spec.dims, "sphere pack");
  if (!(spec.porosity > 0.0 && spec.porosity < 1.0)) {
    throw InputError("sphere pack porosity " + std::to_string(spec.porosity) + " is not in (0, 1)");
  }
  if (!(spec.radius >= 1.0) || !(spec.radius_spread >= 0.0 && spec.radius_spread < 1.0)) {
    throw InputError("sphere pack radius must be >= 1 voxel and the spread in [0, 1)");
  }
  if (!(spec.scale >= 1.0 && spec.scale <= 16.0)) {
    throw InputError("sphere pack scale " + std::to_string(spec.scale) + " is not in [1, 16]");
  }
  // the spheres are chosen on the grid of spec.dims until the porosity is reached there
  Volume base;
  base.dims = spec.dims;
  base.voxel_size_um = 1.0;
  base.labels.assign(spec.dims.voxels(), pack_pore_label);
  const Dims& d = spec.dims;
  const auto target_solid = static_cast<std::uint64_t>(std::ceil((1.0 - spec.porosity) * static_cast<double>(d.voxels())));
  std::vector<Sphere> spheres;
  std::uint64_t solid = 0;
  SplitMix64 rng{spec.seed};
  while (solid < target_solid) {
    Sphere s;
    s.x = rng.uniform() * d.nx;
    s.y = rng.uniform() * d.ny;
    s.z = rng.uniform() * d.nz;
    s.r = spec.radius * (1.0 + spec.radius_spread * (2.0 * rng.uniform() - 1.0));
    spheres.push_back(s);
    solid += paint(base, s);
  }
  if (spec.scale == 1.0) return base;
  // the same spheres on a grid `scale` times finer (a resolution study of one geometry)
  Volume fine;
  fine.dims = Dims{static_cast<std::int64_t>(std::llround(d.nx * spec.scale)), static_cast<std::int64_t>(std::llround(d.ny * spec.scale)),
                   static_cast<std::int64_t>(std::llround(d.nz * spec.scale))};
  validate_dims(fine.dims, "scaled sphere pack");
  fine.voxel_size_um = 1.0;
  fine.labels.assign(fine.dims.voxels(), pack_pore_label);
  for (Sphere s : spheres) {
    s.x *= spec.scale;
    s.y *= spec.scale;
    s.z *= spec.scale;
    s.r *= spec.scale;
    paint(fine, s);
  }
  return fine;
}

}  // namespace rockperm::geometry
