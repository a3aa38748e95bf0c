#include "lib/sphere_pack.hpp"

#include <cmath>

#include "lib/error.hpp"

namespace rockperm {

namespace {
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};
}  // namespace

Volume make_sphere_pack(const SpherePackSpec& spec) {
  validate_dims(spec.dims, "sphere pack");
  if (!(spec.porosity > 0.0 && spec.porosity < 1.0)) {
    throw InputError("sphere pack porosity " + std::to_string(spec.porosity) + " is not in (0, 1)");
  }
  if (!(spec.radius >= 1.0) || !(spec.radius_spread >= 0.0 && spec.radius_spread < 1.0)) {
    throw InputError("sphere pack radius must be >= 1 voxel and the spread in [0, 1)");
  }
  Volume v;
  v.dims = spec.dims;
  v.voxel_size_um = 1.0;
  v.labels.assign(spec.dims.voxels(), pack_pore_label);
  const Dims& d = spec.dims;
  const std::uint64_t total = d.voxels();
  const auto target_solid = static_cast<std::uint64_t>(std::ceil((1.0 - spec.porosity) * static_cast<double>(total)));
  std::uint64_t solid = 0;
  SplitMix64 rng{spec.seed};
  while (solid < target_solid) {
    const double cx = rng.uniform() * d.nx, cy = rng.uniform() * d.ny, cz = rng.uniform() * d.nz;
    const double r = spec.radius * (1.0 + spec.radius_spread * (2.0 * rng.uniform() - 1.0));
    const auto reach = static_cast<std::int64_t>(std::ceil(r));
    for (std::int64_t k = -reach; k <= reach; ++k) {
      const std::int64_t z = static_cast<std::int64_t>(std::floor(cz)) + k;
      const double dz = (static_cast<double>(z) + 0.5) - cz;
      const std::int64_t zw = ((z % d.nz) + d.nz) % d.nz;
      for (std::int64_t j = -reach; j <= reach; ++j) {
        const std::int64_t y = static_cast<std::int64_t>(std::floor(cy)) + j;
        const double dy = (static_cast<double>(y) + 0.5) - cy;
        const std::int64_t yw = ((y % d.ny) + d.ny) % d.ny;
        for (std::int64_t i = -reach; i <= reach; ++i) {
          const std::int64_t x = static_cast<std::int64_t>(std::floor(cx)) + i;
          const double dx = (static_cast<double>(x) + 0.5) - cx;
          if (dx * dx + dy * dy + dz * dz > r * r) continue;
          const std::int64_t xw = ((x % d.nx) + d.nx) % d.nx;
          std::uint8_t& label = v.labels[d.linear(xw, yw, zw)];
          if (label == pack_pore_label) {
            label = pack_solid_label;
            ++solid;
          }
        }
      }
    }
  }
  return v;
}

}  // namespace rockperm
