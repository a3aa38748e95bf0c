#include "lib/pressure_planes.hpp"

namespace rockperm {

PlaneDensity plane_density(const SparseLattice& lattice, const std::vector<float>& f,
                           const physics::CollisionParams& params, int flow_axis, std::int64_t plane,
                           std::int64_t first_local_z) {
  PlaneDensity out;
  for (std::uint32_t c = lattice.owned_begin(); c < lattice.owned_end(); ++c) {
    const Coord& xyz = lattice.coords()[c];
    const std::int64_t pos[3] = {xyz.x, xyz.y, first_local_z + xyz.z};
    if (pos[flow_axis] != plane) continue;
    float v[lattice::q];
    for (int i = 0; i < lattice::q; ++i) v[i] = f[i * lattice.stride() + c];
    out.sum += 1.0 + static_cast<double>(physics::moments(v, params).drho);
    ++out.cells;
  }
  return out;
}

double effective_acceleration(double g, double rho_in, double rho_out, double length) {
  const double rho = 0.5 * (rho_in + rho_out);
  return g - (rho_out - rho_in) / 3.0 / (rho * length);
}

}  // namespace rockperm
